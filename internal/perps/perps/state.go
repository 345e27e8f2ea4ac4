// Package perps is the perpetuals exchange domain as a deterministic
// engine.Machine: instruments with their order books, accounts keyed by
// signer address, proxy credentials, collateral, orders with the contract's
// statuses, fills with maker/taker fees and positions. Commands come in as
// JSON (see Command), events go out as one Event per command. Time comes only
// from the command's ts; nothing iterates a map where order matters.
//
// Margin here is only what order acceptance needs (initial margin at the
// account's leverage against collateral); funding, liquidation and the full
// risk engine are the next issue (see the RiskCheck hook).
package perps

import (
	"pmx/internal/exchange/book"
	"pmx/internal/exchange/fixed"
	"pmx/internal/perps/risk"
)

// Instrument is one perpetual market.
type Instrument struct {
	ID            uint32 `json:"id"`
	Symbol        string `json:"symbol"`
	Base          string `json:"base"`
	Category      string `json:"category"`
	PriceDecimals uint8  `json:"pd"`
	QtyDecimals   uint8  `json:"qd"`
	MaxLeverage   int64  `json:"max_lev"`
	MinNotional   int64  `json:"min_notional"` // micro
	IndexTicks    int64  `json:"index"`        // operator-pushed index price, ticks (0: none)
	LastTicks     int64  `json:"last"`
	OpenInterest  int64  `json:"oi"` // lots, sum of long sizes
	CloseOnly     bool   `json:"close_only"`
	// Retirement (retire.go): when close-only began, whether and at what
	// price the instrument settled, and the index pushes of the last day.
	CloseOnlyAt int64        `json:"co_at,omitempty"`
	Settled     bool         `json:"settled,omitempty"`
	SettlePrice int64        `json:"settle_px,omitempty"`
	IndexHist   []IndexPoint `json:"ihist,omitempty"`
	Created     int64        `json:"created"`
	Ticks       int64        `json:"ticks"` // book grid size: prices are 1..Ticks-1

	Trades   []Trade  `json:"trades"`  // newest last, bounded by maxTrades
	Candles  []Candle `json:"candles"` // 1-minute candles, oldest first, bounded
	Sequence uint64   `json:"seq"`     // book sequence for /book

	// Funding (funding.go): the current window's premium samples and the
	// settled rates, oldest first, bounded.
	Premium risk.PremiumWindow `json:"prem,omitzero"`
	Funding []FundingRate      `json:"funding,omitempty"`

	book *book.Book
}

func (in *Instrument) grid() fixed.Instrument {
	return fixed.Instrument{PriceDecimals: in.PriceDecimals, QtyDecimals: in.QtyDecimals}
}

// Trade is one public trade (taker side).
type Trade struct {
	ID    uint64 `json:"id"`
	Buy   bool   `json:"buy"`
	Ticks int64  `json:"p"`
	Lots  int64  `json:"q"`
	TS    int64  `json:"ts"`
}

// Candle is one 1-minute OHLCV bucket.
type Candle struct {
	Open   int64 `json:"t"`
	O      int64 `json:"o"`
	H      int64 `json:"h"`
	L      int64 `json:"l"`
	C      int64 `json:"c"`
	Volume int64 `json:"v"`
	Count  int64 `json:"n"`
}

// Proxy is a registered trading key. Only the secret's hash is kept.
type Proxy struct {
	Addr     string   `json:"addr"`
	Account  string   `json:"account"`
	Hash     [32]byte `json:"hash"`
	ExpiryMs int64    `json:"expiry"`
	Label    string   `json:"label,omitempty"`
	Deleted  bool     `json:"deleted,omitempty"`
}

// Active reports whether the proxy may act at nowMs.
func (p *Proxy) Active(nowMs int64) bool { return !p.Deleted && p.ExpiryMs > nowMs }

// Position is an account's exposure in one instrument. Cost is the sum of
// entry price × size in tick×lot units (always ≥ 0), so the entry price is
// Cost/|Size| exactly.
type Position struct {
	Size     int64 `json:"size"` // lots, signed
	Cost     int64 `json:"cost"`
	Realized int64 `json:"realized"` // micro
	// Isolated allocation (isolated.go): Iso once updateMargin gave the
	// position its own allocation Margin (micro, earmarked inside the
	// account's Balance); Liq is its isolated liquidation flag.
	Margin int64 `json:"margin,omitempty"`
	Iso    bool  `json:"iso,omitempty"`
	Liq    bool  `json:"liq,omitempty"`
}

