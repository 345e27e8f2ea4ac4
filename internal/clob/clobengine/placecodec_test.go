package clobengine

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"pmx/internal/clob/clob"
	"pmx/internal/exchange/engine"
	"pmx/internal/exchange/journal"
)

// fullOrder sets every field of an OrderInput to a non-zero value.
func fullOrder() OrderInput {
	return OrderInput{Hash: "0x" + strings.Repeat("ab", 32), Token: "71321045679252212594626385532706912750332728571942532289631379312455583992563",
		Side: 1, MakerAmt: 1 << 61, TakerAmt: 3, Type: "GTD", PostOnly: true, Maker: "0x" + strings.Repeat("0c", 20),
		Signer: "0x" + strings.Repeat("0d", 20), APIKey: "5f0d3c2e-0000-4000-8000-000000000001", Expiration: 1 << 40,
		Version: 2, Nonce: math.MaxUint64, NonceHuge: true, Stamp: -1, FeeBps: 1000, SigType: 3, NegRisk: true,
		Builder: "b-key", Code: "0x" + strings.Repeat("01", 32)}
}

// TestPlaceRecordRoundTrip: a place command encodes as the binary record
// and decodes to the same command, from zero values to the extremes.
func TestPlaceRecordRoundTrip(t *testing.T) {
	many := make([]OrderInput, 15)
	for i := range many {
		many[i] = fullOrder()
		many[i].MakerAmt, many[i].Stamp = int64(i)*1_000_003, math.MinInt64+int64(i)
	}
	tests := []struct {
		name   string
		orders []OrderInput
	}{
		{"none", nil},
		{"zero order", []OrderInput{{}}},
		{"every field", []OrderInput{fullOrder()}},
		{"utf-8 and empty strings", []OrderInput{{Hash: "é", Type: "\x00", Maker: strings.Repeat("m", 300), Version: -7}}},
		{"batch of 15", many},
	}
	for _, tc := range tests {
		c := &Command{Op: OpPlace, Orders: tc.orders}
		b, err := Encode(c)
		if err != nil || b[0] != cmdPlaceBin {
			t.Fatalf("%s: %v, prefix %d", tc.name, err, b[0])
		}
		got, err := Decode(b)
		if err != nil || !reflect.DeepEqual(got, c) {
			t.Fatalf("%s: %v\n got %+v\nwant %+v", tc.name, err, got, c)
		}
	}
}

// TestPlaceRecordCoversEveryField: every OrderInput field survives the
// binary record (a field added to OrderInput but not to the record fails
// here), and a place command carrying any field besides its orders falls
// back to JSON rather than losing it.
func TestPlaceRecordCoversEveryField(t *testing.T) {
	rt := reflect.TypeOf(OrderInput{})
	for i := range rt.NumField() {
		var o OrderInput
		setNonZero(t, reflect.ValueOf(&o).Elem().Field(i))
		c := &Command{Op: OpPlace, Orders: []OrderInput{o}}
		b, _ := Encode(c)
		if got, err := Decode(b); err != nil || !reflect.DeepEqual(got, c) {
			t.Errorf("OrderInput.%s lost: %v %+v", rt.Field(i).Name, err, got)
		}
	}
	ct := reflect.TypeOf(Command{})
	for i := range ct.NumField() {
		if n := ct.Field(i).Name; n == "Op" || n == "Orders" {
			continue
		}
		c := Command{Op: OpPlace, Orders: []OrderInput{fullOrder()}}
		setNonZero(t, reflect.ValueOf(&c).Elem().Field(i))
		b, _ := Encode(&c)
		if b[0] != cmdVersion {
			t.Errorf("Command.%s set: encoded as the binary place record, which drops it", ct.Field(i).Name)
		}
	}
}

func setNonZero(t *testing.T, v reflect.Value) {
	switch v.Kind() {
	case reflect.String:
		v.SetString("x")
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int64:
		v.SetInt(-5)
	case reflect.Uint8, reflect.Uint64:
		v.SetUint(7)
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
	case reflect.Slice:
		v.Set(reflect.MakeSlice(v.Type(), 1, 1))
	default:
		t.Fatalf("setNonZero: kind %s", v.Kind())
	}
}

