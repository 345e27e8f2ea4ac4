package perpsauth

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
)

// randomBatch is createOrders args of n orders with a random choice of the
// optional keys (in a random order), now and then a value OrderArgs must
// leave to encoding/json (an escaped or non-UTF-8 string).
func randomBatch(r *rand.Rand, n int) string {
	rows := make([]string, n)
	for i := range rows {
		kv := []string{fmt.Sprintf(`"iid":%d`, r.IntN(5)), fmt.Sprintf(`"buy":%t`, r.IntN(2) == 0),
			fmt.Sprintf(`"qty":"%d.%d"`, r.IntN(100), r.IntN(10))}
		if r.IntN(4) > 0 {
			kv = append(kv, fmt.Sprintf(`"p":"%d"`, 100+r.IntN(50)))
		}
		if r.IntN(2) == 0 {
			kv = append(kv, `"tif":"`+[]string{"gtc", "ioc", "fok"}[r.IntN(3)]+`"`)
		}
		if r.IntN(2) == 0 {
			kv = append(kv, fmt.Sprintf(`"po":%t`, r.IntN(2) == 0))
		}
		if r.IntN(3) == 0 {
			kv = append(kv, fmt.Sprintf(`"c":"0x%032x"`, r.Uint64()))
		}
		if r.IntN(8) == 0 {
			kv = append(kv, `"tr":{"trp":"5","tpsl":"sl"}`)
		}
		switch r.IntN(40) {
		case 0:
			kv = append(kv, `"c":"\u0031"`)
		case 1:
			kv = append(kv, "\"tif\":\"\xff\"")
		}
		r.Shuffle(len(kv), func(a, b int) { kv[a], kv[b] = kv[b], kv[a] })
		rows[i] = "{" + strings.Join(kv, ",") + "}"
	}
	return "[" + strings.Join(rows, ",") + "]"
}

// TestReleasedRowsAreNotRead: VerifyOp's Compact takes a batch's row spans
// from a pool and Trade gives them back once decoded; the next batch then
// writes its spans into the same buffer. An op that was released must not
// read them (it scans its own args), and a batch decoded from pooled spans
// must decode as a plain scan does.
func TestReleasedRowsAreNotRead(t *testing.T) {
	r := rand.New(rand.NewPCG(15, 20))
	var prev Op
	var prevWant []OrderArg
	var ptrs []string // reused as Trade reuses it
	for i := range 500 {
		args := randomBatch(r, 1+r.IntN(30))
		op, _, err := compact([]byte(`{"type":"createOrders","args":`+args+`}`), nil, true)
		if err != nil {
			t.Fatalf("%s: %v", args, err)
		}
		want, wantOK := Op{Args: op.Args}.OrderArgs()
		got, ok := op.OrderArgs()
		if ok != wantOK || !reflect.DeepEqual(got, want) {
			t.Fatalf("batch %d %s: from pooled spans %v %+v, scanned %v %+v", i, args, ok, got, wantOK, want)
		}
		clear(ptrs[:cap(ptrs)])
		got, ptrs, err = op.AppendOrderArgsPtrs(nil, ptrs[:0])
		if want, wantErr := op.DecodeOrderArgs(); (err == nil) != (wantErr == nil) || !reflect.DeepEqual(got, want) {
			t.Fatalf("batch %d %s: into a reused ptrs buffer %+v %v, want %+v %v", i, args, got, err, want, wantErr)
		}
		if i > 0 {
			if again, _ := prev.OrderArgs(); !reflect.DeepEqual(again, prevWant) {
				t.Fatalf("batch %d: the released op decoded %+v, want %+v", i-1, again, prevWant)
			}
		}
		op.ReleaseRows()
		prev, prevWant = op, want
	}
}
