package journal

import (
	"os"
	"syscall"
)

// syncData makes written data durable. fdatasync skips the inode timestamps
// that fsync would also flush; the file size, which recovery needs, is still
// written.
func syncData(f *os.File) error {
	for {
		err := syscall.Fdatasync(int(f.Fd()))
		if err != syscall.EINTR {
			return err
		}
	}
}
