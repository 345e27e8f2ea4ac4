package journal

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// Snapshot file layout (little-endian), one file per snapshot named
// snap-<seq, 20 digits>.snap:
//
//	off   size  field
//	0     8     magic "PMXSNAP1"
//	8     8     seq: the last journal record applied to the state
//	16    8     n: payload length
//	24    n     payload (the machine's own encoding)
//	24+n  4     CRC32C over bytes [0, 24+n)
//
// A snapshot is written to a .tmp file, fsynced, renamed into place and the
// directory fsynced, so a crash leaves either no snapshot or a whole one.
const (
	snapMagic   = "PMXSNAP1"
	snapPrefix  = "snap-"
	snapExt     = ".snap"
	snapTmpExt  = ".tmp"
	snapOrphExt = ".orphan"
	snapHeader  = 24
)

// ErrNoSnapshot means no valid snapshot was found.
var ErrNoSnapshot = errors.New("journal: no valid snapshot")

func snapshotPath(dir string, seq uint64) string {
	return filepath.Join(dir, fmt.Sprintf("%s%020d%s", snapPrefix, seq, snapExt))
}

// EncodeSnapshot frames a snapshot payload.
func EncodeSnapshot(seq uint64, payload []byte) []byte {
	b := make([]byte, 0, snapHeader+len(payload)+4)
	b = append(b, snapMagic...)
	b = binary.LittleEndian.AppendUint64(b, seq)
	b = binary.LittleEndian.AppendUint64(b, uint64(len(payload)))
	b = append(b, payload...)
	return binary.LittleEndian.AppendUint32(b, crc32.Checksum(b, castagnoli))
}

// DecodeSnapshot checks a framed snapshot and returns its sequence number and
// payload (aliasing b).
func DecodeSnapshot(b []byte) (uint64, []byte, error) {
	if len(b) < snapHeader+4 || !bytes.Equal(b[:8], []byte(snapMagic)) {
		return 0, nil, ErrCorrupt
	}
	n := binary.LittleEndian.Uint64(b[16:24])
	if n != uint64(len(b)-snapHeader-4) {
		return 0, nil, ErrCorrupt
	}
	body := b[:len(b)-4]
	if crc32.Checksum(body, castagnoli) != binary.LittleEndian.Uint32(b[len(b)-4:]) {
		return 0, nil, ErrCorrupt
	}
	return binary.LittleEndian.Uint64(b[8:16]), b[snapHeader : snapHeader+n], nil
}

// WriteSnapshot durably stores a snapshot of the state after record seq.
func WriteSnapshot(dir string, seq uint64, payload []byte) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	final := snapshotPath(dir, seq)
	tmp := final + snapTmpExt
	f, err := os.OpenFile(tmp, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	_, err = f.Write(EncodeSnapshot(seq, payload))
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, final)
	}
	if err == nil {
		err = syncDir(dir)
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("journal: snapshot %d: %w", seq, err)
	}
	return nil
}

// Snapshots lists the sequence numbers of the snapshot files in dir,
// ascending, without validating them. A missing dir has none.
func Snapshots(dir string) ([]uint64, error) {
	ents, err := os.ReadDir(dir)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return snapshotSeqs(ents), nil
}

// snapshotSeqs picks the snapshot files out of a directory listing and
// returns their sequence numbers, ascending.
func snapshotSeqs(ents []os.DirEntry) []uint64 {
	var out []uint64
	for _, e := range ents {
		name := e.Name()
		if !strings.HasPrefix(name, snapPrefix) || !strings.HasSuffix(name, snapExt) {
			continue
		}
		seq, err := strconv.ParseUint(strings.TrimSuffix(strings.TrimPrefix(name, snapPrefix), snapExt), 10, 64)
		if err == nil {
			out = append(out, seq)
		}
	}
	slices.Sort(out)
	return out
}

// LoadSnapshot returns the newest valid snapshot whose sequence number is at
// most maxSeq. Invalid files are skipped (an older snapshot is used
// instead); ErrNoSnapshot if none qualifies.
func LoadSnapshot(dir string, maxSeq uint64) (uint64, []byte, error) {
	seqs, err := Snapshots(dir)
	if err != nil {
		return 0, nil, err
	}
	for i := len(seqs) - 1; i >= 0; i-- {
		if seqs[i] > maxSeq {
			continue
		}
		b, err := os.ReadFile(snapshotPath(dir, seqs[i]))
		if err != nil {
			continue
		}
		seq, payload, err := DecodeSnapshot(b)
		if err != nil || seq != seqs[i] {
			continue
		}
		return seq, payload, nil
	}
	return 0, nil, ErrNoSnapshot
}

// CleanSnapshots removes leftover .tmp files and renames snapshots newer than
// maxSeq (state the journal no longer holds, after its tail was lost) to
// .orphan so they are kept for inspection but never loaded. It returns the
// orphaned sequence numbers.
func CleanSnapshots(dir string, maxSeq uint64) ([]uint64, error) {
	ents, err := os.ReadDir(dir)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	for _, e := range ents {
		if strings.HasSuffix(e.Name(), snapExt+snapTmpExt) {
			os.Remove(filepath.Join(dir, e.Name()))
		}
	}
	// A .snap.tmp name does not end in .snap, so the listing's snapshots
	// are the same after the removals above.
	var orphans []uint64
	for _, s := range snapshotSeqs(ents) {
		if s <= maxSeq {
			continue
		}
		p := snapshotPath(dir, s)
		if err := os.Rename(p, p+snapOrphExt); err != nil {
			return orphans, err
		}
		orphans = append(orphans, s)
	}
	if len(orphans) > 0 {
		return orphans, syncDir(dir)
	}
	return nil, nil
}

// PruneSnapshots keeps the newest keep snapshots and removes the rest. It
// returns the sequence number of the oldest snapshot kept (0 if none), the
// point through which journal segments may be pruned.
func PruneSnapshots(dir string, keep int) (uint64, error) {
	seqs, err := Snapshots(dir)
	if err != nil || len(seqs) == 0 {
		return 0, err
	}
	keep = max(keep, 1)
	if len(seqs) <= keep {
		return seqs[0], nil
	}
	for _, s := range seqs[:len(seqs)-keep] {
		if err := os.Remove(snapshotPath(dir, s)); err != nil && !os.IsNotExist(err) {
			return 0, err
		}
	}
	return seqs[len(seqs)-keep], syncDir(dir)
}
