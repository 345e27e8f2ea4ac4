package cataloghttp

import (
	"errors"
	"io"
	"log/slog"
	"net/http"

	"pmx/internal/catalog/catalog"
)

// ImportResult is the body of a successful POST /admin/catalog.
type ImportResult struct {
	Events  int `json:"events"`
	Markets int `json:"markets"`
}

// ImportHandler serves POST /admin/catalog (mounted by the server on the
// admin listener, behind its auth): the body is events in the production
// wire format (see ParseImport); they are upserted, so posting the same
// document twice changes nothing. pmx serve passes the ingest pipeline, so
// the imported markets also become markets of the venue (LedgerMarkets).
func ImportHandler(store catalog.Importer) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			w.Header().Set("Allow", "POST")
			writeError(w, http.StatusMethodNotAllowed, "validation error", "use POST")
			return
		}
		body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, catalog.MaxImportBytes))
		if err != nil {
			var mb *http.MaxBytesError
			if errors.As(err, &mb) {
				writeError(w, http.StatusRequestEntityTooLarge, "validation error", "document too large")
				return
			}
			writeError(w, http.StatusBadRequest, "validation error", "cannot read body")
			return
		}
		evs, err := catalog.ParseImport(body)
		if err != nil {
			writeError(w, http.StatusBadRequest, "validation error", err.Error())
			return
		}
		if err := store.ImportEvents(r.Context(), evs); err != nil {
			if errors.Is(err, catalog.ErrConflict) {
				writeError(w, http.StatusConflict, "conflict error", err.Error())
				return
			}
			if errors.Is(err, catalog.ErrInvalid) {
				writeError(w, http.StatusBadRequest, "validation error", err.Error())
				return
			}
			// A store failure is ours, not the caller's: log it, answer
			// without the internal text.
			slog.Error("catalog import", "err", err)
			writeError(w, http.StatusInternalServerError, "internal error", "import failed")
			return
		}
		res := ImportResult{Events: len(evs)}
		for _, e := range evs {
			res.Markets += len(e.Markets)
		}
		writeJSON(w, res)
	})
}
