//go:build !linux

package journal

import (
	"errors"
	"os"
)

var errRing = errors.New("journal: io_uring failed")

// uring exists only on Linux (uring_linux.go).
type uring struct{}

func newURing(func() int) *uring        { return nil }
func (*uring) fdatasync(*os.File) error { return errRing }
func (*uring) close()                   {}
