package dataapi

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

func TestTraceOnEveryResponse(t *testing.T) {
	h := Trace(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/ok" {
			WriteData(w, r, "ok")
			return
		}
		WriteError(w, r, NotFound("nope"))
	}))
	seen := map[string]bool{}
	for _, path := range []string{"/ok", "/missing", "/ok"} {
		rec := httptest.NewRecorder()
		req := httptest.NewRequest(http.MethodGet, path, nil)
		req.Header.Set(TraceHeader, "client-chosen")
		h.ServeHTTP(rec, req)
		id := rec.Header().Get(TraceHeader)
		if len(id) != 32 || id == "client-chosen" {
			t.Fatalf("%s: trace id %q", path, id)
		}
		if seen[id] {
			t.Fatalf("trace id %s reused", id)
		}
		seen[id] = true
	}
}

func TestWriteErrorOutsideTraceMintsID(t *testing.T) {
	rec := httptest.NewRecorder()
	WriteError(rec, httptest.NewRequest(http.MethodGet, "/", nil), NotFound("x"))
	m := decodeBody(t, rec)
	if id := rec.Header().Get(TraceHeader); id == "" || m["trace_id"] != id {
		t.Fatalf("header %q body %v", id, m["trace_id"])
	}
}
