package sqlite

import (
	"context"
	"database/sql"
	"sort"
	"strconv"

	"pmx/internal/amount"
	"pmx/internal/data/store"
)

// comboOutcome is the settlement state of a combo seen from its legs.
// Outcome 0 pays the product of the legs' payouts; every other outcome pays
// the rest (1 − product). It is resolved once every leg market is resolved.
type comboOutcome struct {
	resolved     bool
	resolvedAt   int64 // latest leg resolution
	legsResolved int
	payoff0      amount.Micro
}

func (c *catalog) comboState(m *market) comboOutcome {
	s := comboOutcome{payoff0: amount.One}
	for _, l := range m.legs {
		lm := c.byCond[l.ConditionID]
		if lm == nil || !lm.resolved || l.OutcomeIndex >= len(lm.payouts) {
			continue
		}
		s.legsResolved++
		s.resolvedAt = max(s.resolvedAt, lm.resolvedAt)
		s.payoff0 = amount.Mul(s.payoff0, lm.payouts[l.OutcomeIndex])
	}
	s.resolved = s.legsResolved == len(m.legs)
	return s
}

func (c *catalog) comboResolved(m *market) bool { return c.comboState(m).resolved }

func (s comboOutcome) payoff(idx int) amount.Micro {
	if idx == 0 {
		return s.payoff0
	}
	return amount.One - s.payoff0
}

// legs renders a combo's legs with their markets' enrichment.
func (c *catalog) legs(m *market) []store.ComboLeg {
	out := make([]store.ComboLeg, 0, len(m.legs))
	for i, l := range m.legs {
		leg := store.ComboLeg{LegIndex: i, LegConditionID: l.ConditionID, LegOutcomeIndex: l.OutcomeIndex,
			LegStatus: "OPEN", Market: store.ComboLegMarket{Outcomes: []string{}, Tags: []string{}}}
		lm := c.byCond[l.ConditionID]
		if lm == nil || l.OutcomeIndex < 0 || l.OutcomeIndex >= len(lm.tokens) {
			leg.LegOutcomeIndex = store.NoOutcome
			out = append(out, leg)
			continue
		}
		if t := lm.tokens[l.OutcomeIndex]; t != nil {
			leg.LegPositionID, leg.LegCurrentPrice = t.tokenID, c.mark(t)
		}
		leg.LegOutcomeLabel = lm.outcomes[l.OutcomeIndex]
		if lm.resolved {
			leg.LegStatus = "RESOLVED_LOSS"
			if lm.payouts[l.OutcomeIndex] > 0 {
				leg.LegStatus = "RESOLVED_WIN"
			}
			at := rfc3339(lm.resolvedAt)
			leg.LegResolvedAt = &at
		}
		eventID := ""
		if lm.eventID != 0 {
			eventID = strconv.FormatInt(lm.eventID, 10)
		}
		leg.Market = store.ComboLegMarket{MarketID: strconv.FormatInt(lm.marketID, 10), Slug: lm.slug,
			Title: lm.question, Question: lm.question, Outcomes: lm.outcomes, Outcome: leg.LegOutcomeLabel,
			ImageURL: lm.icon, IconURL: lm.icon, Category: lm.category, Tags: []string{}, EndDate: lm.endDate,
			Event: store.ComboLegEvent{EventID: eventID, EventSlug: lm.eventSlug, EventTitle: lm.eventTitle,
				EventImage: lm.icon}}
		out = append(out, leg)
	}
	return out
}

