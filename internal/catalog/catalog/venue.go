package catalog

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"pmx/internal/data/ledger"
)

// ErrInvalid marks an import the venue cannot take although it parses (a
// tradable market the data store would refuse): a 400, nothing kept.
var ErrInvalid = errors.New("invalid document")

// Importer stores parsed import documents: catalogsql.Store (catalog only)
// or ingest.Pipeline (the venue: the data store learns the markets too).
type Importer interface {
	ImportEvents(ctx context.Context, events []Event) error
}

// LedgerMarkets is the inverse of MergeLedgerMarket: the `market` ledger
// events that make the imported markets markets of the venue, so the data
// store applies trades on their clobTokenIds and serves them with the
// catalog's slugs and outcomes (docs/catalog.md, "Imported markets trade").
// A market without a conditionId or clobTokenIds has no order book and is
// skipped. Fields the ledger requires and the document lacks get stated
// fallbacks; a market that still fails ledger validation is ErrInvalid.
func LedgerMarkets(events []Event) ([]ledger.Event, error) {
	var out []ledger.Event
	for i := range events {
		e := &events[i]
		for j := range e.Markets {
			m := &e.Markets[j]
			tokens := m.TokenIDs()
			if m.ConditionID == nil || len(tokens) == 0 {
				continue
			}
			ev, err := ledgerMarket(e, m, tokens)
			if err == nil {
				err = ledger.Validate(&ev)
			}
			if err != nil {
				return nil, fmt.Errorf("%w: event %s market %s cannot trade: %v", ErrInvalid, e.ID, m.ID, err)
			}
			out = append(out, ev)
		}
	}
	return out, nil
}

func ledgerMarket(e *Event, m *Market, tokens []string) (ledger.Event, error) {
	eventID, err := ParseID(string(e.ID))
	if err != nil || eventID == 0 {
		return ledger.Event{}, errors.New("event id must be > 0")
	}
	marketID, err := ParseID(string(m.ID))
	if err != nil {
		return ledger.Event{}, err
	}
	outcomes, err := DecodeStringList(m.Outcomes)
	if err != nil {
		return ledger.Event{}, err
	}
	question := first(val(m.Question), val(m.GroupItemTitle), val(e.Title), "Market "+string(m.ID))
	ev := ledger.Event{
		Kind:        ledger.KindMarket,
		ConditionID: *m.ConditionID,
		MarketID:    marketID,
		Question:    question,
		Slug:        first(val(m.Slug), Slugify(question), "market-"+string(m.ID)),
		EventID:     eventID,
		EventSlug:   first(val(e.Slug), "event-"+string(e.ID)),
		EventTitle:  first(val(e.Title), question),
		Category:    first(val(m.Category), val(e.Category)),
		Icon:        first(val(m.Icon), val(e.Icon)),
		Outcomes:    outcomes,
		TokenIDs:    tokens,
		NegRisk:     m.NegRisk && len(outcomes) == 2,
		EndDate:     endDate(val(m.EndDate), val(m.EndDateIso), val(e.EndDate)),
		Active:      ptr(m.Active),
		Closed:      ptr(m.Closed),
		Archived:    ptr(m.Archived),
	}
	return ev, nil
}

// endDate is the first parseable date as RFC 3339 UTC; the epoch when the
// document has none (the data store serves that as "unknown").
func endDate(candidates ...string) string {
	for _, c := range candidates {
		if k := DateKey(c); k != "" {
			t, err := time.Parse(dateKeyLayout, k)
			if err == nil {
				return t.UTC().Format(time.RFC3339)
			}
		}
	}
	return "1970-01-01T00:00:00Z"
}

func val(p *string) string {
	if p == nil {
		return ""
	}
	return strings.TrimSpace(*p)
}

func first(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}
