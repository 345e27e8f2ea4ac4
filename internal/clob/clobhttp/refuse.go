package clobhttp

import (
	"net/http"

	"pmx/internal/clob/clob"
)

// Refuse is the CLOB listener's server.Refuser: a listener-level refusal
// (unclean path, unwanted or stalled request body) as {"error": msg}.
func Refuse(w http.ResponseWriter, _ *http.Request, status int, msg string) {
	writeJSON(w, clob.StatusOf(status, msg), errorBody{Error: msg})
}
