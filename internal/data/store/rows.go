package store

import "pmx/internal/amount"

// NoOutcome is the outcome_index sentinel: the outcome could not be labeled.
const NoOutcome = 999

// Position is a /v2/positions row. Every field is always present.
type Position struct {
	ProxyWallet        string       `json:"proxy_wallet"`
	TokenID            string       `json:"token_id"`
	ConditionID        string       `json:"condition_id"`
	CurrentSize        amount.Micro `json:"current_size"`
	AvgPrice           amount.Micro `json:"avg_price"`
	EntryCostUSDC      amount.Micro `json:"entry_cost_usdc"` // fee-exclusive basis of the current holding
	EntryFeesUSDC      amount.Micro `json:"entry_fees_usdc"` // lifetime BUY fees (disclosure only)
	TotalCostUSDC      amount.Micro `json:"total_cost_usdc"` // entry_cost_usdc + entry_fees_usdc
	CurrentPrice       amount.Micro `json:"current_price"`
	CurrentValue       amount.Micro `json:"current_value"`
	TotalSize          amount.Micro `json:"total_size"` // lifetime acquired shares
	RealizedPnL        amount.Micro `json:"realized_pnl"`
	UnrealizedPnL      amount.Micro `json:"unrealized_pnl"`
	TotalPnL           amount.Micro `json:"total_pnl"`
	PercentPnL         amount.Micro `json:"percent_pnl"`
	PercentRealizedPnL amount.Micro `json:"percent_realized_pnl"`
	Status             string       `json:"status"` // OPEN, REDEEMABLE or CLOSED
	Redeemable         bool         `json:"redeemable"`
	Mergeable          bool         `json:"mergeable"`
	NegativeRisk       bool         `json:"negative_risk"`
	Archived           bool         `json:"archived"`
	Title              string       `json:"title"`
	Slug               string       `json:"slug"`
	Icon               string       `json:"icon"`
	EventID            string       `json:"event_id"`
	EventSlug          string       `json:"event_slug"`
	Outcome            string       `json:"outcome"`
	OutcomeIndex       int          `json:"outcome_index"`
	OppositeOutcome    string       `json:"opposite_outcome"`
	OppositeTokenID    string       `json:"opposite_token_id"`
	EndDate            string       `json:"end_date"` // YYYY-MM-DD, 1970-01-01 when unknown
	LastEventAt        int64        `json:"last_event_at"`
	FirstEntryAt       int64        `json:"first_entry_at"`
	Name               string       `json:"name"`
	ProfileImage       string       `json:"profile_image"`
	Verified           bool         `json:"verified"`
}

// ComboPosition is a /v2/positions/combos row.
type ComboPosition struct {
	ComboConditionID   string       `json:"combo_condition_id"`
	OutcomeIndex       int          `json:"outcome_index"`
	OutcomeLabel       string       `json:"outcome_label"`
	ComboPositionID    string       `json:"combo_position_id"`
	ProxyWallet        string       `json:"proxy_wallet"`
	CurrentSize        amount.Micro `json:"current_size"`
	EntryAvgPriceUSDC  amount.Micro `json:"entry_avg_price_usdc"`
	EntryCostUSDC      amount.Micro `json:"entry_cost_usdc"`
	GrossEntryCostUSDC amount.Micro `json:"gross_entry_cost_usdc"` // entry_cost_usdc + entry_fees_usdc
	EntryFeesUSDC      amount.Micro `json:"entry_fees_usdc"`
	RealizedPayoutUSDC amount.Micro `json:"realized_payout_usdc"`
	Status             string       `json:"status"` // OPEN, REDEEMABLE, RESOLVED_WIN, RESOLVED_LOSS, RESOLVED_PARTIAL
	Redeemable         bool         `json:"redeemable"`
	FirstEntryAt       string       `json:"first_entry_at"` // RFC 3339
	ResolvedAt         *string      `json:"resolved_at"`    // null while any leg is open
	LegsTotal          int          `json:"legs_total"`
	LegsResolved       int          `json:"legs_resolved"`
	LegsPending        int          `json:"legs_pending"`
	Legs               []ComboLeg   `json:"legs"`
	FirstEntryAtMicros *int64       `json:"first_entry_at_micros"`
	UpdatedAt          string       `json:"updated_at"` // RFC 3339
	UpdatedAtMicros    int64        `json:"updated_at_micros"`
}