// ComboPositions implements store.Store.
func (db *DB) ComboPositions(ctx context.Context, p store.ComboPositionsParams) (store.Page[store.ComboPosition, store.ComboPositionKey], error) {
	var none store.Page[store.ComboPosition, store.ComboPositionKey]
	cat := db.cat.Load()
	wid, ok, err := db.walletID(ctx, p.User)
	if err != nil || !ok {
		return none, err
	}
	w := &where{}
	w.add("c.wid = ?", wid)
	if len(p.Conditions) > 0 {
		mids := cat.mids(p.Conditions)
		if len(mids) == 0 {
			return none, nil
		}
		w.in("c.mid", mids)
	}
	if p.UpdatedAfter != 0 {
		w.add("c.updated_at >= ?", p.UpdatedAfter)
	}
	if p.UpdatedBefore != 0 {
		w.add("c.updated_at <= ?", p.UpdatedBefore)
	}
	sortBy := p.SortBy
	if sortBy == "" {
		sortBy = "FIRST_ENTRY"
		if len(p.Statuses) == 1 && p.Statuses[0] == store.StatusRedeemable {
			sortBy = "ENTRY_COST"
		}
	}
	rows, err := db.r.QueryContext(ctx, `SELECT c.tid, c.mid, c.size, c.cost, c.fees, c.avg, c.payout, c.first_at,
		c.updated_at, w.address FROM combo_positions c JOIN wallets w ON w.wid = c.wid WHERE `+w.sql(), w.args...)
	if err != nil {
		return none, err
	}
	defer rows.Close()
	type row struct {
		pos store.ComboPosition
		key store.ComboPositionKey
	}
	var sel []row
	for rows.Next() {
		var tid, mid, firstAt, updatedAt int64
		var size, cost, fees, avg, payout amount.Micro
		var addr string
		if err := rows.Scan(&tid, &mid, &size, &cost, &fees, &avg, &payout, &firstAt, &updatedAt, &addr); err != nil {
			return none, err
		}
		m, t := cat.byMid[mid], cat.byTid[tid]
		if m == nil || t == nil {
			continue
		}
		st := cat.comboState(m)
		status, redeemable := comboStatus(st, t.idx, size)
		if !comboSelected(p.Statuses, status, redeemable, size, st) {
			continue
		}
		r := row{pos: store.ComboPosition{ComboConditionID: m.conditionID, OutcomeIndex: t.idx,
			OutcomeLabel: t.outcome, ComboPositionID: t.tokenID, ProxyWallet: addr, CurrentSize: size,
			EntryAvgPriceUSDC: avg, EntryCostUSDC: cost, GrossEntryCostUSDC: cost + fees, EntryFeesUSDC: fees,
			RealizedPayoutUSDC: payout, Status: status, Redeemable: redeemable, LegsTotal: len(m.legs),
			LegsResolved: st.legsResolved, LegsPending: len(m.legs) - st.legsResolved, Legs: cat.legs(m),
			UpdatedAt: rfc3339(updatedAt), UpdatedAtMicros: updatedAt * 1_000_000}}
		if firstAt != 0 {
			r.pos.FirstEntryAt = rfc3339(firstAt)
			micros := firstAt * 1_000_000
			r.pos.FirstEntryAtMicros = &micros
		}
		if st.resolved {
			at := rfc3339(st.resolvedAt)
			r.pos.ResolvedAt = &at
		}
		r.key = store.ComboPositionKey{ComboConditionID: m.conditionID, OutcomeIndex: t.idx}
		switch sortBy {
		case "ENTRY_COST", "CURRENT_VALUE":
			r.key.Value = int64(cost)
		case "UPDATED":
			r.key.Value = updatedAt * 1_000_000
		default:
			r.key.Value = firstAt * 1_000_000
		}
		if p.After == nil || compareComboKeys(r.key, *p.After, p.Ascending) > 0 {
			sel = append(sel, r)
		}
	}
	if err := rows.Err(); err != nil {
		return none, err
	}
	sort.Slice(sel, func(i, j int) bool { return compareComboKeys(sel[i].key, sel[j].key, p.Ascending) < 0 })
	if len(sel) > p.Limit+1 {
		sel = sel[:p.Limit+1]
	}
	out := make([]store.ComboPosition, len(sel))
	keys := make([]store.ComboPositionKey, len(sel))
	for i, r := range sel {
		out[i], keys[i] = r.pos, r.key
	}
	return pageOf(out, keys, p.Limit), nil
}

