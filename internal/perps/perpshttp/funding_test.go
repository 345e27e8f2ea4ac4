package perpshttp

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"pmx/internal/amount"
)

type fundingRow struct {
	ID           uint64 `json:"id"`
	InstrumentID uint32 `json:"instrument_id"`
	Size         string `json:"size"`
	FundingRate  string `json:"funding_rate"`
	FundingAsset string `json:"funding_asset"`
	Funding      string `json:"funding"`
	Timestamp    int64  `json:"timestamp"`
}

type fundingPage struct {
	Data []fundingRow `json:"data"`
	More bool         `json:"more"`
}

func (tr *trader) balanceMicro() amount.Micro {
	tr.e.t.Helper()
	var b []struct {
		Balance string `json:"balance"`
	}
	if code, body := tr.read("/v1/account/balances", &b); code != 200 || len(b) != 1 {
		tr.e.t.Fatalf("balances: %d %s", code, body)
	}
	v, err := amount.Parse(b[0].Balance)
	if err != nil {
		tr.e.t.Fatal(err)
	}
	return v
}

// waitFunding polls GET /v1/account/funding until it lists n rows (the
// service's funding driver runs on its own goroutine).
func (tr *trader) waitFunding(n int) fundingPage {
	tr.e.t.Helper()
	var p fundingPage
	for range 300 { // weight 10 a read: 100 ms apart stays inside the IP budget
		p = fundingPage{}
		if code, body := tr.read("/v1/account/funding", &p); code != 200 {
			tr.e.t.Fatalf("funding: %d %s", code, body)
		}
		if len(p.Data) >= n {
			return p
		}
		time.Sleep(100 * time.Millisecond)
	}
	tr.e.t.Fatalf("no funding settlement: %+v", p)
	return p
}

// TestFundingLongsPayShortsWhenMarkAboveIndexChargesAddUpToBalanceChange:
// the scenario of docs/perps-risk.md through the server: bids above the
// index put the premium and the mark above it; at the funding interval the
// long pays, the short receives, and each account's charge rows add up to
// its balance change.
func TestFundingLongsPayShortsWhenMarkAboveIndexChargesAddUpToBalanceChange(t *testing.T) {
	e := newEnv(t, Options{FundingInterval: time.Hour})
	e.instrument()
	e.adminPost("/admin/perps/index", `{"instrument_id":1,"price":"60000"}`)
	long, short, maker := e.trader(1, "100000"), e.trader(2, "100000"), e.trader(3, "100000")
	short.placeOK(ord{iid: 1, p: "60000", qty: "0.5"})
	long.placeOK(ord{iid: 1, buy: true, p: "60000", qty: "0.5"})
	maker.placeOK(ord{iid: 1, buy: true, p: "60120", qty: "0.1"})
	maker.placeOK(ord{iid: 1, p: "60200", qty: "0.1"})
	before := map[*trader]amount.Micro{long: long.balanceMicro(), short: short.balanceMicro()}
	e.advance(time.Hour) // one premium sample, then the settlement
	for tr, want := range map[*trader]string{long: "-5.63625", short: "5.63625"} {
		p := tr.waitFunding(1)
		r := p.Data[0]
		if len(p.Data) != 1 || p.More || r.Funding != want || r.FundingRate != "0.0001875" || r.InstrumentID != 1 || r.FundingAsset != "pUSD" {
			t.Fatalf("rows %+v, want one charge of %s", p, want)
		}
		if d := tr.balanceMicro() - before[tr]; d.String() != want {
			t.Errorf("balance change %s, the rows add up to %s", d, want)
		}
	}
	if p := maker.waitFunding(0); len(p.Data) != 0 {
		t.Errorf("no position, no charge: %+v", p)
	}
	var rates struct {
		Data []struct {
			FundingRate string `json:"funding_rate"`
			Timestamp   int64  `json:"timestamp"`
		} `json:"data"`
		More bool `json:"more"`
	}
	if code, body := e.get("/v1/info/funding?instrument_id=1", &rates); code != 200 || len(rates.Data) != 1 || rates.Data[0].FundingRate != "0.0001875" {
		t.Fatalf("info/funding: %d %s", code, body)
	}
	// Filters: instrument, and the window [start, end] under either name.
	ts := rates.Data[0].Timestamp
	for _, c := range []struct {
		q    string
		want int
	}{
		{"instrument_id=1", 1}, {"instrument_id=2", 0}, {"instrument_id=4294967295", 0},
		{fmt.Sprintf("start=%d", ts), 1}, {fmt.Sprintf("start=%d", ts+1), 0},
		{fmt.Sprintf("end=%d", ts-1), 0}, {fmt.Sprintf("end=%d", ts), 1}, {fmt.Sprintf("end_timestamp=%d", ts), 1},
		{fmt.Sprintf("start_timestamp=%d", ts+1), 0},
	} {
		var p fundingPage
		if code, body := long.read("/v1/account/funding?"+c.q, &p); code != 200 || len(p.Data) != c.want {
			t.Errorf("%s: %d %s, want %d rows", c.q, code, body, c.want)
		}
	}
	for _, q := range []string{"instrument_id=4294967296", "instrument_id=x", "start=-1", "end=soon"} {
		if code, _ := long.read("/v1/account/funding?"+q, nil); code != 400 {
			t.Errorf("%s: %d, want 400", q, code)
		}
	}
	if code, _ := e.get("/v1/info/funding", nil); code != 400 {
		t.Errorf("info/funding without instrument_id: %d", code)
	}
	// Journaled: the rows and balances survive a restart.
	e.restart()
	if p := long.waitFunding(1); len(p.Data) != 1 || p.Data[0].Funding != "-5.63625" {
		t.Errorf("after restart %+v", p)
	}
}

// TestAccountFundingUnauthorized: the account route needs proxy headers.
func TestAccountFundingUnauthorized(t *testing.T) {
	e := newEnv(t, Options{})
	if code, body := e.get("/v1/account/funding", nil); code != 401 {
		t.Errorf("%d %s", code, body)
	}
}

// TestFundingChannelPushesEachCharge: the private WS channel funding pushes
// the account's charge row at each settlement.
func TestFundingChannelPushesEachCharge(t *testing.T) {
	e := newEnv(t, Options{FundingInterval: time.Hour})
	e.instrument()
	e.adminPost("/admin/perps/index", `{"instrument_id":1,"price":"60000"}`)
	long, short := e.trader(1, "100000"), e.trader(2, "100000")
	short.placeOK(ord{iid: 1, p: "60000", qty: "0.5"})
	long.placeOK(ord{iid: 1, buy: true, p: "60000", qty: "0.5"})
	w := e.dial(t)
	w.auth(long)
	if d := w.call("sub", `"chs":["funding"]`); string(d) != `[{"status":"ok"}]` {
		t.Fatalf("sub: %s", d)
	}
	e.advance(time.Hour)
	_, data := w.pushOn("funding")
	var r fundingRow
	if err := json.Unmarshal(data, &r); err != nil || r.InstrumentID != 1 || r.Size != "0.5" || r.Funding != "-0.375" || r.FundingRate != "0.0000125" {
		t.Fatalf("push %s (%v)", data, err) // 0.5 · 60,000 · 0.01 % / 8, interest leg alone
	}
}
