package journal

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"pmx/internal/cpuclock"
)

// benchPayload is the size of a typical encoded order command.
var benchPayload = make([]byte, 64)

// BenchmarkAppendParallel64: 64 goroutines, each appending and waiting for
// its own fsync (a synchronous producer, like one HTTP request per order).
// p99-us and max-us are the appends' latencies (the max is the worst group,
// e.g. one that waited for a zero-fill); cpu-ns/op is the process's CPU
// (producers, flusher and the kernel's work for its syscalls) per append.
func BenchmarkAppendParallel64(b *testing.B) {
	benchAppendParallel64(b, Options{}, benchPayload)
}

// BenchmarkAppendParallel64Large is the same with 2 KiB records (a batch
// of orders), so that segments fill and rotate within the run.
func BenchmarkAppendParallel64Large(b *testing.B) {
	benchAppendParallel64(b, Options{SegmentBytes: 16 << 20}, make([]byte, 2048))
}

func benchAppendParallel64(b *testing.B, opts Options, payload []byte) {
	j, _, err := Open(b.TempDir(), opts)
	if err != nil {
		b.Fatal(err)
	}
	defer j.Close()
	var mu sync.Mutex
	var lat []time.Duration
	b.SetParallelism((64 + 1) / 2) // 2 cores here: GOMAXPROCS*32 = 64 goroutines
	b.SetBytes(int64(len(payload) + RecordOverhead))
	b.ReportAllocs()
	b.ResetTimer()
	m := cpuclock.Start()
	b.RunParallel(func(pb *testing.PB) {
		var mine []time.Duration
		for pb.Next() {
			t0 := time.Now()
			if _, err := j.Append(1, payload); err != nil {
				b.Error(err)
				return
			}
			mine = append(mine, time.Since(t0))
		}
		mu.Lock()
		lat = append(lat, mine...)
		mu.Unlock()
	})
	b.StopTimer()
	m.Report(b)
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "cmds/s")
	b.ReportMetric(float64(b.N)/float64(j.Groups()), "cmds/fsync")
	if len(lat) > 0 {
		slices.Sort(lat)
		b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "p99-us")
		b.ReportMetric(float64(lat[len(lat)-1].Microseconds()), "max-us")
	}
}

// BenchmarkAppendPipelined64: 64 producers that each keep up to 16 appends
// in flight (Enqueue, then Wait on the oldest), like a gateway multiplexing
// many client connections.
func BenchmarkAppendPipelined64(b *testing.B) {
	j, _, err := Open(b.TempDir(), Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer j.Close()
	b.SetParallelism((64 + 1) / 2)
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		var window []*Commit
		for pb.Next() {
			_, c := j.Enqueue(1, benchPayload)
			window = append(window, c)
			if len(window) == 16 {
				if err := window[0].Wait(); err != nil {
					b.Error(err)
					return
				}
				window = window[1:]
			}
		}
		for _, c := range window {
			c.Wait()
		}
	})
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "cmds/s")
}

// BenchmarkReplay reads back records written beforehand.
func BenchmarkReplay(b *testing.B) {
	dir := b.TempDir()
	j, _, err := Open(dir, Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer j.Close()
	var last *Commit
	for range b.N {
		_, last = j.Enqueue(1, benchPayload)
	}
	if err := last.Wait(); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(benchPayload) + RecordOverhead))
	b.ReportAllocs()
	b.ResetTimer()
	m := cpuclock.Start()
	n := 0
	err = j.Replay(1, func(r Record) error { n++; return nil })
	if err != nil || n != b.N {
		b.Fatalf("replayed %d of %d: %v", n, b.N, err)
	}
	m.Report(b)
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "cmds/s")
}

// BenchmarkOpenReplay is start-up: Open (which checks the last segment's
// tail) then Replay from the first record, over b.N records written
// beforehand into one segment (the default 64 MiB holds ~750,000).
func BenchmarkOpenReplay(b *testing.B) {
	dir := b.TempDir()
	j, _, err := Open(dir, Options{})
	if err != nil {
		b.Fatal(err)
	}
	var last *Commit
	for range b.N {
		_, last = j.Enqueue(1, benchPayload)
	}
	if err := last.Wait(); err != nil {
		b.Fatal(err)
	}
	j.Close()
	b.SetBytes(int64(len(benchPayload) + RecordOverhead))
	b.ReportAllocs()
	b.ResetTimer()
	m, read := cpuclock.Start(), readBytes()
	j, _, err = Open(dir, Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer j.Close()
	n := 0
	err = j.Replay(1, func(r Record) error { n++; return nil })
	if err != nil || n != b.N {
		b.Fatalf("replayed %d of %d: %v", n, b.N, err)
	}
	m.Report(b)
	if read >= 0 {
		b.ReportMetric(float64(readBytes()-read)/float64(b.N), "read-B/op")
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "cmds/s")
}

// readBytes is the bytes this process has read through read syscalls
// (/proc/self/io rchar, page-cache hits included), or -1 where unavailable.
func readBytes() int64 {
	b, err := os.ReadFile("/proc/self/io")
	if err != nil {
		return -1
	}
	for line := range strings.Lines(string(b)) {
		if v, ok := strings.CutPrefix(line, "rchar: "); ok {
			n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
			if err == nil {
				return n
			}
		}
	}
	return -1
}

// BenchmarkFdatasync is the floor group commit amortizes: one 4 KiB append
// plus fdatasync on this disk. Producers/fsync-time bounds synchronous
// throughput (64 producers / this figure).
func BenchmarkFdatasync(b *testing.B) {
	f, err := os.Create(filepath.Join(b.TempDir(), "sync"))
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	buf := make([]byte, 4096)
	for b.Loop() {
		if _, err := f.Write(buf); err != nil {
			b.Fatal(err)
		}
		if err := syncData(f); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkFillChunk is BenchmarkAppendParallel64Large with other zero-fill
// chunk sizes (the margin is half the chunk), to choose fillChunk.
func BenchmarkFillChunk(b *testing.B) {
	for _, chunk := range []int64{256 << 10, 1 << 20, 4 << 20} {
		b.Run(strconv.FormatInt(chunk>>10, 10)+"KiB", func(b *testing.B) {
			opts := Options{SegmentBytes: 16 << 20, fillChunk: chunk, fillMargin: chunk / 2}
			benchAppendParallel64(b, opts, make([]byte, 2048))
		})
	}
}
