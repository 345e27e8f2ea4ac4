package catalog

import (
	"errors"
	"fmt"
	"hash/fnv"
	"strconv"
	"strings"

	"pmx/internal/data/ledger"
)

// DerivedMarketID is the catalog market id of a ledger market that carries
// no market_id. The data store derives it (docs/ledger-events.md), so this
// is the same rule as internal/data/sqlite's: the first 7 hex digits of the
// condition id, read as an integer (0 for a malformed id). /v2 rows and the
// catalog therefore agree; a collision is refused at write time
// (ErrConflict), never silently merged.
func DerivedMarketID(conditionID string) int64 {
	if len(conditionID) < 9 {
		return 0
	}
	v, err := strconv.ParseInt(conditionID[2:9], 16, 64)
	if err != nil {
		return 0
	}
	return v
}

// DerivedTagID is the id of the tag (and category) made from a ledger
// market's category: stable across runs and ingest orders, in a range
// (1e9..2e9) that hand-made and production tag ids do not reach in practice.
func DerivedTagID(slug string) int64 {
	h := fnv.New32a()
	h.Write([]byte(slug))
	return 1_000_000_000 + int64(h.Sum32()%1_000_000_000)
}

// Slugify lower-cases s and joins its alphanumeric runs with '-'.
func Slugify(s string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(s) {
		if (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') {
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			b.WriteRune(r)
			dash = false
		} else {
			dash = true
		}
	}
	return b.String()
}

