package perpshttp

import (
	"encoding/base64"
	"net/http"
	"strings"

	"pmx/internal/perps/perpsvc"
	"pmx/internal/wsguard"
)

// upgradeOK answers a request that is not a valid WebSocket handshake in
// the JSON error shape (the library would answer in plain text) and
// reports whether the handshake may proceed.
func (s *Server) upgradeOK(w http.ResponseWriter, r *http.Request) bool {
	var e *perpsvc.Error
	switch {
	case !r.ProtoAtLeast(1, 1) || !hasToken(r.Header, "Connection", "upgrade") || !hasToken(r.Header, "Upgrade", "websocket"):
		w.Header().Set("Connection", "Upgrade")
		w.Header().Set("Upgrade", "websocket")
		e = perpsvc.E(perpsvc.CodeUpgradeRequired, "")
	case r.Header.Get("Sec-WebSocket-Version") != "13":
		w.Header().Set("Sec-WebSocket-Version", "13")
		e = perpsvc.E(perpsvc.CodeInvalidRequest, "Sec-WebSocket-Version must be 13")
	default:
		keys := r.Header.Values("Sec-WebSocket-Key")
		if len(keys) != 1 {
			e = perpsvc.E(perpsvc.CodeInvalidRequest, "exactly one Sec-WebSocket-Key is required")
		} else if v, err := base64.StdEncoding.DecodeString(strings.TrimSpace(keys[0])); err != nil || len(v) != 16 {
			e = perpsvc.E(perpsvc.CodeInvalidRequest, "Sec-WebSocket-Key must be 16 bytes in base64")
		}
	}
	if e != nil {
		s.writeError(w, e, false)
		return false
	}
	return true
}

func hasToken(h http.Header, name, token string) bool { return wsguard.HasToken(h, name, token) }
