package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"sort"

	"pmx/internal/amount"
	"pmx/internal/data/store"
)

// LiveVolume implements store.Markets from the catalog's cumulative taker
// volume (shares): every ordinary market of the events, largest first
// (condition id ascending on ties).
func (db *DB) LiveVolume(ctx context.Context, eventIDs []int64) (store.LiveVolume, error) {
	cat := db.cat.Load()
	out := store.LiveVolume{Conditions: []store.ConditionVolume{}}
	for _, id := range eventIDs {
		for _, m := range cat.byEvent[id] {
			out.Conditions = append(out.Conditions, store.ConditionVolume{ConditionID: m.conditionID, TakerVolume: m.volume})
			out.TakerVolumeTotal += m.volume
		}
	}
	sort.Slice(out.Conditions, func(i, j int) bool {
		a, b := out.Conditions[i], out.Conditions[j]
		if a.TakerVolume != b.TakerVolume {
			return a.TakerVolume > b.TakerVolume
		}
		return a.ConditionID < b.ConditionID
	})
	return out, nil
}

// PriceTicks implements store.Markets from the generation's tick cache
// (filled through the trades_token index). The ticks returned are read-only.
func (db *DB) PriceTicks(ctx context.Context, p store.PriceTicksParams) (store.PriceTicks, error) {
	cat := db.cat.Load()
	var out store.PriceTicks
	t := cat.byToken[p.TokenID]
	if t == nil || t.mid == 0 {
		return out, nil
	}
	m := cat.byMid[t.mid]
	if m == nil || m.isCombo {
		return out, nil
	}
	if m.resolved && t.idx < len(m.payouts) {
		out.Resolved, out.Payout, out.ResolvedAt = true, m.payouts[t.idx], m.resolvedAt
	}
	// The complement of a two-outcome market marks this token at 1 − p
	// (the store's mark rule), so its fills are this token's ticks too.
	var comp int64 = -1
	if len(m.tokens) == 2 && t.idx < 2 && m.tokens[1-t.idx] != nil {
		comp = m.tokens[1-t.idx].tid
	}
	all, err := db.tokenTicks(ctx, cat, t, comp)
	if err != nil {
		return out, err
	}
	out.Ticks = window(all, p.From, p.To)
	if p.Last && len(out.Ticks) > 0 {
		out.Ticks = out.Ticks[len(out.Ticks)-1:]
	}
	return out, nil
}

// Resolutions implements store.Markets. ResolvedBlock is the block of the
// last fill at or before the resolution time: the ledger's resolution is an
// off-chain event and carries no block of its own.
func (db *DB) Resolutions(ctx context.Context, conditions []string, eventIDs []int64) ([]store.MarketResolution, error) {
	cat := db.cat.Load()
	var ms []*market
	if conditions != nil {
		for _, c := range conditions {
			if m := cat.byCond[c]; m != nil && !m.isCombo {
				ms = append(ms, m)
			}
		}
	} else {
		for _, id := range eventIDs {
			ev := append([]*market(nil), cat.byEvent[id]...)
			sort.Slice(ev, func(i, j int) bool { return ev[i].mid < ev[j].mid })
			ms = append(ms, ev...)
		}
	}
	out := make([]store.MarketResolution, 0, len(ms))
	for _, m := range ms {
		r := store.MarketResolution{ConditionID: m.conditionID, Resolved: m.resolved, EndDate: m.endDate,
			LastTradeAt: m.lastTradeAt}
		if m.resolved {
			r.Payouts, r.ResolvedAt = m.payouts, m.resolvedAt
			var seq int64
			err := db.r.QueryRowContext(ctx, `SELECT seq FROM activity WHERE type = 0 AND taker = 1 AND ts <= ?
				ORDER BY ts DESC LIMIT 1`, m.resolvedAt).Scan(&seq)
			if err != nil && !errors.Is(err, sql.ErrNoRows) {
				return nil, err
			}
			r.ResolvedBlock = seq / store.SequenceID(1, 0, 0) // the block of a sequence id
		}
		out = append(out, r)
	}
	return out, nil
}

// Tokens implements store.Markets from the catalog.
func (db *DB) Tokens(ctx context.Context, tokenIDs, conditions []string) ([]store.TokenInfo, error) {
	cat := db.cat.Load()
	out := []store.TokenInfo{}
	if tokenIDs != nil {
		for _, id := range tokenIDs {
			if t := cat.byToken[id]; t != nil && cat.byMid[t.mid] != nil {
				out = append(out, tokenInfo(cat, t))
			}
		}
		return out, nil
	}
	for _, c := range conditions {
		m := cat.byCond[c]
		if m == nil {
			continue
		}
		for _, t := range m.tokens {
			if t != nil {
				out = append(out, tokenInfo(cat, t))
			}
		}
	}
	return out, nil
}

