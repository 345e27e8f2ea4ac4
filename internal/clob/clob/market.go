package clob

import (
	"errors"

	"pmx/internal/amount"
)

// Market is one CLOB market as the catalog defines it (a catalog market
// with enableOrderBook): its condition id, two outcome tokens, grid and
// state. Ticks is the number of price ticks in 1.0 (10, 100, 1,000 or
// 10,000 for tick sizes 0.1 to 0.0001).
type Market struct {
	ConditionID  string       `json:"condition_id"` // 0x + 64 lower-case hex
	QuestionID   string       `json:"question_id,omitempty"`
	Question     string       `json:"question,omitempty"`
	Description  string       `json:"description,omitempty"`
	Slug         string       `json:"slug,omitempty"`
	Icon         string       `json:"icon,omitempty"`
	Image        string       `json:"image,omitempty"`
	EndDateISO   string       `json:"end_date_iso,omitempty"`
	Tokens       [2]Token     `json:"tokens"` // [0] is the primary (Yes) outcome
	Ticks        int64        `json:"ticks"`
	MinSize      amount.Micro `json:"min_size"`
	NegRisk      bool         `json:"neg_risk"`
	NegRiskID    string       `json:"neg_risk_market_id,omitempty"`
	Active       bool         `json:"active"`
	Closed       bool         `json:"closed"`
	Archived     bool         `json:"archived"`
	Accepting    bool         `json:"accepting_orders"`
	SecondsDelay int64        `json:"seconds_delay,omitempty"`
	MakerFeeBps  int64        `json:"maker_fee_bps,omitempty"`
	TakerFeeBps  int64        `json:"taker_fee_bps,omitempty"`
}

// Token is one outcome token: its ERC-1155 id (decimal) and outcome label.
type Token struct {
	ID      string `json:"token_id"`
	Outcome string `json:"outcome"`
}

var errTick = errors.New("clob: tick size must be 0.1, 0.01, 0.001 or 0.0001")

// TicksOf maps a tick size to the number of ticks in 1.0.
func TicksOf(tick amount.Micro) (int64, error) {
	switch tick {
	case 100000:
		return 10, nil
	case 10000:
		return 100, nil
	case 1000:
		return 1000, nil
	case 100:
		return 10000, nil
	}
	return 0, errTick
}

// TickSize is the tick size text the clients key their rounding tables on:
// exactly "0.1", "0.01", "0.001" or "0.0001".
func TickSize(ticks int64) string {
	switch ticks {
	case 10:
		return "0.1"
	case 100:
		return "0.01"
	case 1000:
		return "0.001"
	}
	return "0.0001"
}

// PriceText prints a price of p ticks of a Ticks grid as a decimal.
func PriceText(p, ticks int64) string {
	return amount.Micro(p * (amount.Scale / ticks)).String()
}
