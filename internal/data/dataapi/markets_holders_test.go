package dataapi_test

import (
	"fmt"
	"net/url"
	"strings"
	"testing"

	"pmx/internal/amount"
	"pmx/internal/data/ledger"
)

type mHolder struct {
	ProxyWallet           string        `json:"proxy_wallet"`
	TokenID               string        `json:"token_id"`
	Amount                amount.Micro  `json:"amount"`
	OutcomeIndex          int           `json:"outcome_index"`
	Name                  string        `json:"name"`
	Pseudonym             string        `json:"pseudonym"`
	DisplayUsernamePublic bool          `json:"display_username_public"`
	Verified              bool          `json:"verified"`
	AvgPrice              *amount.Micro `json:"avg_price"`
	EntryCostUSDC         *amount.Micro `json:"entry_cost_usdc"`
	CurrentPrice          *amount.Micro `json:"current_price"`
	CurrentValue          *amount.Micro `json:"current_value"`
	RealizedPnL           *amount.Micro `json:"realized_pnl"`
	UnrealizedPnL         *amount.Micro `json:"unrealized_pnl"`
	TotalPnL              *amount.Micro `json:"total_pnl"`
}

type mGroup struct {
	TokenID string    `json:"token_id"`
	Holders []mHolder `json:"holders"`
}

type mPagination struct {
	Limit      int     `json:"limit"`
	Offset     int     `json:"offset"`
	HasMore    bool    `json:"has_more"`
	NextCursor *string `json:"next_cursor"`
}

type holdersPage struct {
	Data       []mGroup    `json:"data"`
	Pagination mPagination `json:"pagination"`
}

// brief renders groups as "token:wallet=amount,..." for exact comparison.
func brief(gs []mGroup) string {
	var parts []string
	for _, g := range gs {
		var hs []string
		for _, h := range g.Holders {
			if h.TokenID != g.TokenID {
				return "token mismatch in " + g.TokenID
			}
			hs = append(hs, fmt.Sprintf("%s=%s", walletName(h.ProxyWallet), h.Amount))
		}
		parts = append(parts, g.TokenID+":"+strings.Join(hs, ","))
	}
	return strings.Join(parts, " ")
}

func walletName(a string) string {
	for i, n := range []string{"A", "B", "C", "D"} {
		if a == maddr(i+1) {
			return n
		}
	}
	return a
}

var handEvs = handWorld()

func TestHoldersExact(t *testing.T) {
	h := newMHarness(t, handEvs)
	c1, c3 := mcond(1), mcond(3)
	cases := []struct {
		name, query, want string
	}{
		// Netting: A holds 60 complete sets (Yes 0, No 10); B 10 (Yes 35, No 0);
		// C and D hold one side only.
		{"netted", "condition=" + c1, "11:B=35,D=5,A=0 12:C=30,A=10,B=0"},
		{"min balance", "condition=" + c1 + "&min_balance=1", "11:B=35,D=5 12:C=30,A=10"},
		{"min balance camel", "condition=" + c1 + "&minBalance=10", "11:B=35 12:C=30,A=10"},
		{"gross with pnl", "condition=" + c1 + "&include_pnl=true", "11:A=60,B=45,D=5 12:A=70,C=30,B=10"},
		{"gross min balance", "condition=" + c1 + "&includePnl=true&min_balance=30", "11:A=60,B=45 12:A=70,C=30"},
		{"three outcomes", "conditionId=" + c3, "31:A=4,D=0 32:D=4 33:D=4"},
		{"three outcomes sorted", "condition_id=" + c3 + "&min_balance=0.000001", "31:A=4 32:D=4 33:D=4"},
		{"request order", "condition=" + c3 + "," + c1 + "&min_balance=4",
			"31:A=4 32:D=4 33:D=4 11:B=35,D=5 12:C=30,A=10"},
		{"redeemed market", "condition=" + mcond(2), "22:C=20"},
		{"unknown market", "condition=" + mcond(99), ""},
		{"never traded", "condition=" + mcond(4), ""},
		{"limit zero is default", "condition=" + c1 + "&limit=0", "11:B=35,D=5,A=0 12:C=30,A=10,B=0"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var p holdersPage
			h.ok("/v2/holders?"+c.query, &p)
			if got := brief(p.Data); got != c.want {
				t.Errorf("got %q, want %q", got, c.want)
			}
			if p.Pagination.HasMore || p.Pagination.NextCursor != nil || p.Pagination.Offset != 0 || p.Pagination.Limit != 100 {
				t.Errorf("pagination %+v", p.Pagination)
			}
		})
	}
}