func tokenInfo(cat *catalog, t *token) store.TokenInfo {
	m := cat.byMid[t.mid]
	str := func(s string) *string { return &s }
	idx := t.idx
	ti := store.TokenInfo{TokenID: t.tokenID, ConditionID: m.conditionID, Module: "v1_ctf", OutcomeIndex: idx,
		ClobIndex: &idx, Outcome: str(t.outcome), Resolved: m.resolved, Title: str(m.question),
		MarketSlug: str(m.slug), Closed: &m.closed, NegRisk: &m.negRisk}
	if m.isCombo {
		ti.Module, ti.ClobIndex, ti.MarketSlug, ti.NegRisk = "combo", nil, nil, nil
		ti.StructuralConditionID = str(m.conditionID)
	} else {
		ev := m.eventID
		ti.EventID, ti.EventSlug = &ev, str(m.eventSlug)
	}
	if len(m.tokens) == 2 && t.idx < 2 && m.tokens[1-t.idx] != nil {
		ti.OppositeTokenID = str(m.tokens[1-t.idx].tokenID)
	}
	if m.resolved && t.idx < len(m.payouts) {
		p := m.payouts[t.idx]
		ti.FinalPrice = &p
	}
	return ti
}

// AccountingSnapshot implements store.Markets: every market position the
// wallet has a row for (any status), ordered by condition id and outcome,
// and its daily observations.
func (db *DB) AccountingSnapshot(ctx context.Context, user string) (store.AccountingSnapshot, bool, error) {
	var snap store.AccountingSnapshot
	wid, ok, err := db.walletID(ctx, user)
	if err != nil || !ok {
		return snap, false, err
	}
	cat := db.cat.Load()
	rows, err := db.r.QueryContext(ctx, `SELECT p.wid, p.tid, p.mid, p.size, p.cost, p.fees, p.avg, p.bought,
		p.realized, p.first_at, p.last_at, w.address, w.name, w.profile_image, w.verified
		FROM positions p JOIN wallets w ON w.wid = p.wid WHERE p.wid = ?`, wid)
	if err != nil {
		return snap, false, err
	}
	var all []*posRow
	for rows.Next() {
		r := &posRow{}
		if err := rows.Scan(&r.wid, &r.tid, &r.mid, &r.size, &r.cost, &r.fees, &r.avg, &r.bought, &r.realized,
			&r.firstAt, &r.lastAt, &r.addr, &r.name, &r.image, &r.verified); err != nil {
			rows.Close()
			return snap, false, err
		}
		r.m, r.t = cat.byMid[r.mid], cat.byTid[r.tid]
		if r.t != nil {
			r.mark = cat.mark(r.t)
		}
		r.value = amount.Mul(r.size, r.mark)
		r.unreal = r.value - r.cost
		all = append(all, r)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return snap, false, err
	}
	live := map[int64]int{} // tokens held above dust per unresolved market
	for _, r := range all {
		if r.size >= store.DustShares && r.m != nil && !r.m.resolved {
			live[r.mid]++
		}
	}
	for _, r := range all {
		snap.Positions = append(snap.Positions, positionRow(cat, r, store.DustShares, live[r.mid]))
	}
	sort.Slice(snap.Positions, func(i, j int) bool {
		a, b := &snap.Positions[i], &snap.Positions[j]
		if a.ConditionID != b.ConditionID {
			return a.ConditionID < b.ConditionID
		}
		if a.OutcomeIndex != b.OutcomeIndex {
			return a.OutcomeIndex < b.OutcomeIndex
		}
		return cmpDecimal(a.TokenID, b.TokenID) < 0
	})
	obsRows, err := db.r.QueryContext(ctx, `SELECT `+obsCols+` FROM pnl_obs WHERE wid = ? ORDER BY day`, wid)
	if err != nil {
		return snap, false, err
	}
	defer obsRows.Close()
	for obsRows.Next() {
		var o obs
		if err := obsRows.Scan(o.dest()...); err != nil {
			return snap, false, err
		}
		snap.Equity = append(snap.Equity, store.EquityPoint{Day: o.day, Timestamp: o.ts, Block: o.block,
			Deposits: o.deposits, Withdrawals: o.withdrawals, RealizedPnL: o.realizedMarket + o.realizedCombo,
			UnrealizedPnL: o.unrealized, Income: o.makerRebate + o.takerRebate + o.reward + o.yield + o.referral,
			Fees: o.fees, Volume: o.volume, VolumeUSDC: o.volumeUSDC, TradeCount: o.tradeCount})
	}
	return snap, true, obsRows.Err()
}
