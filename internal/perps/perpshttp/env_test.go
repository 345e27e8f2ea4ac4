package perpshttp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

const t0 = int64(1790000000000) // test epoch (ms)

type env struct {
	t     testing.TB
	dir   string
	srv   *Server
	api   *httptest.Server
	admin *httptest.Server
	ms    *atomic.Int64
	salt  atomic.Uint64
	opt   Options
}

func newEnv(t testing.TB, opt Options) *env {
	t.Helper()
	e := &env{t: t, dir: t.TempDir(), ms: new(atomic.Int64)}
	e.ms.Store(t0)
	opt.Clock = func() time.Time { return time.UnixMilli(e.ms.Load()) }
	opt.Money.ManualChain = true // the chain moves with the test's clock, on the next command
	if opt.Log == nil {
		opt.Log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	e.opt = opt
	e.start()
	return e
}

func (e *env) start() {
	e.opt.Dir = e.dir
	srv, err := New(e.opt)
	if err != nil {
		e.t.Fatal(err)
	}
	e.srv = srv
	e.api = httptest.NewUnstartedServer(srv.Handler())
	e.api.Start()
	e.admin = httptest.NewServer(srv.AdminHandler())
	e.t.Cleanup(e.stop)
}

func (e *env) stop() {
	if e.srv == nil {
		return
	}
	e.api.Close()
	e.admin.Close()
	e.srv.Close()
	e.srv = nil
}

func (e *env) restart() {
	e.stop()
	e.start()
}

func (e *env) now() uint64             { return uint64(e.ms.Load()) }
func (e *env) advance(d time.Duration) { e.ms.Add(d.Milliseconds()) }

// do sends a request and decodes the JSON answer into out (if non-nil).
func (e *env) do(method, url string, body []byte, hdr map[string]string, out any) (int, string) {
	e.t.Helper()
	req, _ := http.NewRequest(method, url, bytes.NewReader(body))
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	// The one null the contract gives: an invite's cooldown_ms under a lifetime cap.
	if strings.Contains(strings.ReplaceAll(string(b), `"cooldown_ms":null`, ""), "null") {
		e.t.Errorf("%s %s: null in response %s", method, url, b)
	}
	if out != nil && res.StatusCode < 300 {
		if err := json.Unmarshal(b, out); err != nil {
			e.t.Fatalf("%s %s: %v in %s", method, url, err, b)
		}
	}
	return res.StatusCode, string(b)
}

func (e *env) get(path string, out any) (int, string) {
	return e.do("GET", e.api.URL+path, nil, nil, out)
}

func (e *env) adminPost(path, body string) {
	e.t.Helper()
	if code, b := e.do("POST", e.admin.URL+path, []byte(body), nil, nil); code >= 300 {
		e.t.Fatalf("admin %s: %d %s", path, code, b)
	}
}

// instrument lists BTC-USD: 1 price decimal, 4 quantity decimals, 20x, min notional 1.
func (e *env) instrument() {
	e.adminPost("/admin/perps/instruments", `{"symbol":"BTC-USD","category":"crypto","price_decimals":1,"quantity_decimals":4,"max_leverage":20,"min_notional":"1"}`)
}

// trader is an account with one proxy credential.
type trader struct {
	e      *env
	owner  tKey
	proxy  tKey
	secret string
}

func (e *env) trader(seed byte, deposit string) *trader {
	e.t.Helper()
	tr := &trader{e: e, owner: newKey(e.t, seed), proxy: newKey(e.t, seed+100)}
	code, body := tr.createProxy(e.now()+7*86400000, "")
	if code != 200 {
		e.t.Fatalf("createProxy: %d %s", code, body)
	}
	var r struct{ Secret string }
	json.Unmarshal([]byte(body), &r)
	tr.secret = r.Secret
	if deposit != "" {
		e.adminPost("/admin/perps/deposits", fmt.Sprintf(`{"address":%q,"amount":%q}`, tr.owner.hex, deposit))
	}
	return tr
}

func (tr *trader) createProxy(expiry uint64, extra string) (int, string) {
	e := tr.e
	salt, ts := e.salt.Add(1), e.now()
	sig := tr.owner.sign(tCreateProxyDigest(tr.proxy.addr, expiry, salt, ts))
	body := fmt.Sprintf(`{"op":{"type":"createProxy","args":{"owner":%q,"proxy":%q,"expiry":%d}},"sig":%q,"salt":%d,"ts":%d,"label":"test"%s}`,
		tr.owner.hex, tr.proxy.hex, expiry, sig, salt, ts, extra)
	return e.do("POST", e.api.URL+"/v1/account/proxy", []byte(body), nil, nil)
}

func (tr *trader) hdr() map[string]string {
	return map[string]string{"SVC-PROXY": tr.proxy.hex, "SVC-SECRET": tr.secret}
}

func (tr *trader) read(path string, out any) (int, string) {
	return tr.e.do("GET", tr.e.api.URL+path, nil, tr.hdr(), out)
}

// signed posts a signed op: keyed is the op JSON, compact its compact tree.
func (tr *trader) signed(method, path string, key tKey, keyed string, compact []any, extra string) (int, string) {
	e := tr.e
	salt, ts := e.salt.Add(1), e.now()
	sig := key.sign(tOpDigest(compact, salt, ts))
	body := fmt.Sprintf(`{"op":%s,"sig":%q,"salt":%d,"ts":%d%s}`, keyed, sig, salt, ts, extra)
	return e.do(method, e.api.URL+path, []byte(body), nil, nil)
}

// ord is a createOrders item for tests; "" strings and nil pointers are absent.
type ord struct {
	iid    int
	buy    bool
	p, qty string
	tif    string
	po     bool
	ro     *bool
	c      string
}

func (o ord) keyed() string {
	var b strings.Builder
	fmt.Fprintf(&b, `{"iid":%d,"buy":%t`, o.iid, o.buy)
	if o.p != "" {
		fmt.Fprintf(&b, `,"p":%q`, o.p)
	}
	fmt.Fprintf(&b, `,"qty":%q`, o.qty)
	if o.tif != "" {
		fmt.Fprintf(&b, `,"tif":%q`, o.tif)
	}
	fmt.Fprintf(&b, `,"po":%t`, o.po)
	if o.ro != nil {
		fmt.Fprintf(&b, `,"ro":%t`, *o.ro)
	}
	if o.c != "" {
		fmt.Fprintf(&b, `,"c":%q`, o.c)
	}
	b.WriteString("}")
	return b.String()
}

func (o ord) compact() []any {
	row := []any{o.iid, o.buy}
	if o.p != "" {
		row = append(row, o.p)
	}
	row = append(row, o.qty)
	if o.tif != "" {
		row = append(row, o.tif)
	}
	row = append(row, o.po)
	if o.ro != nil {
		row = append(row, *o.ro)
	}
	if o.c != "" {
		row = append(row, o.c)
	}
	return row
}

type ack struct {
	Status string `json:"status"`
	OID    uint64 `json:"oid"`
	COID   string `json:"coid"`
	Error  string `json:"error"`
}

func (tr *trader) placeRaw(extra string, os ...ord) (int, string) {
	keyed := make([]string, len(os))
	rows := []any{}
	for i, o := range os {
		keyed[i] = o.keyed()
		rows = append(rows, o.compact())
	}
	op := `{"type":"createOrders","args":[` + strings.Join(keyed, ",") + `]}`
	return tr.signed("POST", "/v1/trade/orders", tr.proxy, op, []any{"createOrders", rows}, extra)
}

func (tr *trader) place(os ...ord) []ack {
	tr.e.t.Helper()
	code, body := tr.placeRaw("", os...)
	var acks []ack
	if err := json.Unmarshal([]byte(body), &acks); err != nil || len(acks) != len(os) {
		tr.e.t.Fatalf("place: %d %s", code, body)
	}
	return acks
}

func (tr *trader) placeOK(o ord) uint64 {
	tr.e.t.Helper()
	a := tr.place(o)[0]
	if a.Status != "ok" {
		tr.e.t.Fatalf("place %+v: %+v", o, a)
	}
	return a.OID
}

type item struct {
	Status string          `json:"status"`
	OID    uint64          `json:"oid"`
	COID   string          `json:"coid"`
	Error  string          `json:"error"`
	Order  json.RawMessage `json:"order"`
}

func (tr *trader) items(code int, body string) []item {
	tr.e.t.Helper()
	var it []item
	if err := json.Unmarshal([]byte(body), &it); err != nil {
		tr.e.t.Fatalf("%d %s", code, body)
	}
	return it
}

func (tr *trader) cancel(oids ...uint64) []item {
	keyed, rows := []string{}, []any{}
	for _, o := range oids {
		keyed = append(keyed, fmt.Sprint(o))
		rows = append(rows, int(o))
	}
	return tr.items(tr.signed("DELETE", "/v1/trade/orders", tr.proxy,
		`{"type":"cancelOrders","args":[`+strings.Join(keyed, ",")+`]}`, []any{"cancelOrders", rows}, ""))
}

func (tr *trader) cancelCOID(coids ...string) []item {
	keyed, rows := []string{}, []any{}
	for _, c := range coids {
		keyed = append(keyed, fmt.Sprintf("%q", c))
		rows = append(rows, c)
	}
	return tr.items(tr.signed("DELETE", "/v1/trade/orders-coid", tr.proxy,
		`{"type":"cancelOrdersCOID","args":[`+strings.Join(keyed, ",")+`]}`, []any{"cancelOrdersCOID", rows}, ""))
}

type mod struct {
	oid    uint64
	coid   string
	p, qty string
}

func (tr *trader) modify(ms ...mod) []item {
	keyed, rows := []string{}, []any{}
	typ, path := "modifyOrders", "/v1/trade/orders"
	for _, m := range ms {
		if m.coid != "" {
			typ, path = "modifyOrdersCOID", "/v1/trade/orders-coid"
			keyed = append(keyed, fmt.Sprintf(`{"coid":%q,"p":%q,"qty":%q}`, m.coid, m.p, m.qty))
			rows = append(rows, []any{m.coid, m.p, m.qty})
		} else {
			keyed = append(keyed, fmt.Sprintf(`{"oid":%d,"p":%q,"qty":%q}`, m.oid, m.p, m.qty))
			rows = append(rows, []any{int(m.oid), m.p, m.qty})
		}
	}
	return tr.items(tr.signed("PATCH", path, tr.proxy,
		`{"type":"`+typ+`","args":[`+strings.Join(keyed, ",")+`]}`, []any{typ, rows}, ""))
}

type orderRow struct {
	OrderID  uint64 `json:"order_id"`
	Status   string `json:"status"`
	Price    string `json:"price"`
	Quantity string `json:"quantity"`
	Resting  string `json:"resting_quantity"`
	Filled   string `json:"filled_quantity"`
	TIF      string `json:"tif"`
	COID     string `json:"client_order_id"`
}

func (tr *trader) order(oid uint64) orderRow {
	tr.e.t.Helper()
	var rows []orderRow
	tr.read(fmt.Sprintf("/v1/account/orders?order_id=%d", oid), &rows)
	if len(rows) != 1 {
		tr.e.t.Fatalf("order %d: %v", oid, rows)
	}
	return rows[0]
}

func boolp(b bool) *bool { return &b }
