package perpshttp

import (
	"net/http"

	"pmx/internal/perps/perpsauth"
	"pmx/internal/perps/perpsvc"
)

// Isolated margin adjustment (perps.md §5, docs/perps-margin.md "Isolated
// margin"): PATCH /v1/trade/margin and the WebSocket post updateMargin
// answer {status:"ok"} (200), or {status:"err", error} with the machine's
// identifier (422, as a refused leverage change) or the catalogue's error.

func (s *Server) marginRoutes(mux *http.ServeMux) {
	mux.HandleFunc("PATCH /v1/trade/margin", func(w http.ResponseWriter, r *http.Request) {
		req, ok := s.signedRequest(w, r)
		if !ok {
			return
		}
		code, out := s.marginAnswer(s.svc.UpdateMargin(req))
		writeJSON(w, code, out)
	})
}

// marginAnswer is the status and body of an updateMargin outcome.
func (s *Server) marginAnswer(e *perpsvc.Error) (int, any) {
	switch {
	case e == nil:
		return 200, errBody{Status: "ok"}
	case e.Code == perpsvc.CodeRefused:
		return 422, errBody{Status: "err", Error: e.Error()}
	}
	e = s.catalogued(e)
	return e.Status(), errorBody(e, false)
}

// marginPost answers a WebSocket updateMargin post with the REST body.
func (c *wsConn) marginPost(id *int64, raw []byte) {
	req, err := perpsauth.ParseRequest(raw)
	if err != nil {
		c.replyErr(id, err, false)
		return
	}
	_, out := c.s.marginAnswer(c.s.svc.UpdateMargin(req))
	c.reply(id, out)
}
