package catalog

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"pmx/internal/httpjson"
	"pmx/internal/safetext"
)

// MaxImportBytes bounds one POST /admin/catalog body.
const MaxImportBytes = 64 << 20

// aliases maps production (Gamma) key names to the contract's names, so a
// document captured from production imports unchanged.
var aliases = map[string]string{
	"twitterCardImage":      "socialCardImage",
	"mailchimpTag":          "mailTag",
	"umaEndDate":            "oracleEndDate",
	"umaResolutionStatus":   "oracleResolutionStatus",
	"umaResolutionStatuses": "oracleResolutionStatuses",
	"umaEndDateIso":         "oracleEndDateIso",
	"umaBond":               "oracleBond",
	"umaReward":             "oracleReward",
	"disqusThread":          "commentThread",
	"tweetCount":            "postCount",
	"pythTokenID":           "feedTokenID",
	"cgAssetName":           "assetName",
	"parentEventId":         "parentEvent",
	"creatorURL":            "creatorUrl",
}

// ParseImport reads events in the production wire format: one event object,
// an array of events, or {"events": [...]} (the keyset listing's shape).
// Each event is normalised (see Normalize).
func ParseImport(body []byte) ([]Event, error) {
	body = bytes.TrimSpace(body)
	if len(body) == 0 {
		return nil, errors.New("empty document")
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var raw any
	if err := dec.Decode(&raw); err != nil {
		return nil, fmt.Errorf("document is not JSON: %w", httpjson.Describe(err))
	}
	if dec.More() {
		return nil, errors.New("trailing data after the document")
	}
	// Operator text is served to the public: checked like user input.
	if err := safetext.Walk(raw, safetext.MaxText); err != nil {
		return nil, err
	}
	var list []any
	switch v := raw.(type) {
	case []any:
		list = v
	case map[string]any:
		if evs, ok := v["events"].([]any); ok && v["id"] == nil {
			list = evs
		} else {
			list = []any{v}
		}
	default:
		return nil, errors.New("document must be an event, an array of events or {\"events\": [...]}")
	}
	out := make([]Event, 0, len(list))
	for i, item := range list {
		renamed := renameKeys(item)
		b, err := json.Marshal(renamed)
		if err != nil {
			return nil, err
		}
		var e Event
		if err := json.Unmarshal(b, &e); err != nil {
			return nil, fmt.Errorf("event %d: %w", i, httpjson.Explain(renamed, &e, err))
		}
		if err := Normalize(&e); err != nil {
			return nil, fmt.Errorf("event %d (id %q): %w", i, e.ID, err)
		}
		out = append(out, e)
	}
	return out, nil
}

func renameKeys(v any) any {
	switch x := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(x))
		for k, val := range x {
			if to, ok := aliases[k]; ok {
				if _, clash := x[to]; clash {
					continue // the contract's own name wins
				}
				k = to
			}
			m[k] = renameKeys(val)
		}
		return m
	case []any:
		for i := range x {
			x[i] = renameKeys(x[i])
		}
		return x
	}
	return v
}

var (
	reConditionID = regexp.MustCompile(`^0x[0-9a-fA-F]{64}$`)
	reDecimal     = regexp.MustCompile(`^[0-9]+$`)
)

// ParseID reads a catalog id: a non-negative decimal integer that fits in
// int64 (the id type of every path and query parameter; see docs/catalog.md).
func ParseID(s string) (int64, error) {
	if s == "" || len(s) > 19 || !reDecimal.MatchString(s) {
		return 0, fmt.Errorf("id must be a non-negative integer, got %q", s)
	}
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("id must be a non-negative integer, got %q", s)
	}
	return v, nil
}

