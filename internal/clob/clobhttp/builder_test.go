package clobhttp_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"testing"

	"pmx/internal/clob/clob"
)

// builderHdr signs a request with builder credentials (the builder
// signing SDK's headers: the L2 HMAC under the builder secret).
func builderHdr(c creds, ts int64, method, path, body string) http.Header {
	l := l2("0x0", c, ts, method, path, body)
	h := http.Header{}
	h.Set("POLY_BUILDER_API_KEY", c.APIKey)
	h.Set("POLY_BUILDER_PASSPHRASE", c.Passphrase)
	h.Set("POLY_BUILDER_SIGNATURE", l.Get("POLY_SIGNATURE"))
	h.Set("POLY_BUILDER_TIMESTAMP", l.Get("POLY_TIMESTAMP"))
	return h
}

// TestBuilderKeys: a builder key is created and listed with L2, attributes
// orders posted with its headers, sees their trades in /builder/trades,
// cannot authenticate as L2, and is revoked with its own headers.
func TestBuilderKeys(t *testing.T) {
	x, _ := newClocked(t)
	a, b := x.trader(t, priv0), x.trader(t, priv1)
	x.fund(t, a.w.addr, 100, 0)
	x.fund(t, b.w.addr, 100, 20)
	var bc struct {
		Key        string `json:"key"`
		Secret     string `json:"secret"`
		Passphrase string `json:"passphrase"`
	}
	cr := a.call(t, "POST", "/auth/builder-api-key", "")
	if err := json.Unmarshal(cr.body, &bc); err != nil || bc.Key == "" {
		t.Logf("%d %s", cr.status, cr.body)
		t.Fatalf("create: %v %+v", err, bc)
	}
	c := creds{APIKey: bc.Key, Secret: bc.Secret, Passphrase: bc.Passphrase}
	list := decode[[]map[string]any](t, a.call(t, "GET", "/auth/builder-api-key", ""))
	if len(list) != 1 || list[0]["key"] != bc.Key || list[0]["revokedAt"] != nil {
		t.Fatalf("list %v", list)
	}
	// Not an L2 key.
	x.do(t, "GET", "/data/orders", l2(a.w.addr, c, now0, "GET", "/data/orders", ""), "").wantError(t, 401, msg(clob.ErrUnauthorized))

	// a posts with builder headers on top of L2; b crosses it.
	wire, _ := a.w.sign(limitOrder(yesA, "BUY", 40, 10))
	body := fmt.Sprintf(`{"order":%s,"owner":%q,"orderType":"GTC","postOnly":false}`, wire, a.c.APIKey)
	h := l2(a.w.addr, a.c, now0, "POST", "/order", body)
	for k, v := range builderHdr(c, now0, "POST", "/order", body) {
		h[k] = v
	}
	if r := x.do(t, "POST", "/order", h, body); r.status != 200 {
		t.Fatalf("post: %s", r.body)
	}
	b.post(t, limitOrder(yesA, "SELL", 40, 10), "GTC", false)
	page := decode[struct {
		Data []map[string]any `json:"data"`
	}](t, x.do(t, "GET", "/builder/trades", builderHdr(c, now0, "GET", "/builder/trades", ""), ""))
	if len(page.Data) != 1 || page.Data[0]["tradeType"] != "MAKER" || page.Data[0]["sizeUsdc"] != "4" {
		t.Fatalf("builder trades %v", page.Data)
	}
	x.do(t, "GET", "/builder/trades?before=x", builderHdr(c, now0, "GET", "/builder/trades", ""), "").wantError(t, 400, msg(clob.ErrBuilderTradeParams))
	x.do(t, "DELETE", "/auth/builder-api-key", nil, "").wantError(t, 400, msg(clob.ErrBuilderRevokeHeaders))
	x.do(t, "DELETE", "/auth/builder-api-key", builderHdr(c, now0, "DELETE", "/auth/builder-api-key", "{"), "{").wantError(t, 400, msg(clob.ErrBuilderRevokeBody))
	if r := x.do(t, "DELETE", "/auth/builder-api-key", builderHdr(c, now0, "DELETE", "/auth/builder-api-key", ""), ""); r.status != 200 {
		t.Fatalf("revoke: %d %s", r.status, r.body)
	}
	if list := decode[[]map[string]any](t, a.call(t, "GET", "/auth/builder-api-key", "")); len(list) != 0 {
		t.Fatalf("after revoke %v", list)
	}
}
