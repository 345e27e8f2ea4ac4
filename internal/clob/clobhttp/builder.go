package clobhttp

import (
	"encoding/binary"
	"encoding/json"
	"net/http"
	"net/textproto"
	"strconv"
	"time"

	"pmx/internal/clob/clob"
	"pmx/internal/clob/clobauth"
	"pmx/internal/clob/clobengine"
	"pmx/internal/crypto/eip712"
)

// Builder API keys are API-key records in their own nonce space (first
// byte 0xB1), derived like any key, so they survive restarts in the same
// store; they authenticate only the builder headers, never L2.
const builderMark = 0xB1

func isBuilderKey(k clob.Key) bool { return k.Nonce[0] == builderMark }

func builderNonce(n uint64) eip712.Uint256 {
	var u eip712.Uint256
	u[0] = builderMark
	binary.BigEndian.PutUint64(u[24:], n)
	return u
}

// The POLY_BUILDER_* header names in net/http's canonical form (read on
// every order request; Header.Get would canonicalize them each time).
var (
	hdrBuilderKey  = textproto.CanonicalMIMEHeaderKey("POLY_BUILDER_API_KEY")
	hdrBuilderPass = textproto.CanonicalMIMEHeaderKey("POLY_BUILDER_PASSPHRASE")
	hdrBuilderSig  = textproto.CanonicalMIMEHeaderKey("POLY_BUILDER_SIGNATURE")
	hdrBuilderTS   = textproto.CanonicalMIMEHeaderKey("POLY_BUILDER_TIMESTAMP")
)

// builderHeaders are the POLY_BUILDER_* headers.
func builderHeaders(r *http.Request) (key, pass, sig, ts string) {
	return clobauth.Header(r.Header, hdrBuilderKey), clobauth.Header(r.Header, hdrBuilderPass),
		clobauth.Header(r.Header, hdrBuilderSig), clobauth.Header(r.Header, hdrBuilderTS)
}

// builderKey verifies the builder headers over method, path and body and
// returns the builder key; ok is false when they are absent or invalid.
func (h *Handler) builderKey(r *http.Request, body []byte) (clob.Key, bool, bool) {
	key, pass, sig, ts := builderHeaders(r)
	if key == "" && pass == "" && sig == "" && ts == "" {
		return clob.Key{}, false, false
	}
	k, ok, err := h.store.Get(r.Context(), key)
	if err != nil || !ok || k.Revoked || !isBuilderKey(k) {
		return clob.Key{}, true, false
	}
	sec := h.secrets.Get(k.APIKey, k.Address, k.Nonce, k.Generation)
	hd := clobauth.L2Headers{Address: k.Address.Hex(), Signature: sig, Timestamp: ts, APIKey: key, Passphrase: pass}
	if clobauth.VerifyL2Secret(hd, sec, k.Address, r.Method, r.URL.Path, body, h.clock.Now(), h.l2Window) != nil {
		return clob.Key{}, true, false
	}
	return k, true, true
}

func (h *Handler) createBuilderKey(w http.ResponseWriter, r *http.Request) {
	k, _ := KeyFrom(r.Context())
	nonce := builderNonce(uint64(h.clock.Now().UnixNano()))
	creds := h.deriver.Derive(k.Address, nonce, 0)
	if err := h.store.Insert(r.Context(), clob.Key{APIKey: creds.APIKey, Address: k.Address, Nonce: nonce, CreatedAt: h.clock.Now()}); err != nil {
		WriteError(w, h.log, err, clob.ErrBuilderCreate)
		return
	}
	writeJSON(w, http.StatusOK, map[string]string{"key": creds.APIKey, "secret": creds.Secret, "passphrase": creds.Passphrase})
}

func (h *Handler) listBuilderKeys(w http.ResponseWriter, r *http.Request) {
	k, _ := KeyFrom(r.Context())
	keys, err := h.store.Active(r.Context(), k.Address)
	if err != nil {
		WriteError(w, h.log, err, clob.ErrBuilderGet)
		return
	}
	type item struct {
		Key       string  `json:"key"`
		CreatedAt string  `json:"createdAt"`
		RevokedAt *string `json:"revokedAt"`
	}
	out := []item{}
	for _, x := range keys {
		if isBuilderKey(x) {
			out = append(out, item{Key: x.APIKey, CreatedAt: x.CreatedAt.UTC().Format(time.RFC3339)})
		}
	}
	writeJSON(w, http.StatusOK, out)
}