// Normalize checks an event and brings it to the rendering rules: integer
// ids, [] for absent arrays, markets consistent with their outcomes and
// token ids, each market carrying its parent event abbreviated.
func Normalize(e *Event) error {
	if _, err := ParseID(string(e.ID)); err != nil {
		return fmt.Errorf("event %w", err)
	}
	for i := range e.Markets {
		m := &e.Markets[i]
		if err := normalizeMarket(m); err != nil {
			return fmt.Errorf("market %d (id %q): %w", i, m.ID, err)
		}
		m.Events = []EventRef{e.Ref()}
	}
	if err := normalizeTags(e.Tags); err != nil {
		return err
	}
	for i := range e.Series {
		s := &e.Series[i]
		if _, err := ParseID(string(s.ID)); err != nil {
			return fmt.Errorf("series %w", err)
		}
		normalizeSeries(s)
	}
	e.SubEvents = orEmpty(e.SubEvents)
	e.Markets = orEmpty(e.Markets)
	e.Series = orEmpty(e.Series)
	e.Categories = orEmpty(e.Categories)
	e.Collections = orEmpty(e.Collections)
	e.Tags = orEmpty(e.Tags)
	e.EventCreators = orEmpty(e.EventCreators)
	e.Chats = orEmpty(e.Chats)
	e.Templates = orEmpty(e.Templates)
	return nil
}

func normalizeSeries(s *Series) {
	s.Events = orEmpty(s.Events)
	s.Collections = orEmpty(s.Collections)
	s.Categories = orEmpty(s.Categories)
	s.Tags = orEmpty(s.Tags)
	s.Chats = orEmpty(s.Chats)
}

func normalizeTags(tags []Tag) error {
	for _, t := range tags {
		if _, err := ParseID(string(t.ID)); err != nil {
			return fmt.Errorf("tag %w", err)
		}
	}
	return nil
}

func normalizeMarket(m *Market) error {
	if _, err := ParseID(string(m.ID)); err != nil {
		return fmt.Errorf("market %w", err)
	}
	if m.ConditionID != nil {
		c := strings.ToLower(*m.ConditionID)
		if c == "" {
			m.ConditionID = nil
		} else if !reConditionID.MatchString(c) {
			return fmt.Errorf("conditionId %q is not 0x + 64 hex", *m.ConditionID)
		} else {
			m.ConditionID = &c
		}
	}
	outcomes, err := DecodeStringList(m.Outcomes)
	if err != nil {
		return fmt.Errorf("outcomes: %w", err)
	}
	tokens, err := DecodeStringList(m.ClobTokenIds)
	if err != nil {
		return fmt.Errorf("clobTokenIds: %w", err)
	}
	prices, err := DecodeStringList(m.OutcomePrices)
	if err != nil {
		return fmt.Errorf("outcomePrices: %w", err)
	}
	if len(tokens) > 0 && len(tokens) != len(outcomes) {
		return fmt.Errorf("clobTokenIds has %d entries for %d outcomes", len(tokens), len(outcomes))
	}
	if len(prices) > 0 && len(prices) != len(outcomes) {
		return fmt.Errorf("outcomePrices has %d entries for %d outcomes", len(prices), len(outcomes))
	}
	for _, tok := range tokens {
		if !reDecimal.MatchString(tok) {
			return fmt.Errorf("clobTokenIds entry %q is not a decimal string", tok)
		}
	}
	if err := normalizeTags(m.Tags); err != nil {
		return err
	}
	if m.FeeSchedule != nil {
		for _, n := range []*Num{&m.FeeSchedule.Exponent, &m.FeeSchedule.Rate, &m.FeeSchedule.RebateRate} {
			if *n == "" {
				*n = "0"
			}
		}
	}
	m.PositionIds = orEmpty(m.PositionIds)
	m.Events = orEmpty(m.Events)
	m.Categories = orEmpty(m.Categories)
	m.Tags = orEmpty(m.Tags)
	return nil
}

// TokenIDs returns the market's CLOB token ids in outcome order.
func (m *Market) TokenIDs() []string {
	t, _ := DecodeStringList(m.ClobTokenIds)
	return t
}

func orEmpty[S ~[]E, E any](s S) S {
	if s == nil {
		return S{}
	}
	return s
}
