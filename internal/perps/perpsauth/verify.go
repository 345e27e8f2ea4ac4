// Package perpsauth authenticates signed perps requests: it rebuilds the
// compact form of the op, hashes it into the EIP-712 Op digest (perps.md §3),
// recovers the signer, applies the freshness, deadline and replay rules, and
// verifies the owner-signed CreateProxy and Withdraw typed data. It knows no
// HTTP: callers map its errors to status codes (all 400 except ErrReplayFull,
// which is 503).
package perpsauth

import (
	"encoding/json"
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"pmx/internal/crypto/eip712"
	"pmx/internal/crypto/keccak"
	"pmx/internal/crypto/secp"
	"pmx/internal/httpjson"
)

// Errors whose text is the contract's message.
var (
	ErrInvalidSignature = errors.New("invalid signature")
	ErrSignatureExpired = errors.New("signature expired")
	ErrAccountNotFound  = errors.New("account not found for proxy")
	ErrCommandExpired   = errors.New("command expired")
)

// Production values (perps.md §1, §3.1).
const (
	DefaultDomainName       = "Polymarket"
	DefaultChainID          = 137
	DefaultWithdrawContract = "0xDCa4af75705dbB50f62437045afF9921947917d2"
)

// Config sets the domain and the time rules. Zero fields take defaults.
type Config struct {
	DomainName       string        // EIP-712 domain name; default "Polymarket"
	ChainID          uint64        // default 137
	WithdrawContract secp.Address  // Withdraw verifyingContract; default production
	MaxAge           time.Duration // oldest acceptable ts; default 5 min
	MaxAhead         time.Duration // furthest-future acceptable ts; default 1 min
	CommandWindow    time.Duration // exp cap and default; default 5 s
	ReplayCapacity   int           // replay cache entries; default 2,000,000
}

// Verifier checks signed requests. Safe for concurrent use.
type Verifier struct {
	cfg                       Config // with defaults applied
	opSep, withdrawSep        [32]byte
	maxAge, maxAhead, cmdWind int64 // ms
	replay                    *ReplayCache
	recovered                 atomic.Uint64 // signers found by recovery
}

// New builds a Verifier; the domain separators are computed once here.
func New(cfg Config) *Verifier {
	if cfg.DomainName == "" {
		cfg.DomainName = DefaultDomainName
	}
	if cfg.ChainID == 0 {
		cfg.ChainID = DefaultChainID
	}
	if cfg.WithdrawContract.IsZero() {
		cfg.WithdrawContract, _ = secp.ParseAddress(DefaultWithdrawContract)
	}
	def := func(d, v time.Duration) int64 {
		if d <= 0 {
			d = v
		}
		return d.Milliseconds()
	}
	wc := [20]byte(cfg.WithdrawContract)
	return &Verifier{
		cfg:         cfg,
		opSep:       eip712.Domain{Name: cfg.DomainName, Version: "1", ChainID: cfg.ChainID}.Separator(),
		withdrawSep: eip712.Domain{Name: cfg.DomainName, Version: "1", ChainID: cfg.ChainID, VerifyingContract: &wc}.Separator(),
		maxAge:      def(cfg.MaxAge, 5*time.Minute),
		maxAhead:    def(cfg.MaxAhead, time.Minute),
		cmdWind:     def(cfg.CommandWindow, 5*time.Second),
		replay:      NewReplayCache(cfg.ReplayCapacity),
	}
}

// Recovered counts the signers recovered from op signatures (every
// signed op's, docs/signing.md: there is no per-connection shortcut).
func (v *Verifier) Recovered() uint64 { return v.recovered.Load() }

// Domain returns the effective EIP-712 domain values, for publishing on
// GET /v1/info/exchange (name, version "1", chain_id, contract).
func (v *Verifier) Domain() (name string, chainID uint64, withdrawContract secp.Address) {
	return v.cfg.DomainName, v.cfg.ChainID, v.cfg.WithdrawContract
}

// Replay exposes the replay cache (for Remove, and for re-seeding from the
// journal after a restart).
func (v *Verifier) Replay() *ReplayCache { return v.replay }

// Request is the signed envelope: the JSON body on REST, the same fields at
// the top level of a WebSocket post frame.
type Request struct {
	Op    json.RawMessage `json:"op"`
	Sig   string          `json:"sig"`
	Salt  uint64          `json:"salt"`
	Ts    uint64          `json:"ts"`
	Exp   *int64          `json:"exp,omitempty"`
	Label *string         `json:"label,omitempty"`
	Code  *string         `json:"code,omitempty"`

	args    int  // op.args as ArgCount counts them, if counted
	counted bool // by the fast parse, on its checking pass over op
}

