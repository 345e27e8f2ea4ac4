package perpshttp

import (
	"io"
	"net/http"
	"strconv"
	"sync"

	"pmx/internal/crypto/secp"
	"pmx/internal/perps/perps"
	"pmx/internal/perps/perpsauth"
	"pmx/internal/perps/perpsvc"
)

// MaxBody bounds a request body.
const MaxBody = 1 << 20

func parseAddr(w http.ResponseWriter, s string) (string, bool) {
	a, err := secp.ParseAddress(s)
	if err != nil {
		writeCatalogued(w, perpsvc.E(perpsvc.CodeInvalidQuery, "address: invalid address"), false)
		return "", false
	}
	return a.Hex(), true
}

func readBody(w http.ResponseWriter, r *http.Request) ([]byte, bool) { return readBodyInto(w, r, nil) }

// readBodyInto is readBody reading a small declared length into buf's
// backing array when it is large enough.
func readBodyInto(w http.ResponseWriter, r *http.Request, buf []byte) ([]byte, bool) {
	if n := r.ContentLength; n > 0 && n <= exactBody {
		// A small declared length (every order body): one exact allocation
		// (or none: buf); net/http's body stops at n bytes.
		b := buf[:0]
		if int64(cap(b)) < n {
			b = make([]byte, n)
		}
		b = b[:n]
		if _, err := io.ReadFull(r.Body, b); err != nil {
			writeCatalogued(w, perpsvc.E(perpsvc.CodeInvalidRequest, "body too large or unreadable"), false)
			return nil, false
		}
		return b, true
	}
	// Larger or chunked: read incrementally, so a client declaring 1 MiB and
	// stalling pins a few hundred bytes, not the declared length.
	b, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxBody))
	if err != nil {
		writeCatalogued(w, perpsvc.E(perpsvc.CodeInvalidRequest, "body too large or unreadable"), false)
		return nil, false
	}
	return b, true
}

// exactBody is the largest declared body allocated up front.
const exactBody = 16 << 10

// bodyBufs recycles the trading routes' bodies: a parsed Request keeps no
// byte of its body (FuzzParseRequestKeepsNoByteOfBody), so the buffer is
// free once ParseRequest returns.
var bodyBufs = sync.Pool{New: func() any { return new([]byte) }}

// parseBody reads and parses a signed request's body in a pooled buffer;
// !ok: the body was unreadable and the answer is written.
func parseBody(w http.ResponseWriter, r *http.Request) (req *perpsauth.Request, ok bool, err error) {
	bp := bodyBufs.Get().(*[]byte)
	body, ok := readBodyInto(w, r, *bp)
	if ok {
		req, err = perpsauth.ParseRequest(body)
		if cap(body) <= exactBody {
			*bp = body[:0]
		}
	}
	bodyBufs.Put(bp)
	return req, ok, err
}

func (s *Server) accountRoutes(mux *http.ServeMux) {
	mux.HandleFunc("POST /v1/account/proxy", s.createProxy)
	mux.HandleFunc("DELETE /v1/account/proxy", s.deleteProxy)
	priv := func(pattern string, weight func(r *http.Request) int, h func(w http.ResponseWriter, r *http.Request, acct string)) {
		mux.HandleFunc(pattern, func(w http.ResponseWriter, r *http.Request) {
			if !s.chargeIP(w, r, weight(r), false) {
				return
			}
			acct, ok := s.headerAuth(r)
			if !ok {
				writeCatalogued(w, perpsvc.E(perpsvc.CodeUnauthorized, ""), false)
				return
			}
			h(w, r, acct)
		})
	}
	fixed := func(n int) func(*http.Request) int { return func(*http.Request) int { return n } }
	priv("GET /v1/account/credentials", fixed(2), s.credentials)
	priv("GET /v1/account/orders", func(r *http.Request) int {
		if q := r.URL.Query(); q.Get("order_id") != "" || q.Get("client_order_id") != "" {
			return 1
		}
		return 10
	}, s.orders)
	priv("GET /v1/account/open-orders", func(r *http.Request) int {
		if r.URL.Query().Get("instrument_id") != "" {
			return 1
		}
		return 20
	}, s.openOrders)
	priv("GET /v1/account/fills", fixed(10), s.fills)
	priv("GET /v1/account/balances", fixed(2), s.balances)
	priv("GET /v1/account/config", fixed(2), s.config)
	priv("GET /v1/account/stats", fixed(2), s.stats)
	priv("GET /v1/account/portfolio", fixed(2), s.portfolio)
}

