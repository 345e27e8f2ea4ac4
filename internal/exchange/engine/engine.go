package engine

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"pmx/internal/exchange/journal"
)

// Config configures an Engine.
type Config struct {
	// Dir holds the journal (Dir/journal) and snapshots (Dir/snapshots).
	Dir string
	// SegmentBytes is the journal segment size (0: journal default).
	SegmentBytes int64
	// JournalSync replaces fdatasync, for fault injection in tests.
	JournalSync func(*os.File) error
	// JournalLinger is journal.Options.Linger: how long a group commit may
	// wait for more concurrent commands (0: never).
	JournalLinger time.Duration
	// SnapshotEvery takes a snapshot after every command whose sequence
	// number is a multiple of it (0: never). A snapshot is serialized in
	// the apply goroutine and written in the background; if the previous
	// one is still being written, that point is skipped.
	SnapshotEvery uint64
	// KeepSnapshots is how many snapshots are kept (default 2). Journal
	// segments are pruned through the oldest kept one, so a corrupt newest
	// snapshot can fall back to the previous one.
	KeepSnapshots int
	// NoPrune keeps every journal segment (for audits and full replays).
	NoPrune bool
	// Validate, if set, runs in Submit's goroutine before the command is
	// journaled; an error rejects the command without a sequence number.
	// It must not read machine state (it runs concurrently with Apply).
	Validate func(cmd []byte) error
	// MaxBatch bounds how many queued requests the apply goroutine takes at
	// once (default 1024); QueueLen is the queue capacity (default 8192).
	MaxBatch, QueueLen int
}

// Recovery reports what Open restored.
type Recovery struct {
	Journal     journal.Recovery
	SnapshotSeq uint64 // 0: none used, replayed from the start
	Replayed    uint64 // records applied after the snapshot
	// OrphanedSnapshots were newer than the journal's last good record
	// (its tail was lost); they were renamed *.orphan and not used.
	OrphanedSnapshots []uint64
}

var (
	// ErrClosed is returned by Submit after Close.
	ErrClosed = errors.New("engine: closed")
	// ErrGap means the journal no longer holds the records after the
	// newest usable snapshot (they were pruned and the snapshot is gone).
	ErrGap = errors.New("engine: journal gap after snapshot")
)

type kind uint8

const (
	kindCommand kind = iota
	kindHash
	kindSnapshot
	kindView
)

type request[E any] struct {
	kind   kind
	ts     int64
	cmd    []byte
	hint   any // SubmitDecoded's decoded cmd (nil: none)
	seq    uint64
	commit *journal.Commit
	res    Result[E]
	hash   [32]byte
	view   func(Machine[E], uint64)
	err    error
	done   chan struct{} // cap 1, reused through the pool
}

// Engine is a single-writer command loop around a Machine.
type Engine[E any] struct {
	cfg     Config
	snapDir string
	j       *journal.Journal
	m       Machine[E]

	mu     sync.Mutex // orders Enqueue+queue send; guards closed
	closed bool
	queue  chan *request[E]
	pool   sync.Pool

	stopped chan struct{}

	// Owned by the apply goroutine.
	applied uint64
	evbuf   []E

	subMu      sync.Mutex
	subs       []*Subscription[E]
	subsClosed bool // set by Close

	snapWG   sync.WaitGroup
	snapBusy atomic.Bool
	snapErr  atomic.Pointer[error]
}

// Open recovers the machine from the newest valid snapshot plus the journal
// tail and starts the apply loop. m must be a fresh machine.
func Open[E any](cfg Config, m Machine[E]) (*Engine[E], Recovery, error) {
	if cfg.KeepSnapshots <= 0 {
		cfg.KeepSnapshots = 2
	}
	if cfg.MaxBatch <= 0 {
		cfg.MaxBatch = 1024
	}
	if cfg.QueueLen <= 0 {
		cfg.QueueLen = 8192
	}
	var rec Recovery
	j, jrec, err := journal.Open(filepath.Join(cfg.Dir, "journal"), journal.Options{SegmentBytes: cfg.SegmentBytes, Sync: cfg.JournalSync, Linger: cfg.JournalLinger})
	if err != nil {
		return nil, rec, err
	}
	rec.Journal = jrec
	e := &Engine[E]{cfg: cfg, snapDir: filepath.Join(cfg.Dir, "snapshots"), j: j, m: m,
		queue: make(chan *request[E], cfg.QueueLen), stopped: make(chan struct{})}
	e.pool.New = func() any { return &request[E]{done: make(chan struct{}, 1)} }
	if err := e.recover(&rec); err != nil {
		j.Close()
		return nil, rec, err
	}
	go e.loop()
	return e, rec, nil
}

