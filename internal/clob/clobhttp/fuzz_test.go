package clobhttp_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// FuzzRequireL2 feeds arbitrary signatures, timestamps and bodies to an L2
// route. The answer is always 200 or the 401 contract body, and 200 only
// when the signature is the HMAC of exactly that timestamp and body (in any
// base64 spelling).
func FuzzRequireL2(f *testing.F) {
	e := newEnv(f)
	w := newWallet(f, priv0)
	c := e.do(f, "POST", "/auth/api-key", w.l1(now0, 0), "").creds(f)
	good := l2(w.addr, c, now0, "GET", "/auth/api-keys", "")
	f.Add(good.Get("POLY_SIGNATURE"), "1800000000", "")
	f.Add(strings.TrimRight(good.Get("POLY_SIGNATURE"), "="), "1800000000", "")
	f.Add(good.Get("POLY_SIGNATURE"), "1800000000", "{}")
	f.Add(good.Get("POLY_SIGNATURE"), "+1800000000", "")
	f.Add("", "", "")
	f.Add("!!!!", "x", "\x00")
	f.Fuzz(func(t *testing.T, sig, ts, body string) {
		req := httptest.NewRequest("GET", "/auth/api-keys", strings.NewReader(body))
		for k, v := range good {
			req.Header[k] = v
		}
		req.Header.Set("POLY_SIGNATURE", sig)
		req.Header.Set("POLY_TIMESTAMP", ts)
		rec := httptest.NewRecorder()
		e.h.ServeHTTP(rec, req)
		norm := func(s string) string {
			return strings.NewReplacer("+", "-", "/", "_").Replace(strings.TrimRight(s, "="))
		}
		want := l2ts(w.addr, c, ts, "GET", "/auth/api-keys", body, nil)
		valid := norm(sig) == norm(want.Get("POLY_SIGNATURE")) && ts == "1800000000"
		switch {
		case rec.Code == http.StatusOK && !valid:
			t.Fatalf("accepted sig %q ts %q body %q", sig, ts, body)
		case rec.Code != http.StatusOK && valid && sig == want.Get("POLY_SIGNATURE"):
			t.Fatalf("refused the genuine request: %d %s", rec.Code, rec.Body)
		case rec.Code != http.StatusOK && rec.Body.String() != `{"error":"Unauthorized/Invalid api key"}`:
			t.Fatalf("unexpected refusal %d %s", rec.Code, rec.Body)
		}
	})
}
