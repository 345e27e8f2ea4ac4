package perpshttp

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"
)

// Every order-placement error of the contract, one case each.
func TestPlacementErrors(t *testing.T) {
	e := newEnv(t, Options{})
	e.instrument()
	a := e.trader(1, "100000")
	coid := "0123456789abcdef0123456789abcdef"
	a.placeOK(ord{iid: 1, buy: true, p: "100", qty: "1", c: coid})
	for _, c := range []struct {
		o    ord
		want string
	}{
		{ord{iid: 1, buy: true, p: "100", qty: "1", tif: "fok", po: true}, "FOK orders cannot be post-only"},
		{ord{iid: 1, buy: true, p: "100", qty: "1", tif: "ioc", po: true}, "IOC orders cannot be post-only"},
		{ord{iid: 1, buy: true, qty: "1"}, "GTC orders require a price"},
		{ord{iid: 1, buy: true, qty: "1", tif: "gtc"}, "GTC orders require a price"},
		{ord{iid: 1, buy: true, p: "0", qty: "1"}, "price cannot be zero"},
		{ord{iid: 1, buy: true, p: "100", qty: "1", c: strings.Repeat("0", 32)}, "client order id cannot be all zeros"},
		{ord{iid: 1, buy: true, p: "100.25", qty: "1"}, "price exceeds allowed decimal places"},
		{ord{iid: 1, buy: true, p: "1234.5", qty: "1"}, "ok"}, // 5 figures
		{ord{iid: 1, buy: true, p: "123.45", qty: "1"}, "price exceeds allowed decimal places"},
		{ord{iid: 1, buy: true, p: "12345.6", qty: "1"}, "price exceeds allowed significant figures"},
		{ord{iid: 1, buy: true, p: "100", qty: "0"}, "quantity must be positive"},
		{ord{iid: 1, buy: true, p: "100", qty: "-1"}, "quantity must be positive"},
		{ord{iid: 1, buy: true, p: "100", qty: "0.00001"}, "quantity exceeds allowed decimal places"},
		{ord{iid: 1, buy: true, p: "100", qty: "12.3456"}, "quantity exceeds allowed significant figures"},
		{ord{iid: 1, buy: true, p: "100", qty: "1", c: "XYZ"}, "invalid client order id"},
		{ord{iid: 1, buy: true, p: "100", qty: "1", c: coid}, "duplicate_order"},
		{ord{iid: 7, buy: true, p: "100", qty: "1"}, "instrument_not_found"},
		{ord{iid: 1, buy: true, p: "100", qty: "1", tif: "gtd"}, "invalid_command"},
		{ord{iid: 1, buy: true, p: "90000", qty: "30"}, "insufficient_margin"},
	} {
		got := a.place(c.o)[0]
		if (c.want == "ok" && got.Status != "ok") || (c.want != "ok" && (got.Status != "err" || got.Error != c.want)) {
			t.Errorf("%+v: got %+v, want %q", c.o, got, c.want)
		}
	}
	// Whole-request errors are one-element arrays with HTTP 400.
	code, body := a.signed("POST", "/v1/trade/orders", a.proxy, `{"type":"createOrders","args":[]}`, []any{"createOrders", []any{}}, "")
	if code != 400 || body != `[{"status":"err","error":"no orders provided"}]`+"\n" {
		t.Errorf("no orders: %d %s", code, body)
	}
	// A batch is acknowledged item by item, in order.
	acks := a.place(ord{iid: 1, buy: true, p: "101", qty: "1"}, ord{iid: 1, buy: true, p: "0", qty: "1"}, ord{iid: 1, buy: true, p: "102", qty: "1", c: "00000000000000000000000000000001"})
	if acks[0].Status != "ok" || acks[1].Error != "price cannot be zero" || acks[2].COID != "00000000000000000000000000000001" || acks[2].OID <= acks[0].OID {
		t.Errorf("batch acks %+v", acks)
	}
}

