package perpshttp

import (
	"encoding/json"
	"reflect"
	"slices"
	"testing"
)

// The private portfolio's fields (the contract's Portfolio snapshot; the
// position shape is perps.md §5 PortfolioPosition).
var (
	portfolioKeys = []string{"fee_tier", "in_liquidation", "margin", "positions", "timestamp", "withdrawable"}
	marginKeys    = []string{"available_order_margin", "total_account_value", "total_initial_margin",
		"total_maintenance_margin", "total_position_value"}
	positionKeys = []string{"adl_index", "cross", "cumulative_funding", "entry_price", "initial_margin", "instrument_id",
		"leverage", "liquidation_price", "maintenance_margin", "position_value", "return_on_equity", "size", "symbol",
		"unrealized_pnl"}
)

// checkPortfolioShape fails unless raw has exactly the contract's fields.
func checkPortfolioShape(t *testing.T, where string, raw []byte) map[string]json.RawMessage {
	t.Helper()
	keys := func(b []byte) (map[string]json.RawMessage, []string) {
		var m map[string]json.RawMessage
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatalf("%s: %v: %s", where, err, b)
		}
		var ks []string
		for k := range m {
			ks = append(ks, k)
		}
		slices.Sort(ks)
		return m, ks
	}
	top, ks := keys(raw)
	if !slices.Equal(ks, portfolioKeys) {
		t.Errorf("%s: portfolio fields %v, want %v", where, ks, portfolioKeys)
	}
	if _, ks := keys(top["margin"]); !slices.Equal(ks, marginKeys) {
		t.Errorf("%s: margin fields %v, want %v", where, ks, marginKeys)
	}
	var ps []json.RawMessage
	json.Unmarshal(top["positions"], &ps)
	if len(ps) == 0 {
		t.Fatalf("%s: no positions: %s", where, raw)
	}
	for _, p := range ps {
		if _, ks := keys(p); !slices.Equal(ks, positionKeys) {
			t.Errorf("%s: position fields %v, want %v", where, ks, positionKeys)
		}
	}
	return top
}

// TestPortfolioSocketAndRESTCarryTheContractsFields: the WS portfolio push
// and GET /v1/account/portfolio carry exactly the contract's fields, for
// an isolated position (its allocation shows as initial_margin: allocation
// + uPnL − settled funding, 1,500 + 500 added) and a cross one, and the
// socket's snapshot equals the REST one but for its timestamp.
func TestPortfolioSocketAndRESTCarryTheContractsFields(t *testing.T) {
	e, a, _, c := isoSetup(t)
	if code, body := a.margin(1, "500"); code != 200 {
		t.Fatalf("margin: %d %s", code, body)
	}
	socks := map[*trader]*wsClient{}
	for _, tr := range []*trader{a, c} { // both subscribed before the next periodic push (every 5 s)
		ws := e.dial(t)
		ws.auth(tr)
		if d := ws.call("sub", `"chs":["portfolio"]`); string(d) != `[{"status":"ok"}]` {
			t.Fatalf("sub: %s", d)
		}
		socks[tr] = ws
	}
	for _, tr := range []*trader{a, c} {
		_, push := socks[tr].pushOn("portfolio")
		code, rest := tr.read("/v1/account/portfolio", nil)
		if code != 200 {
			t.Fatalf("portfolio: %d %s", code, rest)
		}
		sock := checkPortfolioShape(t, "socket", push)
		api := checkPortfolioShape(t, "REST", []byte(rest))
		delete(sock, "timestamp")
		delete(api, "timestamp")
		if !reflect.DeepEqual(sock, api) {
			t.Errorf("socket %s\nREST %s", push, rest)
		}
		var p struct {
			Positions []struct {
				Cross         bool   `json:"cross"`
				InitialMargin string `json:"initial_margin"`
			}
		}
		json.Unmarshal(push, &p)
		if tr == a && (p.Positions[0].Cross || p.Positions[0].InitialMargin != "2000") {
			t.Errorf("isolated position on the socket: %+v", p.Positions)
		}
		if tr == c && !p.Positions[0].Cross {
			t.Errorf("cross position on the socket: %+v", p.Positions)
		}
	}
}