// ComboLeg is one leg of a combo (§3.1).
type ComboLeg struct {
	LegIndex        int            `json:"leg_index"`
	LegPositionID   string         `json:"leg_position_id"`
	LegConditionID  string         `json:"leg_condition_id"`
	LegOutcomeIndex int            `json:"leg_outcome_index"`
	LegOutcomeLabel string         `json:"leg_outcome_label"`
	LegStatus       string         `json:"leg_status"` // OPEN, RESOLVED_WIN, RESOLVED_LOSS
	LegResolvedAt   *string        `json:"leg_resolved_at"`
	LegCurrentPrice amount.Micro   `json:"leg_current_price"`
	Market          ComboLegMarket `json:"market"`
}

// ComboLegMarket is the leg's market enrichment.
type ComboLegMarket struct {
	MarketID         string        `json:"market_id"`
	Slug             string        `json:"slug"`
	Title            string        `json:"title"`
	Question         string        `json:"question"`
	GroupItemTitle   string        `json:"group_item_title"`
	SportsMarketType string        `json:"sports_market_type"`
	Line             *amount.Micro `json:"line"`
	Outcomes         []string      `json:"outcomes"`
	Outcome          string        `json:"outcome"`
	ImageURL         string        `json:"image_url"`
	IconURL          string        `json:"icon_url"`
	Category         string        `json:"category"`
	Subcategory      string        `json:"subcategory"`
	Tags             []string      `json:"tags"`
	EndDate          string        `json:"end_date"`
	Event            ComboLegEvent `json:"event"`
}

// ComboLegEvent is the leg market's event.
type ComboLegEvent struct {
	EventID    string `json:"event_id"`
	EventSlug  string `json:"event_slug"`
	EventTitle string `json:"event_title"`
	EventImage string `json:"event_image"`
}

// Value is the /v2/value object.
type Value struct {
	ProxyWallet string       `json:"proxy_wallet"`
	Value       amount.Micro `json:"value"` // rounded to 4 decimals
}

// UserPnLSeries is the /v2/user-pnl object.
type UserPnLSeries struct {
	ProxyWallet    string         `json:"proxy_wallet"`
	Interval       string         `json:"interval"`
	Fidelity       string         `json:"fidelity"`
	SourceFidelity string         `json:"source_fidelity"`
	Points         []UserPnLPoint `json:"points"`
}

// UserPnLPoint is one cumulative observation (§3.2). Pointer fields are null
// when the source does not cover them.
type UserPnLPoint struct {
	Timestamp         int64         `json:"timestamp"`
	SourceBlock       int64         `json:"source_block"`
	RealizedMarketPnL amount.Micro  `json:"realized_market_pnl"`
	RealizedLPPnL     amount.Micro  `json:"realized_lp_pnl"`
	RealizedComboPnL  amount.Micro  `json:"realized_combo_pnl"`
	UnrealizedPnL     *amount.Micro `json:"unrealized_pnl"`
	FeesRefunded      *amount.Micro `json:"fees_refunded"`
	MakerRebate       *amount.Micro `json:"maker_rebate"`
	TakerRebate       *amount.Micro `json:"taker_rebate"`
	RewardIncome      *amount.Micro `json:"reward_income"`
	YieldIncome       *amount.Micro `json:"yield_income"`
	ReferralIncome    *amount.Micro `json:"referral_income"`
	Deposits          *amount.Micro `json:"deposits"`
	Withdrawals       *amount.Micro `json:"withdrawals"`
	RealizedPnL       amount.Micro  `json:"realized_pnl"`
	WalletIncome      *amount.Micro `json:"wallet_income"`
	PositionPnL       *amount.Micro `json:"position_pnl"`
	SettledPnL        *amount.Micro `json:"settled_pnl"`
	EconomicPnL       *amount.Micro `json:"economic_pnl"`
	TradePnL          *amount.Micro `json:"trade_pnl"`
	SponsoredIncome   *amount.Micro `json:"sponsored_income"`
	Fees              *amount.Micro `json:"fees"`
	FeesPaid          *amount.Micro `json:"fees_paid"`
	CashflowNet       *amount.Micro `json:"cashflow_net"`
	Volume            amount.Micro  `json:"volume"`
	VolumeUSDC        amount.Micro  `json:"volume_usdc"`
	TradeCount        int64         `json:"trade_count"`
}