func TestSignatureRules(t *testing.T) {
	e := newEnv(t, Options{})
	e.instrument()
	a := e.trader(1, "100000")
	o := ord{iid: 1, buy: true, p: "100", qty: "1"}
	op := `{"type":"createOrders","args":[` + o.keyed() + `]}`
	compact := []any{"createOrders", []any{o.compact()}}
	now := e.now()
	for _, c := range []struct {
		name  string
		exp   string
		want  string
		code  int
		setup func() (salt, ts uint64, sig string)
	}{
		{name: "exp in the past", exp: fmt.Sprintf(`,"exp":%d`, now-1), want: "command expired", code: 400},
		{name: "exp now", exp: fmt.Sprintf(`,"exp":%d`, now), want: "command expired", code: 400},
		{name: "exp far ahead is clamped", exp: fmt.Sprintf(`,"exp":%d`, now+3600_000), want: "ok", code: 200},
		{name: "old signature", want: "signature expired", code: 400, setup: func() (uint64, uint64, string) {
			ts := now - 5*60_000 - 1
			return 77, ts, a.proxy.sign(tOpDigest(compact, 77, ts))
		}},
		{name: "signature by a stranger", want: "account not found for proxy", code: 400, setup: func() (uint64, uint64, string) {
			return 78, now, newKey(t, 55).sign(tOpDigest(compact, 78, now))
		}},
		{name: "tampered (recovers another signer)", want: "account not found for proxy", code: 400, setup: func() (uint64, uint64, string) {
			return 79, now, a.proxy.sign(tOpDigest([]any{"createOrders", []any{[]any{1, true, "101", "1", false}}}, 79, now))
		}},
		{name: "malformed signature", want: "invalid signature", code: 400, setup: func() (uint64, uint64, string) {
			return 80, now, "0x1234"
		}},
	} {
		salt, ts := e.salt.Add(1), now
		sig := a.proxy.sign(tOpDigest(compact, salt, ts))
		if c.setup != nil {
			salt, ts, sig = c.setup()
		}
		body := fmt.Sprintf(`{"op":%s,"sig":%q,"salt":%d,"ts":%d%s}`, op, sig, salt, ts, c.exp)
		code, got := e.do("POST", e.api.URL+"/v1/trade/orders", []byte(body), nil, nil)
		if code != c.code || !strings.Contains(got, c.want) || got[0] != '[' {
			t.Errorf("%s: %d %s", c.name, code, got)
		}
	}
	// Replay: the identical signed request is not executed twice.
	salt := e.salt.Add(1)
	body := fmt.Sprintf(`{"op":%s,"sig":%q,"salt":%d,"ts":%d}`, op, a.proxy.sign(tOpDigest(compact, salt, now)), salt, now)
	if code, got := e.do("POST", e.api.URL+"/v1/trade/orders", []byte(body), nil, nil); code != 200 {
		t.Fatalf("first: %d %s", code, got)
	}
	if code, got := e.do("POST", e.api.URL+"/v1/trade/orders", []byte(body), nil, nil); code != 422 || !strings.Contains(got, "signature_already_used") {
		t.Errorf("replay: %d %s", code, got)
	}
	// ... also after a restart (the replay cache is re-seeded from the journal).
	e.restart()
	if code, got := e.do("POST", e.api.URL+"/v1/trade/orders", []byte(body), nil, nil); code != 422 {
		t.Errorf("replay after restart: %d %s", code, got)
	}
}

