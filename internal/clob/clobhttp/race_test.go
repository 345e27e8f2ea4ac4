//go:build race

package clobhttp_test

// The race detector slows the whole venue several times over: the
// one-second rule of TestCLOBFillReachesEveryViewWithinOneSecond is scaled.
const raceSlowdown = 10
