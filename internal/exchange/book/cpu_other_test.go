//go:build !linux

package book_test

func threadCPU() int64 { return 0 }