// Outcomes that are order statuses, not rejections (perps.md §9.4).
func TestOrderOutcomes(t *testing.T) {
	e := newEnv(t, Options{})
	e.instrument()
	a, b := e.trader(1, "1000000"), e.trader(2, "1000000")
	ask := b.placeOK(ord{iid: 1, buy: false, p: "100", qty: "2"})
	cases := []struct {
		name         string
		o            ord
		status, fill string
	}{
		{"post-only crossing", ord{iid: 1, buy: true, p: "100", qty: "1", po: true}, "post_only_rejected", "0"},
		{"post-only resting", ord{iid: 1, buy: true, p: "99", qty: "1", po: true}, "open", "0"},
		{"ioc no fill", ord{iid: 1, buy: true, p: "98", qty: "1", tif: "ioc"}, "ioc_no_fill", "0"},
		{"fok unfilled", ord{iid: 1, buy: true, p: "100", qty: "5", tif: "fok"}, "fok_unfilled", "0"},
		{"ioc partial", ord{iid: 1, buy: true, p: "100", qty: "1.5", tif: "ioc"}, "ioc_expired", "0.5"},
		{"reduce-only while flat", ord{iid: 1, buy: true, p: "90", qty: "1", ro: boolp(true)}, "reduce_only_invalid", "0"},
		{"below min notional", ord{iid: 1, buy: true, p: "1", qty: "0.5"}, "below_min_notional", "0"},
	}
	// Leave 0.5 at 100 for the partial IOC: take 1.5 first with a FOK.
	if r := a.order(a.placeOK(ord{iid: 1, buy: true, p: "100", qty: "1.5", tif: "fok"})); r.Status != "filled" || r.Filled != "1.5" {
		t.Fatalf("fok filled: %+v", r)
	}
	for _, c := range cases {
		r := a.order(a.placeOK(c.o))
		if r.Status != c.status || r.Filled != c.fill {
			t.Errorf("%s: %+v", c.name, r)
		}
	}
	if r := b.order(ask); r.Status != "filled" || r.Resting != "0" {
		t.Errorf("maker: %+v", r)
	}
	// a is long 2: a reduce-only sell is capped at the position.
	ro := a.order(a.placeOK(ord{iid: 1, buy: false, p: "200", qty: "5", ro: boolp(true)}))
	if ro.Status != "open" || ro.Quantity != "2" {
		t.Errorf("reduce-only cap: %+v", ro)
	}
	if r := a.order(a.placeOK(ord{iid: 1, buy: true, p: "201", qty: "1", ro: boolp(true)})); r.Status != "reduce_only_invalid" {
		t.Errorf("reduce-only buy while long: %+v", r)
	}
	// Self-trade: a's resting post-only bid at 99 is cancelled when a sells into it.
	var open []orderRow
	a.read("/v1/account/open-orders?instrument_id=1", &open)
	sell := a.order(a.placeOK(ord{iid: 1, buy: false, p: "99", qty: "1", tif: "ioc"}))
	if sell.Status != "ioc_no_fill" {
		t.Errorf("stp taker: %+v", sell)
	}
	for _, o := range open {
		if o.Price == "99" {
			if r := a.order(o.OrderID); r.Status != "stp_cancelled" {
				t.Errorf("stp maker: %+v", r)
			}
		}
	}
	// Market orders: IOC without a price.
	b.placeOK(ord{iid: 1, buy: false, p: "105", qty: "1"})
	if r := a.order(a.placeOK(ord{iid: 1, buy: true, qty: "1", tif: "ioc"})); r.Status != "filled" || r.TIF != "ioc" {
		t.Errorf("market: %+v", r)
	}
}

// Every cancellation outcome reachable here, one case each.
func TestCancel(t *testing.T) {
	e := newEnv(t, Options{})
	e.instrument()
	a, b := e.trader(1, "1000000"), e.trader(2, "1000000")
	coid := "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
	o1 := a.placeOK(ord{iid: 1, buy: true, p: "100", qty: "1", c: coid})
	o2 := a.placeOK(ord{iid: 1, buy: true, p: "99", qty: "1"})
	foreign := b.placeOK(ord{iid: 1, buy: false, p: "110", qty: "1"})
	filled := a.placeOK(ord{iid: 1, buy: true, p: "110", qty: "1"})
	res := a.cancel(o2, o2, 999999, foreign, filled)
	want := []string{"ok", "order_already_terminal", "order_not_found", "order_not_found", "order_already_terminal"}
	for i, w := range want {
		if got := res[i].Status; (w == "ok" && got != "ok") || (w != "ok" && res[i].Error != w) {
			t.Errorf("cancel %d: %+v want %s", i, res[i], w)
		}
	}
	if r := a.order(o2); r.Status != "cancelled" {
		t.Errorf("cancelled order %+v", r)
	}
	res = a.cancelCOID(coid, coid, "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb")
	if res[0].Status != "ok" || res[0].OID != o1 || res[0].COID != coid || res[1].Error != "order_unknown" || res[2].Error != "order_unknown" {
		t.Errorf("cancel by coid %+v", res)
	}
	// The coid is released when the order ends and can be reused.
	a.placeOK(ord{iid: 1, buy: true, p: "100", qty: "1", c: coid})
	a.placeOK(ord{iid: 1, buy: true, p: "98", qty: "1"})
	code, body := a.signed("DELETE", "/v1/trade/orders/all", a.proxy, `{"type":"cancelAll","args":{}}`, []any{"cancelAll", []any{}}, "")
	if code != 200 || body != `{"status":"ok"}`+"\n" {
		t.Fatalf("cancelAll %d %s", code, body)
	}
	var open []orderRow
	if a.read("/v1/account/open-orders", &open); len(open) != 0 {
		t.Errorf("open after cancelAll: %+v", open)
	}
	b.placeOK(ord{iid: 1, buy: false, p: "120", qty: "1"})
	code, _ = b.signed("DELETE", "/v1/trade/orders/all", b.proxy, `{"type":"cancelAll","args":{"iid":2}}`, []any{"cancelAll", []any{2}}, "")
	if b.read("/v1/account/open-orders", &open); code != 200 || len(open) != 1 {
		t.Errorf("cancelAll of another instrument touched iid 1: %d %+v", code, open)
	}
}