// Account is keyed by the owner's (lower-case hex) address.
type Account struct {
	ID        uint64               `json:"id"` // book owner id
	Addr      string               `json:"addr"`
	Created   int64                `json:"created"`
	Balance   int64                `json:"balance"` // micro, includes realized pnl and fees
	Positions map[uint32]*Position `json:"positions"`
	Leverage  map[uint32]int64     `json:"leverage,omitempty"`
	Open      map[uint64]bool      `json:"open"`    // open order ids
	History   []uint64             `json:"history"` // terminal order ids, oldest first, bounded
	Fills     []Fill               `json:"fills"`   // oldest first, bounded
	Deposits  []Deposit            `json:"deposits"`
	Volume    []VolumeDay          `json:"volume"` // per UTC day, oldest first, last 8 days
	COIDs     map[string]uint64    `json:"coids"`  // coid -> open oid
	// Liquidating is set by KLiquidating (the margin issue's liquidation
	// engine); it shapes cancels of in-flight orders (inflight.go).
	Liquidating bool `json:"liq,omitempty"`
	// Cross holds the instruments set to cross margin (leverage.go); absent
	// means isolated, the default (perps.md §9.8).
	Cross map[uint32]bool `json:"cross,omitempty"`
	// Funding holds the account's funding charges, oldest first, bounded
	// (funding.go).
	Funding []FundingCharge `json:"funding,omitempty"`
	// Auto-cancel (autocancel.go): the armed deadline (ms, 0: none) and the
	// triggers of the UTC day ACDay.
	AutoCancel int64     `json:"ac,omitempty"`
	ACDay      int64     `json:"ac_day,omitempty"`
	ACCount    int64     `json:"ac_n,omitempty"`
	Hist       *History  `json:"hist,omitempty"` // equity and pnl samples (history.go)
	Ref        *Referral `json:"ref,omitempty"`  // invite code, parent, children (referral.go)
}

// VolumeDay is one UTC day's traded notional (micro).
type VolumeDay struct {
	Day   int64 `json:"day"`
	Maker int64 `json:"maker"`
	Taker int64 `json:"taker"`
}

// Deposit is an operator credit (stand-in for an on-chain deposit).
type Deposit struct {
	ID     uint64 `json:"id"`
	Amount int64  `json:"amount"`
	TS     int64  `json:"ts"`
	// On the simulated chain (deposit.go); zero for deposits made before
	// it, which count as confirmed.
	Req       int64  `json:"req,omitempty"`
	Conf      int64  `json:"conf,omitempty"`
	Hash      string `json:"hash,omitempty"`
	Confirmed int64  `json:"confirmed,omitempty"`
	Chain
}

// Order statuses (perps.md §9.4) used by this engine.
const (
	StOpen          = "open"
	StPartial       = "partial"
	StFilled        = "filled"
	StCancelled     = "cancelled"
	StPostOnly      = "post_only_rejected"
	StFOKUnfilled   = "fok_unfilled"
	StIOCNoFill     = "ioc_no_fill"
	StIOCExpired    = "ioc_expired"
	StSTP           = "stp_cancelled"
	StReduceInvalid = "reduce_only_invalid"
	StBelowMin      = "below_min_notional"
	StCloseOnly     = "instrument_close_only"
	// StInsufficientMargin: an order accepted (oid, ack ok) that failed its
	// deferred risk check (Flight.RiskMs > 0) ends with the check's identifier.
	StInsufficientMargin = "insufficient_margin"
	StAutoCancelled      = "auto_cancelled" // autocancel.go
)

// Order is one order; it stays in Orders after it terminates (history).
type Order struct {
	OID      uint64 `json:"oid"`
	IID      uint32 `json:"iid"`
	Account  string `json:"acct"`
	Buy      bool   `json:"buy"`
	Ticks    int64  `json:"p"` // 0 for market orders
	Lots     int64  `json:"q"` // total quantity
	Filled   int64  `json:"f"`
	TIF      string `json:"tif"`
	PostOnly bool   `json:"po"`
	Reduce   bool   `json:"ro"`
	COID     string `json:"coid,omitempty"`
	Status   string `json:"st"`
	Created  int64  `json:"cts"`
	Updated  int64  `json:"uts"`
	Modifies int    `json:"mods,omitempty"`
	Terminal bool   `json:"term,omitempty"`
	// In flight (inflight.go): Due > 0 until the order enters the book.
	Due        int64  `json:"due,omitempty"`
	Risk       bool   `json:"risk,omitempty"`  // awaiting risk checks
	Taker      bool   `json:"tdly,omitempty"`  // waiting out the taker delay
	Held       bool   `json:"held,omitempty"`  // a cancel is held for the accept
	HeldResult string `json:"hres,omitempty"`  // the held cancel's outcome
	ModPend    uint64 `json:"mpend,omitempty"` // id of the order's pending modify (pendmod.go), 0: none
	// TP/SL (tpsl.go): a leg's trigger, an entry's bracket legs, the leg
	// an order was entered for at trigger.
	TPSL *TPSL    `json:"tpsl,omitempty"`
	Legs []uint64 `json:"legs,omitempty"`
	Leg  uint64   `json:"leg,omitempty"`
}

// Fill is one side of one trade, as the account sees it.
type Fill struct {
	TID      uint64 `json:"tid"`
	OID      uint64 `json:"oid"`
	IID      uint32 `json:"iid"`
	Buy      bool   `json:"buy"`
	Ticks    int64  `json:"p"`
	Lots     int64  `json:"q"`
	Taker    bool   `json:"taker"`
	Fee      int64  `json:"fee"` // micro, positive = paid
	PrevSize int64  `json:"psz"`
	PrevCost int64  `json:"pcost"`
	PnL      int64  `json:"pnl"` // micro realized
	TS       int64  `json:"ts"`
	// Liquidation (liqexec.go): the fill's flags and the part of Fee that
	// went to the insurance fund (the rest is the venue's).
	Liq    bool  `json:"liq,omitempty"`
	ADL    bool  `json:"adl,omitempty"`
	ToFund int64 `json:"lf,omitempty"`
}