// headerAuth checks SVC-PROXY/SVC-SECRET (or POLYMARKET-PROXY/-SECRET)
// and returns the account the active proxy acts for.
func (s *Server) headerAuth(r *http.Request) (string, bool) {
	proxy, secret := r.Header.Get("SVC-PROXY"), r.Header.Get("SVC-SECRET")
	if proxy == "" {
		proxy, secret = r.Header.Get("POLYMARKET-PROXY"), r.Header.Get("POLYMARKET-SECRET")
	}
	return s.svc.Authenticate(proxy, secret)
}

// signedRequest charges one IP request and parses the signed envelope of a
// single-item route; it reports false having answered.
func (s *Server) signedRequest(w http.ResponseWriter, r *http.Request) (*perpsauth.Request, bool) {
	if !s.chargeIP(w, r, 1, false) {
		return nil, false
	}
	body, ok := readBody(w, r)
	if !ok {
		return nil, false
	}
	req, err := perpsauth.ParseRequest(body)
	if err != nil {
		s.writeError(w, err, false)
		return nil, false
	}
	return req, true
}

func (s *Server) createProxy(w http.ResponseWriter, r *http.Request) {
	req, ok := s.signedRequest(w, r)
	if !ok {
		return
	}
	secret, err := s.svc.CreateProxy(req)
	if err != nil {
		s.writeError(w, err, false)
		return
	}
	writeJSON(w, 200, map[string]string{"status": "ok", "secret": secret})
}

func (s *Server) deleteProxy(w http.ResponseWriter, r *http.Request) {
	req, ok := s.signedRequest(w, r)
	if !ok {
		return
	}
	if err := s.svc.DeleteProxy(req); err != nil {
		s.writeError(w, err, false)
		return
	}
	writeJSON(w, 200, map[string]string{"status": "ok"})
}

func (s *Server) credentials(w http.ResponseWriter, r *http.Request, acct string) {
	a, _ := secp.ParseAddress(acct)
	writeJSON(w, 200, map[string]any{"address": a.String(), "keys": s.svc.Credentials(acct)})
}

func (s *Server) orders(w http.ResponseWriter, r *http.Request, acct string) {
	q := r.URL.Query()
	var oid uint64
	if v := q.Get("order_id"); v != "" {
		n, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			writeCatalogued(w, perpsvc.E(perpsvc.CodeInvalidQuery, "order_id: invalid digit found in string"), false)
			return
		}
		oid = n
	}
	iid, ok := queryIID(w, r, false)
	if !ok {
		return
	}
	start, end, ok := queryWindow(w, r, s.now().UnixMilli()+1)
	if !ok {
		return
	}
	coid := q.Get("client_order_id")
	viewJSON(s, w, func(m *perps.Machine) []perps.OrderData { return m.OrdersOf(acct, oid, coid, iid, start, end, 100) })
}

func (s *Server) openOrders(w http.ResponseWriter, r *http.Request, acct string) {
	iid, ok := queryIID(w, r, false)
	if !ok {
		return
	}
	viewJSON(s, w, func(m *perps.Machine) []perps.OrderData { return m.OpenOrdersOf(acct, iid) })
}

func (s *Server) fills(w http.ResponseWriter, r *http.Request, acct string) {
	iid, ok := queryIID(w, r, false)
	if !ok {
		return
	}
	start, end, ok := queryWindow(w, r, s.now().UnixMilli()+1)
	if !ok {
		return
	}
	viewJSON(s, w, func(m *perps.Machine) (p page[perps.TradeData]) {
		p.Data, p.More = m.FillsOf(acct, iid, start, end, 100)
		return p
	})
}

func (s *Server) balances(w http.ResponseWriter, r *http.Request, acct string) {
	viewJSON(s, w, func(m *perps.Machine) []perps.Balance { return m.BalancesOf(acct) })
}

func (s *Server) config(w http.ResponseWriter, r *http.Request, acct string) {
	iid, ok := queryIID(w, r, false)
	if !ok {
		return
	}
	viewJSON(s, w, func(m *perps.Machine) []perps.LeverageConfig { return m.ConfigOf(acct, iid) })
}

func (s *Server) stats(w http.ResponseWriter, r *http.Request, acct string) {
	now := s.now().UnixMilli()
	viewJSON(s, w, func(m *perps.Machine) perps.Stats { return m.StatsOf(acct, now) })
}

func (s *Server) portfolio(w http.ResponseWriter, r *http.Request, acct string) {
	now := s.now().UnixMilli()
	viewJSON(s, w, func(m *perps.Machine) perps.Portfolio { return m.PortfolioOf(acct, now) })
}
