package dataapi

import (
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"pmx/internal/amount"
	"pmx/internal/data/store"
)

// The market and service routes (issue 3) and the v1 accounting snapshot.
// docs/markets.md records the decisions behind them.

// Holders page sizes: rows per outcome token.
const (
	holdersDefaultLimit int32 = 100
	holdersMaxLimit     int32 = 1000
	holdersMaxPnLLimit  int32 = 100
	tokensMaxIDs              = 50
	tokensMaxConditions       = 10
)

// registerMarkets mounts the routes of this file family; heavy wraps a
// route in the heavy-query queue (holders and oi are heavy in production),
// light only in the database slot every store-reading route takes.
func (s *Service) registerMarkets(heavy, light func(string, HandlerFunc)) {
	heavy("/v2/holders", s.holders)
	heavy("/v2/oi", s.openInterest)
	light("/v2/live-volume", s.liveVolume)
	light("/v2/prices-history", s.pricesHistory)
	light("/v2/resolutions", s.resolutions)
	light("/v2/tokens", s.tokens)
	light("/v2/status", s.status)
	light("/v1/accounting/snapshot", s.accountingSnapshot)
}

// holders is an offset walk behind a cohort cursor (kind "holders"): the
// cursor carries the per-token page size and offset and pins the condition
// set, include_pnl and min_balance. Pages are recomputed from the current
// data, so a walk across a data refresh can skip or repeat rows.
func (s *Service) holders(w http.ResponseWriter, r *http.Request) error {
	q, err := ParseRequest(r)
	if err != nil {
		return err
	}
	conds, err := q.Conditions()
	if err != nil {
		return err
	}
	if len(conds) == 0 {
		return Required("condition")
	}
	pnl, err := q.Bool("include_pnl", false)
	if err != nil {
		return err
	}
	minBal, hasMin, err := q.Decimal("min_balance")
	if err != nil {
		return err
	}
	// Canonical pinned values; "" = not given on this request.
	condPin := strings.Join(conds, ",")
	pnlPin, minPin := "", ""
	if q.Has("include_pnl") {
		pnlPin = strconv.FormatBool(pnl)
	}
	if hasMin {
		minPin = minBal.String()
	}
	limit, offset, resumed, err := s.cohortWalk(q, "holders", holdersDefaultLimit, holdersMaxLimit,
		map[string]*string{"condition": &condPin, "include_pnl": &pnlPin, "min_balance": &minPin})
	if err != nil {
		return err
	}
	if resumed {
		pnl = pnlPin == "true"
		if minPin != "" {
			if minBal, err = amount.Parse(minPin); err != nil {
				return errInvalidCursor()
			}
		}
	}
	if pnl && limit > holdersMaxPnLLimit {
		if resumed {
			return errInvalidCursor() // a cursor carrying a wider window than include_pnl allows
		}
		return Invalidf("limit", "limit must be at most %d with include_pnl=true", holdersMaxPnLLimit)
	}
	if pnl && len(conds) != 1 {
		return Invalid("condition", "include_pnl=true requires exactly one condition")
	}
	groups, more, err := s.store.Holders(r.Context(), store.HoldersParams{Conditions: conds, Gross: pnl,
		MinBalance: minBal, Limit: int(limit), Offset: int(offset)})
	if err != nil {
		return err
	}
	// Each token's page advances by the page size, whatever its row count.
	next, err := s.nextCohort("holders", more, limit, offset+limit,
		map[string]string{"condition": condPin, "include_pnl": strconv.FormatBool(pnl), "min_balance": minBal.String()})
	if err != nil {
		return err
	}
	WritePage(w, r, groups, Pagination{Limit: limit, Offset: offset, NextCursor: next})
	return nil
}

func (s *Service) openInterest(w http.ResponseWriter, r *http.Request) error {
	q, err := ParseRequest(r)
	if err != nil {
		return err
	}
	conds, err := q.Conditions()
	if err != nil {
		return err
	}
	rows, err := s.store.OpenInterest(r.Context(), conds)
	if err != nil {
		return err
	}
	WriteList(w, r, rows)
	return nil
}

