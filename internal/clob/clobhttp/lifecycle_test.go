package clobhttp_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"pmx/internal/amount"
	"pmx/internal/clob/clobsvc"
)

// microOrder is a limit order of size micro-shares at price cents.
func microOrder(token, side string, cents, size int64) testOrder {
	o := testOrder{V: 1, Token: token, Side: side, MakerAmt: size * cents / 100, TakerAmt: size}
	if side == "SELL" {
		o.MakerAmt, o.TakerAmt = size, size*cents/100
	}
	return o
}

// TestMarketLifecycleAgreesToTheMicro: deposit, split, trade both outcomes
// (normal, mint and merge matches at prices and sizes that are not round),
// resolve, redeem (by the operator and automatically); at each step every
// data-service route that shows a wallet agrees with the CLOB's balances to
// the micro-unit: /v2/positions sizes are the CLOB's token balances,
// /v2/value is their worth, the cash legs of /v2/activity (and the TRADE
// rows of /v2/trades) add up to the change in the CLOB's collateral, and
// once everything is redeemed the realized PnL of the CLOSED positions is
// that change too.
func TestMarketLifecycleAgreesToTheMicro(t *testing.T) {
	dir, path := newVenuePaths(t)
	v := newFullVenue(t, dir, path, func(o *clobsvc.Options) { o.AutoRedeem = time.Minute })
	a, b, c := v.trader(t, priv0), v.trader(t, priv1), v.trader(t, priv2)
	deposit := map[*trader]int64{a: 100, b: 100, c: 50}
	for tr, usdc := range deposit {
		v.fund(t, tr.w.addr, usdc, 0)
	}
	if r := v.op(t, "/admin/clob/split", `{"address":"`+b.w.addr+`","condition_id":"`+condA+`","amount":"30.25"}`); r.status != 200 {
		t.Fatalf("split: %s", r.body)
	}
	match := func(maker, taker *trader, mo, to testOrder) {
		t.Helper()
		if r, _ := maker.post(t, mo, "GTC", false); decode[orderResp](t, r).Status != "live" {
			t.Fatalf("maker: %s", r.body)
		}
		if r, _ := taker.post(t, to, "GTC", false); decode[orderResp](t, r).Status != "matched" {
			t.Fatalf("taker: %s", r.body)
		}
	}
	match(a, b, microOrder(yesA, "BUY", 37, 7_310_000), microOrder(yesA, "SELL", 37, 7_310_000)) // normal Yes
	match(a, c, microOrder(yesA, "BUY", 42, 6_550_000), microOrder(noA, "BUY", 58, 6_550_000))   // mint
	match(c, b, microOrder(noA, "BUY", 61, 5_200_000), microOrder(noA, "SELL", 61, 5_200_000))   // normal No
	match(a, c, microOrder(yesA, "SELL", 53, 5_030_000), microOrder(noA, "SELL", 47, 5_030_000)) // merge
	match(b, a, microOrder(yesA, "SELL", 66, 5_170_000), microOrder(yesA, "BUY", 66, 5_170_000)) // normal Yes

	agree := func(stage string, marks [2]amount.Micro) {
		t.Helper()
		for tr, usdc := range deposit {
			v.agrees(t, stage, tr, amount.Micro(usdc*1_000_000), marks)
		}
	}
	agree("after trading", [2]amount.Micro{660_000, 340_000}) // the last trade: Yes at 0.66

	if r := v.op(t, "/admin/clob/resolve", `{"condition_id":"`+condA+`","payouts":["1","0"]}`); r.status != 200 {
		t.Fatalf("resolve: %s", r.body)
	}
	agree("after resolution", [2]amount.Micro{1_000_000, 0})
	if r := v.op(t, "/admin/clob/redeem", `{"address":"`+a.w.addr+`","condition_id":"`+condA+`"}`); r.status != 200 {
		t.Fatalf("redeem: %s", r.body)
	}
	v.clk.set(time.Unix(now0, 0).Add(time.Minute))
	v.svc.Tick() // the automatic redemption of b and c
	agree("after redemption", [2]amount.Micro{1_000_000, 0})
	for tr := range deposit {
		v.allRealized(t, tr, amount.Micro(deposit[tr]*1_000_000))
	}
}

// clobAccount is the CLOB's view of a wallet: free collateral and tokens.
func (v *fullVenue) clobAccount(t *testing.T, addr string) (coll amount.Micro, tokens map[string]amount.Micro) {
	t.Helper()
	var acct struct {
		Collateral string            `json:"collateral"`
		Tokens     map[string]string `json:"tokens"`
		Open       []string          `json:"open_orders"`
	}
	getJSON(t, v.admin.URL+"/admin/clob/accounts/"+strings.ToLower(addr), &acct)
	if len(acct.Open) != 0 {
		t.Fatalf("%s has open orders %v: balances would exclude reservations", addr, acct.Open)
	}
	tokens = map[string]amount.Micro{}
	for id, s := range acct.Tokens {
		tokens[id] = amount.MustParse(s) / 1_000_000 // base units are micro: MustParse reads whole units
	}
	return amount.MustParse(acct.Collateral) / 1_000_000, tokens
}

