package perpshttp

import (
	"bytes"
	"encoding/json"
	"testing"

	"pmx/internal/perps/perps"
)

// FuzzAppendAcks: when appendAcks answers, its bytes are encoding/json's.
func FuzzAppendAcks(f *testing.F) {
	f.Add("ok", uint64(1), "", "", 1)
	f.Add("ok", uint64(18446744073709551615), "0xabc", "", 2)
	f.Add("err", uint64(0), "", "insufficient_margin", 1)
	f.Add("err", uint64(0), "a<b", "x\"y", 3)
	f.Add("", uint64(0), "", "", 0)
	f.Add("ok", uint64(7), "é", "\x00", 1)
	f.Fuzz(func(t *testing.T, status string, oid uint64, coid, msg string, n int) {
		var acks []perps.Ack
		if n > 0 {
			acks = []perps.Ack{}
			for i := range n % 4 {
				acks = append(acks, perps.Ack{Status: status, OID: oid + uint64(i), COID: coid, Error: msg})
			}
		}
		got, ok := appendAcks(nil, acks)
		if !ok {
			return
		}
		var want bytes.Buffer
		json.NewEncoder(&want).Encode(acks)
		if !bytes.Equal(got, want.Bytes()) {
			t.Fatalf("got %q want %q", got, want.Bytes())
		}
	})
}

func TestAppendAcksFallsBack(t *testing.T) {
	for _, a := range []perps.Ack{{Status: "err", Error: "a<b"}, {Status: "ok", COID: "\"x"}, {Status: "ok", COID: "é"}} {
		if _, ok := appendAcks(nil, []perps.Ack{a}); ok {
			t.Errorf("%+v: must go through encoding/json", a)
		}
	}
	if got, ok := appendAcks(nil, []perps.Ack{{Status: "ok", OID: 42}}); !ok || string(got) != "[{\"status\":\"ok\",\"oid\":42}]\n" {
		t.Errorf("got %q %v", got, ok)
	}
}

func BenchmarkAppendAcks(b *testing.B) {
	acks := []perps.Ack{{Status: "ok", OID: 123456}}
	buf := make([]byte, 0, 512)
	b.ReportAllocs()
	for b.Loop() {
		buf, _ = appendAcks(buf[:0], acks)
	}
}

// BenchmarkAppendAcks20 is the acknowledgement of a 20-order batch.
func BenchmarkAppendAcks20(b *testing.B) {
	acks := make([]perps.Ack, 20)
	for i := range acks {
		acks[i] = perps.Ack{Status: "ok", OID: 123456 + uint64(i)}
	}
	buf := make([]byte, 0, 1024)
	b.ReportAllocs()
	for b.Loop() {
		buf, _ = appendAcks(buf[:0], acks)
	}
}
