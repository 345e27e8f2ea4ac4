package journal

import (
	"os"
	"sync"
	"testing"
	"time"
)

// A lone producer never lingers: with a linger of an hour, sequential
// appends still complete (each group holds one record).
func TestLingerLoneProducerNeverWaits(t *testing.T) {
	dir := t.TempDir()
	j, _ := openT(t, dir, Options{Linger: time.Hour})
	appendN(t, j, 50)
	if g := j.Groups(); g != 50 {
		t.Fatalf("groups %d, want one per record", g)
	}
	checkReplay(t, j, 1, 50)
}

// Concurrent producers with a linger: every record is durable once its
// append returns, in sequence order, whatever the grouping.
func TestLingerConcurrentProducers(t *testing.T) {
	dir := t.TempDir()
	j, _ := openT(t, dir, Options{Linger: 2 * time.Millisecond})
	const producers, each = 16, 40
	var wg sync.WaitGroup
	for range producers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range each {
				seq, err := j.Append(1, []byte("x"))
				if err != nil || j.LastSeq() < seq {
					t.Errorf("append %d: %v (durable through %d)", seq, err, j.LastSeq())
					return
				}
			}
		}()
	}
	wg.Wait()
	if j.LastSeq() != producers*each {
		t.Fatalf("last %d", j.LastSeq())
	}
}

// lingering opens a journal whose next group lingers: the group before it
// held three records (a lone producer never lingers).
func lingering(t *testing.T, dir string, opts Options) *Journal {
	t.Helper()
	release := make(chan struct{})
	first := true
	opts.Sync = func(f *os.File) error {
		if first { // hold the first group until three more records queue behind it
			first = false
			<-release
		}
		return syncData(f)
	}
	j, _, err := Open(dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	_, c1 := j.Enqueue(1, payloadFor(1))
	for !j.syncing(c1) {
		time.Sleep(time.Millisecond) // wait for the flusher to take group 1 (no assertion on time)
	}
	var cs []*Commit
	for seq := uint64(2); seq <= 4; seq++ {
		_, c := j.Enqueue(int64(seq)*10, payloadFor(seq))
		cs = append(cs, c)
	}
	close(release)
	if err := cs[2].Wait(); err != nil { // group 2 = records 2..4: lastN is now 3
		t.Fatal(err)
	}
	return j
}

func runQueueOf(n int) func() int { return func() int { return n } }

// Close ends a linger at once and still makes the lingering group durable.
func TestLingerCutShortByClose(t *testing.T) {
	dir := t.TempDir()
	j := lingering(t, dir, Options{Linger: time.Hour, runQueue: runQueueOf(1000)})
	_, c5 := j.Enqueue(50, payloadFor(5)) // this group lingers (an hour) ...
	if err := j.Close(); err != nil {     // ... until Close
		t.Fatal(err)
	}
	if err := c5.Wait(); err != nil {
		t.Fatalf("lingering record: %v", err)
	}
	_, rec := openT(t, dir, Options{})
	if rec.LastSeq != 5 {
		t.Fatalf("recovered through %d, want 5", rec.LastSeq)
	}
}

// A lingering group syncs once it holds as many records as there are
// runnable goroutines, and not before (linger.go).
func TestLingerUntilGroupMatchesRunQueue(t *testing.T) {
	j := lingering(t, t.TempDir(), Options{Linger: time.Hour, lingerStep: time.Millisecond, runQueue: runQueueOf(3)})
	_, c5 := j.Enqueue(50, payloadFor(5))
	_, c6 := j.Enqueue(60, payloadFor(6))
	for range 20 { // twenty steps: two records of three never sync (an hour's linger)
		time.Sleep(time.Millisecond)
		select {
		case <-c5.Done():
			t.Fatal("group synced with fewer records than runnable goroutines")
		default:
		}
	}
	_, c7 := j.Enqueue(70, payloadFor(7))
	if err := c7.Wait(); err != nil || c6 != c7 {
		t.Fatalf("third record: %v (same group: %v)", err, c6 == c7)
	}
}

// With nothing runnable the group syncs at once, however long the linger.
func TestLingerEmptyRunQueueSyncsAtOnce(t *testing.T) {
	j := lingering(t, t.TempDir(), Options{Linger: time.Hour, runQueue: runQueueOf(0)})
	if _, err := j.Append(50, payloadFor(5)); err != nil {
		t.Fatal(err)
	}
}

// syncing reports whether c was taken by the flusher (no longer current).
func (j *Journal) syncing(c *Commit) bool {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.cur != c
}
