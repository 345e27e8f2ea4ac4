package clobhttp

import (
	"context"
	"errors"
	"io"
	"net/http"

	"pmx/internal/clob/clob"
	"pmx/internal/clob/clobauth"
)

// createKey is POST /auth/api-key (L1): a new key for (address, nonce).
// A pair that already has an active key answers 400 "Could not create api
// key" (the official client then falls back to derive). After a delete the
// next create uses the next generation, so it issues fresh credentials.
func (h *Handler) createKey(w http.ResponseWriter, r *http.Request) {
	addr, nonce, err := h.l1.Verify(clobauth.L1HeadersFrom(r.Header), h.clock.Now())
	if err != nil {
		fail(w, clob.ErrInvalidL1)
		return
	}
	ctx := r.Context()
	last, ok, err := h.store.Latest(ctx, addr, nonce)
	if err != nil {
		WriteError(w, h.log, err, clob.ErrCreateAPIKey)
		return
	}
	var gen uint32
	if ok {
		if !last.Revoked {
			fail(w, clob.ErrCreateAPIKey)
			return
		}
		gen = last.Generation + 1
	}
	creds := h.deriver.Derive(addr, nonce, gen)
	err = h.store.Insert(ctx, clob.Key{APIKey: creds.APIKey, Address: addr, Nonce: nonce, Generation: gen, CreatedAt: h.clock.Now()})
	if errors.Is(err, clob.ErrKeyExists) { // a concurrent create for the same pair won
		err = clob.E(clob.ErrCreateAPIKey)
	}
	if err != nil {
		WriteError(w, h.log, err, clob.ErrCreateAPIKey)
		return
	}
	writeJSON(w, http.StatusOK, creds)
}

// deriveKey is GET /auth/derive-api-key (L1): the credentials of the active
// key of (address, nonce), exactly as create returned them; 400 "Could not
// derive api key" when the pair has none (never created, or deleted).
func (h *Handler) deriveKey(w http.ResponseWriter, r *http.Request) {
	addr, nonce, err := h.l1.Verify(clobauth.L1HeadersFrom(r.Header), h.clock.Now())
	if err != nil {
		fail(w, clob.ErrInvalidL1)
		return
	}
	last, ok, err := h.store.Latest(r.Context(), addr, nonce)
	if err != nil {
		WriteError(w, h.log, err, clob.ErrDeriveAPIKey)
		return
	}
	if !ok || last.Revoked {
		fail(w, clob.ErrDeriveAPIKey)
		return
	}
	writeJSON(w, http.StatusOK, h.deriver.Derive(addr, nonce, last.Generation))
}

// listKeys is GET /auth/api-keys (L2): every active key of the caller's
// address, across nonces, oldest first.
func (h *Handler) listKeys(w http.ResponseWriter, r *http.Request) {
	k, _ := KeyFrom(r.Context())
	keys, err := h.store.Active(r.Context(), k.Address)
	if err != nil {
		WriteError(w, h.log, err, clob.ErrRetrieveAPIKeys)
		return
	}
	out := struct {
		APIKeys []string `json:"apiKeys"`
	}{APIKeys: make([]string, 0, len(keys))}
	for _, x := range keys {
		out.APIKeys = append(out.APIKeys, x.APIKey)
	}
	writeJSON(w, http.StatusOK, out)
}

// deleteKey is DELETE /auth/api-key (L2): revokes the key that signed the
// request and answers the JSON string "OK" (the official client checks
// for exactly that literal).
func (h *Handler) deleteKey(w http.ResponseWriter, r *http.Request) {
	k, _ := KeyFrom(r.Context())
	revoked, err := h.store.Revoke(r.Context(), k.APIKey, h.clock.Now())
	if err != nil {
		WriteError(w, h.log, err, clob.ErrDeleteAPIKey)
		return
	}
	h.secrets.Forget(k.APIKey)
	if !revoked { // revoked concurrently by another request with the same key
		fail(w, clob.ErrUnauthorized)
		return
	}
	writeJSON(w, http.StatusOK, "OK")
}

type keyCtx struct{}

// authed is what RequireL2 hands on: the key and the body it read, so the
// handler does not read (and copy) the body a second time.
type authed struct {
	key  clob.Key
	body []byte
}

// KeyFrom returns the API key that authenticated the request (set by
// RequireL2).
func KeyFrom(ctx context.Context) (clob.Key, bool) {
	a, ok := ctx.Value(keyCtx{}).(*authed)
	if !ok {
		return clob.Key{}, false
	}
	return a.key, true
}

// RequireL2 admits only requests carrying valid L2 headers for an active API
// key: key known and not revoked, passphrase, owner address, timestamp
// window and HMAC over timestamp+METHOD+path+body (path without the query
// string). Every failure is 401 "Unauthorized/Invalid api key". The body is
// read (up to MaxBody) to check the HMAC and handed on in the context, not
// in r.Body: next reads it with readBody and finds the key with KeyFrom.
func (h *Handler) RequireL2(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		a := new(authed)
		if h.authL2(w, r, a) {
			next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), keyCtx{}, a)))
		}
	})
}

// requireL2Direct is RequireL2 for a handler that takes the key and body
// as an argument (the order routes): no request copy, no context value.
func (h *Handler) requireL2Direct(next func(http.ResponseWriter, *http.Request, *authed)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var a authed
		if h.authL2(w, r, &a) {
			next(w, r, &a)
		}
	})
}

// authL2 is RequireL2's check: it sets a, or answers the request and
// reports false.
func (h *Handler) authL2(w http.ResponseWriter, r *http.Request, a *authed) bool {
	hd := clobauth.L2HeadersFrom(r.Header)
	if hd.APIKey == "" {
		fail(w, clob.ErrUnauthorized)
		return false
	}
	body, err := readAll(http.MaxBytesReader(w, r.Body, h.maxBody), r.ContentLength, h.maxBody)
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			fail(w, clob.ErrInvalidPayload)
			return false
		}
		// A body that cannot be read is the client's fault (aborted,
		// stalled): no server log line.
		WriteError(w, nil, err, clob.ErrUnauthorized)
		return false
	}
	k, ok, err := h.store.Get(r.Context(), hd.APIKey)
	if err != nil {
		WriteError(w, h.log, err, 0)
		return false
	}
	if !ok || k.Revoked || isBuilderKey(k) {
		fail(w, clob.ErrUnauthorized)
		return false
	}
	sec := h.secrets.Get(k.APIKey, k.Address, k.Nonce, k.Generation)
	if err := clobauth.VerifyL2Secret(hd, sec, k.Address, r.Method, r.URL.Path, body, h.clock.Now(), h.l2Window); err != nil {
		fail(w, clob.ErrUnauthorized)
		return false
	}
	*a = authed{key: k, body: body}
	return true
}

// readAheadMax bounds what readAll allocates before the bytes arrive: a
// client that declares a large body and stalls pins no more than this
// (docs/hardening.md); a signed order or a 15-order batch fits in it.
const readAheadMax = 16 << 10

// readAll reads rd whole, sized up front by the request's Content-Length
// (trusted only up to max, and only up to readAheadMax before the bytes
// come) so a usual body is read into one allocation.
func readAll(rd io.Reader, length, max int64) ([]byte, error) {
	if length < 0 || length > max {
		length = 512
	}
	length = min(length, readAheadMax)
	b := make([]byte, 0, length+1) // +1: the read that sees EOF needs no growth
	for {
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
		n, err := rd.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err == io.EOF {
			return b, nil
		}
		if err != nil {
			return b, err
		}
	}
}