// Every modify error of the contract that this engine can produce, one each.
func TestModify(t *testing.T) {
	e := newEnv(t, Options{MaxModifies: 3})
	e.instrument()
	a, b := e.trader(1, "1000000"), e.trader(2, "1000000")
	coid := "cccccccccccccccccccccccccccccccc"
	bid := a.placeOK(ord{iid: 1, buy: true, p: "100", qty: "2", c: coid})
	b.placeOK(ord{iid: 1, buy: false, p: "105", qty: "1"})
	foreign := b.placeOK(ord{iid: 1, buy: false, p: "106", qty: "1"})
	b.placeOK(ord{iid: 1, buy: false, p: "100", qty: "0.5", tif: "ioc"}) // bid filled 0.5

	res := a.modify(mod{oid: bid, p: "101", qty: "3"})
	if res[0].Status != "ok" || !strings.Contains(string(res[0].Order), `"p":"101","qty":"3"`) || !strings.Contains(string(res[0].Order), `"rest":"2.5"`) {
		t.Fatalf("modify ok: %+v %s", res[0], res[0].Order)
	}
	for _, c := range []struct {
		m    mod
		want string
	}{
		{mod{oid: bid, p: "101", qty: "3"}, "modify_no_op"},
		{mod{oid: bid, p: "105", qty: "3"}, "modify_would_cross"},
		{mod{oid: bid, p: "101", qty: "0.5"}, "modify_quantity_not_above_filled"},
		{mod{oid: 424242, p: "101", qty: "3"}, "order_not_in_orderbook"},
		{mod{oid: foreign, p: "107", qty: "1"}, "order_not_in_orderbook"},
		{mod{oid: bid, p: "0", qty: "3"}, "invalid_command"},
		{mod{oid: bid, p: "101", qty: "1.23456"}, "invalid_command"},
		{mod{coid: "dddddddddddddddddddddddddddddddd", p: "101", qty: "3"}, "order_unknown"},
	} {
		if res := a.modify(c.m); res[0].Error != c.want {
			t.Errorf("%+v: %+v want %s", c.m, res[0], c.want)
		}
	}
	res = a.modify(mod{oid: bid, p: "99", qty: "3"}, mod{oid: bid, p: "98", qty: "3"})
	if res[0].Status != "ok" || res[1].Error != "duplicate_order_in_batch" {
		t.Errorf("duplicate in batch %+v", res)
	}
	if res = a.modify(mod{coid: coid, p: "97", qty: "3"}); res[0].Status != "ok" {
		t.Errorf("modify by coid %+v", res)
	}
	if res = a.modify(mod{coid: coid, p: "96", qty: "3"}); res[0].Error != "modify_limit_reached" {
		t.Errorf("limit %+v", res)
	}
	if r := a.order(bid); r.Price != "97" || r.Quantity != "3" || r.Filled != "0.5" {
		t.Errorf("after modifies %+v", r)
	}
}

func TestRateLimits(t *testing.T) {
	e := newEnv(t, Options{IPBudget: 10, ActionBudget: 3})
	e.instrument()
	a := e.trader(1, "1000000") // createProxy costs 1
	a.place(ord{iid: 1, buy: true, p: "100", qty: "1"}, ord{iid: 1, buy: true, p: "99", qty: "1"}, ord{iid: 1, buy: true, p: "98", qty: "1"})
	code, body := a.placeRaw("", ord{iid: 1, buy: true, p: "97", qty: "1"})
	if code != 429 || body != `[{"status":"err","error":"action_rate_limited"}]`+"\n" {
		t.Errorf("action limit: %d %s", code, body)
	}
	e.advance(time.Minute) // refills both
	for i := 0; i < 10; i++ {
		e.get("/v1/info/ping", nil)
	}
	code, _ = e.get("/v1/info/ping", nil)
	req, _ := e.api.Client().Get(e.api.URL + "/v1/info/time")
	req.Body.Close()
	if code != 429 || req.StatusCode != 429 || req.Header.Get("Retry-After") == "" {
		t.Errorf("ip limit: %d %d %q", code, req.StatusCode, req.Header.Get("Retry-After"))
	}
	e.advance(time.Minute)
	if code, _ := e.get("/v1/info/book?instrument_id=1&depth=500", nil); code != 200 {
		t.Errorf("after refill %d", code)
	}
	if code, body := e.get("/v1/info/book?instrument_id=1&depth=10", nil); code != 429 || !strings.Contains(body, "ip_rate_limited") {
		t.Errorf("depth 500 weighs 10, the whole budget: %d %s", code, body)
	}
}

