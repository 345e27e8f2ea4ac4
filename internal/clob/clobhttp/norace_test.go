//go:build !race

package clobhttp_test

const raceSlowdown = 1
