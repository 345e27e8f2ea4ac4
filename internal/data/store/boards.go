package store

import (
	"context"

	"pmx/internal/amount"
)

// Boards serves the ranked boards (/v2/leaderboard, /v2/biggest-winners,
// /v2/builders/leaderboard, /v2/builders/volume). A board is computed whole
// for its window and served by offset: the handler's cursor carries the
// offset, so a walk across a data refresh can skip or repeat rows.
type Boards interface {
	// Leaderboard serves the board arm of /v2/leaderboard.
	Leaderboard(ctx context.Context, p LeaderboardParams) (OffsetPage[LeaderboardEntry], error)
	// LeaderboardUser serves the user arm; nil when the wallet never
	// appeared in any event.
	LeaderboardUser(ctx context.Context, p LeaderboardParams, user string) (*LeaderboardUserEntry, error)
	// BiggestWinners serves /v2/biggest-winners.
	BiggestWinners(ctx context.Context, p BiggestWinnersParams) (OffsetPage[BiggestWinner], error)
	// BuildersLeaderboard serves /v2/builders/leaderboard.
	BuildersLeaderboard(ctx context.Context, p BuildersLeaderboardParams) (OffsetPage[BuilderStanding], error)
	// BuildersVolume serves /v2/builders/volume (not paged).
	BuildersVolume(ctx context.Context, p BuildersVolumeParams) ([]BuilderVolumePoint, error)
}

// Board windows (time_period) and builders-volume intervals.
const (
	PeriodDay   = "day"
	PeriodWeek  = "week"
	PeriodMonth = "month"
	PeriodAll   = "all"
)

// Board sorts and the synthetic categories.
const (
	BoardSortPnL      = "PNL"
	BoardSortVolume   = "VOLUME"
	CategoryOverall   = "overall"
	CategoryCombos    = "combos"
	MaxBiggestWinners = 500 // each (window, category) list is a top-500
)

// WindowStart is the first second of a board window at now: the UTC day
// start of today (day), of 6 days before (week), of 29 days before (month);
// 0 for all. Windows are whole UTC days, so a board is stable within a day
// until data changes, and a wallet's window volume equals
// /v2/user-volume?start=WindowStart.
func WindowStart(period string, now int64) int64 {
	d := DayFloor(now)
	switch period {
	case PeriodWeek:
		return d - 6*day
	case PeriodMonth:
		return d - 29*day
	case PeriodAll:
		return 0
	}
	return d
}

// OffsetPage is one page of an offset walk: Rows from Offset, HasMore exact.
type OffsetPage[R any] struct {
	Rows    []R
	HasMore bool
}

// LeaderboardParams selects /v2/leaderboard.
type LeaderboardParams struct {
	Period   string // day (default), week, month, all
	SortBy   string // PNL (default) or VOLUME
	Category string // overall (default), a market category, combos
	Now      int64
	Offset   int
	Limit    int
}

// BiggestWinnersParams selects /v2/biggest-winners.
type BiggestWinnersParams struct {
	Period   string
	Category string // overall (default), a market category, combos
	Now      int64
	Offset   int
	Limit    int
}

// BuildersLeaderboardParams selects /v2/builders/leaderboard.
type BuildersLeaderboardParams struct {
	Period string
	Now    int64
	Offset int
	Limit  int
}

// BuildersVolumeParams selects /v2/builders/volume: the Buckets most recent
// calendar buckets of Interval width (all = calendar years) up to now's.
type BuildersVolumeParams struct {
	Interval string
	Buckets  int
	Now      int64
}

// LeaderboardEntry is a board row of /v2/leaderboard.
type LeaderboardEntry struct {
	Rank         int32        `json:"rank"`
	UserID       string       `json:"user_id"`
	PnL          amount.Micro `json:"pnl"`
	Volume       amount.Micro `json:"volume"` // both-sides shares
	UserName     string       `json:"user_name"`
	ProfileImage string       `json:"profile_image"`
	XUsername    string       `json:"x_username"`
	Verified     bool         `json:"verified"`
}

// LeaderboardUserEntry is the user arm's object; a nil rank is unranked.
type LeaderboardUserEntry struct {
	UserID       string       `json:"user_id"`
	PnL          amount.Micro `json:"pnl"`
	Volume       amount.Micro `json:"volume"`
	RankPnL      *int32       `json:"rank_pnl"`
	RankVolume   *int32       `json:"rank_volume"`
	UserName     string       `json:"user_name"`
	ProfileImage string       `json:"profile_image"`
	XUsername    string       `json:"x_username"`
	Verified     bool         `json:"verified"`
}

// BiggestWinner is one winning position.
type BiggestWinner struct {
	WinRank      int32        `json:"win_rank"`
	Kind         string       `json:"kind"` // market or combo
	UserID       string       `json:"user_id"`
	PnL          amount.Micro `json:"pnl"`           // = FinalValue − InitialValue
	InitialValue amount.Micro `json:"initial_value"` // cost basis
	FinalValue   amount.Micro `json:"final_value"`   // value at resolution
	ResolvedAt   int64        `json:"resolved_at"`
	ConditionID  string       `json:"condition_id"`
	PositionID   string       `json:"position_id"`
	EventID      int64        `json:"event_id"`   // 0 on combo rows
	EventSlug    string       `json:"event_slug"` // "" on combo rows
	EventTitle   string       `json:"event_title"`
	Title        string       `json:"title"` // the contract's name; = EventTitle
	UserName     string       `json:"user_name"`
	ProfileImage string       `json:"profile_image"`
}

// BuilderStanding is a /v2/builders/leaderboard row.
type BuilderStanding struct {
	Rank         int64        `json:"rank"`
	Builder      string       `json:"builder"`      // the contract's name; = BuilderName
	BuilderName  string       `json:"builder_name"` // falls back to BuilderCode
	BuilderCode  string       `json:"builder_code"`
	ProfileImage string       `json:"profile_image"`
	Verified     bool         `json:"verified"`
	Volume       amount.Micro `json:"volume"`       // shares
	ActiveUsers  int64        `json:"active_users"` // distinct makers in the window
}

// BuilderVolumePoint is a /v2/builders/volume row.
type BuilderVolumePoint struct {
	Date         string       `json:"date"`    // YYYY-MM-DD, UTC bucket start
	Rank         int64        `json:"rank"`    // within the bucket
	Builder      string       `json:"builder"` // = BuilderName
	BuilderName  string       `json:"builder_name"`
	BuilderCode  string       `json:"builder_code"`
	ProfileImage string       `json:"profile_image"`
	Verified     bool         `json:"verified"`
	Volume       amount.Micro `json:"volume"`
	ActiveUsers  int64        `json:"active_users"`
}