// TestActionWeights: creates and modifies cost one action per order;
// cancels and cancelAll cost none, so they still work once the action budget
// is spent (perps.md §7). The test clock stands still.
func TestActionWeights(t *testing.T) {
	e := newEnv(t, Options{ActionBudget: 2})
	e.instrument()
	a := e.trader(1, "1000000")
	first := a.placeOK(ord{iid: 1, buy: true, p: "100", qty: "1"})
	if it := a.modify(mod{oid: first, p: "99", qty: "1"}); len(it) != 1 || it[0].Status != "ok" {
		t.Fatalf("modify within the budget: %+v", it)
	}
	// Both actions are spent.
	if it := a.modify(mod{oid: first, p: "98", qty: "1"}); len(it) != 1 || it[0].Error != "action_rate_limited" {
		t.Errorf("modify past the budget: %+v", it)
	}
	if code, body := a.placeRaw("", ord{iid: 1, buy: true, p: "97", qty: "1"}); code != 429 || !strings.Contains(body, "action_rate_limited") {
		t.Errorf("create past the budget: %d %s", code, body)
	}
	if it := a.cancel(first, first+1000); len(it) != 2 || it[0].Status != "ok" {
		t.Errorf("cancel past the budget: %+v", it)
	}
	if code, body := a.signed("DELETE", "/v1/trade/orders/all", a.proxy, `{"type":"cancelAll","args":{}}`, []any{"cancelAll", []any{}}, ""); code != 200 {
		t.Errorf("cancelAll past the budget: %d %s", code, body)
	}
}

// TestBatchItemLimit: a batch of more than 100 items is refused whole (400,
// one-element array); 100 is accepted (docs/perps.md, placement row).
func TestBatchItemLimit(t *testing.T) {
	e := newEnv(t, Options{})
	e.instrument()
	a := e.trader(1, "")
	cancel := func(n int) (int, string) {
		keyed, rows := make([]string, n), make([]any, n)
		for i := range rows {
			keyed[i], rows[i] = fmt.Sprint(1000+i), 1000+i
		}
		return a.signed("DELETE", "/v1/trade/orders", a.proxy, `{"type":"cancelOrders","args":[`+strings.Join(keyed, ",")+`]}`, []any{"cancelOrders", rows}, "")
	}
	if code, body := cancel(100); code != 200 || len(a.items(code, body)) != 100 {
		t.Errorf("100 items: %d %s", code, body)
	}
	if code, body := cancel(101); code != 400 || strings.TrimSpace(body) != `[{"status":"err","error":"invalid request: at most 100 items per request"}]` {
		t.Errorf("101 items: %d %s", code, body)
	}
}

// TestBatchRequestWeight: a batch trade request weighs 1 + floor(n/20), on
// REST against the IP budget and on a socket against the message budget
// (perps.md §4.2, §7). The budgets hold 3 after setup and the test clock
// stands still, so what a batch left is counted with pings.
func TestBatchRequestWeight(t *testing.T) {
	type transport struct {
		cancel func(n int) int // items answered
		ping   func() (ok bool, body string)
	}
	rest := func(t *testing.T) transport {
		e := newEnv(t, Options{IPBudget: 4})
		e.instrument()
		a := e.trader(1, "") // createProxy weighs 1
		return transport{
			cancel: func(n int) int {
				oids := make([]uint64, n)
				for i := range oids {
					oids[i] = uint64(1000 + i)
				}
				return len(a.cancel(oids...))
			},
			ping: func() (bool, string) {
				code, body := e.get("/v1/info/ping", nil)
				return code == 200, body
			},
		}
	}
	ws := func(t *testing.T) transport {
		e := newEnv(t, Options{WSMessages: 3})
		e.instrument()
		a := e.trader(1, "") // over REST: the message budget is untouched
		w := e.dial(t)
		return transport{
			cancel: func(n int) int {
				keyed, rows := make([]string, n), make([]any, n)
				for i := range rows {
					keyed[i], rows[i] = fmt.Sprint(1000+i), 1000+i
				}
				res := w.signedPost(a, `{"type":"cancelOrders","args":[`+strings.Join(keyed, ",")+`]}`, []any{"cancelOrders", rows})
				var items []json.RawMessage
				if err := json.Unmarshal(res, &items); err != nil {
					t.Fatalf("cancel of %d ids: %s", n, res)
				}
				return len(items)
			},
			ping: func() (bool, string) {
				d := w.call("post", `"op":{"type":"ping"}`)
				return strings.Contains(string(d), `"status":"ok"`), string(d)
			},
		}
	}
	for name, open := range map[string]func(*testing.T) transport{"rest": rest, "ws": ws} {
		for _, tc := range []struct{ n, pingsLeft int }{
			{19, 2}, // weight 1
			{39, 1}, // weight 2
			{40, 0}, // weight 3
		} {
			t.Run(fmt.Sprint(name, "/", tc.n), func(t *testing.T) {
				tr := open(t)
				if got := tr.cancel(tc.n); got != tc.n {
					t.Fatalf("cancel of %d ids answered %d items", tc.n, got)
				}
				for i := range tc.pingsLeft {
					if ok, body := tr.ping(); !ok {
						t.Fatalf("ping %d: %s", i, body)
					}
				}
				if ok, body := tr.ping(); ok || !strings.Contains(body, "rate_limited") {
					t.Fatalf("ping after the budget: %s", body)
				}
			})
		}
	}
}