func TestHoldersProfilesAndEconomics(t *testing.T) {
	h := newMHarness(t, handEvs)
	var p holdersPage
	h.ok("/v2/holders?condition="+mcond(1), &p)
	for _, g := range p.Data {
		for _, r := range g.Holders {
			if r.AvgPrice != nil || r.TotalPnL != nil {
				t.Fatalf("economics without include_pnl: %+v", r)
			}
			if r.ProxyWallet == maddr(wA) && (r.Name != "alice" || r.Pseudonym != "Able-Ant" || !r.Verified ||
				!r.DisplayUsernamePublic) {
				t.Errorf("alice profile: %+v", r)
			}
			if r.ProxyWallet == maddr(wC) && (r.Name != "" || r.DisplayUsernamePublic) {
				t.Errorf("C has no profile: %+v", r)
			}
		}
		if g.Holders[0].OutcomeIndex != map[string]int{"11": 0, "12": 1}[g.TokenID] {
			t.Errorf("outcome index of %s: %d", g.TokenID, g.Holders[0].OutcomeIndex)
		}
	}
	h.ok("/v2/holders?include_pnl=true&condition="+mcond(1), &p)
	// avg, cost, price, value, realized, unrealized, total (see handWorld).
	want := map[string]string{
		"11/A": "0.5 30 0.7 42 4 12 16",
		"11/B": "0.58 26.1 0.7 31.5 0.6 5.4 6",
		"11/D": "0.7 3.5 0.7 3.5 0 0 0",
		"12/A": "0.5 35 0.3 21 -1.5 -14 -15.5",
		"12/C": "0.45 13.5 0.3 9 0 -4.5 -4.5",
		"12/B": "0.5 5 0.3 3 0 -2 -2",
	}
	n := 0
	for _, g := range p.Data {
		for _, r := range g.Holders {
			if r.AvgPrice == nil {
				t.Fatalf("no economics: %+v", r)
			}
			got := fmt.Sprintf("%s %s %s %s %s %s %s", r.AvgPrice, r.EntryCostUSDC, r.CurrentPrice, r.CurrentValue,
				r.RealizedPnL, r.UnrealizedPnL, r.TotalPnL)
			key := g.TokenID + "/" + walletName(r.ProxyWallet)
			if got != want[key] {
				t.Errorf("%s: got %s, want %s", key, got, want[key])
			}
			if *r.CurrentValue != amount.Mul(r.Amount, *r.CurrentPrice) || *r.TotalPnL != *r.RealizedPnL+*r.UnrealizedPnL {
				t.Errorf("%s: identities broken", key)
			}
			n++
		}
	}
	if n != len(want) {
		t.Errorf("%d rows, want %d", n, len(want))
	}
}

// TestHoldersWalk pages with limit=1 and checks offsets, has_more, the
// cursor pins and the union of pages against the one-page answer.
func TestHoldersWalk(t *testing.T) {
	h := newMHarness(t, handEvs)
	base := "/v2/holders?condition=" + mcond(1)
	var pages []string
	var p holdersPage
	h.ok(base+"&limit=1", &p)
	for i := 0; ; i++ {
		if p.Pagination.Limit != 1 || p.Pagination.Offset != i || p.Pagination.HasMore != (p.Pagination.NextCursor != nil) {
			t.Fatalf("page %d pagination %+v", i, p.Pagination)
		}
		pages = append(pages, brief(p.Data))
		if p.Pagination.NextCursor == nil {
			break
		}
		cur := *p.Pagination.NextCursor
		p = holdersPage{}
		// limit on a cursor page is ignored: the cursor's size wins.
		h.ok(base+"&limit=50&cursor="+url.QueryEscape(cur), &p)
	}
	want := "11:B=35 12:C=30|11:D=5 12:A=10|11:A=0 12:B=0"
	if got := strings.Join(pages, "|"); got != want {
		t.Errorf("pages %q, want %q", got, want)
	}

	// A group leaves the page once its token is exhausted.
	h.ok(base+"&limit=2&min_balance=10", &p)
	if brief(p.Data) != "11:B=35 12:C=30,A=10" || p.Pagination.NextCursor != nil {
		t.Errorf("min_balance=10 page: %s %+v", brief(p.Data), p.Pagination)
	}
	h.ok(base+"&limit=1&min_balance=10", &p)
	cur := url.QueryEscape(*p.Pagination.NextCursor)
	var p2 holdersPage
	h.ok(base+"&cursor="+cur, &p2) // min_balance adopted from the cursor
	if brief(p2.Data) != "12:A=10" || p2.Pagination.NextCursor != nil || p2.Pagination.Offset != 1 {
		t.Errorf("second page %s %+v", brief(p2.Data), p2.Pagination)
	}
	h.ok(base+"&min_balance=10.0&cursor="+cur, &p2) // restated in another spelling: same value
	for _, q := range []string{
		"&min_balance=5&cursor=" + cur,
		"&include_pnl=true&cursor=" + cur,
		"&cursor=" + cur + "&condition=" + mcond(3), // another condition set
	} {
		if e := h.bad(base + q); !strings.Contains(e.Error, "contradicts") {
			t.Errorf("%s: %s", q, e.Error)
		}
	}
	if e := h.bad("/v2/holders?cursor=" + cur); e.Error != "required query param 'condition' not provided" {
		t.Errorf("bare cursor: %s", e.Error)
	}
}