// revokeBuilderKey is DELETE /auth/builder-api-key, authenticated by the
// builder headers alone.
func (h *Handler) revokeBuilderKey(w http.ResponseWriter, r *http.Request) {
	body, ok := readBody(w, r, h.maxBody)
	if !ok || (len(body) > 0 && !json.Valid(body)) {
		fail(w, clob.ErrBuilderRevokeBody)
		return
	}
	k, present, valid := h.builderKey(r, body)
	if !present || !valid {
		fail(w, clob.ErrBuilderRevokeHeaders)
		return
	}
	if _, err := h.store.Revoke(r.Context(), k.APIKey, h.clock.Now()); err != nil {
		WriteError(w, h.log, err, clob.ErrBuilderRevoke)
		return
	}
	h.secrets.Forget(k.APIKey)
	writeJSON(w, http.StatusOK, "OK")
}

// builderTrades is GET /builder/trades: the trades of orders posted with
// this builder's headers (BuilderTrade objects, camelCase).
func (h *Handler) builderTrades(w http.ResponseWriter, r *http.Request) {
	k, present, valid := h.builderKey(r, nil)
	if !present || !valid {
		fail(w, clob.ErrUnauthorized)
		return
	}
	q := r.URL.Query()
	before, ok1 := optInt(r, "before")
	after, ok2 := optInt(r, "after")
	cond, asset := lower(q.Get("market")), q.Get("asset_id")
	if _, okc := parseCursor(q.Get("next_cursor")); !ok1 || !ok2 || !okc || (cond != "" && !validCond(cond)) || (asset != "" && !validToken(asset)) {
		fail(w, clob.ErrBuilderTradeParams)
		return
	}
	now := h.svc.Now()
	var out []map[string]any
	if err := h.svc.View(func(m *clobengine.Machine) {
		for _, t := range m.Trades(func(t *clobengine.Trade) bool {
			return (t.TakerBuild == k.APIKey || t.MakerBuild == k.APIKey) && (cond == "" || m.Market(t.Mkt).ConditionID == cond) &&
				(asset == "" || t.TakerToken == asset) && (before == 0 || t.Time/1000 < before) && (after == 0 || t.Time/1000 > after)
		}) {
			mk := m.Market(t.Mkt)
			st, _ := tradeStatus(h.svc.Chain(), t.Time, now.UnixMilli())
			kind, owner, maker := "TAKER", t.TakerKey, t.TakerMaker
			if t.TakerBuild != k.APIKey {
				kind, owner, maker = "MAKER", t.MakerKey, t.MakerAddr
			}
			usdc := t.Size * t.Price / mk.Ticks
			at := time.UnixMilli(t.Time).UTC().Format(time.RFC3339)
			out = append(out, map[string]any{"id": t.ID, "tradeType": kind, "takerOrderHash": t.TakerOrder, "builder": k.APIKey,
				"market": mk.ConditionID, "assetId": t.TakerToken, "side": clobengine.SideName(t.TakerSide),
				"size": microText(t.Size), "sizeUsdc": microText(usdc), "price": clob.PriceText(t.Price, mk.Ticks), "status": st,
				"outcome": mk.Tokens[t.TakerOut].Outcome, "outcomeIndex": int(t.TakerOut), "owner": owner, "maker": maker,
				"transactionHash": txHash(t.ID), "matchTime": strconv.FormatInt(t.Time/1000, 10), "bucketIndex": 0,
				"fee": microText(t.Fee / clobengine.Unit), "feeUsdc": microText(t.Fee / clobengine.Unit), "err_msg": nil,
				"createdAt": at, "updatedAt": at})
		}
	}); err != nil {
		WriteError(w, h.log, err, clob.ErrBuilderTrades)
		return
	}
	p, _ := paginate(out, q.Get("next_cursor"), dataPage)
	writeJSON(w, http.StatusOK, p)
}
