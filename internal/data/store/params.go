package store

import "pmx/internal/amount"

// Parameter structs hold values the handler has already validated (known
// enums, well-formed lower-case ids, limits in range, at most 20 distinct
// conditions or event ids). Zero values mean "the route's default", so a
// handler only sets what the request named. Limit must be ≥ 1 (the handler
// serves limit=0 itself, as an empty page, if it accepts it).

// Position statuses accepted by /v2/positions.
const (
	StatusOpen           = "OPEN"
	StatusRedeemable     = "REDEEMABLE"
	StatusRedeemableLost = "REDEEMABLE_LOST"
	StatusMergeable      = "MERGEABLE"
	StatusClosed         = "CLOSED"
)

// Position sorts.
const (
	SortCurrentValue  = "CURRENT_VALUE"
	SortPrice         = "PRICE"
	SortTokens        = "TOKENS"
	SortUnrealizedPnL = "UNREALIZED_PNL"
	SortRealizedPnL   = "REALIZED_PNL"
	SortTotalPnL      = "TOTAL_PNL"
	SortTimestamp     = "TIMESTAMP"
)

// Filter types for filter_type.
const (
	FilterTokens = "TOKENS"
	FilterCash   = "CASH"
)

// DustShares is the positions dust floor (0.1 share): an OPEN row holds at
// least this much; a user's CLOSED rows hold less.
const DustShares amount.Micro = 100_000

// DefaultTradeFilter is the trades filter_amount default (0.01).
const DefaultTradeFilter amount.Micro = 10_000

// DefaultPositionSort is the sort used when sort_by is absent.
func DefaultPositionSort(status string) string {
	switch status {
	case StatusMergeable:
		return SortTokens
	case StatusClosed:
		return SortRealizedPnL
	}
	return SortCurrentValue
}

// PositionsParams selects /v2/positions rows. Anchor: User, or (no User)
// exactly one condition in Conditions.
type PositionsParams struct {
	User            string
	Conditions      []string // with User: narrowing; without: the single market anchor
	EventIDs        []int64  // user anchor only
	Status          string   // "" = OPEN
	SortBy          string   // "" = DefaultPositionSort(Status)
	Ascending       bool     // false = DESC
	Title           string   // case-insensitive LIKE substring ("%"/"_" honoured); "" = none
	FilterType      string   // "" = TOKENS
	FilterAmount    amount.Micro
	IncludeArchived bool
	Start, End      int64 // inclusive bounds on last_event_at; 0 = unbounded
	Limit           int
	After           *PositionKey
}

// ComboPositionsParams selects /v2/positions/combos rows.
type ComboPositionsParams struct {
	User          string
	Conditions    []string // combo condition ids
	Statuses      []string // "" set = held-visibility listing (current_size > 0 or redeemable)
	SortBy        string   // FIRST_ENTRY, ENTRY_COST, CURRENT_VALUE (= ENTRY_COST), UPDATED; "" = FIRST_ENTRY (ENTRY_COST with REDEEMABLE)
	Ascending     bool
	UpdatedAfter  int64 // inclusive epoch s; 0 = unbounded
	UpdatedBefore int64 // inclusive epoch s; 0 = unbounded
	Limit         int
	After         *ComboPositionKey
}

// ValueParams selects /v2/value.
type ValueParams struct {
	User       string
	Conditions []string // any condition drops the combo term
}

// UserPnLParams selects /v2/user-pnl.
type UserPnLParams struct {
	User     string
	Interval string // max, all, 1m, 1w, 1d (default), 12h, 6h
	Fidelity string // 1d, 18h, 12h, 3h, 1h (default)
	Now      int64  // epoch s
}

// UserVolumeParams selects /v2/user-volume. Bounds are raw (0 = unbounded);
// the store floors both to their UTC day.
type UserVolumeParams struct {
	User       string
	Start, End int64
}

// TradesParams selects /v2/trades. The shape follows the anchors: User set →
// wallet feed over Window (resolved by the handler with the feeds' start/end
// rule; 0 on a side = unbounded); else Conditions or EventIDs → market feed
// over MarketFeedWindow(Now); else the global feed over GlobalFeedWindow(Now).
// Both given (no user): markets in both.
type TradesParams struct {
	User         string
	Conditions   []string
	EventIDs     []int64
	IncludeMaker bool   // taker_only=false: maker rows too
	FilterType   string // "" = TOKENS
	FilterAmount amount.Micro
	Side         string // "", BUY or SELL
	Window       Window // user shape only
	Now          int64  // epoch s; the market and global shapes' windows
	Limit        int
	After        *FeedKey
}

// Activity types.
const (
	ActTrade          = "TRADE"
	ActSplit          = "SPLIT"
	ActMerge          = "MERGE"
	ActRedeem         = "REDEEM"
	ActConversion     = "CONVERSION"
	ActMigration      = "MIGRATION"
	ActReward         = "REWARD"
	ActYield          = "YIELD"
	ActMakerRebate    = "MAKER_REBATE"
	ActTakerRebate    = "TAKER_REBATE"
	ActReferralReward = "REFERRAL_REWARD"
	ActDeposit        = "DEPOSIT"
	ActWithdrawal     = "WITHDRAWAL"
	ActTip            = "TIP"
)

// ActivityTypes lists every activity type in a fixed order.
var ActivityTypes = []string{ActTrade, ActSplit, ActMerge, ActRedeem, ActConversion, ActMigration,
	ActReward, ActYield, ActMakerRebate, ActTakerRebate, ActReferralReward, ActDeposit, ActWithdrawal, ActTip}

// ActivityParams selects /v2/activity.
type ActivityParams struct {
	User                       string
	Types                      []string // empty = every type but TIP
	IncludeDepositsWithdrawals bool     // exclude_deposits_withdrawals=false
	Conditions                 []string
	EventIDs                   []int64
	Side                       string // "", BUY or SELL
	Window                     Window // resolved start/end on the block timestamp; 0 on a side = unbounded
	Ascending                  bool
	Limit                      int
	After                      *FeedKey
}

// ComboActivityParams selects /v2/activity/combos.
type ComboActivityParams struct {
	User       string
	Conditions []string // combo condition ids
	Limit      int
	After      *ComboActivityKey
}