func TestHoldersRejects(t *testing.T) {
	h := newMHarness(t, handEvs)
	c1 := "condition=" + mcond(1)
	var many []string
	for i := 1; i <= 21; i++ {
		many = append(many, mcond(i))
	}
	var p holdersPage
	h.ok("/v2/holders?"+c1+"&include_pnl=true&limit=1", &p)
	pnlCursor := url.QueryEscape(*p.Pagination.NextCursor)
	h.ok("/v2/holders?"+c1+"&limit=101", &p)
	h.ok("/v2/holders?"+c1+"&limit=1000", &p)
	cases := []struct{ query, param, msg string }{
		{"", "condition", "required query param 'condition' not provided"},
		{"condition=", "condition", "required query param 'condition' not provided"},
		{"condition=0x12", "condition", "invalid condition id: 0x12"},
		{"condition=" + strings.Join(many, ","), "condition", "at most 20 distinct values are allowed in 'condition' (got 21)"},
		{c1 + "," + mcond(2) + "&include_pnl=true", "condition", "include_pnl=true requires exactly one condition"},
		{c1 + "&include_pnl=true&limit=101", "limit", "limit must be at most 100 with include_pnl=true"},
		{c1 + "&limit=1001", "limit", "limit must be at most 1000"},
		{c1 + "&limit=-1", "limit", "limit must be an integer between 0 and 1000"},
		{c1 + "&include_pnl=maybe", "include_pnl", "include_pnl must be true or false"},
		{c1 + "&min_balance=-1", "min_balance", "min_balance must be a non-negative number: -1"},
		{c1 + "&min_balance=abc", "min_balance", "min_balance must be a non-negative number: abc"},
		{c1 + "&offset=0", "offset", ""},
		{c1 + "&cursor=garbage", "cursor", "invalid cursor"},
		{c1 + "&include_pnl=false&cursor=" + pnlCursor, "cursor", ""},
	}
	for _, c := range cases {
		e := h.bad("/v2/holders?" + c.query)
		if e.Parameter == nil || *e.Parameter != c.param || (c.msg != "" && e.Error != c.msg) {
			t.Errorf("%s: %+v (param %v)", c.query, e, e.Parameter)
		}
	}
	// A cursor of another route is rejected.
	var pp pricesPage
	h.ok("/v2/prices-history?token_id=11&start="+fmt.Sprint(mT0)+"&bucket_seconds=60&limit=1", &pp)
	if e := h.bad("/v2/holders?" + c1 + "&cursor=" + url.QueryEscape(*pp.Pagination.NextCursor)); e.Error != "invalid cursor" {
		t.Errorf("foreign cursor: %s", e.Error)
	}
}

type oiPage struct {
	Data []struct {
		ConditionID string       `json:"condition_id"`
		Value       amount.Micro `json:"value"`
	} `json:"data"`
}

func TestOpenInterest(t *testing.T) {
	h := newMHarness(t, handEvs)
	cases := []struct{ query, want string }{
		{"", "GLOBAL=114.5"},
		{"?condition=" + mcond(1), mcond(1) + "=110"},
		// Resolved and redeemed: Yes burned, No marks at its payout 0.
		{"?condition=" + mcond(2), mcond(2) + "=0"},
		// Outcome 0 at 0.50; the others never traded (mark 0).
		{"?conditionId=" + mcond(3) + "," + mcond(1) + "," + mcond(99) + "," + mcond(4),
			mcond(3) + "=4.5 " + mcond(1) + "=110 " + mcond(4) + "=0"},
		{"?condition=" + mcond(99), ""},
	}
	for _, c := range cases {
		var p oiPage
		h.ok("/v2/oi"+c.query, &p)
		var got []string
		for _, r := range p.Data {
			got = append(got, r.ConditionID+"="+r.Value.String())
		}
		if strings.Join(got, " ") != c.want {
			t.Errorf("%s: got %v, want %s", c.query, got, c.want)
		}
	}
	code, body := h.get("/v2/oi?condition=" + mcond(99))
	if code != 200 || strings.TrimSpace(string(body)) != `{"data":[]}` {
		t.Errorf("miss: %d %s", code, body)
	}
	h.bad("/v2/oi?condition=nope")
	h.bad("/v2/oi?offset=1")
}

