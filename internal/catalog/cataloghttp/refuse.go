package cataloghttp

import "net/http"

// Refuse is the catalog listener's server.Refuser: a listener-level
// refusal (unclean path, unwanted or stalled request body) in the catalog's
// {type, error} shape.
func Refuse(w http.ResponseWriter, _ *http.Request, status int, msg string) {
	typ := "validation error"
	switch status {
	case http.StatusNotFound:
		typ = "not found error"
	case http.StatusTooManyRequests:
		typ = "rate_limited"
	}
	writeError(w, status, typ, msg)
}
