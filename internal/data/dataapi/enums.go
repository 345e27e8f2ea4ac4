package dataapi

import (
	"fmt"
	"slices"
	"strings"
)

// Enum is a closed set of values for one parameter with the production 400
// message (data-api-v2.md §1.7; a %s in Message receives the bad value).
type Enum struct {
	Param  string
	Values []string // canonical spellings, served back as-is
	// Message is the 400 text; %s, if present, is the offending value.
	Message string
	// CaseSensitive: match exactly (interval grids, where 1m is not 1M).
	// Otherwise any case matches and the canonical spelling is returned.
	CaseSensitive bool
	// EmptyInvalid: a blank value is malformed rather than absent.
	EmptyInvalid bool
}

// The contract's enums, in one place.
var (
	EnumPositionStatus = Enum{Param: "status",
		Values:  []string{"OPEN", "REDEEMABLE", "REDEEMABLE_LOST", "MERGEABLE", "CLOSED"},
		Message: "invalid position status: %s"}
	EnumPositionSortBy = Enum{Param: "sort_by",
		Values:  []string{"CURRENT_VALUE", "PRICE", "TOKENS", "UNREALIZED_PNL", "REALIZED_PNL", "TOTAL_PNL", "TIMESTAMP"},
		Message: "invalid position sortBy: %s"}
	EnumSortDirection = Enum{Param: "sort_direction",
		Values: []string{"ASC", "DESC"}, Message: "sortDirection must be ASC or DESC"}
	EnumComboStatus = Enum{Param: "status",
		Values:  []string{"OPEN", "REDEEMABLE", "PARTIAL", "RESOLVED_WIN", "RESOLVED_LOSS", "RESOLVED_PARTIAL"},
		Message: "status must be one of OPEN, REDEEMABLE, PARTIAL, RESOLVED_WIN, RESOLVED_LOSS, RESOLVED_PARTIAL"}
	EnumComboSortBy = Enum{Param: "sort_by",
		Values:  []string{"FIRST_ENTRY", "ENTRY_COST", "CURRENT_VALUE", "UPDATED"},
		Message: "sortBy must be one of FIRST_ENTRY, ENTRY_COST, CURRENT_VALUE, UPDATED"}
	EnumTimePeriod = Enum{Param: "time_period",
		Values: []string{"day", "week", "month", "all"}, Message: "time_period must be one of day, week, month, all"}
	// EnumBuildersInterval is /v2/builders/volume's interval; production's
	// message names time_period (one of its aliases).
	EnumBuildersInterval = Enum{Param: "interval",
		Values: []string{"day", "week", "month", "all"}, Message: "time_period must be one of day, week, month, all"}
	EnumLeaderboardSortBy = Enum{Param: "sort_by",
		Values: []string{"PNL", "VOLUME"}, Message: "sort_by must be PNL or VOLUME"}
	EnumUserPnlInterval = Enum{Param: "interval", CaseSensitive: true,
		Values:  []string{"max", "all", "1m", "1w", "1d", "12h", "6h"},
		Message: "interval must be one of max, all, 1m, 1w, 1d, 12h, 6h"}
	EnumUserPnlFidelity = Enum{Param: "fidelity", CaseSensitive: true,
		Values:  []string{"1d", "18h", "12h", "3h", "1h"},
		Message: "fidelity must be one of 1d, 18h, 12h, 3h, 1h"}
	EnumPricesHistoryInterval = Enum{Param: "interval", CaseSensitive: true, EmptyInvalid: true,
		Values:  []string{"max", "all", "1m", "1w", "1d", "6h", "1h"},
		Message: "interval must be one of max, all, 1m, 1w, 1d, 6h, 1h"}
	EnumSide = Enum{Param: "side",
		Values: []string{"BUY", "SELL"}, Message: "side must be BUY or SELL"}
	EnumFilterType = Enum{Param: "filter_type",
		Values: []string{"CASH", "TOKENS"}, Message: "filterType must be CASH or TOKENS"}
	// EnumActivitySortBy: only TIMESTAMP; the message is production's (stale:
	// ASC is in fact accepted).
	EnumActivitySortBy = Enum{Param: "sort_by",
		Values: []string{"TIMESTAMP"}, Message: "only sortBy=TIMESTAMP with sortDirection=DESC is supported"}
	EnumActivityType = Enum{Param: "type",
		Values: []string{"TRADE", "SPLIT", "MERGE", "REDEEM", "CONVERSION", "MIGRATION", "REWARD", "YIELD",
			"MAKER_REBATE", "TAKER_REBATE", "REFERRAL_REWARD", "DEPOSIT", "WITHDRAWAL", "TIP"},
		Message: "invalid activity type: %s"}
)

func (e Enum) match(s string) (string, bool) {
	for _, v := range e.Values {
		if v == s || (!e.CaseSensitive && strings.EqualFold(v, s)) {
			return v, true
		}
	}
	return "", false
}

func (e Enum) invalid(s string) *Error {
	msg := e.Message
	if strings.Contains(msg, "%s") {
		msg = fmt.Sprintf(msg, clip(s))
	}
	return Invalid(e.Param, msg)
}

// Enum parses a one-value enum parameter; absent gives def (which may be "").
func (q *Query) Enum(e Enum, def string) (string, error) {
	s, err := q.Get(e.Param)
	if err != nil {
		return "", err
	}
	if s == "" {
		if e.EmptyInvalid && q.Sent(e.Param) {
			return "", e.invalid(s)
		}
		return def, nil
	}
	v, ok := e.match(s)
	if !ok {
		return "", e.invalid(s)
	}
	return v, nil
}

// EnumList parses a comma-separated enum parameter (deduped, canonical
// spellings, order of first appearance); absent gives nil.
func (q *Query) EnumList(e Enum) ([]string, error) {
	var out []string
	for _, s := range q.List(e.Param) {
		v, ok := e.match(s)
		if !ok {
			return nil, e.invalid(s)
		}
		if !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	return out, nil
}
