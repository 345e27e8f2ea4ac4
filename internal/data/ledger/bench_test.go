package ledger

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
)

// tradeLines is n realistic trade lines (77-digit token ids, fees, builder).
func tradeLines(n int) []byte {
	var b bytes.Buffer
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, `{"kind":"trade","tx_hash":"0x%064x","log_index":%d,"block_number":%d,"timestamp":%d,`+
			`"token_id":"1075629529365558196687378264287549789795569205059905577476113485418295511%05d",`+
			`"maker":"0x%040x","taker":"0x%040x","side":"BUY","price":"0.52","size":"22.84","fee_usdc":"0.114",`+
			`"builder_code":"0x%s"}`+"\n", i, i%7, 1000+i/7, 1700000000+i/3, i%1000, i%5000+1, i%4999+7000, strings.Repeat("b1", 32))
	}
	return b.Bytes()
}

func BenchmarkParseAll(b *testing.B) {
	data := tradeLines(10_000)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ParseAll(bytes.NewReader(data)); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkEncode(b *testing.B) {
	evs, err := ParseAll(bytes.NewReader(tradeLines(10_000)))
	if err != nil {
		b.Fatal(err)
	}
	var buf []byte
	b.ReportAllocs()
	for b.Loop() {
		for i := range evs {
			buf = AppendEvent(buf[:0], &evs[i])
		}
	}
}

// BenchmarkUnmarshal and BenchmarkUnmarshalStd compare decodeLine with the
// encoding/json reference on one trade line (decode + Validate).
func BenchmarkUnmarshal(b *testing.B) {
	l := bytes.TrimSpace(tradeLines(1))
	b.SetBytes(int64(len(l)))
	b.ReportAllocs()
	for b.Loop() {
		var e Event
		if err := Unmarshal(l, &e); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkUnmarshalStd(b *testing.B) {
	l := bytes.TrimSpace(tradeLines(1))
	b.SetBytes(int64(len(l)))
	b.ReportAllocs()
	for b.Loop() {
		var e Event
		if err := decodeStd(l, &e); err != nil {
			b.Fatal(err)
		}
	}
}
