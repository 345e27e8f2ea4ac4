package clobhttp

import (
	"encoding/json"
	"net/http"
	"strconv"

	"pmx/internal/amount"
	"pmx/internal/clob/clob"
	"pmx/internal/clob/clobengine"
	"pmx/internal/clob/clobsvc"
	"pmx/internal/crypto/eip712"
)

// MaxBatch is the most orders one POST /orders may carry.
const MaxBatch = 15

// MaxCancelIDs is the most ids one DELETE /orders may carry.
const MaxCancelIDs = 1000

func microText(v int64) string { return amount.Micro(v).String() }

// limit applies the signer's bucket and writes the headers; false means a
// 429 was written.
func (h *Handler) limit(w http.ResponseWriter, signer string, bucket int, cost int64) bool {
	d := h.svc.Limit(signer, bucket, cost)
	if !d.Evaluated {
		return true
	}
	hd := w.Header()
	hd.Set("Svc-RateLimit-Remaining", strconv.FormatInt(d.Remaining, 10))
	hd.Set("Svc-RateLimit-Reset", strconv.FormatInt(d.Reset, 10))
	hd.Set("Svc-RateLimit-Tier", d.Tier)
	if d.Warn {
		hd.Set("Svc-RateLimit-Warning", "true")
	}
	if !d.OK {
		hd.Set("Retry-After", strconv.FormatInt(d.RetryAfter, 10))
		fail(w, clob.ErrTooManyRequests)
		return false
	}
	return true
}

// readBody is the request body: the one RequireL2 already read, else read
// now (up to max).
func readBody(w http.ResponseWriter, r *http.Request, max int64) ([]byte, bool) {
	if a, ok := r.Context().Value(keyCtx{}).(*authed); ok {
		return a.body, true
	}
	b, err := readAll(http.MaxBytesReader(w, r.Body, max), r.ContentLength, max)
	return b, err == nil
}

// prepare turns a wire order into the engine's input: the owner must be the
// API key, the signature must verify for the exchange of the token's market,
// and the EOA that signed must be the API key's address (for POLY_1271 the
// EOA behind the deposit wallet; for types 0-2 the order's signer field).
// o and oerr are no's order as clob.DecodeNewOrder(s) decoded it.
func (h *Handler) prepare(no *clob.NewOrder, o *clob.SignedOrder, oerr error, k clob.Key, signer, builder string) (clobengine.OrderInput, *clob.Error) {
	var in clobengine.OrderInput
	if h.svc.Replaying() {
		return in, clob.E(clob.ErrTooEarly)
	}
	if no.Owner != k.APIKey {
		return in, clob.E(clob.ErrOwnerMismatch)
	}
	if oerr != nil {
		return in, clob.E(clob.ErrInvalidOrderPayload)
	}
	token := o.Token
	ti, ok := h.svc.Token(token)
	if !ok {
		return in, clob.E(clob.ErrInvalidOrderPayload)
	}
	if o.SignatureType != clob.SigPoly1271 && o.Signer != k.Address {
		return in, clob.E(clob.ErrSignerMismatch)
	}
	if o.SignatureType == clob.SigEOA && o.Maker != o.Signer {
		return in, clob.E(clob.ErrInvalidOrderPayload)
	}
	eoa, hash, err := o.VerifyID(h.svc.Domains, ti.NegRisk)
	if err != nil {
		return in, clob.E(clob.ErrInvalidOrderPayload)
	}
	if eoa != k.Address {
		return in, clob.E(clob.ErrSignerMismatch)
	}
	maker := signer // lower case like Hex
	if o.Maker != k.Address {
		maker = o.Maker.Hex()
	}
	in = clobengine.OrderInput{Hash: hex32(&hash), Token: token, Side: o.Side, MakerAmt: int64(o.MakerAmount),
		TakerAmt: int64(o.TakerAmount), Type: no.OrderType, PostOnly: no.PostOnly, Maker: maker,
		Signer: signer, APIKey: k.APIKey, Expiration: int64(min(o.Expiration, 1<<40)), Version: o.Version,
		FeeBps: int64(o.FeeRateBps), SigType: o.SignatureType, NegRisk: ti.NegRisk, Builder: builder}
	if o.Builder != ([32]byte{}) {
		in.Code = hex32(&o.Builder)
	}
	if o.Version == 1 {
		in.Nonce, in.NonceHuge = small(o.Nonce)
	} else {
		ts, huge := small(o.Timestamp)
		if huge || ts > 1<<62 {
			return in, clob.E(clob.ErrInvalidOrderPayload)
		}
		in.Stamp = int64(ts)
	}
	return in, nil
}