// liveVolume: unparseable ids are ignored (production rule) unless none
// parses; the valid ids are deduped and sorted, at most 20.
func (s *Service) liveVolume(w http.ResponseWriter, r *http.Request) error {
	q, err := ParseRequest(r)
	if err != nil {
		return err
	}
	raw := q.List("event_id")
	if len(raw) == 0 {
		return Required("event_id")
	}
	var ids []int64
	for _, v := range raw {
		if id, ok := EventID(v); ok {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	ids = slices.Compact(ids)
	if len(ids) == 0 {
		return Invalidf("event_id", "invalid event id: %s", clip(raw[0]))
	}
	if len(ids) > MaxListValues {
		return Invalidf("event_id", "at most %d distinct values are allowed in 'event_id' (got %d)", MaxListValues, len(ids))
	}
	v, err := s.store.LiveVolume(r.Context(), ids)
	if err != nil {
		return err
	}
	if v.Conditions == nil {
		v.Conditions = []store.ConditionVolume{}
	}
	WriteData(w, r, v)
	return nil
}

// tokens takes exactly one selector: token ids (≤50) or conditions (≤10,
// market 0x+64 or combo 0x+62 hex).
func (s *Service) tokens(w http.ResponseWriter, r *http.Request) error {
	q, err := ParseRequest(r)
	if err != nil {
		return err
	}
	if q.Has("token_id") == q.Has("condition") {
		return Invalid("", "provide exactly one of 'token_id' or 'condition'")
	}
	var ids, conds []string
	if q.Has("token_id") {
		if ids, err = q.TokenIDs(tokensMaxIDs); err != nil {
			return err
		}
	} else if conds, err = typedList(q, "condition", "condition id", tokensMaxConditions, anyConditionID); err != nil {
		return err
	}
	rows, err := s.store.Tokens(r.Context(), ids, conds)
	if err != nil {
		return err
	}
	WriteList(w, r, rows)
	return nil
}

// anyConditionID accepts a market (0x+64) or structural/combo (0x+62) id.
func anyConditionID(s string) (string, bool) {
	if id, ok := hexID(s, 64); ok {
		return id, true
	}
	return hexID(s, 62)
}

// Status rows (fixture status.json shape).
type serviceStatus struct {
	ComputedAt string           `json:"computed_at"`
	AgeSeconds int64            `json:"age_seconds"`
	Serving    servingFreshness `json:"serving"`
	Ingestion  ingestion        `json:"ingestion"`
}

type servingFreshness struct {
	LagSeconds *int64      `json:"lag_seconds"`
	Worst      *string     `json:"worst"`
	Mechanisms []mechanism `json:"mechanisms"`
}

type mechanism struct {
	Name         string `json:"name"`
	AgeSeconds   int64  `json:"age_seconds"`
	BlocksBehind *int64 `json:"blocks_behind,omitempty"`
}

type ingestion struct {
	Cursors        int         `json:"cursors"`
	Network        *string     `json:"network"`
	ChainID        int64       `json:"chain_id"`
	MaxSyncedBlock *int64      `json:"max_synced_block"`
	MinSyncedBlock *int64      `json:"min_synced_block"`
	MostLagged     *cursorLag  `json:"most_lagged"`
	Lagging        []cursorLag `json:"lagging"`
}

type cursorLag struct {
	Source    string `json:"source"`
	Block     int64  `json:"block"`
	BehindMax int64  `json:"behind_max"`
}

// Status chain identity: the ledger models Polygon PoS events.
const (
	statusChainID = 137
	statusNetwork = "polygon"
	ledgerSource  = "ledger"
)

// status reports what the store has applied up to and when. The "snapshot"
// is the store as of its last Apply (computed_at); every mechanism is derived
// in that same transaction, so they share one age: the time since the newest
// on-chain event applied, and none is any block behind the feed.
func (s *Service) status(w http.ResponseWriter, r *http.Request) error {
	if _, err := ParseRequest(r); err != nil {
		return err
	}
	wm, err := s.store.Watermark(r.Context())
	if err != nil {
		return err
	}
	if wm.AppliedAt == 0 {
		return Unavailable("no data has been applied yet", nil)
	}
	now := s.now()
	age := max(0, now-wm.LastTimestamp)
	if wm.LastTimestamp == 0 {
		age = max(0, now-wm.AppliedAt)
	}
	zero := int64(0)
	worst := "activity_feed"
	net := statusNetwork
	st := serviceStatus{
		ComputedAt: time.Unix(wm.AppliedAt, 0).UTC().Format(time.RFC3339),
		AgeSeconds: max(0, now-wm.AppliedAt),
		Serving: servingFreshness{LagSeconds: &age, Worst: &worst, Mechanisms: []mechanism{
			{Name: "activity_feed", AgeSeconds: age},
			{Name: "custody_balances", AgeSeconds: age, BlocksBehind: &zero},
			{Name: "pnl", AgeSeconds: age, BlocksBehind: &zero},
		}},
		Ingestion: ingestion{Cursors: 1, Network: &net, ChainID: statusChainID, Lagging: []cursorLag{}},
	}
	if wm.LastBlock > 0 {
		b := wm.LastBlock
		st.Ingestion.MaxSyncedBlock, st.Ingestion.MinSyncedBlock = &b, &b
		st.Ingestion.MostLagged = &cursorLag{Source: ledgerSource, Block: b}
		st.Ingestion.Lagging = []cursorLag{{Source: ledgerSource, Block: b}}
	}
	WriteData(w, r, st)
	return nil
}
