package perpshttp

import (
	"net/http"

	"pmx/internal/perps/perpsauth"
	"pmx/internal/perps/perpsvc"
)

// PATCH /v1/trade/auto-cancel (and the WebSocket post autoCancel): {time}
// arms (≥ now + 5 s) or, with 0, disarms; the answer is
// {"status":"ok","deadline":<ms or 0>}.

func (s *Server) autoCancelRoutes(mux *http.ServeMux) {
	mux.HandleFunc("PATCH /v1/trade/auto-cancel", func(w http.ResponseWriter, r *http.Request) {
		req, ok := s.signedRequest(w, r)
		if !ok {
			return
		}
		res := s.svc.AutoCancel(req)
		if res.Err != nil {
			s.writeError(w, res.Err, false)
			return
		}
		writeJSON(w, 200, autoCancelBody(res))
	})
}

type autoCancelAnswer struct {
	Status   string `json:"status"`
	Deadline int64  `json:"deadline"`
}

func autoCancelBody(res perpsvc.AutoCancelResult) autoCancelAnswer {
	return autoCancelAnswer{Status: "ok", Deadline: res.Deadline}
}

// autoCancelPost answers a WebSocket autoCancel post.
func (c *wsConn) autoCancelPost(id *int64, raw []byte) {
	req, err := perpsauth.ParseRequest(raw)
	if err != nil {
		c.replyErr(id, err, false)
		return
	}
	res := c.s.svc.AutoCancel(req)
	if res.Err != nil {
		c.reply(id, errorBody(c.s.catalogued(res.Err), false))
		return
	}
	c.reply(id, autoCancelBody(res))
}
