package perpshttp

import (
	"encoding/json"
	"io"
	"log/slog"
	"net/http/httptest"
	"testing"

	"pmx/internal/perps/perpsvc"
)

// TestErrorCatalogueMapsToHTTPOnce: every catalogue entry is answered with
// its status and the contract's {status:"err", error} body (the one-element
// array on batch routes), trading modes with their retry fields.
func TestErrorCatalogueMapsToHTTPOnce(t *testing.T) {
	s := &Server{log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	for c := perpsvc.Code(0); ; c++ {
		e := perpsvc.E(c, "x")
		if e.ID() == "" {
			break
		}
		for _, batch := range []bool{false, true} {
			w := httptest.NewRecorder()
			s.writeError(w, e, batch)
			if w.Code != e.Status() || w.Header().Get("Content-Type") != "application/json" {
				t.Errorf("%s: %d %s", e.ID(), w.Code, w.Header().Get("Content-Type"))
			}
			var one map[string]any
			if batch {
				var arr []map[string]any
				if err := json.Unmarshal(w.Body.Bytes(), &arr); err != nil || len(arr) != 1 {
					t.Fatalf("%s batch: %s", e.ID(), w.Body)
				}
				one = arr[0]
			} else if err := json.Unmarshal(w.Body.Bytes(), &one); err != nil {
				t.Fatalf("%s: %s", e.ID(), w.Body)
			}
			if one["status"] != "err" || one["error"] != e.Error() {
				t.Errorf("%s: body %s", e.ID(), w.Body)
			}
		}
	}
	w := httptest.NewRecorder()
	s.writeError(w, &perpsvc.Error{Code: perpsvc.CodePostOnly, RetryAfter: 30e9}, true)
	if w.Header().Get("Retry-After") != "30" || w.Body.String() != `[{"status":"err","error":"post_only_mode","code":"post_only_mode","retry_after_seconds":30}]`+"\n" {
		t.Errorf("post_only_mode: %s %q", w.Header().Get("Retry-After"), w.Body)
	}
}
