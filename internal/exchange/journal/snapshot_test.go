package journal

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func TestSnapshotLoadNewestValid(t *testing.T) {
	tests := []struct {
		name    string
		damage  func(dir string)
		maxSeq  uint64
		wantSeq uint64
		wantErr error
	}{
		{"newest", func(string) {}, 100, 30, nil},
		{"bounded by maxSeq", func(string) {}, 29, 20, nil},
		{"nothing old enough", func(string) {}, 9, 0, ErrNoSnapshot},
		{"newest corrupt", func(dir string) { flipByte(t, snapshotPath(dir, 30), 30) }, 100, 20, nil},
		{"newest truncated", func(dir string) { truncate(t, snapshotPath(dir, 30), 10) }, 100, 20, nil},
		{"renamed file", func(dir string) {
			os.Rename(snapshotPath(dir, 30), snapshotPath(dir, 40))
		}, 100, 20, nil},
		{"all corrupt", func(dir string) {
			for _, s := range []uint64{10, 20, 30} {
				flipByte(t, snapshotPath(dir, s), 8)
			}
		}, 100, 0, ErrNoSnapshot},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			for _, s := range []uint64{10, 20, 30} {
				if err := WriteSnapshot(dir, s, bytes.Repeat([]byte{byte(s)}, int(s))); err != nil {
					t.Fatal(err)
				}
			}
			tc.damage(dir)
			seq, payload, err := LoadSnapshot(dir, tc.maxSeq)
			if !errors.Is(err, tc.wantErr) || seq != tc.wantSeq {
				t.Fatalf("seq %d err %v, want %d %v", seq, err, tc.wantSeq, tc.wantErr)
			}
			if err == nil && !bytes.Equal(payload, bytes.Repeat([]byte{byte(seq)}, int(seq))) {
				t.Fatalf("payload mismatch")
			}
		})
	}
}

func TestCleanAndPruneSnapshots(t *testing.T) {
	dir := t.TempDir()
	for _, s := range []uint64{10, 20, 30, 40} {
		if err := WriteSnapshot(dir, s, []byte("x")); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(snapshotPath(dir, 50)+snapTmpExt, []byte("partial"), 0o644)
	orphans, err := CleanSnapshots(dir, 35)
	if err != nil || !slices.Equal(orphans, []uint64{40}) {
		t.Fatalf("orphans %v err %v", orphans, err)
	}
	if _, err := os.Stat(snapshotPath(dir, 40) + snapOrphExt); err != nil {
		t.Fatal("orphan not kept:", err)
	}
	if m, _ := filepath.Glob(filepath.Join(dir, "*"+snapTmpExt)); len(m) != 0 {
		t.Fatalf("tmp left: %v", m)
	}
	oldest, err := PruneSnapshots(dir, 2)
	if err != nil || oldest != 20 {
		t.Fatalf("oldest %d err %v", oldest, err)
	}
	if seqs, _ := Snapshots(dir); !slices.Equal(seqs, []uint64{20, 30}) {
		t.Fatalf("left %v", seqs)
	}
}

func flipByte(t *testing.T, path string, off int) {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	b[off] ^= 0x80
	os.WriteFile(path, b, 0o644)
}

func truncate(t *testing.T, path string, size int64) {
	if err := os.Truncate(path, size); err != nil {
		t.Fatal(err)
	}
}

func FuzzDecodeSnapshot(f *testing.F) {
	f.Add(EncodeSnapshot(7, []byte("state")))
	f.Add(EncodeSnapshot(0, nil))
	f.Add([]byte(snapMagic + "\x00\x00\x00\x00\x00\x00\x00\x00\xff\xff\xff\xff\xff\xff\xff\xff\x00\x00\x00\x00"))
	f.Fuzz(func(t *testing.T, b []byte) {
		seq, payload, err := DecodeSnapshot(b)
		if err != nil {
			return
		}
		if !bytes.Equal(EncodeSnapshot(seq, payload), b) {
			t.Fatal("re-encoding differs")
		}
	})
}