// TestCommandQueuedPastItsDeadlineIsNotExecuted: a command verified in time
// whose deadline (exp, default now+5 s) passes while it waits to be sequenced
// is answered 400 "command expired" and has no effect: no order, no history,
// and its replay entry is dropped so the identical request may be resent.
// The control row waits less than its deadline and is executed.
func TestCommandQueuedPastItsDeadlineIsNotExecuted(t *testing.T) {
	for _, c := range []struct {
		name     string
		exp      int64 // ms after now; 0: absent (the 5 s default)
		wait     time.Duration
		executed bool
	}{
		{name: "default deadline passes", wait: 5*time.Second + time.Millisecond},
		{name: "clamped deadline passes", exp: 3600_000, wait: 5*time.Second + time.Millisecond},
		{name: "explicit deadline passes", exp: 1000, wait: 1001 * time.Millisecond},
		{name: "deadline reached", exp: 1000, wait: 1000 * time.Millisecond}, // at server time is expired, as for exp
		{name: "within the deadline", exp: 1000, wait: 999 * time.Millisecond, executed: true},
	} {
		t.Run(c.name, func(t *testing.T) {
			var e *env
			e = newEnv(t, Options{queueWait: func() { e.advance(c.wait) }})
			e.instrument()
			a := e.trader(1, "100000")
			extra := ""
			if c.exp != 0 {
				extra = fmt.Sprintf(`,"exp":%d`, int64(e.now())+c.exp)
			}
			keys := e.srv.ver.Replay().Len()
			code, body := a.placeRaw(extra, ord{iid: 1, buy: true, p: "100", qty: "1"})
			var orders []orderRow
			a.read("/v1/account/orders", &orders)
			added := e.srv.ver.Replay().Len() - keys
			if c.executed {
				if code != 200 || !strings.Contains(body, `"ok"`) || len(orders) != 1 || added != 1 {
					t.Fatalf("executed: %d %s, orders %+v, replay entries +%d", code, body, orders, added)
				}
				return
			}
			if code != 400 || strings.TrimSpace(body) != `[{"status":"err","error":"command expired"}]` {
				t.Errorf("answer: %d %s", code, body)
			}
			if bids := e.bids(); len(orders) != 0 || len(bids) != 0 || added != 0 {
				t.Errorf("expired command had an effect: orders %+v, bids %v, replay entries +%d", orders, bids, added)
			}
		})
	}
}

// TestExpiredCommandSpendsNoActions: a command refused as expired was not
// executed, so it takes nothing from the account's action budget.
func TestExpiredCommandSpendsNoActions(t *testing.T) {
	var e *env
	expire := true
	e = newEnv(t, Options{ActionBudget: 1, queueWait: func() {
		if expire {
			expire = false
			e.advance(6 * time.Second) // past the default 5 s deadline; refills a tenth of an action
		}
	}})
	e.instrument()
	a := e.trader(1, "1000000")
	if code, body := a.placeRaw("", ord{iid: 1, buy: true, p: "100", qty: "1"}); code != 400 || !strings.Contains(body, "command expired") {
		t.Fatalf("first: %d %s", code, body)
	}
	a.placeOK(ord{iid: 1, buy: true, p: "100", qty: "1"}) // the one action is still there
}
