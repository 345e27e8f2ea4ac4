package perpsvc

import (
	"encoding/json"
	"io"
	"log/slog"
	"testing"
	"time"

	"pmx/internal/exchange/engine"
	"pmx/internal/perps/perps"
)

func quiet() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// TestLegacyJSONJournalReplays: a data directory whose journal holds the
// encoding/json records written before the binary record recovers to the
// same state as the same commands journaled as binary records, and new
// commands append binary records after the old ones.
func TestLegacyJSONJournalReplays(t *testing.T) {
	p := "100"
	cmds := []*perps.Command{
		{Kind: perps.KCreateInstrument, Instrument: &perps.InstrumentSpec{Symbol: "BTC-USD", Category: "crypto",
			PriceDecimals: 1, QtyDecimals: 4, MaxLeverage: 20, MinNotional: "1"}},
		{Kind: perps.KDeposit, Account: "0xaa", Amount: "1000"},
		{Kind: perps.KDeposit, Account: "0xbb", Amount: "1000"},
		{Kind: perps.KCreateOrders, Account: "0xaa", Replay: make([]byte, 32),
			Orders: []perps.OrderReq{{IID: 1, Buy: true, P: &p, Qty: "2"}}},
		{Kind: perps.KCreateOrders, Account: "0xbb", Orders: []perps.OrderReq{{IID: 1, P: &p, Qty: "0.5"}}},
		{Kind: perps.KCancel, Account: "0xaa", OIDs: []uint64{1}},
	}
	hash := func(dir string, payload func(*perps.Command) []byte) [32]byte {
		eng, _, err := engine.Open(engine.Config{Dir: dir}, engine.Machine[perps.Event](perps.New(perps.Config{})))
		if err != nil {
			t.Fatal(err)
		}
		for i, c := range cmds {
			if res, err := eng.Submit(1000+int64(i), payload(c)); err != nil || res.Events[0].Err != "" {
				t.Fatalf("command %d: %v %+v", i, err, res)
			}
		}
		h, _, _ := eng.Hash()
		eng.Close()
		return h
	}
	legacy := t.TempDir()
	want := hash(t.TempDir(), (*perps.Command).Encode)
	if got := hash(legacy, func(c *perps.Command) []byte { b, _ := json.Marshal(c); return b }); got != want {
		t.Fatal("legacy records applied to a different state")
	}
	clock := func() time.Time { return time.UnixMilli(2000) }
	s, err := New(Options{Dir: legacy, Log: quiet(), Clock: clock})
	if err != nil {
		t.Fatal(err)
	}
	if h, _, _ := s.Engine().Hash(); h == ([32]byte{}) {
		t.Fatal("no state")
	}
	var bal string
	s.View(func(m *perps.Machine) { bal = m.BalancesOf("0xbb")[0].Balance })
	if bal != "999.98" { // sold 0.5 at 100 as taker: fee 0.02
		t.Fatalf("recovered balance %s", bal)
	}
	if _, err := s.Deposit("0xbb", "1"); err != nil {
		t.Fatal(err)
	}
	s.Close()
	s, err = New(Options{Dir: legacy, Log: quiet(), Clock: clock})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	s.View(func(m *perps.Machine) { bal = m.BalancesOf("0xbb")[0].Balance })
	if bal != "1000.98" {
		t.Fatalf("balance after a binary record on a legacy journal: %s", bal)
	}
}