// rowsOf reads every row of a data-service feed (pages of 500) with exact
// decimal numbers.
func (v *fullVenue) rowsOf(t *testing.T, path string) []map[string]json.Number {
	t.Helper()
	var out []map[string]json.Number
	cursor := ""
	for {
		url := v.data.URL + path + "&limit=500"
		if cursor != "" {
			url += "&cursor=" + cursor
		}
		resp, err := http.Get(url)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		var page struct {
			Data       []map[string]any `json:"data"`
			Pagination struct {
				Next *string `json:"next_cursor"`
			} `json:"pagination"`
		}
		d := json.NewDecoder(bytes.NewReader(body))
		d.UseNumber()
		if resp.StatusCode != 200 || d.Decode(&page) != nil {
			t.Fatalf("GET %s: %d %s", url, resp.StatusCode, body)
		}
		for _, r := range page.Data {
			row := map[string]json.Number{}
			for k, x := range r {
				switch n := x.(type) {
				case json.Number:
					row[k] = n
				case string:
					row[k] = json.Number(n)
				}
			}
			out = append(out, row)
		}
		if page.Pagination.Next == nil || *page.Pagination.Next == "" {
			return out
		}
		cursor = *page.Pagination.Next
	}
}

func micro(t *testing.T, n json.Number) amount.Micro {
	t.Helper()
	m, err := amount.Parse(string(n))
	if err != nil {
		t.Fatalf("not a decimal: %q", n)
	}
	return m
}

// agrees checks one wallet's data-service routes against the CLOB, polling
// until the feed has delivered (10 s at most).
func (v *fullVenue) agrees(t *testing.T, stage string, tr *trader, deposit amount.Micro, marks [2]amount.Micro) {
	t.Helper()
	user := strings.ToLower(tr.w.addr)
	var last string
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if last = v.disagreement(t, user, deposit, marks); last == "" {
			return
		}
	}
	t.Fatalf("%s: %s: %s", stage, user, last)
}

// disagreement is "" when the routes agree with the CLOB, else the first
// difference.
func (v *fullVenue) disagreement(t *testing.T, user string, deposit amount.Micro, marks [2]amount.Micro) string {
	coll, tokens := v.clobAccount(t, user)
	// Positions: one row per held token, its size the CLOB's balance.
	held := map[string]amount.Micro{}
	var worth amount.Micro
	for _, r := range v.rowsOf(t, "/v2/positions?user="+user+"&size_threshold=0") {
		held[string(r["token_id"])] = micro(t, r["current_size"])
	}
	for id, q := range tokens {
		if q == 0 {
			continue
		}
		if held[id] != q {
			return "position " + id + ": data " + held[id].String() + ", CLOB " + q.String()
		}
		i := map[string]int{yesA: 0, noA: 1}[id]
		worth += amount.MulFloor(q, marks[i])
	}
	for id, q := range held {
		if q != 0 && tokens[id] != q {
			return "position " + id + " only in the data service: " + q.String()
		}
	}
	var vd struct {
		Data struct {
			Value json.Number `json:"value"`
		} `json:"data"`
	}
	resp, err := http.Get(v.data.URL + "/v2/value?user=" + user)
	if err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(resp.Body)
	dec.UseNumber()
	_ = dec.Decode(&vd)
	resp.Body.Close()
	if got := micro(t, vd.Data.Value); got != worth {
		return "value: data " + got.String() + ", CLOB holdings at the marks " + worth.String()
	}
	// Activity: the cash legs add up to the CLOB's collateral change.
	var cash amount.Micro
	for _, r := range v.rowsOf(t, "/v2/activity?user="+user) {
		u := micro(t, r["usdc_size"])
		switch string(r["type"]) {
		case "TRADE":
			if string(r["side"]) == "BUY" {
				u = -u
			}
		case "SPLIT":
			u = -u
		case "MERGE", "REDEEM":
		default:
			return "unexpected activity " + string(r["type"])
		}
		cash += u
	}
	if cash != coll-deposit {
		return "activity cash " + cash.String() + ", CLOB collateral change " + (coll - deposit).String()
	}
	// Trades: the wallet's TRADE rows (both roles) carry the same cash.
	var tcash amount.Micro
	for _, r := range v.rowsOf(t, "/v2/trades?taker_only=false&user="+user) {
		u := amount.MulFloor(micro(t, r["size"]), micro(t, r["price"]))
		if string(r["side"]) == "BUY" {
			u = -u
		}
		tcash += u
	}
	var acash amount.Micro
	for _, r := range v.rowsOf(t, "/v2/activity?type=TRADE&user="+user) {
		u := micro(t, r["usdc_size"])
		if string(r["side"]) == "BUY" {
			u = -u
		}
		acash += u
	}
	if tcash != acash {
		return "trades cash " + tcash.String() + ", TRADE activity cash " + acash.String()
	}
	return ""
}

// allRealized: once every position is redeemed, the CLOSED positions'
// realized PnL is the wallet's whole gain on the CLOB.
func (v *fullVenue) allRealized(t *testing.T, tr *trader, deposit amount.Micro) {
	t.Helper()
	user := strings.ToLower(tr.w.addr)
	coll, _ := v.clobAccount(t, user)
	var pnl amount.Micro
	for _, r := range v.rowsOf(t, "/v2/positions?status=CLOSED&user="+user) {
		pnl += micro(t, r["realized_pnl"])
	}
	if pnl != coll-deposit {
		t.Fatalf("%s: closed positions realize %s, the CLOB's collateral changed by %s", user, pnl, coll-deposit)
	}
}
