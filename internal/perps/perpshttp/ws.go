package perpshttp

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"time"

	"github.com/coder/websocket"

	"pmx/internal/perps/perpsauth"
	"pmx/internal/perps/perpsvc"
	"pmx/internal/wsguard"
)

// DefaultAckGap separates a trading post's ack from the pushes it caused
// (Options.WSAckGap): the official client registers its wait for the order's
// first push only after it has processed the ack, so both must not reach it
// in one read. 25 ms still failed on a loaded machine; production answers in
// about 100 ms, so the default matches that.
const DefaultAckGap = 100 * time.Millisecond

// wsConn is one WebSocket connection: the socket and its service session.
type wsConn struct {
	s      *Server
	c      *websocket.Conn
	ip     string
	sess   *perpsvc.Session
	cancel context.CancelFunc
}

func (s *Server) wsHandler(w http.ResponseWriter, r *http.Request) {
	if !s.upgradeOK(w, r) {
		return
	}
	guard := &wsguard.Guard{Limit: MaxBody}
	c, err := websocket.Accept(&wsguard.Writer{ResponseWriter: w, G: guard}, r,
		&websocket.AcceptOptions{InsecureSkipVerify: true})
	if err != nil {
		return
	}
	c.SetReadLimit(MaxBody)
	ctx, cancel := context.WithCancel(context.Background())
	conn := &wsConn{s: s, c: c, ip: clientIP(r), cancel: cancel}
	conn.sess = s.svc.NewSession(func(reason string, shutdown bool) {
		if shutdown {
			c.Close(websocket.StatusGoingAway, reason)
		} else {
			c.Close(websocket.StatusPolicyViolation, reason)
		}
	})
	defer func() {
		conn.sess.Close()
		cancel()
	}()
	go conn.writer(ctx)
	// Idle close: a timer reset by every inbound message (a Read deadline
	// would tear the connection down without a close reason).
	idle := time.AfterFunc(s.opt.WSIdle, func() { c.Close(websocket.StatusPolicyViolation, "idle timeout") })
	defer idle.Stop()
	for {
		_, data, err := c.Read(ctx)
		if err != nil {
			c.Close(guard.CloseCode())
			return
		}
		idle.Reset(s.opt.WSIdle)
		if len(data) > 0 && data[0] == '[' { // SDKs may batch frames in one message
			var frames []json.RawMessage
			if json.Unmarshal(data, &frames) != nil {
				conn.reply(nil, errBody{Status: "err", Error: "invalid_request"})
				continue
			}
			if len(frames) == 0 {
				conn.replyErr(nil, perpsvc.E(perpsvc.CodeInvalidRequest, "empty batch"), false)
				continue
			}
			for _, f := range frames {
				conn.handle(f)
			}
			continue
		}
		conn.handle(data)
	}
}

func (c *wsConn) writer(ctx context.Context) {
	var quiet time.Time // no push before this: the ack gap (DefaultAckGap)
	for {
		select {
		case <-ctx.Done():
			return
		case b := <-c.sess.Out():
			if b == nil { // pause marker after a trading ack
				if gap := c.s.opt.WSAckGap; gap > 0 {
					quiet = time.Now().Add(gap)
				}
				continue
			}
			// A push (replies start {"id") waits out the gap, whether it was
			// held for the post or the fan-out delivered it after the ack.
			if bytes.HasPrefix(b, []byte(`{"ch"`)) {
				if d := time.Until(quiet); d > 0 {
					time.Sleep(d)
				}
			}
			wctx, cancel := context.WithTimeout(ctx, 10*time.Second)
			err := c.c.Write(wctx, websocket.MessageText, b)
			cancel()
			if err != nil {
				c.cancel()
				return
			}
		}
	}
}

type wsFrame struct {
	ID  *int64          `json:"id"`
	Req string          `json:"req"`
	Op  json.RawMessage `json:"op"`
	Chs []string        `json:"chs"`
}

type wsReply struct {
	ID   *int64 `json:"id,omitempty"`
	Data any    `json:"data"`
}

func (c *wsConn) reply(id *int64, data any) {
	b, _ := json.Marshal(wsReply{ID: id, Data: data})
	c.sess.Reply(b)
}

