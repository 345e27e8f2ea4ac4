package perpsauth

import (
	"bytes"
	"encoding/json"
	"time"

	"pmx/internal/crypto/eip712"
	"pmx/internal/crypto/secp"
)

// CreateProxy is a verified createProxy request.
type CreateProxy struct {
	Owner    secp.Address // recovered signer, equal to args.owner
	Proxy    secp.Address
	ExpiryMs int64
	Label    string
	Code     string
	Replay   ReplayKey
}

type createProxyArgs struct {
	Owner  string `json:"owner"`
	Proxy  string `json:"proxy"`
	Expiry uint64 `json:"expiry"`
}

// VerifyCreateProxy checks the owner-signed CreateProxy typed data
// (perps.md §3.4): the signer must be args.owner, and the signed addr/exp are
// args.proxy/args.expiry. The expiry must be in the future; its upper bound
// and the one-proxy rules are the caller's policy.
func (v *Verifier) VerifyCreateProxy(r *Request, now time.Time) (*CreateProxy, error) {
	var args createProxyArgs
	if err := decodeOwnerOp(r.Op, "createProxy", &args); err != nil {
		return nil, err
	}
	owner, err := secp.ParseAddress(args.Owner)
	if err != nil {
		return nil, invalid("args.owner: %v", err)
	}
	proxy, err := secp.ParseAddress(args.Proxy)
	if err != nil {
		return nil, invalid("args.proxy: %v", err)
	}
	nowMs := now.UnixMilli()
	if err := v.checkAge(int64ms(r.Ts), nowMs); err != nil {
		return nil, err
	}
	if int64ms(args.Expiry) <= nowMs {
		return nil, invalid("args.expiry must be in the future")
	}
	digest := eip712.Digest(v.opSep, eip712.CreateProxyHash(proxy, args.Expiry, r.Salt, r.Ts))
	signer, err := recoverHex(digest, r.Sig)
	if err != nil {
		return nil, err
	}
	if signer != owner {
		return nil, ErrInvalidSignature
	}
	key := newReplayKey(digest, signer, int64ms(r.Ts)+v.maxAge)
	if err := v.replay.Add(key, nowMs); err != nil {
		return nil, err
	}
	cp := &CreateProxy{Owner: owner, Proxy: proxy, ExpiryMs: int64ms(args.Expiry), Replay: key}
	if r.Label != nil {
		cp.Label = *r.Label
	}
	if r.Code != nil {
		cp.Code = *r.Code
	}
	return cp, nil
}

// Withdraw is a verified withdraw request.
type Withdraw struct {
	Account secp.Address // recovered signer, equal to args.account
	Token   secp.Address
	Amount  string // raw base units, canonical decimal
	To      secp.Address
	Replay  ReplayKey
}

type withdrawArgs struct {
	Account string `json:"account"`
	Token   string `json:"token"`
	Amount  string `json:"amount"`
	To      string `json:"to"`
}

// VerifyWithdraw checks the owner-signed Withdraw typed data (perps.md §3.5):
// ts in Unix seconds, fee signed as 0, signer must be args.account.
func (v *Verifier) VerifyWithdraw(r *Request, now time.Time) (*Withdraw, error) {
	var args withdrawArgs
	if err := decodeOwnerOp(r.Op, "withdraw", &args); err != nil {
		return nil, err
	}
	var w Withdraw
	var err error
	if w.Account, err = secp.ParseAddress(args.Account); err != nil {
		return nil, invalid("args.account: %v", err)
	}
	if w.Token, err = secp.ParseAddress(args.Token); err != nil {
		return nil, invalid("args.token: %v", err)
	}
	if w.To, err = secp.ParseAddress(args.To); err != nil {
		return nil, invalid("args.to: %v", err)
	}
	amount, err := eip712.ParseUint256(args.Amount)
	if err != nil {
		return nil, invalid("args.amount: want a raw integer string")
	}
	w.Amount = args.Amount
	if r.Ts > 1<<40 { // seconds, not ms: ~36,000 years
		return nil, ErrInvalidSignature
	}
	tsMs := int64(r.Ts) * 1000
	nowMs := now.UnixMilli()
	if err := v.checkAge(tsMs, nowMs); err != nil {
		return nil, err
	}
	h := eip712.WithdrawHash(w.Account, w.Token, amount, eip712.Uint256{}, w.To, r.Salt, r.Ts)
	digest := eip712.Digest(v.withdrawSep, h)
	signer, err := recoverHex(digest, r.Sig)
	if err != nil {
		return nil, err
	}
	if signer != w.Account {
		return nil, ErrInvalidSignature
	}
	w.Replay = newReplayKey(digest, signer, tsMs+v.maxAge)
	if err := v.replay.Add(w.Replay, nowMs); err != nil {
		if err == ErrReplayed {
			return &w, err // the caller may answer a resend with the first outcome
		}
		return nil, err
	}
	return &w, nil
}

// decodeOwnerOp decodes {type: want, args: {...}} strictly (exact keys).
func decodeOwnerOp(raw json.RawMessage, want string, args any) error {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(raw, &top); err != nil || top == nil {
		return invalid("op must be an object")
	}
	for k := range top {
		if k != "type" && k != "args" {
			return invalid("op: unknown field %q", k)
		}
	}
	var typ string
	if err := json.Unmarshal(top["type"], &typ); err != nil || typ != want {
		return invalid("op.type must be %q", want)
	}
	var keys map[string]json.RawMessage
	if err := json.Unmarshal(top["args"], &keys); err != nil || keys == nil {
		return invalid("op.args must be an object")
	}
	d := json.NewDecoder(bytes.NewReader(top["args"]))
	d.DisallowUnknownFields()
	if err := d.Decode(args); err != nil {
		return invalid("op.args: %v", err)
	}
	// DisallowUnknownFields matches keys case-insensitively; require exact.
	for k := range keys {
		if !exactKey(args, k) {
			return invalid("op.args: unknown field %q", k)
		}
	}
	return nil
}

func exactKey(args any, k string) bool {
	switch args.(type) {
	case *createProxyArgs:
		return k == "owner" || k == "proxy" || k == "expiry"
	case *withdrawArgs:
		return k == "account" || k == "token" || k == "amount" || k == "to"
	}
	return false
}