// ParseRequest decodes an envelope. Unknown top-level fields are ignored:
// only op, sig, salt and ts are signed.
func ParseRequest(body []byte) (*Request, error) {
	if r, ok := parseRequestFast(body); ok {
		return r, nil
	}
	var r Request
	if err := json.Unmarshal(body, &r); err != nil {
		return nil, invalid("body: %s", httpjson.Describe(err).Error())
	}
	if len(r.Op) == 0 || isNull(r.Op) {
		return nil, invalid("op missing")
	}
	return &r, nil
}

// Resolver maps a recovered signer to the account it acts for. ok is false
// when the signer is not linked (unknown, revoked or expired proxy).
type Resolver func(signer secp.Address, nowMs int64) (account secp.Address, ok bool)

// Self resolves every signer to itself: for owner-signed ops.
func Self(signer secp.Address, _ int64) (secp.Address, bool) { return signer, true }

// Verified is an authenticated request.
type Verified struct {
	Op         Op
	Signer     secp.Address // recovered signer (proxy or owner)
	Account    secp.Address // account it acts for
	DeadlineMs int64        // do not execute after this (Unix ms)
	Replay     ReplayKey    // for ReplayCache.Remove if never executed
}

// VerifyOp authenticates an Op-signed request whose op.type must be want.
// Checks run cheapest first: shape, signature age, exp, then recovery,
// signer resolution and finally the replay cache, which is written only for
// requests that passed everything else (so a forged copy of a signature
// cannot block the genuine request).
func (v *Verifier) VerifyOp(r *Request, want string, now time.Time, resolve Resolver) (*Verified, error) {
	bp := packedBufs.Get().(*[]byte)
	op, packed, err := compact(r.Op, *bp, true)
	if err != nil {
		packedBufs.Put(bp)
		return nil, err
	}
	dataHash := keccak.Sum256(packed)
	if cap(packed) <= maxPooledPacked { // hashed: nothing keeps it
		*bp = packed[:0]
		packedBufs.Put(bp)
	}
	if op.Type != want {
		return nil, invalid("op.type %q not allowed here", op.Type)
	}
	nowMs := now.UnixMilli()
	if err := v.checkAge(int64ms(r.Ts), nowMs); err != nil {
		return nil, err
	}
	deadline, err := v.deadline(r.Exp, nowMs)
	if err != nil {
		return nil, err
	}
	digest := eip712.Digest(v.opSep, eip712.OpHash(dataHash, r.Salt, r.Ts))
	sig, err := secp.ParseSignature(r.Sig)
	if err != nil {
		return nil, ErrInvalidSignature
	}
	signer, err := secp.Recover(digest, sig)
	if err != nil {
		return nil, ErrInvalidSignature
	}
	v.recovered.Add(1)
	account, ok := resolve(signer, nowMs)
	if !ok {
		return nil, ErrAccountNotFound
	}
	key := newReplayKey(digest, signer, int64ms(r.Ts)+v.maxAge)
	ver := &Verified{Op: op, Signer: signer, Account: account, DeadlineMs: deadline, Replay: key}
	if err := v.replay.Add(key, nowMs); err != nil {
		if err == ErrReplayed {
			return ver, err // the caller may answer a resend with the first outcome
		}
		return nil, err
	}
	return ver, nil
}

// packedBufs recycles the compact forms VerifyOp hashes; one of a
// 100-order batch fits in maxPooledPacked.
var packedBufs = sync.Pool{New: func() any { return new([]byte) }}

const maxPooledPacked = 64 << 10

func int64ms(ts uint64) int64 {
	if ts > 1<<62 {
		return 1 << 62 // far future; rejected by checkAge
	}
	return int64(ts)
}

// checkAge: older than maxAge is "signature expired"; further ahead than
// maxAhead is "invalid signature" (a timestamp problem, perps.md §3.2).
func (v *Verifier) checkAge(tsMs, nowMs int64) error {
	if nowMs-tsMs > v.maxAge {
		return ErrSignatureExpired
	}
	if tsMs-nowMs > v.maxAhead {
		return ErrInvalidSignature
	}
	return nil
}

// deadline applies the exp rules of the contract: at or before now is
// "command expired"; later than now+window is clamped; absent is now+window.
func (v *Verifier) deadline(exp *int64, nowMs int64) (int64, error) {
	limit := nowMs + v.cmdWind
	if exp == nil {
		return limit, nil
	}
	if *exp <= nowMs {
		return 0, ErrCommandExpired
	}
	return min(*exp, limit), nil
}

// recoverHex parses and recovers; every failure is "invalid signature".
func recoverHex(digest [32]byte, sigHex string) (secp.Address, error) {
	sig, err := secp.ParseSignature(sigHex)
	if err != nil {
		return secp.Address{}, ErrInvalidSignature
	}
	a, err := secp.Recover(digest, sig)
	if err != nil {
		return secp.Address{}, ErrInvalidSignature
	}
	return a, nil
}
