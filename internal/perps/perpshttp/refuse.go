package perpshttp

import (
	"net/http"
	"strings"
)

// Refuse is the perps listener's server.Refuser: a listener-level refusal
// (unclean path, unwanted or stalled request body) as {status:"err", error},
// a one-element array on the batch trading routes (as writeErrBatch).
func Refuse(w http.ResponseWriter, r *http.Request, status int, msg string) {
	if status == http.StatusTooManyRequests {
		w.Header().Set("Retry-After", "1")
	}
	if strings.HasPrefix(r.URL.Path, "/v1/trade/orders") && r.URL.Path != "/v1/trade/orders/all" {
		writeErrBatch(w, status, msg)
		return
	}
	writeErr(w, status, msg)
}
