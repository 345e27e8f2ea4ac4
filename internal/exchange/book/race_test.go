//go:build race

package book_test

// The race detector slows the book ~10x; differential tests scale down.
const raceEnabled = true
