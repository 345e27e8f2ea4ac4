package book_test

import (
	"runtime"
	"testing"

	"pmx/internal/exchange/book"
	"pmx/internal/exchange/workload"
)

const benchResting = 10_000 // orders kept on the book, as in anchors §1.3

// cpuMeter adds a "cpu-ns/op" metric: CPU time of the benchmark's own
// (locked) thread over the timed sections. On a shared, overloaded machine
// wall-clock ns/op measures the neighbours; thread CPU time does not.
type cpuMeter struct {
	b       *testing.B
	acc, t0 int64
}

func startCPU(b *testing.B) *cpuMeter {
	runtime.LockOSThread()
	b.ReportAllocs()
	b.ResetTimer()
	return &cpuMeter{b: b, t0: threadCPU()}
}

func (m *cpuMeter) stop()  { m.b.StopTimer(); m.acc += threadCPU() - m.t0 }
func (m *cpuMeter) start() { m.t0 = threadCPU(); m.b.StartTimer() }
func (m *cpuMeter) done() {
	m.acc += threadCPU() - m.t0
	m.b.ReportMetric(float64(m.acc)/float64(m.b.N), "cpu-ns/op")
	runtime.UnlockOSThread()
}

func benchBook() *book.Book {
	return book.New(book.Config{Ticks: 1 << 14, Orders: 2 * benchResting})
}

// passive returns the i-th passive add: alternating sides, 128 levels
// each side of the mid 8192.
func passive(i uint64) book.Command {
	c := book.Command{Seq: i, Time: int64(i), Op: book.OpAdd, OID: i, Owner: i % 1000, Qty: 1 + int64(i%10)}
	off := 1 + int64(i*7919%128)
	if i%2 == 0 {
		c.Side, c.Price = book.Buy, 8192-off
	} else {
		c.Side, c.Price = book.Sell, 8192+off
	}
	return c
}

// BenchmarkAddCancel: each op is either an add or the cancel of the order
// added benchResting ops earlier; the book stays at ~10k orders.
func BenchmarkAddCancel(b *testing.B) {
	bk := benchBook()
	ev := make([]book.Event, 0, 64)
	var i uint64
	for i = 1; i <= benchResting; i++ {
		c := passive(i)
		ev = bk.Apply(&c, ev[:0])
	}
	next, oldest := i, uint64(1)
	m := startCPU(b)
	defer m.done()
	for n := 0; n < b.N; n++ {
		var c book.Command
		if n%2 == 0 {
			c = passive(next)
			next++
		} else {
			c = book.Command{Seq: next, Op: book.OpCancel, OID: oldest}
			oldest++
		}
		ev = bk.Apply(&c, ev[:0])
	}
}

// BenchmarkAdd times adds alone (the book is refilled from empty every
// 2*benchResting adds, untimed cancel-free by rebuilding).
func BenchmarkAdd(b *testing.B) {
	cmds := make([]book.Command, 2*benchResting)
	for i := range cmds {
		cmds[i] = passive(uint64(i + 1))
	}
	bk := benchBook()
	ev := make([]book.Event, 0, 64)
	m := startCPU(b)
	defer m.done()
	for n := 0; n < b.N; {
		for j := range cmds {
			if n == b.N {
				break
			}
			ev = bk.Apply(&cmds[j], ev[:0])
			n++
		}
		m.stop()
		for j := range cmds { // empty the book again
			c := book.Command{Op: book.OpCancel, OID: cmds[j].OID}
			ev = bk.Apply(&c, ev[:0])
		}
		m.start()
	}
}

// BenchmarkCancel times cancels alone, of random-ish orders in a ~20k book.
func BenchmarkCancel(b *testing.B) {
	const n = 2 * benchResting
	adds := make([]book.Command, n)
	cancels := make([]book.Command, n)
	for i := range adds {
		adds[i] = passive(uint64(i + 1))
		cancels[i] = book.Command{Op: book.OpCancel, OID: uint64((i*7919)%n + 1)}
	}
	bk := benchBook()
	ev := make([]book.Event, 0, 64)
	m := startCPU(b)
	defer m.done()
	for done := 0; done < b.N; {
		m.stop()
		for j := range adds {
			ev = bk.Apply(&adds[j], ev[:0])
		}
		m.start()
		for j := range cancels {
			if done == b.N {
				break
			}
			ev = bk.Apply(&cancels[j], ev[:0])
			done++
		}
		m.stop()
		for j := range adds { // clear what the timed loop left
			c := book.Command{Op: book.OpCancel, OID: adds[j].OID}
			ev = bk.Apply(&c, ev[:0])
		}
		m.start()
	}
}

// BenchmarkMixed runs workload.Bench (60% add, 30% cancel, 10% crossing
// IOC) after a 100k-command warm-up; commands are generated in untimed
// chunks.
func BenchmarkMixed(b *testing.B) {
	bk := benchBook()
	g := workload.New(workload.Config{Seed: 1, Ticks: 1 << 14, Spread: 64, Mix: workload.Bench})
	chunk := make([]book.Command, 1<<16)
	ev := make([]book.Event, 0, 256)
	fill := func() {
		for i := range chunk {
			g.Next(&chunk[i])
		}
	}
	for w := 0; w < 2; w++ {
		fill()
		for i := range chunk {
			ev = bk.Apply(&chunk[i], ev[:0])
		}
	}
	var trades int
	m := startCPU(b)
	defer m.done()
	for n := 0; n < b.N; {
		m.stop()
		fill()
		m.start()
		for i := range chunk {
			if n == b.N {
				break
			}
			ev = bk.Apply(&chunk[i], ev[:0])
			for j := range ev {
				if ev[j].Kind == book.EvTrade {
					trades++
				}
			}
			n++
		}
	}
	b.ReportMetric(float64(trades)/float64(b.N), "fills/op")
	b.ReportMetric(float64(bk.Len()), "resting")
}

// BenchmarkCommandEncode and BenchmarkCommandDecode: the journal's record
// payload cost per command.
func BenchmarkCommandEncode(b *testing.B) {
	c := book.Command{Seq: 123456789, Time: 1_763_700_000_000_000_000, Book: 3, Op: book.OpAdd, OID: 987654, Owner: 4242, Price: 8190, Qty: 7}
	buf := make([]byte, 0, book.MaxEncodedLen)
	m := startCPU(b)
	defer m.done()
	for b.Loop() {
		buf, _ = c.AppendBinary(buf[:0])
	}
	b.ReportMetric(float64(len(buf)), "bytes")
}

func BenchmarkCommandDecode(b *testing.B) {
	c := book.Command{Seq: 123456789, Time: 1_763_700_000_000_000_000, Book: 3, Op: book.OpAdd, OID: 987654, Owner: 4242, Price: 8190, Qty: 7}
	buf, _ := c.MarshalBinary()
	m := startCPU(b)
	defer m.done()
	for b.Loop() {
		if _, err := c.Decode(buf); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkGenerate: cost of the workload generator itself (excluded from
// BenchmarkMixed's timing).
func BenchmarkGenerate(b *testing.B) {
	g := workload.New(workload.Config{Seed: 1, Ticks: 1 << 14, Mix: workload.Bench})
	var c book.Command
	m := startCPU(b)
	defer m.done()
	for b.Loop() {
		g.Next(&c)
	}
}
