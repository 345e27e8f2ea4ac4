package admin_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"pmx/internal/admin"
	"pmx/internal/data/sqlite"
	"pmx/internal/data/store"
)

const market = `{"kind":"market","condition_id":"0x` + "1111111111111111111111111111111111111111111111111111111111111111" + `","question":"Q?","slug":"q","event_id":1,"event_slug":"e","event_title":"E","category":"politics","outcomes":["Yes","No"],"token_ids":["1","2"],"end_date":"2027-01-01T00:00:00Z"}`

func MustServer(t *testing.T) (*httptest.Server, *sqlite.DB) {
	t.Helper()
	db, err := sqlite.Open(filepath.Join(t.TempDir(), "pmx.db"), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	h := &admin.Handler{Ledger: db}
	srv := httptest.NewServer(h.Routes())
	t.Cleanup(srv.Close)
	return srv, db
}

func post(t *testing.T, url, body string) (int, map[string]any) {
	t.Helper()
	resp, err := http.Post(url, "application/x-ndjson", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	var m map[string]any
	_ = json.Unmarshal(b, &m)
	return resp.StatusCode, m
}

func TestPostLedgerAppliesAndCounts(t *testing.T) {
	srv, _ := MustServer(t)
	code, body := post(t, srv.URL+"/admin/ledger", market+"\n")
	if code != 200 || body["applied"] != float64(1) {
		t.Fatalf("%d %v", code, body)
	}
}

func TestPostLedgerBadLineAppliesNothing(t *testing.T) {
	srv, db := MustServer(t)
	code, body := post(t, srv.URL+"/admin/ledger", market+"\n{\"kind\":\"trade\"}\n")
	if code != 400 || body["line"] != float64(2) || !strings.HasPrefix(body["error"].(string), "line 2:") {
		t.Fatalf("%d %v", code, body)
	}
	wm, err := db.Watermark(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if wm.Applied != 0 {
		t.Fatalf("a rejected batch applied %d events", wm.Applied)
	}
	var _ store.Store = db
}

func TestUnknownAdminRouteIs404JSON(t *testing.T) {
	srv, _ := MustServer(t)
	resp, err := http.Get(srv.URL + "/admin/nope")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 404 || resp.Header.Get("Content-Type") != "application/json" {
		t.Fatalf("%d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
}

// TestPostLedgerEventRejectedByTheStoreIs400: a well-formed line the store
// refuses on its merits (a trade on a token no market declares) is the
// caller's fault: 400 naming the event, nothing applied.
func TestPostLedgerEventRejectedByTheStoreIs400(t *testing.T) {
	srv, db := MustServer(t)
	trade := `{"kind":"trade","tx_hash":"0x` + strings.Repeat("01", 32) + `","log_index":1,"block_number":10,"timestamp":1800000000,"token_id":"999","maker":"0x` +
		strings.Repeat("0a", 20) + `","taker":"0x` + strings.Repeat("0b", 20) + `","side":"BUY","price":"0.5","size":"1"}`
	code, body := post(t, srv.URL+"/admin/ledger", market+"\n"+trade+"\n")
	if code != 400 || body["event"] != float64(2) || body["code"] != "invalid_request" {
		t.Fatalf("%d %v", code, body)
	}
	wm, _ := db.Watermark(context.Background())
	if wm.Applied != 0 {
		t.Fatalf("applied %d", wm.Applied)
	}
}
