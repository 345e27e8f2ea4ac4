package perpshttp

import (
	"fmt"
	"strings"
	"testing"
)

func TestPublicPortfolioShowsPositionsAndEquityOfAnyAddress(t *testing.T) {
	e := moneyEnv(t)
	e.instrument()
	a, b := e.trader(1, "10000"), e.trader(2, "10000")
	a.placeOK(ord{iid: 1, buy: false, p: "1000", qty: "1"})
	b.place(ord{iid: 1, buy: true, p: "1000", qty: "1", tif: "ioc"})
	var pub struct {
		Positions []map[string]any
		Equity    string
		Timestamp int64
	}
	code, body := e.get("/v1/info/portfolio?address="+b.owner.hex, &pub)
	if code != 200 || len(pub.Positions) != 1 || pub.Timestamp != int64(e.now()) {
		t.Fatalf("%d %s", code, body)
	}
	p := pub.Positions[0]
	if p["instrument_id"] != 1.0 || p["symbol"] != "BTC-USD" || p["size"] != "1" || p["entry_price"] != "1000" ||
		p["unrealized_pnl"] == nil || p["return_on_equity"] == nil || len(p) != 6 {
		t.Fatalf("position %v", p)
	}
	var priv struct {
		Margin struct {
			TotalAccountValue string `json:"total_account_value"`
		}
	}
	b.read("/v1/account/portfolio", &priv)
	if pub.Equity != priv.Margin.TotalAccountValue || pub.Equity == "" {
		t.Fatalf("equity %s, private total_account_value %s", pub.Equity, priv.Margin.TotalAccountValue)
	}
	if code, body := e.get("/v1/info/portfolio?address=0x00000000000000000000000000000000000000ab", nil); code != 200 ||
		strings.TrimSpace(body) != fmt.Sprintf(`{"positions":[],"equity":"0","timestamp":%d}`, e.now()) {
		t.Fatalf("unknown address: %d %s", code, body)
	}
	for _, q := range []string{"", "?address=nope"} {
		if code, body := e.get("/v1/info/portfolio"+q, nil); code != 400 || !strings.Contains(body, "invalid query parameters") {
			t.Errorf("%q: %d %s", q, code, body)
		}
	}
}
