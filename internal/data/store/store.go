// Package store is the data service's domain: the wire rows of the v2 routes,
// the already-validated query parameters, and the Store interface the HTTP
// handlers call. Implementations (internal/data/sqlite today, PostgreSQL later)
// derive everything from ledger events applied through Apply.
//
// Conventions shared by every implementation:
//   - addresses, hashes and condition ids are lower-case;
//   - money, shares and prices are amount.Micro (exact millionths);
//   - "now" is always a parameter: no query reads the wall clock;
//   - paged queries fetch limit+1 rows and report HasMore exactly, with Next
//     set to the seek key of the last returned row when HasMore is true.
package store

import (
	"context"
	"errors"

	"pmx/internal/data/ledger"
)

// Store is what the data-service handlers use. Every method is safe for
// concurrent use; Apply calls are serialized by the implementation.
type Store interface {
	Boards  // the ranked boards (boards.go)
	Markets // market and service routes (markets.go)

	// Apply derives everything from events in one transaction: either all of
	// them are applied or none is. applied counts the events that changed the
	// store (an exact replay of an already-applied on-chain event is skipped).
	Apply(ctx context.Context, events []ledger.Event) (applied int, err error)

	// Positions serves /v2/positions.
	Positions(ctx context.Context, p PositionsParams) (Page[Position, PositionKey], error)
	// ComboPositions serves /v2/positions/combos.
	ComboPositions(ctx context.Context, p ComboPositionsParams) (Page[ComboPosition, ComboPositionKey], error)
	// Value serves /v2/value (never nil: a wallet with nothing is worth 0).
	Value(ctx context.Context, p ValueParams) (Value, error)
	// UserPnL serves /v2/user-pnl.
	UserPnL(ctx context.Context, p UserPnLParams) (UserPnLSeries, error)
	// UserStats serves /v2/user-stats; nil when the wallet never appeared in
	// any event.
	UserStats(ctx context.Context, user string) (*UserStats, error)
	// UserVolume serves /v2/user-volume.
	UserVolume(ctx context.Context, p UserVolumeParams) (UserVolume, error)
	// Trades serves /v2/trades.
	Trades(ctx context.Context, p TradesParams) (Page[Trade, FeedKey], error)
	// Activity serves /v2/activity.
	Activity(ctx context.Context, p ActivityParams) (Page[Activity, FeedKey], error)
	// ComboActivity serves /v2/activity/combos.
	ComboActivity(ctx context.Context, p ComboActivityParams) (Page[ComboActivity, ComboActivityKey], error)
	// Outcomes reports the outcome count of a known market or combo (by
	// condition or combo condition id); it is ledger.Batch.Lookup for ingest.
	Outcomes(conditionID string) (n int, ok bool)
	// Watermark reports how far ingestion has got (for /v2/status).
	Watermark(ctx context.Context) (Watermark, error)

	Close() error
}

// Page is one page of a keyset walk. Next is the seek key of the last row in
// Rows and is non-nil exactly when HasMore is true. Handlers put Next into the
// signed cursor and hand it back as the params' After.
type Page[R any, K any] struct {
	Rows    []R
	HasMore bool
	Next    *K
}

// FeedKey seeks the trades and activity feeds: the total order is
// (Timestamp, Seq) where Seq is the row's sequence id (see SequenceID).
type FeedKey struct {
	Timestamp int64 `json:"ts"`
	Seq       int64 `json:"sq"`
}

// ComboActivityKey seeks /v2/activity/combos, ordered by (block, log index).
type ComboActivityKey struct {
	BlockNumber int64 `json:"b"`
	LogIndex    int64 `json:"li"`
}

// PositionKey seeks /v2/positions: the row's sort tuple. Group is a
// partition placed ahead of the sort (winners first for REDEEMABLE), Value
// the sort key in micros (or seconds for TIMESTAMP), then token id and a
// wallet tie-break (market anchor; the implementation's own decimal wallet
// id) so that the order is total. Treat it as opaque.
type PositionKey struct {
	Group   int    `json:"g,omitempty"`
	Value   int64  `json:"k"`
	TokenID string `json:"t"`
	Wallet  string `json:"w,omitempty"`
}

// ComboPositionKey seeks /v2/positions/combos: (sort value, combo condition,
// outcome index).
type ComboPositionKey struct {
	Value            int64  `json:"k"`
	ComboConditionID string `json:"c"`
	OutcomeIndex     int    `json:"o"`
}

// Watermark is the ingest state behind /v2/status.
type Watermark struct {
	LastBlock     int64 // highest block_number applied (0 = none)
	LastTimestamp int64 // highest on-chain timestamp applied, epoch s
	Applied       int64 // events applied since the store was created
	AppliedAt     int64 // wall-clock epoch s of the last successful Apply (0 = never)
}

// ErrDuplicate reports an on-chain event whose (block_number, log_index)
// slot is already taken by a different transaction.
var ErrDuplicate = errors.New("store: duplicate (block_number, log_index)")

// SequenceID is the feed tie-break for the participant-th row of the event at
// (block, logIndex): rows order by block, then log index, then participant
// (0 = taker / sole party / tip sender, 1 = maker / tip receiver). It must be
// unique, so logIndex < 10^6 and participant < 10 (the ledger validator
// bounds log_index).
func SequenceID(block, logIndex int64, participant int) int64 {
	return block*10_000_000 + logIndex*10 + int64(participant)
}
