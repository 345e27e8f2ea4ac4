package dataapi

import (
	"math/big"
	"net/http"
	"strconv"
	"time"

	"pmx/internal/amount"
	"pmx/internal/data/store"
)

// resolutionRow is a /v2/resolutions row; optional fields are omitted when
// absent (fixtures). Field order follows the fixtures.
type resolutionRow struct {
	QuestionID             *string `json:"question_id,omitempty"`
	ConditionID            *string `json:"condition_id,omitempty"`
	Status                 string  `json:"status"`
	ExtendedReview         bool    `json:"extended_review"`
	WasDisputed            bool    `json:"was_disputed"`
	NewVersionQ            bool    `json:"new_version_q"`
	ProposedPrice          *string `json:"proposed_price,omitempty"`
	ReproposedPrice        *string `json:"reproposed_price,omitempty"`
	Price                  *string `json:"price,omitempty"`
	TransactionHash        string  `json:"transaction_hash"`
	LogIndex               string  `json:"log_index"`
	LastUpdateTimestamp    string  `json:"last_update_timestamp"`
	ExpectedSettlementTime *string `json:"expected_settlement_time,omitempty"`
	SettlementTimeBasis    *string `json:"settlement_time_basis,omitempty"`
	Payouts                []int64 `json:"payouts,omitempty"`
	ResolutionSource       *string `json:"resolution_source,omitempty"`
	WasArbitrated          *bool   `json:"was_arbitrated,omitempty"`
	ResolvedBlock          *int64  `json:"resolved_block,omitempty"`
	ResolvedAt             *string `json:"resolved_at,omitempty"`
}

// umaUnset is UMA's "no price" sentinel as production serves it.
const umaUnset = "69"

func sp(s string) *string { return &s }

// resolvedRow is the terminal CTF shape (fixture resolutions.json).
func resolvedRow(m store.MarketResolution) resolutionRow {
	at := time.Unix(m.ResolvedAt, 0).UTC().Format(time.RFC3339)
	no := false
	row := resolutionRow{ConditionID: sp(m.ConditionID), Status: "resolved", LastUpdateTimestamp: at,
		ResolutionSource: sp("reported"), WasArbitrated: &no, ResolvedAt: sp(at)}
	for _, p := range m.Payouts {
		row.Payouts = append(row.Payouts, int64(p)) // micro-USDC per share
	}
	if m.ResolvedBlock > 0 {
		b := m.ResolvedBlock
		row.ResolvedBlock = &b
	}
	return row
}

// questionRow is the question-lifecycle shape (fixture
// resolutions_pending.json). pmx has no oracle: a market is its own
// question, keyed by its condition id; an open market is "initialized" with
// every price unset and its scheduled end as the settlement estimate.
func questionRow(m store.MarketResolution, withCondition bool) resolutionRow {
	row := resolutionRow{QuestionID: sp(m.ConditionID), Status: "initialized", ProposedPrice: sp(umaUnset),
		ReproposedPrice: sp(umaUnset), Price: sp(umaUnset), LastUpdateTimestamp: strconv.FormatInt(m.LastTradeAt, 10)}
	if withCondition {
		row.ConditionID = sp(m.ConditionID)
	}
	if m.Resolved {
		row.Status = "resolved"
		row.LastUpdateTimestamp = strconv.FormatInt(m.ResolvedAt, 10)
		if len(m.Payouts) > 0 {
			p := umaPrice(m.Payouts[0])
			row.ProposedPrice, row.Price = sp(p), sp(p)
		}
		return row
	}
	if t, err := time.Parse(time.RFC3339, m.EndDate); err == nil {
		row.ExpectedSettlementTime = sp(t.UTC().Format(time.RFC3339))
		row.SettlementTimeBasis = sp("proposal_expiration")
	}
	return row
}

// umaPrice renders a payout as UMA's 1e18 fixed point (1 → 10^18).
func umaPrice(p amount.Micro) string {
	v := new(big.Int).Mul(big.NewInt(int64(p)), big.NewInt(1_000_000_000_000))
	return v.String()
}

func (s *Service) resolutions(w http.ResponseWriter, r *http.Request) error {
	q, err := ParseRequest(r)
	if err != nil {
		return err
	}
	n := 0
	for _, p := range []string{"question_id", "condition", "event_id"} {
		if q.Has(p) {
			n++
		}
	}
	if n != 1 {
		return Invalid("", "provide exactly one of 'question_id', 'condition', or 'event_id'")
	}
	var conds []string
	var events []int64
	byQuestion := false
	switch {
	case q.Has("question_id"):
		raw, err := q.Get("question_id")
		if err != nil {
			return err
		}
		id, ok := ConditionID(raw)
		if !ok {
			return Invalidf("question_id", "invalid question id: %s", clip(raw))
		}
		conds, byQuestion = []string{id}, true
	case q.Has("condition"):
		if conds, err = q.Conditions(); err != nil {
			return err
		}
	default:
		if events, err = q.EventIDs(); err != nil {
			return err
		}
	}
	ms, err := s.store.Resolutions(r.Context(), conds, events)
	if err != nil {
		return err
	}
	rows := make([]resolutionRow, 0, len(ms))
	for _, m := range ms {
		switch {
		case byQuestion:
			rows = append(rows, questionRow(m, false))
		case m.Resolved:
			rows = append(rows, resolvedRow(m))
		default:
			rows = append(rows, questionRow(m, true))
		}
	}
	WriteData(w, r, rows)
	return nil
}