// TestHoldersSumToSupplyAndOI: a market's gross holders (walked page by
// page) sum per token to its outstanding shares, and priced at the holders'
// current_price they sum to /v2/oi.
func TestHoldersSumToSupplyAndOI(t *testing.T) {
	h := newMHarness(t, handEvs)
	checkHoldersAgainstOI(t, h, mcond(1), map[string]amount.Micro{"11": mm("110"), "12": mm("110")}, false)
	checkHoldersAgainstOI(t, h, mcond(3), map[string]amount.Micro{"31": mm("9"), "32": mm("9"), "33": mm("9")}, false)
}

// checkHoldersAgainstOI walks include_pnl holders of cond with limit 2 and
// compares per-token sums with supply (when given) and Σ amount×price with
// /v2/oi (no row when hidden: inactive or archived). It returns the
// per-token sums.
func checkHoldersAgainstOI(t *testing.T, h *mHarness, cond string, supply map[string]amount.Micro, hidden bool) map[string]amount.Micro {
	t.Helper()
	sums := map[string]amount.Micro{}
	price := map[string]amount.Micro{}
	var p holdersPage
	h.ok("/v2/holders?include_pnl=true&limit=2&condition="+cond, &p)
	for {
		for _, g := range p.Data {
			for _, r := range g.Holders {
				sums[g.TokenID] += r.Amount
				price[g.TokenID] = *r.CurrentPrice
			}
		}
		if p.Pagination.NextCursor == nil {
			break
		}
		cur := *p.Pagination.NextCursor
		p = holdersPage{}
		h.ok("/v2/holders?condition="+cond+"&cursor="+url.QueryEscape(cur), &p)
	}
	if supply != nil && fmt.Sprint(sums) != fmt.Sprint(supply) {
		t.Errorf("%s: holder sums %v, outstanding %v", cond, sums, supply)
	}
	var value amount.Micro
	for tok, s := range sums {
		value += amount.Mul(s, price[tok])
	}
	var oi oiPage
	h.ok("/v2/oi?condition="+cond, &oi)
	if hidden {
		if len(oi.Data) != 0 {
			t.Errorf("%s: an inactive or archived market has an oi row %+v", cond, oi.Data)
		}
	} else if len(oi.Data) != 1 || oi.Data[0].Value != value {
		t.Errorf("%s: oi %+v, holders priced %s", cond, oi.Data, value)
	}
	return sums
}

type liveVolumePage struct {
	Data struct {
		Total      amount.Micro `json:"taker_volume_total"`
		Conditions []struct {
			ConditionID string       `json:"condition_id"`
			TakerVolume amount.Micro `json:"taker_volume"`
		} `json:"conditions"`
	} `json:"data"`
}

func TestLiveVolume(t *testing.T) {
	h := newMHarness(t, handEvs)
	cases := []struct{ query, want string }{
		{"event_id=100", "95 1=75 2=20"},
		{"id=100", "95 1=75 2=20"},
		{"eventId=100", "95 1=75 2=20"},
		{"event_id=200,100,100", "99 1=75 2=20 3=4 4=0"},
		{"event_id=abc,200", "4 3=4 4=0"}, // unparseable ids are ignored
		// The cap counts distinct ids: 20 of them sent 21 times is fine.
		{"event_id=100,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,0100", "95 1=75 2=20"},
		{"event_id=999", "0"},
	}
	for _, c := range cases {
		var p liveVolumePage
		h.ok("/v2/live-volume?"+c.query, &p)
		got := p.Data.Total.String()
		for _, r := range p.Data.Conditions {
			for n := 1; n <= 4; n++ {
				if r.ConditionID == mcond(n) {
					got += fmt.Sprintf(" %d=%s", n, r.TakerVolume)
				}
			}
		}
		if got != c.want {
			t.Errorf("%s: got %q, want %q", c.query, got, c.want)
		}
	}
	_, body := h.get("/v2/live-volume?event_id=999")
	if strings.TrimSpace(string(body)) != `{"data":{"taker_volume_total":0,"conditions":[]}}` {
		t.Errorf("empty event: %s", body)
	}
	var ids []string
	for i := 1; i <= 21; i++ {
		ids = append(ids, fmt.Sprint(i))
	}
	for q, msg := range map[string]string{
		"":                                   "required query param 'event_id' not provided",
		"event_id=abc":                       "invalid event id: abc",
		"event_id=-1,0":                      "invalid event id: -1",
		"event_id=" + strings.Join(ids, ","): "at most 20 distinct values are allowed in 'event_id' (got 21)",
	} {
		if e := h.bad("/v2/live-volume?" + q); e.Error != msg {
			t.Errorf("%s: %s", q, e.Error)
		}
	}
}

