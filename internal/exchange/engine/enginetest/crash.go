// Package enginetest is a crash-recovery harness for engine machines. A test
// calls CrashRecovery; the harness re-executes the test binary as a child
// that runs the engine under load and prints every acknowledged command,
// SIGKILLs it at a random point, recovers in the parent and checks:
//
//   - every command the child acknowledged is in the journal, at the sequence
//     number it was acknowledged with, with the same timestamp and bytes;
//   - the recovered state (snapshot + journal tail) hashes the same as a
//     clean replay of the whole journal into a fresh machine.
//
// The next cycle's child recovers the same directory, so crashes during
// recovery, rotation and snapshot writing are all exercised.
package enginetest

import (
	"bufio"
	"fmt"
	"hash/crc32"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"pmx/internal/exchange/engine"
	"pmx/internal/exchange/journal"
)

const (
	envDir  = "PMX_CRASH_CHILD_DIR"
	envSeed = "PMX_CRASH_CHILD_SEED"
)

// Workload describes the machine under test and its load.
type Workload[E any] struct {
	New      func() engine.Machine[E]
	Validate func(cmd []byte) error
	// Producer returns producer p's command source; each call of the
	// source returns the next command. It must be deterministic in
	// (seed, p) so that failures reproduce.
	Producer func(seed uint64, p int) func() (ts int64, cmd []byte)
	// Producers is the number of concurrent submitters (default 8).
	Producers int
}

// Config of the engine the child runs: small segments and frequent
// snapshots so that crashes land in rotation and snapshot writes. Journal
// segments are never pruned so the parent can replay from the start.
func childConfig(dir string, validate func([]byte) error) engine.Config {
	return engine.Config{Dir: dir, SegmentBytes: 32 << 10, SnapshotEvery: 997, NoPrune: true, Validate: validate}
}

// IsChild reports whether this process is a crash-test child.
func IsChild() bool { return os.Getenv(envDir) != "" }

var crc = crc32.MakeTable(crc32.Castagnoli)

func ackSum(ts int64, cmd []byte) uint32 {
	return crc32.Update(crc32.Checksum(strconv.AppendInt(nil, ts, 10), crc), crc, cmd)
}

// CrashRecovery runs cycles kill/recover cycles. In the child process it
// runs the load instead and never returns.
func CrashRecovery[E any](t *testing.T, w Workload[E], cycles int, seed uint64) {
	if IsChild() {
		runChild(w)
		return
	}
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(seed, 1))
	acks := map[uint64]uint32{} // every ack from every cycle
	usedSnapshot := false
	for c := range cycles {
		// One cycle in four kills the child early, usually while it is still
		// recovering (truncating, orphaning, replaying), not under load.
		early := rng.IntN(4) == 0
		n := crashOnce(t, w, dir, rng.Uint64(), early, time.Duration(20+rng.IntN(250))*time.Millisecond, acks)
		torn := tearTail(t, dir, acks, rng)
		rec := verify(t, w, dir, acks)
		if torn > 0 && rec.Journal.TruncatedBytes == 0 {
			t.Fatalf("cycle %d: tail was damaged but recovery truncated nothing", c)
		}
		usedSnapshot = usedSnapshot || rec.SnapshotSeq > 0
		t.Logf("cycle %d (early kill %v): %d acks this run, %d total; recovered through %d (snapshot %d, replayed %d, torn %d bytes)",
			c, early, n, len(acks), rec.Journal.LastSeq, rec.SnapshotSeq, rec.Replayed, rec.Journal.TruncatedBytes)
		if t.Failed() {
			return
		}
	}
	if !usedSnapshot {
		t.Log("note: no cycle recovered from a snapshot (load too small)")
	}
}

// crashOnce starts a child on dir, lets it run for delay after its first
// ack, kills it with SIGKILL and records its acks.
func crashOnce[E any](t *testing.T, w Workload[E], dir string, seed uint64, early bool, delay time.Duration, acks map[uint64]uint32) int {
	t.Helper()
	pattern := "^" + strings.ReplaceAll(t.Name(), "/", "$/^") + "$"
	cmd := exec.Command(os.Args[0], "-test.run="+pattern, "-test.count=1")
	cmd.Env = append(os.Environ(), envDir+"="+dir, envSeed+"="+strconv.FormatUint(seed, 10))
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	first := make(chan struct{})
	var once sync.Once
	got := map[uint64]uint32{}
	readDone := make(chan struct{})
	go func() {
		defer close(readDone)
		br := bufio.NewReader(out)
		for {
			line, err := br.ReadString('\n')
			if err != nil {
				return // a partial last line is not an ack
			}
			var seq uint64
			var sum uint32
			if _, err := fmt.Sscanf(line, "A %d %d\n", &seq, &sum); err != nil {
				continue
			}
			got[seq] = sum
			once.Do(func() { close(first) })
		}
	}()
	if early {
		time.Sleep(delay / 20) // 1–13 ms after exec: usually still recovering
	} else {
		select {
		case <-first:
		case <-readDone:
			cmd.Wait()
			t.Fatalf("child exited before acknowledging anything")
		case <-time.After(60 * time.Second): // a hang, not a timing assertion
			cmd.Process.Kill()
			t.Fatalf("child made no progress")
		}
		time.Sleep(delay)
	}
	cmd.Process.Kill() // SIGKILL
	<-readDone
	cmd.Wait()
	for s, v := range got {
		if old, ok := acks[s]; ok && old != v {
			t.Errorf("seq %d acknowledged twice with different commands", s)
		}
		acks[s] = v
	}
	return len(got)
}

