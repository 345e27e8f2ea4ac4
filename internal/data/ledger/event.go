// Package ledger defines the ledger events: the one way data enters the data
// store. A ledger is newline-delimited JSON, one Event per line, each with a
// kind. docs/ledger-events.md documents every kind and field.
package ledger

import "pmx/internal/amount"

// Kind names an event type.
type Kind string

// The event kinds.
const (
	KindMarket         Kind = "market"          // a binary or neg-risk market and its event
	KindTrade          Kind = "trade"           // one fill between a maker and a taker
	KindSplit          Kind = "split"           // USDC -> one of each outcome token
	KindMerge          Kind = "merge"           // one of each outcome token -> USDC
	KindRedeem         Kind = "redeem"          // resolved tokens -> USDC at the payouts
	KindConversion     Kind = "conversion"      // neg-risk NO basket -> YES tokens + USDC
	KindMigration      Kind = "migration"       // collateral migration (amount only)
	KindReward         Kind = "reward"          // liquidity reward
	KindYield          Kind = "yield"           // holding yield
	KindMakerRebate    Kind = "maker_rebate"    // maker fee rebate
	KindTakerRebate    Kind = "taker_rebate"    // taker fee rebate
	KindReferralReward Kind = "referral_reward" // referral payout
	KindDeposit        Kind = "deposit"         // collateral in
	KindWithdrawal     Kind = "withdrawal"      // collateral out
	KindTip            Kind = "tip"             // user-to-user transfer, not a trade leg
	KindResolution     Kind = "resolution"      // a market's payouts
	KindProfile        Kind = "profile"         // a wallet's public profile
	KindBuilder        Kind = "builder"         // a builder code's display name
	KindComboMarket    Kind = "combo_market"    // a combinatorial condition over legs
	KindComboTrade     Kind = "combo_trade"     // buy or sell of a combo outcome position
	KindComboActivity  Kind = "combo_activity"  // combo lifecycle: SPLIT, MERGE, CONVERT, COMPRESS, WRAP, UNWRAP, REDEEM
)

// Event is one ledger line. Fields are a union over kinds; which are required
// for each kind is checked by Validate. Addresses and hashes are lower-cased on
// parse. Amounts are exact 6-decimal fixed point.
type Event struct {
	Kind Kind `json:"kind"`

	// Chain envelope: every on-chain kind (all but market, resolution,
	// profile, builder, combo_market).
	TxHash      string `json:"tx_hash,omitempty"`
	LogIndex    int64  `json:"log_index,omitempty"`
	BlockNumber int64  `json:"block_number,omitempty"`
	Timestamp   int64  `json:"timestamp,omitempty"` // epoch seconds

	// market
	ConditionID string   `json:"condition_id,omitempty"` // 0x + 64 hex
	Question    string   `json:"question,omitempty"`
	Slug        string   `json:"slug,omitempty"`
	EventID     int64    `json:"event_id,omitempty"`
	EventSlug   string   `json:"event_slug,omitempty"`
	EventTitle  string   `json:"event_title,omitempty"`
	Category    string   `json:"category,omitempty"`
	Outcomes    []string `json:"outcomes,omitempty"`  // labels, same order as TokenIDs
	TokenIDs    []string `json:"token_ids,omitempty"` // decimal strings
	NegRisk     bool     `json:"neg_risk,omitempty"`
	EndDate     string   `json:"end_date,omitempty"` // RFC 3339
	Icon        string   `json:"icon,omitempty"`
	Active      *bool    `json:"active,omitempty"`
	Closed      *bool    `json:"closed,omitempty"`
	Archived    *bool    `json:"archived,omitempty"`
	// market (optional): catalog market id (defaults to a stable id derived by the store).
	MarketID int64 `json:"market_id,omitempty"`

	// trade
	TokenID     string       `json:"token_id,omitempty"`
	Maker       string       `json:"maker,omitempty"`
	Taker       string       `json:"taker,omitempty"`
	Side        string       `json:"side,omitempty"` // the taker's side: BUY or SELL
	Price       amount.Micro `json:"price,omitempty"`
	Size        amount.Micro `json:"size,omitempty"` // shares
	FeeUSDC     amount.Micro `json:"fee_usdc,omitempty"`
	BuilderCode string       `json:"builder_code,omitempty"`

	// split, merge, redeem, conversion, amount-only kinds
	User       string       `json:"user,omitempty"`
	Amount     amount.Micro `json:"amount,omitempty"`      // shares (split, merge, conversion)
	AmountUSDC amount.Micro `json:"amount_usdc,omitempty"` // USDC (amount-only kinds, tip, conversion cash)
	// conversion: the neg-risk NO outcomes converted (indices into the group's
	// markets, by condition id) are given by ConditionIDs.
	ConditionIDs []string `json:"condition_ids,omitempty"`

	// tip
	From string `json:"from,omitempty"`
	To   string `json:"to,omitempty"`

	// resolution
	Payouts    []amount.Micro `json:"payouts,omitempty"`     // per outcome, summing to 1
	ResolvedAt int64          `json:"resolved_at,omitempty"` // epoch seconds

	// profile
	Address      string `json:"address,omitempty"`
	Name         string `json:"name,omitempty"`
	Pseudonym    string `json:"pseudonym,omitempty"`
	Bio          string `json:"bio,omitempty"`
	ProfileImage string `json:"profile_image,omitempty"`
	Verified     bool   `json:"verified,omitempty"`
	JoinedAt     int64  `json:"joined_at,omitempty"` // epoch seconds
	Views        int64  `json:"views,omitempty"`

	// builder: Code + Name.
	Code string `json:"code,omitempty"`

	// combo_market: a combinatorial condition. Outcomes/TokenIDs as for market
	// (position ids), Legs the conditions it spans.
	ComboConditionID string     `json:"combo_condition_id,omitempty"` // 0x03 + 62 hex
	Legs             []ComboLeg `json:"legs,omitempty"`

	// combo_trade: User, ComboConditionID, OutcomeIndex, Side (the user's),
	// Price, Size, FeeUSDC.
	// combo_activity: User, ComboConditionID, OutcomeIndex, Type, Size
	// (shares moved), AmountUSDC (cash leg, optional), PayoutUSDC (REDEEM).
	OutcomeIndex int          `json:"outcome_index,omitempty"`
	Type         string       `json:"type,omitempty"`
	PayoutUSDC   amount.Micro `json:"payout_usdc,omitempty"`
}

// ComboLeg is one leg of a combo: an outcome of an ordinary market.
type ComboLeg struct {
	ConditionID  string `json:"condition_id"`
	OutcomeIndex int    `json:"outcome_index"`
}

// Onchain reports whether the kind carries the chain envelope.
func (k Kind) Onchain() bool {
	switch k {
	case KindMarket, KindResolution, KindProfile, KindBuilder, KindComboMarket:
		return false
	}
	return true
}