// comboStatus classifies a combo holding (see docs/store.md).
func comboStatus(st comboOutcome, idx int, size amount.Micro) (string, bool) {
	if !st.resolved {
		return store.StatusOpen, false
	}
	pay := st.payoff(idx)
	switch {
	case pay == 0:
		return "RESOLVED_LOSS", false
	case size > 0:
		return store.StatusRedeemable, true
	case pay == amount.One:
		return "RESOLVED_WIN", false
	}
	return "RESOLVED_PARTIAL", false
}

// comboSelected applies the status filter: none = held rows; REDEEMABLE =
// redeemable rows; OPEN = held rows not terminally settled (incl. still-held
// redeemable); PARTIAL = open rows with some legs resolved; others match the
// row status.
func comboSelected(statuses []string, status string, redeemable bool, size amount.Micro, st comboOutcome) bool {
	if len(statuses) == 0 {
		return size > 0
	}
	for _, s := range statuses {
		switch s {
		case store.StatusRedeemable:
			if redeemable {
				return true
			}
		case store.StatusOpen:
			if size > 0 && (status == store.StatusOpen || redeemable) {
				return true
			}
		case "PARTIAL":
			if status == store.StatusOpen && st.legsResolved > 0 {
				return true
			}
		default:
			if s == status {
				return true
			}
		}
	}
	return false
}

func compareComboKeys(a, b store.ComboPositionKey, asc bool) int {
	c := cmpInt(a.Value, b.Value)
	if c == 0 {
		switch {
		case a.ComboConditionID < b.ComboConditionID:
			c = -1
		case a.ComboConditionID > b.ComboConditionID:
			c = 1
		default:
			c = cmpInt(int64(a.OutcomeIndex), int64(b.OutcomeIndex))
		}
	}
	if !asc {
		c = -c
	}
	return c
}

// ComboActivity implements store.Store: newest (block, log index) first.
func (db *DB) ComboActivity(ctx context.Context, p store.ComboActivityParams) (store.Page[store.ComboActivity, store.ComboActivityKey], error) {
	var none store.Page[store.ComboActivity, store.ComboActivityKey]
	cat := db.cat.Load()
	wid, ok, err := db.walletID(ctx, p.User)
	if err != nil || !ok {
		return none, err
	}
	w := &where{}
	w.add("wid = ?", wid)
	if len(p.Conditions) > 0 {
		mids := cat.mids(p.Conditions)
		if len(mids) == 0 {
			return none, nil
		}
		w.in("mid", mids)
	}
	if p.After != nil {
		w.add("seq < ?", store.SequenceID(p.After.BlockNumber, p.After.LogIndex, 0))
	}
	rows, err := db.r.QueryContext(ctx, `SELECT block, log, ts, type, mid, tid, amount, payout, tx FROM combo_activity
		WHERE `+w.sql()+` ORDER BY seq DESC LIMIT `+strconv.Itoa(p.Limit+1), w.args...)
	if err != nil {
		return none, err
	}
	defer rows.Close()
	var out []store.ComboActivity
	var keys []store.ComboActivityKey
	for rows.Next() {
		var block, log, ts, mid, tid int64
		var typ, tx string
		var cash, payout sql.NullInt64
		if err := rows.Scan(&block, &log, &ts, &typ, &mid, &tid, &cash, &payout, &tx); err != nil {
			return none, err
		}
		r := store.ComboActivity{ID: tx + "-" + strconv.FormatInt(log, 10), Type: typ, ProxyWallet: p.User,
			BlockNumber: block, Timestamp: ts, TransactionHash: tx, Legs: []store.ComboLeg{}}
		if m := cat.byMid[mid]; m != nil {
			r.ComboConditionID, r.Legs = m.conditionID, cat.legs(m)
		}
		if t := cat.byTid[tid]; t != nil {
			r.ComboPositionID = t.tokenID
		}
		if cash.Valid {
			v := amount.Micro(cash.Int64)
			r.AmountUSDC = &v
		}
		if payout.Valid {
			v := amount.Micro(payout.Int64)
			r.PayoutUSDC = &v
		}
		out = append(out, r)
		keys = append(keys, store.ComboActivityKey{BlockNumber: block, LogIndex: log})
	}
	if err := rows.Err(); err != nil {
		return none, err
	}
	return pageOf(out, keys, p.Limit), nil
}