// replyErr answers a frame with a catalogue error (batch: the array form).
func (c *wsConn) replyErr(id *int64, err error, batch bool) {
	c.reply(id, errorBody(c.s.catalogued(err), batch))
}

func (c *wsConn) handle(raw []byte) {
	s := c.s
	var f wsFrame
	if err := json.Unmarshal(raw, &f); err != nil {
		c.reply(nil, errBody{Status: "err", Error: "invalid_request"})
		return
	}
	var op struct {
		Type string          `json:"type"`
		Args json.RawMessage `json:"args"`
	}
	if f.Req == "post" {
		_ = json.Unmarshal(f.Op, &op)
	}
	weight := 1
	isTrade := f.Req == "post" && op.Type != "ping" && op.Type != "auth"
	if isTrade && op.Type != "cancelAll" {
		weight += perpsauth.ArgCount(f.Op) / 20
	}
	if ok, _ := s.wsMsgs.Take(c.ip, weight, s.now()); !ok {
		c.replyErr(f.ID, perpsvc.E(perpsvc.CodeMessageRateLimited, ""), isTrade && op.Type != "cancelAll" || f.Req != "post")
		return
	}
	switch f.Req {
	case "sub", "unsub":
		if f.Chs == nil || f.Op != nil { // e.g. "chs" nested in an "op": say so, not an empty answer
			c.reply(f.ID, []errBody{{Status: "err", Error: "invalid_request: " + strconv.Quote(f.Req) +
				` takes "chs", a list of channel names, beside "req" and no "op"`}})
			return
		}
		c.reply(f.ID, c.subscribe(f.Chs, f.Req == "sub"))
	case "post":
		switch op.Type {
		case "ping":
			c.reply(f.ID, map[string]any{"status": "ok", "ts": s.now().UnixMilli(), "sq": c.sess.LastSq()})
		case "auth":
			c.reply(f.ID, c.auth(op.Args))
		case "createOrders", "modifyOrders", "modifyOrdersCOID", "cancelOrders", "cancelOrdersCOID", "cancelAll":
			batch := op.Type != "cancelAll"
			req, err := perpsauth.ParseRequest(raw)
			if err != nil {
				c.replyErr(f.ID, err, batch)
				return
			}
			// Hold this connection's pushes until the ack is queued, so the
			// ack precedes (and is a separate message from) the order's first push.
			c.sess.BeginPost()
			_, out := s.tradeAnswer(op.Type, s.svc.Trade(op.Type, req))
			if out.err != nil {
				out.body = errorBody(c.s.catalogued(out.err), batch)
			}
			b, _ := json.Marshal(wsReply{ID: f.ID, Data: out.body})
			c.sess.EndPost(b)
		case "updateLeverage", "updateLeverages":
			c.leveragePost(f.ID, op.Type, raw)
		case "autoCancel":
			c.autoCancelPost(f.ID, raw)
		case "updateMargin":
			c.marginPost(f.ID, raw)
		default:
			c.reply(f.ID, errBody{Status: "err", Error: "invalid_request: unknown op type " + strconv.Quote(op.Type)})
		}
	default:
		c.reply(f.ID, errBody{Status: "err", Error: "invalid_request: unknown req"})
	}
}

// auth authenticates the connection; a failed auth drops an earlier one
// and its private subscriptions (perpsvc.Session.Auth).
func (c *wsConn) auth(args json.RawMessage) any {
	var a struct {
		Proxy  string `json:"proxy"`
		Secret string `json:"secret"`
	}
	if json.Unmarshal(args, &a) != nil {
		return errBody{Status: "err", Error: "invalid_request"}
	}
	if err := c.sess.Auth(a.Proxy, a.Secret); err != nil {
		return errorBody(c.s.catalogued(err), false)
	}
	return errBody{Status: "ok"}
}

// subscribe answers a sub or unsub frame: one result per channel.
func (c *wsConn) subscribe(chs []string, on bool) []any {
	out := make([]any, 0, len(chs))
	for _, err := range c.sess.Subscribe(chs, on) {
		if err != nil {
			out = append(out, errorBody(c.s.catalogued(err), false))
		} else {
			out = append(out, errBody{Status: "ok"})
		}
	}
	return out
}