// TestPlaceRecordRejectsMalformed: every truncation, a trailing byte, an
// unknown flag and a count larger than the record can hold are refused,
// and the machine answers them with the payload error.
func TestPlaceRecordRejectsMalformed(t *testing.T) {
	good, _ := Encode(&Command{Op: OpPlace, Orders: []OrderInput{fullOrder(), {Hash: "h"}}})
	var bad [][]byte
	for n := 1; n < len(good); n++ {
		bad = append(bad, good[:n])
	}
	bad = append(bad, append(append([]byte{}, good...), 0))
	one, _ := Encode(&Command{Op: OpPlace, Orders: []OrderInput{{}}})
	flags := append([]byte{}, one...)
	flags[len(flags)-8] = 0x80 // the flags byte of an all-zero order: 7 one-byte varints follow it
	bad = append(bad, flags, []byte{cmdPlaceBin, 0xff, 0xff, 0xff, 0xff, 0x0f})
	for i, b := range bad {
		if c, err := Decode(b); err == nil {
			t.Errorf("case %d (%x): decoded %+v", i, b, c)
		}
	}
	m := New(Config{})
	if r := m.Apply(1, 1, bad[len(bad)-1], nil)[0]; r.Err == nil || r.Err.Code != clob.ErrInvalidPayload {
		t.Fatalf("machine: %+v", r)
	}
}

// FuzzDecode: no payload panics the decoder; a binary place record that
// decodes re-encodes to a record that decodes to the same command.
func FuzzDecode(f *testing.F) {
	for _, c := range []Command{{Op: OpPlace, Orders: []OrderInput{fullOrder()}}, {Op: OpPlace, Orders: []OrderInput{{}, {Hash: "h"}}},
		{Op: OpCancel, Addr: "a", IDs: []string{"x"}}} {
		b, _ := Encode(&c)
		f.Add(b)
	}
	j, _ := json.Marshal(Command{Op: OpPlace, Orders: []OrderInput{fullOrder()}})
	f.Add(append([]byte{cmdVersion}, j...))
	f.Fuzz(func(t *testing.T, b []byte) {
		c, err := Decode(b)
		if err != nil || b[0] != cmdPlaceBin {
			return
		}
		b2, err := Encode(c)
		if err != nil {
			t.Fatal(err)
		}
		c2, err := Decode(b2)
		if err != nil || !reflect.DeepEqual(c, c2) {
			t.Fatalf("re-encode: %v\n%+v\n%+v", err, c, c2)
		}
	})
}

// TestReplayJSONJournal: testdata/journal-v1 was written by the JSON-only
// encoder (every record, place commands included, is version 1 JSON). It
// still replays, to the state the same commands reach when encoded today.
func TestReplayJSONJournal(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join("testdata", "journal-v1", "journal")
	ents, err := os.ReadDir(src)
	if err != nil || len(ents) == 0 {
		t.Fatalf("testdata journal: %v", err)
	}
	os.MkdirAll(filepath.Join(dir, "journal"), 0o755)
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(dir, "journal", e.Name()), b, 0o644)
	}
	steps := legacySteps()
	j, _, err := journal.Open(filepath.Join(dir, "journal"), journal.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var places, n int
	err = j.Replay(1, func(r journal.Record) error {
		if r.Payload[0] != cmdVersion {
			t.Errorf("record %d is not JSON", r.Seq)
		}
		if steps[n].c.Op == OpPlace {
			places++
		}
		n++
		return nil
	})
	j.Close()
	if err != nil || n != len(steps) || places < 5 {
		t.Fatalf("journal: %v, %d records (%d place), want %d", err, n, places, len(steps))
	}

	e, rec, err := engine.Open[Result](engine.Config{Dir: dir, NoPrune: true}, New(Config{}))
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if rec.Replayed != uint64(len(steps)) {
		t.Fatalf("replayed %d of %d", rec.Replayed, len(steps))
	}
	fresh := New(Config{})
	for i, s := range steps {
		b, _ := Encode(&s.c)
		if s.c.Op == OpPlace && b[0] != cmdPlaceBin {
			t.Fatalf("step %d: place not binary", i)
		}
		fresh.Apply(uint64(i+1), s.ts, b, nil)
	}
	var replayed [32]byte
	var status1, status10 string
	e.View(func(m engine.Machine[Result], _ uint64) {
		mm := m.(*Machine)
		replayed = mm.Hash()
		status1, status10 = mm.Order(legacyHash(1)).Status, mm.Order(legacyHash(10)).Status
	})
	if replayed != fresh.Hash() {
		t.Fatal("the replayed JSON journal and today's encoding reach different states")
	}
	if status1 != StatusMatched || status10 != StatusLive {
		t.Fatalf("orders after replay: %q %q", status1, status10)
	}
}