func (e *Engine[E]) recover(rec *Recovery) error {
	last := e.j.LastSeq()
	orphans, err := journal.CleanSnapshots(e.snapDir, last)
	if err != nil {
		return err
	}
	rec.OrphanedSnapshots = orphans
	from := uint64(1)
	seq, payload, err := journal.LoadSnapshot(e.snapDir, last)
	switch {
	case err == nil:
		if err := e.m.Restore(bytes.NewReader(payload)); err != nil {
			return fmt.Errorf("engine: restore snapshot %d: %w", seq, err)
		}
		rec.SnapshotSeq, from = seq, seq+1
	case !errors.Is(err, journal.ErrNoSnapshot):
		return err
	}
	if first := e.j.FirstSeq(); from < first {
		return fmt.Errorf("%w: state at %d, journal starts at %d", ErrGap, from-1, first)
	}
	var out []E
	err = e.j.Replay(from, func(r journal.Record) error {
		out = e.m.Apply(r.Seq, r.TS, r.Payload, out[:0])
		rec.Replayed++
		return nil
	})
	if err != nil {
		return fmt.Errorf("engine: replay: %w", err)
	}
	clear(out)
	e.applied = last
	return nil
}

// Submit validates, journals and applies one command, and returns once the
// command is durable and applied. ts is the command's own timestamp (the
// engine never reads a clock). cmd must not be modified until Submit
// returns. Safe for concurrent use; commands from one goroutine are applied
// in the order submitted.
func (e *Engine[E]) Submit(ts int64, cmd []byte) (Result[E], error) {
	return e.SubmitDecoded(ts, cmd, nil)
}

// SubmitDecoded is Submit for a producer that holds cmd decoded as well:
// a machine that implements DecodedApplier applies hint instead of
// decoding cmd again (replay decodes cmd). hint must be exactly what the
// machine's decoding of cmd gives, and must not be modified until
// SubmitDecoded returns; nil hint: Submit.
func (e *Engine[E]) SubmitDecoded(ts int64, cmd []byte, hint any) (Result[E], error) {
	if e.cfg.Validate != nil {
		if err := e.cfg.Validate(cmd); err != nil {
			return Result[E]{}, err
		}
	}
	r := e.pool.Get().(*request[E])
	r.kind, r.ts, r.cmd, r.hint = kindCommand, ts, cmd, hint
	if err := e.do(r); err != nil {
		e.put(r)
		return Result[E]{}, err
	}
	res, err := r.res, r.err
	e.put(r)
	return res, err
}

// control queues a non-command request behind everything submitted so far.
func (e *Engine[E]) control(k kind, view func(Machine[E], uint64)) (*request[E], error) {
	r := e.pool.Get().(*request[E])
	r.kind, r.view = k, view
	if err := e.do(r); err != nil {
		e.put(r)
		return nil, err
	}
	return r, nil
}

// do queues r for the apply loop and waits until the loop is done with it.
// A command is journaled under the same lock as the queue send, so queue
// order is sequence order. On error r never reached the loop.
func (e *Engine[E]) do(r *request[E]) error {
	e.mu.Lock()
	if e.closed {
		e.mu.Unlock()
		return ErrClosed
	}
	if r.kind == kindCommand {
		r.seq, r.commit = e.j.Enqueue(r.ts, r.cmd)
		if r.seq == 0 { // journal refused it (failed or oversized)
			e.mu.Unlock()
			return r.commit.Err()
		}
	}
	e.queue <- r
	e.mu.Unlock()
	<-r.done
	return nil
}

// Hash returns the machine's state hash and the last applied sequence
// number, taken after every command submitted before the call.
func (e *Engine[E]) Hash() ([32]byte, uint64, error) {
	r, err := e.control(kindHash, nil)
	if err != nil {
		return [32]byte{}, 0, err
	}
	h, seq := r.hash, r.seq
	e.put(r)
	return h, seq, nil
}

// View runs fn on the apply goroutine, after every command submitted before
// the call, with the machine and the last applied sequence number. It is the
// only safe way to read machine state (depth, best prices) from outside.
// fn must not modify m or keep it, and should be quick: the loop waits.
//
// To follow state without gaps: Subscribe first, then View to copy the state
// at seq S, then ignore subscribed commands with Seq <= S.
func (e *Engine[E]) View(fn func(m Machine[E], seq uint64)) error {
	r, err := e.control(kindView, fn)
	if err != nil {
		return err
	}
	e.put(r)
	return nil
}

// Snapshot writes a snapshot now (synchronously) and prunes behind it.
func (e *Engine[E]) Snapshot() (uint64, error) {
	r, err := e.control(kindSnapshot, nil)
	if err != nil {
		return 0, err
	}
	seq, err := r.seq, r.err
	e.put(r)
	return seq, err
}

// JournalGroups is the number of group commits so far (for metrics).
func (e *Engine[E]) JournalGroups() uint64 { return e.j.Groups() }

// SnapshotErr is the error of the last failed background snapshot, if any.
func (e *Engine[E]) SnapshotErr() error {
	if p := e.snapErr.Load(); p != nil {
		return *p
	}
	return nil
}

func (e *Engine[E]) put(r *request[E]) {
	*r = request[E]{done: r.done}
	e.pool.Put(r)
}

// Close stops accepting commands, applies everything already queued, waits
// for a background snapshot and closes the journal.
func (e *Engine[E]) Close() error {
	e.mu.Lock()
	if e.closed {
		e.mu.Unlock()
		<-e.stopped
		return nil
	}
	e.closed = true
	close(e.queue)
	e.mu.Unlock()
	<-e.stopped
	e.snapWG.Wait()
	e.subMu.Lock()
	for _, s := range e.subs {
		close(s.c)
	}
	e.subs, e.subsClosed = nil, true
	e.subMu.Unlock()
	return e.j.Close()
}
