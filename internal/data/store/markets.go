package store

import (
	"context"

	"pmx/internal/amount"
)

// Markets is the market and service side of the store: holders, open
// interest, live volume, price ticks, resolutions, token lookup and the v1
// accounting snapshot. Every method reads the published state; none reads the
// wall clock.
type Markets interface {
	// Holders serves /v2/holders: per outcome token of each known market in
	// p.Conditions (request order, then outcome order), the holders ranked by
	// amount descending (wallet ascending on ties), rows [Offset, Offset+Limit)
	// of each token. HasMore is true when any token has rows past the window.
	Holders(ctx context.Context, p HoldersParams) (groups []HolderGroup, hasMore bool, err error)
	// OpenInterest serves /v2/oi: nil conditions → the one GLOBAL row; else a
	// row per servable (known, active, not archived) market in request order.
	OpenInterest(ctx context.Context, conditions []string) ([]OpenInterest, error)
	// LiveVolume serves /v2/live-volume for the markets of the given events.
	LiveVolume(ctx context.Context, eventIDs []int64) (LiveVolume, error)
	// PriceTicks serves /v2/prices-history: the price observations of one
	// token (its own fills, and in a two-outcome market its complement's at
	// 1 − p, the mark rule) with From ≤ ts < To, oldest first. The ticks
	// are shared and read-only.
	PriceTicks(ctx context.Context, p PriceTicksParams) (PriceTicks, error)
	// Resolutions serves /v2/resolutions for condition ids (request order)
	// or, with conditions nil, the markets of eventIDs.
	Resolutions(ctx context.Context, conditions []string, eventIDs []int64) ([]MarketResolution, error)
	// Tokens serves /v2/tokens: by token id (request order, unknown ids
	// absent) or, with tokenIDs nil, by condition (grouped per selector).
	Tokens(ctx context.Context, tokenIDs, conditions []string) ([]TokenInfo, error)
	// AccountingSnapshot serves /v1/accounting/snapshot: every position the
	// wallet ever held and its daily equity observations. found is false for a
	// wallet never seen.
	AccountingSnapshot(ctx context.Context, user string) (snap AccountingSnapshot, found bool, err error)
}

// HoldersParams selects /v2/holders rows.
type HoldersParams struct {
	Conditions []string
	// Gross (include_pnl): per-side balances with economics. Otherwise each
	// holder's amount is netted across the market's outcomes: size − the
	// complete sets it holds (min over outcomes).
	Gross      bool
	MinBalance amount.Micro // amount ≥ MinBalance (after netting)
	Limit      int          // per token, ≥ 1
	Offset     int          // per token
}

// HolderGroup is one outcome token's page of holders.
type HolderGroup struct {
	TokenID string   `json:"token_id"`
	Holders []Holder `json:"holders"`
}

// Holder is a /v2/holders row. Economics is present only with include_pnl.
type Holder struct {
	ProxyWallet           string       `json:"proxy_wallet"`
	Bio                   string       `json:"bio"`
	TokenID               string       `json:"token_id"`
	Pseudonym             string       `json:"pseudonym"`
	Amount                amount.Micro `json:"amount"`
	DisplayUsernamePublic bool         `json:"display_username_public"`
	OutcomeIndex          int          `json:"outcome_index"`
	Name                  string       `json:"name"`
	ProfileImage          string       `json:"profile_image"`
	ProfileImageOptimized string       `json:"profile_image_optimized"`
	Verified              bool         `json:"verified"`
	*HolderEconomics
}

// HolderEconomics are a holder's /v2/positions figures for the token.
type HolderEconomics struct {
	AvgPrice      amount.Micro `json:"avg_price"`
	EntryCostUSDC amount.Micro `json:"entry_cost_usdc"` // fee-exclusive
	CurrentPrice  amount.Micro `json:"current_price"`
	CurrentValue  amount.Micro `json:"current_value"` // amount × current_price
	RealizedPnL   amount.Micro `json:"realized_pnl"`
	UnrealizedPnL amount.Micro `json:"unrealized_pnl"` // current_value − entry_cost_usdc
	TotalPnL      amount.Micro `json:"total_pnl"`
}

// OpenInterest is a /v2/oi row: Σ over outcomes of outstanding shares × the
// outcome's mark, in USDC.
type OpenInterest struct {
	ConditionID string       `json:"condition_id"` // "GLOBAL" for the global figure
	Value       amount.Micro `json:"value"`
}

// LiveVolume is the /v2/live-volume object.
type LiveVolume struct {
	TakerVolumeTotal amount.Micro      `json:"taker_volume_total"`
	Conditions       []ConditionVolume `json:"conditions"`
}

// ConditionVolume is one market's cumulative taker-side volume in shares.
type ConditionVolume struct {
	ConditionID string       `json:"condition_id"`
	TakerVolume amount.Micro `json:"taker_volume"`
}

// PriceTicksParams selects a token's ticks. Last asks only for the newest
// tick with ts < To (as_of).
type PriceTicksParams struct {
	TokenID  string
	From, To int64
	Last     bool
}

// PriceTicks are a token's observations plus its settlement; a token of no
// known market has none (an empty page, docs/markets.md).
type PriceTicks struct {
	Ticks      []Tick
	Resolved   bool
	Payout     amount.Micro // the token's payout once resolved
	ResolvedAt int64
}

// Tick is one fill seen as this token's price.
type Tick struct {
	Timestamp int64
	Seq       int64
	Price     amount.Micro
}

// MarketResolution is a market's resolution state (condition grain).
type MarketResolution struct {
	ConditionID   string
	Resolved      bool
	Payouts       []amount.Micro
	ResolvedAt    int64
	ResolvedBlock int64 // highest block at or before ResolvedAt (0 = unknown)
	EndDate       string
	LastTradeAt   int64
}

// TokenInfo is a /v2/tokens row; nullable fields are pointers.
type TokenInfo struct {
	TokenID               string        `json:"token_id"`
	ConditionID           string        `json:"condition_id"`
	StructuralConditionID *string       `json:"structural_condition_id"`
	Module                string        `json:"module"`
	OutcomeIndex          int           `json:"outcome_index"`
	ClobIndex             *int          `json:"clob_index"`
	Outcome               *string       `json:"outcome"`
	OppositeTokenID       *string       `json:"opposite_token_id"`
	Resolved              bool          `json:"resolved"`
	FinalPrice            *amount.Micro `json:"final_price"`
	Title                 *string       `json:"title"`
	MarketSlug            *string       `json:"market_slug"`
	Closed                *bool         `json:"closed"`
	NegRisk               *bool         `json:"neg_risk"`
	NegRiskMarketID       *string       `json:"neg_risk_market_id"`
	QuestionIndex         *int          `json:"question_index"`
	EventID               *int64        `json:"event_id"`
	EventSlug             *string       `json:"event_slug"`
}

// AccountingSnapshot is a wallet's positions (every status) and its daily
// equity observations, oldest first.
type AccountingSnapshot struct {
	Positions []Position
	Equity    []EquityPoint
}

// EquityPoint is the wallet's cumulative state at the end of a UTC day with
// activity (the user-pnl observations).
type EquityPoint struct {
	Day           int64 // UTC midnight, epoch s
	Timestamp     int64 // last event time of the day
	Block         int64
	Deposits      amount.Micro
	Withdrawals   amount.Micro
	RealizedPnL   amount.Micro // market + combo
	UnrealizedPnL amount.Micro
	Income        amount.Micro // rebates, rewards, yield, referrals
	Fees          amount.Micro // charged, positive
	Volume        amount.Micro
	VolumeUSDC    amount.Micro
	TradeCount    int64
}
