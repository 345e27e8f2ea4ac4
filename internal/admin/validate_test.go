package admin_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http/httptest"
	"strings"
	"testing"

	"pmx/internal/admin"
	"pmx/internal/httpjson"
)

// Operator input is validated like user input: a bad ledger line answers
// 400 naming the field and what was expected (never a Go type), and text
// with control characters or bidi overrides is refused before it can be
// served publicly. Nothing reaches the store.
func TestPostLedgerErrorsNameTheFieldAndRefuseControlCharacters(t *testing.T) {
	addr := `"address":"0x0000000000000000000000000000000000000001"`
	cases := []struct{ line, want string }{
		{`[]`, "expected a JSON object"},
		{`{"kind":1}`, `field "kind": expected a string (the event kind)`},
		{`{"kind":"trade","log_index":"x"}`, `field "log_index": expected a 64-bit integer`},
		{`{"kind":"trade","log_index":1e99}`, `field "log_index": expected a 64-bit integer`},
		{`{"kind":"market","question":{}}`, `field "question": expected string`},
		{`{"kind":"profile",` + addr + `,"name":"a\u0000"}`, "field name: contains the control character U+0000"},
		{`{"kind":"profile",` + addr + `,"name":"evil\u202egnp"}`, "field name: contains the control character U+202E"},
		{`{"kind":"profile",` + addr + `,"name":"` + strings.Repeat("n", 70000) + `"}`, "name longer than 4096 bytes"},
	}
	for _, c := range cases {
		f := &fakeApplier{}
		rr := httptest.NewRecorder()
		(&admin.Handler{Ledger: f}).Routes().ServeHTTP(rr, httptest.NewRequest("POST", "/admin/ledger", strings.NewReader(c.line+"\n")))
		var body struct{ Error, Code string }
		_ = json.Unmarshal(rr.Body.Bytes(), &body)
		if rr.Code != 400 || body.Code != "invalid_request" || !strings.Contains(body.Error, c.want) || httpjson.LeaksGo(body.Error) ||
			strings.Contains(body.Error, "ledger.") || strings.Contains(body.Error, "int64") || f.calls != 0 {
			t.Errorf("%.80s: %d %s (applied %d); want 400 naming %q", c.line, rr.Code, rr.Body.String(), f.calls, c.want)
		}
	}
}

// A ledger upload whose client went away mid-apply is the client's fault:
// 400, and no ERROR log line.
func TestPostLedgerCanceledByTheClientIsNotAServerError(t *testing.T) {
	var logs strings.Builder
	prev := slog.Default()
	slog.SetDefault(slog.New(slog.NewTextHandler(&logs, nil)))
	defer slog.SetDefault(prev)
	rr := httptest.NewRecorder()
	(&admin.Handler{Ledger: &fakeApplier{err: context.Canceled}}).Routes().ServeHTTP(rr,
		httptest.NewRequest("POST", "/admin/ledger", strings.NewReader(`{"kind":"profile","address":"0x0000000000000000000000000000000000000001","name":"a"}`+"\n")))
	if rr.Code != 400 || strings.Contains(logs.String(), "level=ERROR") {
		t.Fatalf("%d %s; logs %s", rr.Code, rr.Body.String(), logs.String())
	}
}