// tearTail simulates what a power loss can do that SIGKILL cannot (the
// page cache survives a killed process): in two cycles of three it cuts or
// corrupts the last segment, but only past the last acknowledged record,
// since acknowledged records were fsynced (the cut or flipped byte may fall
// in the zeros the journal keeps ahead of its records). It returns 1 if it
// left damage for recovery to detect, else 0.
func tearTail(t *testing.T, dir string, acks map[uint64]uint32, rng *rand.Rand) int {
	t.Helper()
	mode := rng.IntN(3)
	if mode == 0 {
		return 0
	}
	var maxAck uint64
	for s := range acks {
		maxAck = max(maxAck, s)
	}
	segs, err := filepath.Glob(filepath.Join(dir, "journal", "*.wal"))
	if err == nil && len(segs) == 0 && len(acks) == 0 {
		return 0 // killed before the journal existed (an early kill on a slow start): nothing to tear
	}
	if err != nil || len(segs) == 0 {
		t.Fatalf("no segments: %v", err)
	}
	path := segs[len(segs)-1] // zero-padded names sort by sequence
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	// keep is the end of the last acknowledged record in this segment.
	keep := 0
	for off := 0; off < len(b); {
		rec, n, err := journal.DecodeRecord(b[off:])
		if err != nil || rec.Seq > maxAck {
			break
		}
		off += n
		keep = off
	}
	if keep >= len(b) {
		return 0
	}
	if mode == 1 {
		b = b[:keep+rng.IntN(len(b)-keep)]
	} else {
		b[keep+rng.IntN(len(b)-keep)] ^= byte(1 + rng.IntN(255))
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	// The journal keeps zeros after its records: the damage left a torn
	// record for recovery to detect iff a nonzero byte follows the records
	// that still decode (a cut between records or inside the zeros tears
	// nothing).
	off := keep
	for {
		_, n, err := journal.DecodeRecord(b[off:])
		if err != nil {
			break
		}
		off += n
	}
	for _, c := range b[off:] {
		if c != 0 {
			return 1
		}
	}
	return 0
}

// verify recovers dir like a restart would, then replays the whole journal
// into a fresh machine and compares.
func verify[E any](t *testing.T, w Workload[E], dir string, acks map[uint64]uint32) engine.Recovery {
	t.Helper()
	e, rec, err := engine.Open(childConfig(dir, w.Validate), w.New())
	if err != nil {
		t.Fatalf("recovery: %v", err)
	}
	recovered, last, err := e.Hash()
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}

	j, _, err := journal.Open(filepath.Join(dir, "journal"), journal.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	if j.LastSeq() != last {
		t.Fatalf("journal last %d, engine applied %d", j.LastSeq(), last)
	}
	m := w.New()
	var out []E
	seen := 0
	err = j.Replay(1, func(r journal.Record) error {
		if want, ok := acks[r.Seq]; ok {
			if ackSum(r.TS, r.Payload) != want {
				return fmt.Errorf("seq %d: journal holds a different command than was acknowledged", r.Seq)
			}
			seen++
		}
		out = m.Apply(r.Seq, r.TS, r.Payload, out[:0])
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if seen != len(acks) {
		t.Fatalf("%d of %d acknowledged commands missing after recovery (journal ends at %d)", len(acks)-seen, len(acks), last)
	}
	if m.Hash() != recovered {
		t.Fatalf("recovered hash %x != clean replay %x", recovered, m.Hash())
	}
	return rec
}

// runChild opens the engine on the parent's directory and submits commands
// until killed, printing "A seq sum" after each acknowledgement.
func runChild[E any](w Workload[E]) {
	dir := os.Getenv(envDir)
	seed, _ := strconv.ParseUint(os.Getenv(envSeed), 10, 64)
	e, _, err := engine.Open(childConfig(dir, w.Validate), w.New())
	if err != nil {
		fmt.Fprintln(os.Stderr, "child open:", err)
		os.Exit(2)
	}
	producers := max(w.Producers, 1)
	if w.Producers == 0 {
		producers = 8
	}
	lines := make(chan []byte, 4096)
	for p := range producers {
		go func() {
			next := w.Producer(seed, p)
			for {
				ts, cmd := next()
				res, err := e.Submit(ts, cmd)
				if err != nil {
					continue // rejected before the journal: not an ack
				}
				lines <- fmt.Appendf(nil, "A %d %d\n", res.Seq, ackSum(ts, cmd))
			}
		}()
	}
	go func() { // watchdog if the parent vanished
		time.Sleep(2 * time.Minute)
		os.Exit(3)
	}()
	var buf []byte
	for l := range lines {
		buf = append(buf[:0], l...)
	more:
		for len(buf) < 64<<10 {
			select {
			case l := <-lines:
				buf = append(buf, l...)
			default:
				break more
			}
		}
		if _, err := os.Stdout.Write(buf); err != nil {
			os.Exit(4)
		}
	}
}
