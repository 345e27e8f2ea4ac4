package clobhttp

import "net/http"

// Refuse is the CLOB listener's server.Refuser: a listener-level refusal
// (unclean path, unwanted or stalled request body) as {"error": msg}.
func Refuse(w http.ResponseWriter, _ *http.Request, status int, msg string) {
	WriteError(w, nil, newError(status, msg), nil)
}