// small returns v as uint64, or huge when it does not fit.
func small(v eip712.Uint256) (uint64, bool) {
	for _, b := range v[:24] {
		if b != 0 {
			return 0, true
		}
	}
	var x uint64
	for _, b := range v[24:] {
		x = x<<8 | uint64(b)
	}
	return x, false
}

// hex32 is "0x" + hexLower(b[:]) in one allocation.
func hex32(b *[32]byte) string {
	const hx = "0123456789abcdef"
	var out [66]byte
	out[0], out[1] = '0', 'x'
	for i, c := range b {
		out[2+2*i], out[3+2*i] = hx[c>>4], hx[c&15]
	}
	return string(out[:])
}

func hexLower(b []byte) string {
	const hx = "0123456789abcdef"
	out := make([]byte, len(b)*2)
	for i, c := range b {
		out[2*i], out[2*i+1] = hx[c>>4], hx[c&15]
	}
	return string(out)
}

// txHash is the simulated chain's transaction hash of a trade.
func txHash(tradeID string) string { return clobengine.TxHash(tradeID) }

// placeOne is a single-order place command and its order in one
// allocation.
type placeOne struct {
	c  clobengine.Command
	in [1]clobengine.OrderInput
}

func (h *Handler) postOrder(w http.ResponseWriter, r *http.Request, a *authed) {
	k, body := a.key, a.body
	var no clob.NewOrder
	var o clob.SignedOrder
	oerr, ok := clob.DecodeNewOrder(body, &no, &o)
	if !ok || len(no.Order) == 0 {
		fail(w, clob.ErrInvalidOrderPayload)
		return
	}
	signer := k.Address.Hex() // lower case
	if !h.limit(w, signer, clobsvc.OrderBucket, 1) {
		return
	}
	in, e := h.prepare(&no, &o, oerr, k, signer, h.attribution(r, body))
	if e != nil {
		WriteError(w, h.log, e, 0)
		return
	}
	one := &placeOne{c: clobengine.Command{Op: clobengine.OpPlace}, in: [1]clobengine.OrderInput{in}}
	one.c.Orders = one.in[:]
	res, err := h.svc.Submit(&one.c)
	if err != nil {
		WriteError(w, h.log, err, 0)
		return
	}
	if res.Err != nil {
		WriteError(w, h.log, res.Err, 0)
		return
	}
	p := res.Orders[0]
	if p.Err != nil {
		WriteError(w, h.log, p.Err, 0)
		return
	}
	writeRaw(w, http.StatusOK, appendResponse(make([]byte, 0, 512), p))
}

func (h *Handler) postOrders(w http.ResponseWriter, r *http.Request, a *authed) {
	k, body := a.key, a.body
	batch, orders, oerrs, ok := clob.DecodeNewOrders(body, MaxBatch)
	if !ok || len(batch) == 0 {
		fail(w, clob.ErrInvalidOrderPayload)
		return
	}
	if len(batch) > MaxBatch {
		fail(w, clob.ErrTooManyOrders, len(batch), MaxBatch)
		return
	}
	signer := k.Address.Hex() // lower case
	if !h.limit(w, signer, clobsvc.OrderBucket, int64(len(batch))) {
		return
	}
	builder := h.attribution(r, body)
	out := make([]clobengine.PlaceResult, len(batch))
	var ins []clobengine.OrderInput
	var at []int
	for i := range batch {
		in, e := h.prepare(&batch[i], &orders[i], oerrs[i], k, signer, builder)
		if e != nil {
			out[i] = clobengine.PlaceResult{Err: e}
			continue
		}
		ins = append(ins, in)
		at = append(at, i)
	}
	if len(ins) > 0 {
		res, err := h.svc.Submit(&clobengine.Command{Op: clobengine.OpPlace, Orders: ins})
		if err != nil {
			WriteError(w, h.log, err, 0)
			return
		}
		if res.Err != nil {
			WriteError(w, h.log, res.Err, 0)
			return
		}
		for j, p := range res.Orders {
			out[at[j]] = p
		}
	}
	b := append(make([]byte, 0, 512*len(out)), '[')
	for i, p := range out {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendResponse(b, p)
	}
	writeRaw(w, http.StatusOK, append(b, ']'))
}

type cancelResponse struct {
	Canceled    []string          `json:"canceled"`
	NotCanceled map[string]string `json:"not_canceled"`
}

func (h *Handler) writeCancel(w http.ResponseWriter, res clobengine.Result, err error) {
	if err == nil && res.Err != nil {
		err = res.Err
	}
	if err != nil {
		WriteError(w, h.log, err, 0)
		return
	}
	out := cancelResponse{Canceled: res.Canceled, NotCanceled: res.NotCanceled}
	if out.Canceled == nil {
		out.Canceled = []string{}
	}
	if out.NotCanceled == nil {
		out.NotCanceled = map[string]string{}
	}
	writeJSON(w, http.StatusOK, out)
}