// MergeLedgerMarket folds a `market` ledger event into its catalog event
// (existing, or nil for a new one). The market is matched by condition id;
// only the fields the ledger carries are overwritten, so richer imported
// data survives and re-ingesting the same line changes nothing.
func MergeLedgerMarket(existing *Event, ev ledger.Event) (Event, error) {
	if ev.Kind != ledger.KindMarket {
		return Event{}, fmt.Errorf("not a market event: %q", ev.Kind)
	}
	cond := strings.ToLower(ev.ConditionID)
	if !reConditionID.MatchString(cond) {
		return Event{}, fmt.Errorf("condition_id %q is not 0x + 64 hex", ev.ConditionID)
	}
	if ev.EventID <= 0 {
		return Event{}, errors.New("market event needs a positive event_id")
	}
	if len(ev.Outcomes) == 0 || len(ev.Outcomes) != len(ev.TokenIDs) {
		return Event{}, fmt.Errorf("market has %d outcomes and %d token ids", len(ev.Outcomes), len(ev.TokenIDs))
	}
	var e Event
	if existing != nil {
		e = *existing
		e.Markets = append([]Market(nil), existing.Markets...)
	} else {
		e = Event{ID: Str(strconv.FormatInt(ev.EventID, 10))}
	}
	if ev.EventSlug != "" {
		e.Slug, e.Ticker = ptr(ev.EventSlug), ptr(ev.EventSlug)
	}
	if ev.EventTitle != "" {
		e.Title = ptr(ev.EventTitle)
	}
	if ev.Category != "" {
		e.Category = ptr(ev.Category)
		tag, cat := categoryTag(ev.Category)
		e.Tags = addTag(e.Tags, tag)
		e.Categories = addCategory(e.Categories, cat)
	}
	if ev.Icon != "" {
		e.Icon, e.Image = ptr(ev.Icon), ptr(ev.Icon)
	}
	if ev.NegRisk {
		e.NegRisk, e.EnableNegRisk = true, true
	}
	e.EnableOrderBook = true

	idx := -1
	for i := range e.Markets {
		if c := e.Markets[i].ConditionID; c != nil && *c == cond {
			idx = i
			break
		}
	}
	var m Market
	if idx >= 0 {
		m = e.Markets[idx]
	} else {
		id := ev.MarketID
		if id == 0 {
			id = DerivedMarketID(cond)
		}
		zero := Num("0")
		m = Market{
			ID: Str(strconv.FormatInt(id, 10)), ConditionID: &cond,
			Active: true, EnableOrderBook: true, AcceptingOrders: true,
			MarketType: ptr("normal"), Fee: ptr(Str("0")),
			Volume: ptr(Str("0")), VolumeNum: &zero, Liquidity: ptr(Str("0")), LiquidityNum: &zero,
			Volume24hr: &zero, OpenInterest: &zero,
			OrderPriceMinTickSize: ptr(Num("0.01")), OrderMinSize: ptr(Num("5")),
		}
	}
	if ev.MarketID != 0 {
		m.ID = Str(strconv.FormatInt(ev.MarketID, 10))
	}
	if ev.Question != "" {
		m.Question = ptr(ev.Question)
	}
	if ev.Slug != "" {
		m.Slug = ptr(ev.Slug)
	}
	if ev.Category != "" {
		m.Category = ptr(ev.Category)
		tag, cat := categoryTag(ev.Category)
		m.Tags = addTag(m.Tags, tag)
		m.Categories = addCategory(m.Categories, cat)
	}
	m.Outcomes = ptr(EncodeStringList(ev.Outcomes))
	m.ClobTokenIds = ptr(EncodeStringList(ev.TokenIDs))
	m.PositionIds = append(StrList(nil), ev.TokenIDs...)
	m.NegRisk = ev.NegRisk
	if ev.EndDate != "" {
		m.EndDate = ptr(ev.EndDate)
		if k := DateKey(ev.EndDate); k != "" {
			m.EndDateIso = ptr(k[:10])
		}
	}
	if ev.Icon != "" {
		m.Icon, m.Image = ptr(ev.Icon), ptr(ev.Icon)
	}
	if ev.Active != nil {
		m.Active = *ev.Active
	}
	if ev.Closed != nil {
		m.Closed = *ev.Closed
	}
	if ev.Archived != nil {
		m.Archived = *ev.Archived
	}
	m.AcceptingOrders = m.Active && !m.Closed
	if idx >= 0 {
		e.Markets[idx] = m
	} else {
		e.Markets = append(e.Markets, m)
	}
	rollUp(&e)
	// The data store sees every trade of a ledger market, so its figures
	// start at zero rather than unknown; live values replace them on read.
	for _, n := range []**Num{&e.Volume, &e.Volume24hr, &e.Liquidity, &e.LiquidityClob, &e.OpenInterest} {
		if *n == nil {
			*n = ptr(Num("0"))
		}
	}
	if err := Normalize(&e); err != nil {
		return Event{}, err
	}
	return e, nil
}

// rollUp derives an event's state from its markets: active if any market
// is, closed when all are, archived when all are, ending with the last.
func rollUp(e *Event) {
	if len(e.Markets) == 0 {
		return
	}
	active, closed, archived := false, true, true
	var end string
	for _, m := range e.Markets {
		active = active || m.Active
		closed = closed && m.Closed
		archived = archived && m.Archived
		if m.EndDate != nil && DateKey(*m.EndDate) > DateKey(end) {
			end = *m.EndDate
		}
	}
	e.Active, e.Closed, e.Archived = active, closed, archived
	if end != "" {
		e.EndDate = ptr(end)
	}
}

func categoryTag(category string) (Tag, Category) {
	slug := Slugify(category)
	id := Str(strconv.FormatInt(DerivedTagID(slug), 10))
	return Tag{ID: id, Label: ptr(category), Slug: ptr(slug)},
		Category{ID: id, Label: ptr(category), Slug: ptr(slug)}
}

func addTag(tags []Tag, t Tag) []Tag {
	for _, x := range tags {
		if x.ID == t.ID {
			return tags
		}
	}
	return append(append([]Tag(nil), tags...), t)
}

func addCategory(cats []Category, c Category) []Category {
	for _, x := range cats {
		if x.ID == c.ID {
			return cats
		}
	}
	return append(append([]Category(nil), cats...), c)
}