// UserStats is the /v2/user-stats object.
type UserStats struct {
	ProxyWallet string        `json:"proxy_wallet"`
	Trades      int64         `json:"trades"` // distinct markets traded
	BiggestWin  amount.Micro  `json:"biggest_win"`
	Views       int64         `json:"views"`
	JoinDate    *int64        `json:"join_date"`
	AllTimePnL  *UserPnLPoint `json:"all_time_pnl"`
}

// UserVolume is the /v2/user-volume object.
type UserVolume struct {
	Volume     amount.Micro `json:"volume"` // shares, both sides
	VolumeUSDC amount.Micro `json:"volume_usdc"`
	TradeCount int64        `json:"trade_count"`
}

// Trade is a /v2/trades row: one fill seen from one wallet.
type Trade struct {
	ProxyWallet           string       `json:"proxy_wallet"`
	Side                  string       `json:"side"` // BUY or SELL from this wallet's perspective
	TokenID               string       `json:"token_id"`
	ConditionID           string       `json:"condition_id"`
	Size                  amount.Micro `json:"size"`
	Price                 amount.Micro `json:"price"`
	Timestamp             int64        `json:"timestamp"`
	Title                 string       `json:"title"`
	Slug                  string       `json:"slug"`
	Icon                  string       `json:"icon"`
	EventSlug             string       `json:"event_slug"`
	Outcome               string       `json:"outcome"`
	OutcomeIndex          int          `json:"outcome_index"`
	Name                  string       `json:"name"`
	Pseudonym             string       `json:"pseudonym"`
	Bio                   string       `json:"bio"`
	ProfileImage          string       `json:"profile_image"`
	ProfileImageOptimized string       `json:"profile_image_optimized"`
	TransactionHash       string       `json:"transaction_hash"`
}

// Activity is a /v2/activity row.
type Activity struct {
	ProxyWallet           string       `json:"proxy_wallet"`
	Timestamp             int64        `json:"timestamp"`
	ConditionID           string       `json:"condition_id"` // "" when not applicable
	Type                  string       `json:"type"`
	Size                  amount.Micro `json:"size"`
	USDCSize              amount.Micro `json:"usdc_size"`
	TransactionHash       string       `json:"transaction_hash"`
	Price                 amount.Micro `json:"price"`
	TokenID               string       `json:"token_id"`
	Side                  string       `json:"side"` // BUY/SELL on trades, IN/OUT on tips, "" otherwise
	OutcomeIndex          int          `json:"outcome_index"`
	Title                 string       `json:"title"`
	Slug                  string       `json:"slug"`
	Icon                  string       `json:"icon"`
	EventSlug             string       `json:"event_slug"`
	Outcome               string       `json:"outcome"`
	Name                  string       `json:"name"`
	Pseudonym             string       `json:"pseudonym"`
	Bio                   string       `json:"bio"`
	ProfileImage          string       `json:"profile_image"`
	ProfileImageOptimized string       `json:"profile_image_optimized"`
	// BlockTimestamp and SequenceID are the contract's names for the row's
	// time (= Timestamp, kept for production's clients) and its keyset
	// ordering pair's tie-breaker (store.SequenceID).
	BlockTimestamp int64 `json:"block_timestamp"`
	SequenceID     int64 `json:"sequence_id"`
	IsCombo        bool  `json:"is_combo,omitempty"` // only on combo trade rows
}

// ComboActivity is a /v2/activity/combos row.
type ComboActivity struct {
	ID               string        `json:"id"` // <tx_hash>-<log_index>
	Type             string        `json:"type"`
	ProxyWallet      string        `json:"proxy_wallet"`
	ComboConditionID string        `json:"combo_condition_id"`
	ComboPositionID  string        `json:"combo_position_id"`
	AmountUSDC       *amount.Micro `json:"amount_usdc"`
	PayoutUSDC       *amount.Micro `json:"payout_usdc"`
	BlockNumber      int64         `json:"block_number"`
	Timestamp        int64         `json:"timestamp"`
	TransactionHash  string        `json:"transaction_hash"`
	Legs             []ComboLeg    `json:"legs"`
}