func validOrderID(id string) bool { return validCond(lower(id)) }

func (h *Handler) cancelOrder(w http.ResponseWriter, r *http.Request) {
	k, _ := KeyFrom(r.Context())
	body, _ := readBody(w, r, h.maxBody)
	var req struct {
		OrderID  string `json:"orderID"`
		OrderId2 string `json:"orderId"`
	}
	if json.Unmarshal(body, &req) != nil {
		fail(w, clob.ErrInvalidOrderPayload)
		return
	}
	id := req.OrderID
	if id == "" {
		id = req.OrderId2
	}
	if !validOrderID(id) {
		fail(w, clob.ErrInvalidOrderID)
		return
	}
	signer := lower(k.Address.Hex())
	if !h.limit(w, signer, clobsvc.CancelBucket, 1) {
		return
	}
	res, err := h.svc.Submit(&clobengine.Command{Op: clobengine.OpCancel, Addr: signer, IDs: []string{lower(id)}})
	h.writeCancel(w, res, err)
}

func (h *Handler) cancelOrders(w http.ResponseWriter, r *http.Request) {
	k, _ := KeyFrom(r.Context())
	body, _ := readBody(w, r, h.maxBody)
	var ids []string
	if json.Unmarshal(body, &ids) != nil {
		fail(w, clob.ErrInvalidOrderPayload)
		return
	}
	if len(ids) > MaxCancelIDs {
		fail(w, clob.ErrTooManyCancels, MaxCancelIDs)
		return
	}
	for i, id := range ids {
		if !validOrderID(id) {
			fail(w, clob.ErrInvalidOrderID)
			return
		}
		ids[i] = lower(id)
	}
	signer := lower(k.Address.Hex())
	if len(ids) > 0 && !h.limit(w, signer, clobsvc.CancelBucket, int64(len(ids))) {
		return
	}
	res, err := h.svc.Submit(&clobengine.Command{Op: clobengine.OpCancel, Addr: signer, IDs: ids})
	h.writeCancel(w, res, err)
}

// cancelAll and cancelMarket take one cancel token first and one per order
// canceled once the result is known (debt on the tiers that allow it).
func (h *Handler) cancelAll(w http.ResponseWriter, r *http.Request) {
	k, _ := KeyFrom(r.Context())
	signer := lower(k.Address.Hex())
	if !h.limit(w, signer, clobsvc.CancelBucket, 1) {
		return
	}
	res, err := h.svc.Submit(&clobengine.Command{Op: clobengine.OpCancelAll, Addr: signer})
	if err == nil && res.Err == nil {
		w.Header().Set("Svc-RateLimit-Remaining", strconv.FormatInt(h.svc.ChargeCancels(signer, int64(len(res.Canceled))), 10))
	}
	h.writeCancel(w, res, err)
}

func (h *Handler) cancelMarket(w http.ResponseWriter, r *http.Request) {
	k, _ := KeyFrom(r.Context())
	body, _ := readBody(w, r, h.maxBody)
	var req struct {
		Market  string `json:"market"`
		AssetID string `json:"asset_id"`
	}
	if len(body) > 0 && json.Unmarshal(body, &req) != nil {
		fail(w, clob.ErrInvalidOrderPayload)
		return
	}
	if (req.Market != "" && !validCond(lower(req.Market))) || (req.AssetID != "" && !validToken(req.AssetID)) {
		fail(w, clob.ErrInvalidOrderPayload)
		return
	}
	signer := lower(k.Address.Hex())
	if !h.limit(w, signer, clobsvc.CancelBucket, 1) {
		return
	}
	res, err := h.svc.Submit(&clobengine.Command{Op: clobengine.OpCancelMarket, Addr: signer, Cond: lower(req.Market), Asset: req.AssetID})
	if err == nil && res.Err == nil {
		w.Header().Set("Svc-RateLimit-Remaining", strconv.FormatInt(h.svc.ChargeCancels(signer, int64(len(res.Canceled))), 10))
	}
	h.writeCancel(w, res, err)
}

func jsonUnmarshal(b []byte, v any) error { return json.Unmarshal(b, v) }

// attribution is the builder key of valid builder headers on an order
// request ("" without them; invalid ones are ignored, as L2 already
// authenticated the request).
func (h *Handler) attribution(r *http.Request, body []byte) string {
	if k, _, ok := h.builderKey(r, body); ok {
		return k.APIKey
	}
	return ""
}
