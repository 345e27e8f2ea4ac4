// Package clobengine is the CLOB exchange as an engine.Machine: markets,
// balances (collateral and outcome tokens), signed orders with their
// reservations, complementary matching on internal/exchange/book (mint and
// merge), cancels, trades, modes and the operator's chain stand-ins. It is
// deterministic: every input is a journaled Command carrying its own time.
package clobengine

import (
	"encoding/json"
	"errors"

	"pmx/internal/clob/clob"
)

// Ops of a Command.
const (
	OpMarket       = "market"        // register or update a market (Market)
	OpDeposit      = "deposit"       // credit collateral (Addr, Amount); Signer ties a wallet to its EOA
	OpWithdraw     = "withdraw"      // debit free collateral (Addr, Amount)
	OpSplit        = "split"         // collateral -> a full set (Addr, Cond, Amount)
	OpMerge        = "merge"         // a full set -> collateral (Addr, Cond, Amount)
	OpNonce        = "nonce"         // the exchange contract's incrementNonce (Addr)
	OpPlace        = "place"         // orders (Orders), all-or-nothing admission is the caller's
	OpCancel       = "cancel"        // ids (IDs) of the signer Addr
	OpCancelAll    = "cancel_all"    // every order of the signer Addr, or of APIKey when set
	OpCancelMarket = "cancel_market" // the signer Addr's orders in Cond and/or Asset
	OpMode         = "mode"          // exchange mode (Mode, Retry)
	OpAddress      = "address"       // per-address status (Addr, Status)
	OpTier         = "tier"          // pin a rate-limit tier (Addr, Tier; -1 unpins)
	OpTick         = "tick"          // no-op: lets time advance (expiries, delayed orders)
	OpResolve      = "resolve"       // settle a market (Cond, Payouts): trading stops, its orders go
	OpRedeem       = "redeem"        // redeemPositions of Addr in the resolved market Cond
	OpRedeemAll    = "redeem_all"    // the automatic redemption: every holder of the resolved market Cond
	OpTickSize     = "tick_size"     // change the market Cond's tick size (Ticks: ticks per 1.0)
)

// Command is one journaled input. Amounts are 6-decimal base units.
type Command struct {
	Op     string       `json:"op"`
	Market *clob.Market `json:"market,omitempty"`
	Addr   string       `json:"addr,omitempty"`
	Amount int64        `json:"amount,omitempty"`
	Cond   string       `json:"cond,omitempty"`
	Asset  string       `json:"asset,omitempty"`
	Orders []OrderInput `json:"orders,omitempty"`
	IDs    []string     `json:"ids,omitempty"`
	APIKey string       `json:"key,omitempty"`
	Mode   string       `json:"mode,omitempty"`
	Retry  int64        `json:"retry,omitempty"`
	Status string       `json:"status,omitempty"`
	Tier   int          `json:"tier,omitempty"`
	Signer string       `json:"signer,omitempty"` // deposit: the EOA that owns Addr (a proxy, Safe or deposit wallet)
	// Payouts (resolve) are micro-USDC per share of each outcome, summing to 1,000,000.
	Payouts []int64 `json:"payouts,omitempty"`
	// Ticks (tick_size) is the new grid: 10, 100, 1,000 or 10,000 ticks per 1.0.
	Ticks int64 `json:"ticks,omitempty"`
}

// OrderInput is a verified signed order as the machine needs it. The HTTP
// layer has checked the signature, the owner and the signer; everything
// that depends on state (market, balances, nonce, duplicates) is checked
// here.
type OrderInput struct {
	Hash       string `json:"hash"`
	Token      string `json:"token"` // canonical decimal token id
	Side       uint8  `json:"side"`  // 0 BUY, 1 SELL
	MakerAmt   int64  `json:"ma"`
	TakerAmt   int64  `json:"ta"`
	Type       string `json:"type"` // GTC, GTD, FOK, FAK
	PostOnly   bool   `json:"po,omitempty"`
	Maker      string `json:"maker"`  // funder address, lower-case hex
	Signer     string `json:"signer"` // the API key's address (the EOA that signed)
	APIKey     string `json:"key"`
	Expiration int64  `json:"exp,omitempty"` // Unix seconds
	Version    int    `json:"v"`
	Nonce      uint64 `json:"nonce,omitempty"` // V1; NonceHuge when it does not fit
	NonceHuge  bool   `json:"nonce_huge,omitempty"`
	Stamp      int64  `json:"stamp,omitempty"` // V2 order timestamp, ms
	FeeBps     int64  `json:"fee,omitempty"`
	SigType    uint8  `json:"sig_type,omitempty"`
	NegRisk    bool   `json:"neg_risk,omitempty"` // the exchange the order was signed for
	Builder    string `json:"builder,omitempty"`  // builder API key that attributed the order
	Code       string `json:"code,omitempty"`     // V2 order's builder field (0x + 64 hex), when not zero
}

// cmdVersion prefixes every encoded command, so the encoding can change.
const cmdVersion = 1

// Encode is the journal payload of c: a binary record for a place command
// (placecodec.go), JSON for every other op.
func Encode(c *Command) ([]byte, error) {
	if placeOnly(c) {
		return encodePlace(c.Orders), nil
	}
	b, err := json.Marshal(c)
	if err != nil {
		return nil, err
	}
	return append([]byte{cmdVersion}, b...), nil
}

var errCommand = errors.New("clobengine: malformed command")

// Decode reads a journal payload.
func Decode(b []byte) (*Command, error) {
	if len(b) >= 2 && b[0] == cmdPlaceBin {
		return decodePlace(b[1:])
	}
	if len(b) < 2 || b[0] != cmdVersion {
		return nil, errCommand
	}
	var c Command
	if err := json.Unmarshal(b[1:], &c); err != nil {
		return nil, errCommand
	}
	return &c, nil
}