// TestHoldersSeeNewData: holders served (and cached) before an Apply reflect
// it afterwards.
func TestHoldersSeeNewData(t *testing.T) {
	h := newMHarness(t, handEvs)
	q := "/v2/holders?include_pnl=true&condition=" + mcond(1)
	var p holdersPage
	h.ok(q, &p)
	if brief(p.Data) != "11:A=60,B=45,D=5 12:A=70,C=30,B=10" {
		t.Fatalf("before: %s", brief(p.Data))
	}
	e := mTrade("11", wB, wD, "SELL", "0.65", "1")
	e.BlockNumber, e.Timestamp, e.TxHash = 80_000_100, mT0+950, mcond(0xfeed)
	loadThroughLedger(t, h.db, []ledger.Event{e})
	h.ok(q, &p)
	if brief(p.Data) != "11:A=60,B=46,D=4 12:A=70,C=30,B=10" {
		t.Errorf("after: %s", brief(p.Data))
	}
}

// TestOpenInterestSeesNewData: open interest served before an Apply
// reflects it afterwards (the supply cache is per generation).
func TestOpenInterestSeesNewData(t *testing.T) {
	h := newMHarness(t, handEvs)
	value := func() string {
		var p oiPage
		h.ok("/v2/oi?condition="+mcond(1), &p)
		return p.Data[0].Value.String()
	}
	if v := value(); v != "110" {
		t.Fatalf("before: %s", v)
	}
	e := mSplit(wC, 1, "5")
	e.BlockNumber, e.Timestamp, e.TxHash = 80_000_100, mT0+950, mcond(0xfeed)
	loadThroughLedger(t, h.db, []ledger.Event{e})
	if v := value(); v != "115" {
		t.Errorf("after a split of 5: %s", v)
	}
}

// TestHoldersEconomicsMatchPositions: include_pnl figures equal the
// wallet's /v2/positions row for the same token.
func TestHoldersEconomicsMatchPositions(t *testing.T) {
	h := newMHarness(t, handEvs)
	var p holdersPage
	h.ok("/v2/holders?include_pnl=true&condition="+mcond(1), &p)
	n := 0
	for _, g := range p.Data {
		for _, r := range g.Holders {
			var pos struct {
				Data []struct {
					TokenID       string       `json:"token_id"`
					CurrentSize   amount.Micro `json:"current_size"`
					AvgPrice      amount.Micro `json:"avg_price"`
					EntryCostUSDC amount.Micro `json:"entry_cost_usdc"`
					CurrentPrice  amount.Micro `json:"current_price"`
					CurrentValue  amount.Micro `json:"current_value"`
					RealizedPnL   amount.Micro `json:"realized_pnl"`
					UnrealizedPnL amount.Micro `json:"unrealized_pnl"`
					TotalPnL      amount.Micro `json:"total_pnl"`
				} `json:"data"`
			}
			h.ok("/v2/positions?user="+r.ProxyWallet+"&condition="+mcond(1), &pos)
			found := false
			for _, q := range pos.Data {
				if q.TokenID != g.TokenID {
					continue
				}
				found = true
				want := fmt.Sprint(q.CurrentSize, q.AvgPrice, q.EntryCostUSDC, q.CurrentPrice, q.CurrentValue,
					q.RealizedPnL, q.UnrealizedPnL, q.TotalPnL)
				got := fmt.Sprint(r.Amount, *r.AvgPrice, *r.EntryCostUSDC, *r.CurrentPrice, *r.CurrentValue,
					*r.RealizedPnL, *r.UnrealizedPnL, *r.TotalPnL)
				if got != want {
					t.Errorf("%s %s: holders %s, positions %s", walletName(r.ProxyWallet), g.TokenID, got, want)
				}
				n++
			}
			if !found {
				t.Errorf("%s %s: no position row", walletName(r.ProxyWallet), g.TokenID)
			}
		}
	}
	if n != 6 {
		t.Errorf("%d rows compared", n)
	}
}
