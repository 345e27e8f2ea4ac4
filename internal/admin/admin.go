// Package admin is the operator API on the admin listener: ledger ingest
// today, catalog import and exchange operations as they arrive. Every route
// here sits behind the admin bearer token (see server.RequireToken).
package admin

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"

	"pmx/internal/data/ledger"
	"pmx/internal/data/store"
	"pmx/internal/safetext"
)

// Applier applies a validated batch atomically (store.Store satisfies it).
type Applier interface {
	Apply(ctx context.Context, events []ledger.Event) (int, error)
}

// OutcomeLookup reports how many outcomes a stored market has, so a batch
// is also checked against markets applied earlier (e.g. resolution payouts).
type OutcomeLookup func(conditionID string) (outcomes int, ok bool)

// MaxLedgerBody bounds one POST /admin/ledger body.
const MaxLedgerBody = 1 << 30

// Handler is the admin API.
type Handler struct {
	Ledger Applier
	Lookup OutcomeLookup // optional
	// Extra routes mounted by other services (e.g. "POST /admin/catalog").
	Extra map[string]http.Handler
}

// Routes returns the admin mux (without auth; the caller wraps it).
func (h *Handler) Routes() *http.ServeMux {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /admin/ledger", h.postLedger)
	for pattern, hd := range h.Extra {
		mux.Handle(pattern, hd)
	}
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusNotFound, map[string]string{"error": "no admin route " + r.Method + " " + r.URL.Path, "code": "not_found"})
	})
	return mux
}

// postLedger applies an NDJSON body atomically: {"applied": N}, or 400 naming
// the first bad line, with nothing applied.
func (h *Handler) postLedger(w http.ResponseWriter, r *http.Request) {
	d := ledger.NewDecoder(http.MaxBytesReader(w, r.Body, MaxLedgerBody))
	if h.Lookup != nil {
		d.SetLookup(h.Lookup)
	}
	events, err := d.ReadAll()
	if err != nil {
		var le *ledger.LineError
		var tooBig *http.MaxBytesError
		switch {
		case errors.As(err, &tooBig):
			writeJSON(w, http.StatusRequestEntityTooLarge, map[string]string{"error": "ledger body too large", "code": "invalid_request"})
		case errors.As(err, &le):
			writeJSON(w, http.StatusBadRequest, map[string]any{"error": le.Error(), "code": "invalid_request", "line": le.Line})
		default:
			writeJSON(w, http.StatusBadRequest, map[string]string{"error": err.Error(), "code": "invalid_request"})
		}
		return
	}
	// Operator text is served to the public: checked like user input.
	for i := range events {
		if err := safetext.Walk(&events[i], safetext.MaxText); err != nil {
			writeJSON(w, http.StatusBadRequest, map[string]any{"error": fmt.Sprintf("event %d: %v", i+1, err), "code": "invalid_request", "event": i + 1})
			return
		}
	}
	n, err := h.Ledger.Apply(r.Context(), events)
	if err != nil {
		var rej *store.RejectedError
		if errors.As(err, &rej) {
			writeJSON(w, http.StatusBadRequest, map[string]any{"error": rej.Error(), "code": "invalid_request", "event": rej.Event})
			return
		}
		if errors.Is(err, context.Canceled) {
			// The operator's client went away: its fault, not the server's.
			slog.Debug("ledger apply canceled", "err", err)
			writeJSON(w, http.StatusBadRequest, map[string]string{"error": "request canceled", "code": "invalid_request"})
			return
		}
		slog.Error("ledger apply failed", "err", err)
		writeJSON(w, http.StatusInternalServerError, map[string]string{"error": "ledger apply failed: " + err.Error(), "code": "internal"})
		return
	}
	writeJSON(w, http.StatusOK, map[string]int{"applied": n})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
