//go:build !race

package book_test

const raceEnabled = false
