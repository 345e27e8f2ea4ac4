package catalog

import (
	"time"

	"pmx/internal/data/ledger"
)

// ApplyResolution closes the market of a `resolution` ledger event in its
// catalog event: closed, no longer accepting orders, outcomePrices = the
// payouts, closedTime = the resolution time, oracleResolutionStatus
// "resolved"; the event closes when all its markets have. It reports
// whether the event holds the market.
func ApplyResolution(e *Event, ev ledger.Event) bool {
	for i := range e.Markets {
		m := &e.Markets[i]
		if m.ConditionID == nil || *m.ConditionID != ev.ConditionID {
			continue
		}
		prices := make([]string, len(ev.Payouts))
		for j, p := range ev.Payouts {
			prices[j] = p.String()
		}
		m.Closed, m.AcceptingOrders = true, false
		m.OutcomePrices = ptr(EncodeStringList(prices))
		m.ClosedTime = ptr(time.Unix(ev.ResolvedAt, 0).UTC().Format("2006-01-02 15:04:05+00"))
		m.OracleResolutionStatus = ptr("resolved")
		rollUp(e)
		return true
	}
	return false
}
