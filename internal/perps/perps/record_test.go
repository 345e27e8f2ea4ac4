package perps

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// The record knows exactly these fields; a new field must get a tag in
// record.go before this list is updated.
func TestRecordKnowsEveryField(t *testing.T) {
	for _, tc := range []struct {
		v    any
		want string
	}{
		{Command{}, "Kind Account Replay Orders Modifies OIDs COIDs IID Instrument Proxy Amount Price Flight Mode RetryAfter On Leverages Deadline DailyLimit Window IndexWindow SigTS WID Status Fee To Label Required BlockTime"},
		{LeverageReq{}, "IID Lev Cross"},
		{OrderReq{}, "IID Buy P Qty TIF PO RO C TR TrP TrKind TrMarket Grp TrSlip TrParent"},
		{ModifyReq{}, "OID COID P Qty"},
		{InstrumentSpec{}, "Symbol Base Category PriceDecimals QtyDecimals MaxLeverage MinNotional MaxPrice"},
		{Proxy{}, "Addr Account Hash ExpiryMs Label Deleted"},
		{Flight{}, "AcceptMs TakerMs RiskMs ModifyMs COIDWaitMs NoHeldCancels"},
	} {
		var got []string
		for f := range reflect.TypeOf(tc.v).Fields() {
			got = append(got, f.Name)
		}
		if strings.Join(got, " ") != tc.want {
			t.Fatalf("%T fields are %v: update record.go", tc.v, got)
		}
	}
}

// recordCommands covers every field of every record type, pointer fields
// set to empty values included.
var recordCommands = []*Command{
	{Kind: KCreateOrders, Account: acA, Replay: bytes.Repeat([]byte{7}, 32),
		Orders: []OrderReq{{IID: 1, Buy: true, P: sp("100.5"), Qty: "1", TIF: sp("ioc")},
			{IID: 4294967295, Qty: "3", P: sp(""), TIF: sp(""), PO: true, RO: true, C: "é\x00\"", TR: true, TrP: "61000", TrKind: "sl", TrMarket: true, Grp: "order", TrSlip: 10000, TrParent: 1<<64 - 1}, {}}},
	{Kind: KModify, Account: acB, Modifies: []ModifyReq{{OID: 1<<64 - 1, P: "1", Qty: "2"}, {COID: "ab", P: "", Qty: "x"}}},
	{Kind: KCancel, OIDs: []uint64{0, 1, 1 << 63}},
	{Kind: KCancelCOID, COIDs: []string{"", "abc"}},
	{Kind: KCancelAll, IID: 9},
	{Kind: KCreateInstrument, Instrument: &InstrumentSpec{Symbol: "BTC-USD", Base: "BTC", Category: "crypto",
		PriceDecimals: 255, QtyDecimals: 4, MaxLeverage: -3, MinNotional: "1", MaxPrice: "9"}},
	{Kind: KCreateInstrument, Instrument: &InstrumentSpec{}},
	{Kind: KCreateProxy, Account: acA, Proxy: &Proxy{Addr: "0x1", Account: "0x2", Hash: [32]byte{1, 2}, ExpiryMs: -1,
		Label: "l", Deleted: true}},
	{Kind: KDeleteProxy, Proxy: &Proxy{}},
	{Kind: KCreateProxy, Proxy: &Proxy{Label: strings.Repeat("l", 300)}, // nested records past 127 bytes
		Orders: []OrderReq{{Qty: strings.Repeat("9", 20000)}}},
	{Kind: KDeposit, Account: acA, Amount: "9000000000000"},
	{Kind: KIndex, IID: 1, Price: "97000"},
	{Kind: KConfig, Flight: &Flight{AcceptMs: 1, TakerMs: -2, RiskMs: 3, ModifyMs: 4, COIDWaitMs: 5, NoHeldCancels: true}},
	{Kind: KConfig, Flight: &Flight{}},
	{Kind: KMode, Mode: ModeCancelOnly, RetryAfter: 86400},
	{Kind: KLiquidating, Account: acA, On: true},
	{Kind: KTick},
	{Kind: KAutoCancel, Account: acA, Deadline: 1 << 50, DailyLimit: -7},
	{Kind: KLeverage, Account: acA, Leverages: []LeverageReq{{IID: 1, Lev: 20, Cross: true}, {IID: 4294967295, Lev: -1}, {}}},
	{Kind: KWithdraw, Account: acA, Replay: bytes.Repeat([]byte{8}, 32), Amount: "10", Fee: "1", To: acB, Required: 3},
	{Kind: KWithdraw, Account: acA, Amount: "10", To: acB, Required: 3, BlockTime: 2000},
	{Kind: KBlock, BlockTime: 1 << 40},
	{Kind: KWithdrawStatus, WID: 1<<64 - 1, Status: WFailed},
	{Kind: KBlock},
	{Kind: KTransfer, Account: acA, To: acB, Amount: "1.5", Label: "é\x00"},
	{Kind: KCloseOnly, IID: 2},
	{Kind: KSettle, IID: 2, Window: 1800000, IndexWindow: -1},
	{Kind: KMargin, Account: acA, IID: 3, Amount: "-25.5", SigTS: 1751500000006, Replay: []byte{9}},
	{},
}

