package catalog

import "slices"

// ApplyEventLive overwrites an event's live totals (summed from the live
// map, not from its markets' fields). Its markets get their own figures
// where they are rendered (cataloghttp renderMarket), which writes into them, and the
// slice may be shared with the store's cache: it is copied here, before
// that write. It only assigns fields, so applying twice is the same as once.
func ApplyEventLive(e *Event, live map[string]Live) {
	if len(live) == 0 {
		return
	}
	e.Markets = slices.Clone(e.Markets)
	sumEvent(e, live)
}

// ApplyMarketLive overwrites a market's live fields with its entry in live.
func ApplyMarketLive(m *Market, live map[string]Live) {
	if m.ConditionID != nil {
		if l, ok := live[*m.ConditionID]; ok {
			applyLive(m, l)
		}
	}
}
