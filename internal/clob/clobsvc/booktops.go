package clobsvc

import (
	"context"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"pmx/internal/catalog/catalog"
	"pmx/internal/clob/clob"
	"pmx/internal/clob/clobengine"
)

// The book lives in the writer's memory; PostgreSQL read nodes (--role
// data) see it through the database: the writer publishes each market's
// book top (clobsql.BookTops), coalesced, and a read node's StoredBookLive
// polls the publish counter and reloads (docs/postgres.md "Roles and read
// nodes").

// BookTopSink stores published book tops (clobsql.BookTops).
type BookTopSink interface {
	Write(ctx context.Context, tops []clob.BookTop) error
}

// BookTopSource reads them back (clobsql.BookTops).
type BookTopSource interface {
	Version(ctx context.Context) (int64, error)
	Read(ctx context.Context) (int64, map[string]clob.BookTop, error)
}

// publishTops writes the changed book tops every BookTopsEvery while
// commands arrive, and once more when the service stops.
func (s *Service) publishTops() {
	defer s.wg.Done()
	every := s.opt.BookTopsEvery
	if every <= 0 {
		every = 250 * time.Millisecond
	}
	t := time.NewTicker(every)
	defer t.Stop()
	var p topPublisher
	for {
		select {
		case <-s.stop:
			p.flush(s)
			return
		case <-t.C:
			p.flush(s)
		}
	}
}

// topPublisher is what was written (the publishing goroutine's own).
type topPublisher struct {
	ver  uint64 // bookVer at the last complete write; 0 before any
	done bool   // a first write happened
	sent map[string]clob.BookTop
}

func (p *topPublisher) flush(s *Service) {
	v := s.bookVer.Load()
	if p.done && v == p.ver {
		return
	}
	if p.sent == nil {
		p.sent = map[string]clob.BookTop{}
	}
	var tops []clob.BookTop
	if err := s.View(func(m *clobengine.Machine) {
		for _, mk := range m.Markets() {
			if t := TopOf(mk); p.sent[t.Cond] != t {
				tops = append(tops, t)
			}
		}
	}); err != nil {
		return
	}
	if len(tops) > 0 {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		err := s.opt.BookTops.Write(ctx, tops)
		cancel()
		if err != nil { // the next tick retries (the version has not moved on)
			s.log.Warn("clob book tops: publish failed", "err", err)
			return
		}
		for _, t := range tops {
			p.sent[t.Cond] = t
		}
	}
	p.ver, p.done = v, true
}

// StoredBookLive is a read node's catalog live source: the data store's
// figures with the book tops the writer published on top (the rules of
// BookLive). It polls the publish counter every interval and reloads the
// rows when it moved.
type StoredBookLive struct {
	Data catalog.LiveFields
	src  BookTopSource
	log  *slog.Logger
	tops atomic.Pointer[storedTops]
	fail bool // the last poll failed (logged once per outage; the poll goroutine's own)
	stop chan struct{}
	done chan struct{}
	once sync.Once

	gen pairGen
}

type storedTops struct {
	version int64
	m       map[string]clob.BookTop
}

// NewStoredBookLive loads the published tops once and polls src every
// interval (default 250 ms) until Close.
func NewStoredBookLive(data catalog.LiveFields, src BookTopSource, every time.Duration, log *slog.Logger) *StoredBookLive {
	if every <= 0 {
		every = 250 * time.Millisecond
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	b := &StoredBookLive{Data: data, src: src, log: log, stop: make(chan struct{}), done: make(chan struct{})}
	b.tops.Store(&storedTops{version: -1})
	b.poll()
	go b.run(every)
	return b
}

func (b *StoredBookLive) run(every time.Duration) {
	defer close(b.done)
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-b.stop:
			return
		case <-t.C:
			b.poll()
		}
	}
}

// poll reloads the rows when the version moved (a failed read keeps the
// last ones: the database's outage shows on the data routes anyway).
func (b *StoredBookLive) poll() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	v, err := b.src.Version(ctx)
	if err == nil && v == b.tops.Load().version {
		b.fail = false
		return
	}
	var m map[string]clob.BookTop
	if err == nil {
		v, m, err = b.src.Read(ctx)
	}
	if err != nil {
		if !b.fail {
			b.log.Warn("clob book tops: read failed (keeping the last ones)", "err", err)
		}
		b.fail = true
		return
	}
	b.fail = false
	b.tops.Store(&storedTops{version: v, m: m})
}

// Close stops polling.
func (b *StoredBookLive) Close() {
	b.once.Do(func() { close(b.stop) })
	<-b.done
}

// LiveGeneration moves with the data store's live generation and with
// every publish the node loaded (as BookLive's).
func (b *StoredBookLive) LiveGeneration() uint64 {
	return b.gen.next(b.Data, uint64(b.tops.Load().version+1))
}

// Live implements catalog.LiveFields.
func (b *StoredBookLive) Live(ctx context.Context, conds []string) (map[string]catalog.Live, error) {
	out, err := b.Data.Live(ctx, conds)
	if err != nil {
		return nil, err
	}
	tops := b.tops.Load().m
	if len(tops) == 0 {
		return out, nil
	}
	if out == nil {
		out = make(map[string]catalog.Live, len(conds))
	}
	for _, c := range conds {
		if t, ok := tops[c]; ok {
			out[c] = WithTop(out[c], t)
		}
	}
	return out, nil
}
