package server

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// DataDir is an opened, exclusively locked data directory. The lock is an
// flock on <dir>/LOCK, so it is released by the kernel if the process dies.
type DataDir struct {
	Path string
	lock *os.File
}

// ErrLocked means another pmx process holds the data dir.
var ErrLocked = errors.New("data dir is locked by another running pmx")

// OpenDataDir creates dir if needed and takes its lock.
func OpenDataDir(dir string) (*DataDir, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(filepath.Join(dir, "LOCK"), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, fmt.Errorf("%s: %w", dir, ErrLocked)
		}
		return nil, err
	}
	_ = f.Truncate(0)
	_, _ = fmt.Fprintf(f, "%d\n", os.Getpid())
	return &DataDir{Path: dir, lock: f}, nil
}

// Close releases the lock.
func (d *DataDir) Close() error {
	if d.lock == nil {
		return nil
	}
	err := d.lock.Close()
	d.lock = nil
	return err
}

// File returns the path of name inside the data dir.
func (d *DataDir) File(name string) string { return filepath.Join(d.Path, name) }

// Secret returns the hex secret stored in file name (32 random bytes, mode
// 0600), creating it on first use. The admin token and the cursor-signing key
// are such secrets.
func (d *DataDir) Secret(name string) (string, error) {
	p := d.File(name)
	b, err := os.ReadFile(p)
	if err == nil {
		s := strings.TrimSpace(string(b))
		if len(s) >= 32 {
			return s, nil
		}
		return "", fmt.Errorf("%s: secret too short", p)
	}
	if !errors.Is(err, os.ErrNotExist) {
		return "", err
	}
	var raw [32]byte
	if _, err := rand.Read(raw[:]); err != nil {
		return "", err
	}
	s := hex.EncodeToString(raw[:])
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return "", err
	}
	if _, err := f.WriteString(s + "\n"); err != nil {
		f.Close()
		return "", err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return "", err
	}
	return s, f.Close()
}