// TestRecordRoundTrips: every command decodes to itself.
func TestRecordRoundTrips(t *testing.T) {
	for _, c := range recordCommands {
		b := c.Encode()
		if b[0] != recordV1 {
			t.Fatalf("%+v: version byte %x", c, b[0])
		}
		got, err := DecodeCommand(b)
		if err != nil || !reflect.DeepEqual(got, c) {
			t.Errorf("round trip of %+v: %+v %v", c, got, err)
		}
	}
}

// TestRecordReadsLegacyJSON: the encoding/json records that journals held
// before the binary record (what Command.Encode wrote, and what its hand
// codec wrote for placements: the same bytes) decode to the same commands,
// so an existing data directory replays.
func TestRecordReadsLegacyJSON(t *testing.T) {
	for _, c := range recordCommands {
		old, err := json.Marshal(c)
		if err != nil {
			t.Fatal(err)
		}
		got, err := DecodeCommand(old)
		if err != nil {
			t.Fatalf("%s: %v", old, err)
		}
		if !reflect.DeepEqual(got.Encode(), c.Encode()) {
			t.Errorf("legacy %s decoded to %+v", old, got)
		}
	}
	// A placement exactly as the former hand codec journaled it.
	got, err := DecodeCommand([]byte(`{"k":"createOrders","a":"0xab","r":"BwcH","o":[{"iid":1,"buy":true,"p":"100","qty":"1","tif":"ioc"}]}`))
	want := &Command{Kind: KCreateOrders, Account: "0xab", Replay: []byte{7, 7, 7},
		Orders: []OrderReq{{IID: 1, Buy: true, P: sp("100"), Qty: "1", TIF: sp("ioc")}}}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("legacy placement: %+v %v", got, err)
	}
}

// TestRecordRefusesMalformed: truncations, unknown or repeated tags, counts
// the record cannot hold and unknown versions are errors, never panics or
// huge allocations.
func TestRecordRefusesMalformed(t *testing.T) {
	good := recordCommands[0].Encode()
	for i := 1; i < len(good); i++ {
		if c, err := DecodeCommand(good[:i]); err == nil && reflect.DeepEqual(c, recordCommands[0]) {
			t.Errorf("truncated at %d decoded whole", i)
		}
	}
	for _, b := range [][]byte{nil, {0x02}, {recordV1, 99}, {recordV1, tAccount, 1, 'a', tKind, 1, 'k'},
		{recordV1, tKind, 1, 'k', tKind, 1, 'k'}, {recordV1, tOIDs, 0xff, 0xff, 0xff, 0xff, 0x0f},
		{recordV1, tKind, 5, 'k'}, {recordV1, tIID, 0xff, 0xff, 0xff, 0xff, 0x1f}, {'{'}} {
		if _, err := DecodeCommand(b); err == nil {
			t.Errorf("%x: accepted", b)
		}
	}
}

// FuzzCommandRecord: any payload either fails or decodes to a command whose
// record decodes to the same command again.
func FuzzCommandRecord(f *testing.F) {
	for _, c := range recordCommands {
		f.Add(c.Encode())
	}
	f.Add([]byte(`{"k":"createOrders","o":[{"iid":1,"buy":true,"qty":"1"}]}`))
	f.Add([]byte("\x01A\x010P0")) // a money field (tag 65) and SigTS (tag 80): once encoded out of order
	f.Fuzz(func(t *testing.T, b []byte) {
		c, err := DecodeCommand(b)
		if err != nil {
			return
		}
		again, err := DecodeCommand(c.Encode())
		if err != nil || !reflect.DeepEqual(again.Encode(), c.Encode()) {
			t.Fatalf("%x: %+v then %+v %v", b, c, again, err)
		}
	})
}

func BenchmarkCommandEncode(b *testing.B) {
	p, tif := "100", "ioc"
	c := &Command{Kind: KCreateOrders, Account: acA, Replay: make([]byte, 32), Orders: []OrderReq{{IID: 1, Buy: true, P: &p, Qty: "1", TIF: &tif}}}
	b.ReportAllocs()
	for b.Loop() {
		c.Encode()
	}
}

func BenchmarkCommandDecode(b *testing.B) {
	p, tif := "100", "ioc"
	enc := (&Command{Kind: KCreateOrders, Account: acA, Replay: make([]byte, 32), Orders: []OrderReq{{IID: 1, Buy: true, P: &p, Qty: "1", TIF: &tif}}}).Encode()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := DecodeCommand(enc); err != nil {
			b.Fatal(err)
		}
	}
}
