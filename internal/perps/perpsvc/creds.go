package perpsvc

import (
	"encoding/hex"
	"sort"
	"sync"
	"time"

	"pmx/internal/crypto/secp"
	"pmx/internal/perps/perps"
	"pmx/internal/perps/perpsauth"
)

// creds mirrors the machine's proxies for authentication without a trip
// through the engine. Only this service submits proxy commands, so updating
// the mirror after each accepted one keeps it exact.
type creds struct {
	mu      sync.RWMutex
	proxies map[string]cred // by proxy address, lower-case hex (secp.Address.Hex)
}

// cred is a proxy with its account parsed once (resolve runs per request).
type cred struct {
	perps.Proxy
	acct   secp.Address
	acctOK bool
}

func (c *creds) get(addr string) (perps.Proxy, bool) {
	c.mu.RLock()
	p, ok := c.proxies[addr]
	c.mu.RUnlock()
	return p.Proxy, ok
}

// lookup is get by address without building its string.
func (c *creds) lookup(a secp.Address) (cred, bool) {
	var b [42]byte
	b[0], b[1] = '0', 'x'
	hex.Encode(b[2:], a[:])
	c.mu.RLock()
	p, ok := c.proxies[string(b[:])] // no allocation: a lookup key
	c.mu.RUnlock()
	return p, ok
}

func (c *creds) put(p perps.Proxy) {
	a, err := secp.ParseAddress(p.Account)
	c.mu.Lock()
	c.proxies[p.Addr] = cred{Proxy: p, acct: a, acctOK: err == nil}
	c.mu.Unlock()
}

// MaxProxyLifetime bounds a proxy's expiry: at most this far after the
// request's arrival (clients default to one week; docs/perps.md).
const MaxProxyLifetime = 10 * 365 * 24 * time.Hour

// Authenticate checks a proxy address and its secret and returns the account
// the active proxy acts for.
func (s *Service) Authenticate(proxy, secret string) (string, bool) {
	a, err := secp.ParseAddress(proxy)
	if err != nil || secret == "" {
		return "", false
	}
	p, ok := s.creds.get(a.Hex())
	if !ok || !p.Active(s.now().UnixMilli()) || !perpsauth.SecretMatches(p.Hash, secret) {
		return "", false
	}
	return p.Account, true
}

// Credential is one active proxy of an account.
type Credential struct {
	Proxy  string `json:"proxy"` // EIP-55
	Label  string `json:"label,omitempty"`
	Expiry int64  `json:"expiry"`
}

// Credentials lists acct's active proxies, by address.
func (s *Service) Credentials(acct string) []Credential {
	now := s.now().UnixMilli()
	keys := []Credential{}
	s.creds.mu.RLock()
	for _, p := range s.creds.proxies {
		if p.Account == acct && p.Active(now) {
			a, _ := secp.ParseAddress(p.Addr)
			keys = append(keys, Credential{Proxy: a.String(), Label: p.Label, Expiry: p.ExpiryMs})
		}
	}
	s.creds.mu.RUnlock()
	sort.Slice(keys, func(i, j int) bool { return keys[i].Proxy < keys[j].Proxy })
	return keys
}

// CreateProxy verifies an owner-signed createProxy, registers the proxy and
// returns its secret (shown once; only its hash is kept).
func (s *Service) CreateProxy(req *perpsauth.Request) (string, error) {
	now := s.now()
	cp, err := s.ver.VerifyCreateProxy(req, now)
	if err != nil {
		return "", AsError(err)
	}
	var zero secp.Address
	switch {
	case cp.Proxy == zero:
		s.ver.Replay().Remove(cp.Replay)
		return "", E(CodeInvalidProxy, "the zero address cannot be a proxy")
	case cp.Proxy == cp.Owner:
		s.ver.Replay().Remove(cp.Replay)
		return "", E(CodeInvalidProxy, "an account's own address cannot be its proxy")
	case cp.ExpiryMs > now.Add(MaxProxyLifetime).UnixMilli():
		s.ver.Replay().Remove(cp.Replay)
		return "", E(CodeInvalidExpiry, "at most 10 years ahead")
	}
	secret, hash := perpsauth.NewProxySecret()
	rk := cp.Replay.Bytes()
	p := perps.Proxy{Addr: cp.Proxy.Hex(), Hash: hash, ExpiryMs: cp.ExpiryMs, Label: cp.Label}
	// Label carries the optional invite code, bound if this creates the
	// account (a code longer than any code is not journaled).
	code := cp.Code
	if len(code) > 64 {
		code = ""
	}
	ev, err := s.Submit(&perps.Command{Kind: perps.KCreateProxy, Account: cp.Owner.Hex(), Replay: rk[:], Proxy: &p,
		Label: code})
	if err != nil {
		s.ver.Replay().Remove(cp.Replay)
		s.log.Error("perps createProxy", "err", err)
		return "", E(CodeInternal, "") // createProxy keeps 500 (perps.md §6)
	}
	if ev.Err != "" {
		return "", E(CodeRejected, ev.Err)
	}
	p.Account = cp.Owner.Hex()
	s.creds.put(p)
	return secret, nil
}

// DeleteProxy verifies an owner-signed deleteProxy and revokes the proxy.
func (s *Service) DeleteProxy(req *perpsauth.Request) error {
	v, err := s.ver.VerifyOp(req, "deleteProxy", s.now(), perpsauth.Self)
	if err != nil {
		return AsError(err)
	}
	var args struct {
		Proxy string `json:"proxy"`
	}
	if err := v.Op.DecodeArgs(&args); err != nil {
		return AsError(err)
	}
	pa, err := secp.ParseAddress(args.Proxy)
	if err != nil {
		return E(CodeInvalidRequest, "proxy: invalid address")
	}
	rk := v.Replay.Bytes()
	ev, err := s.Submit(&perps.Command{Kind: perps.KDeleteProxy, Account: v.Account.Hex(), Replay: rk[:],
		Proxy: &perps.Proxy{Addr: pa.Hex()}})
	if err != nil {
		s.ver.Replay().Remove(v.Replay)
		s.log.Error("perps engine", "err", err)
		return E(CodeUnavailable, "")
	}
	if ev.Err != "" {
		return E(CodeRejected, ev.Err)
	}
	if p, ok := s.creds.get(pa.Hex()); ok {
		p.Deleted = true
		s.creds.put(p)
	}
	return nil
}
