package sqlite

import (
	"fmt"
	"strings"

	"pmx/internal/amount"
	"pmx/internal/ledger"
	"pmx/internal/store"
)

func seqOf(e *ledger.Event) int64 { return store.SequenceID(e.BlockNumber, e.LogIndex, 0) }

func dupErr(err error, e *ledger.Event) error {
	if err != nil && strings.Contains(err.Error(), "UNIQUE") {
		return fmt.Errorf("%w: block %d log %d", store.ErrDuplicate, e.BlockNumber, e.LogIndex)
	}
	return err
}

// advanceDay closes the current observation day when an event of a later UTC
// day arrives. Events are expected in timestamp order; an earlier event is
// accounted in the current day's observation.
func (a *applier) advanceDay(ts int64) error {
	d := store.DayFloor(ts)
	if d <= a.day {
		return nil
	}
	if a.day != 0 {
		if err := a.flushDay(); err != nil {
			return err
		}
	}
	a.day = d
	return nil
}

// flushDay writes one cumulative observation per wallet touched in the
// current day, with unrealized PnL marked at the marks of that moment.
func (a *applier) flushDay() error {
	for w := range a.touched {
		var unreal amount.Micro
		for _, p := range w.pos {
			if p.size > 0 {
				unreal += amount.Mul(p.size, a.cat.mark(a.cat.byTid[p.tid])) - p.cost
			}
		}
		c := &w.c
		if _, err := a.insObs.ExecContext(a.ctx, w.wid, a.day, w.obsTs, w.lastBlock, c.realizedMarket,
			c.realizedCombo, unreal, c.makerRebate, c.takerRebate, c.reward, c.yield, c.referral, c.deposits,
			c.withdrawals, c.fees, c.volume, c.volumeUSDC, c.tradeCount); err != nil {
			return err
		}
	}
	clear(a.touched)
	return nil
}

// writeBack stores every dirty wallet, position, market, token and builder.
func (a *applier) writeBack() error {
	ctx, tx := a.ctx, a.tx
	insW, err := tx.PrepareContext(ctx, `INSERT OR REPLACE INTO wallets (`+walletCols+`)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
	if err != nil {
		return err
	}
	defer insW.Close()
	insP, err := tx.PrepareContext(ctx, `INSERT OR REPLACE INTO positions (wid, tid, mid, size, cost, fees, avg,
		bought, realized, first_at, last_at, traded) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
	if err != nil {
		return err
	}
	defer insP.Close()
	insC, err := tx.PrepareContext(ctx, `INSERT OR REPLACE INTO combo_positions (wid, tid, mid, size, cost, fees,
		avg, payout, realized, first_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
	if err != nil {
		return err
	}
	defer insC.Close()
	for _, w := range a.wallets {
		if w.dirty {
			if _, err := insW.ExecContext(ctx, w.values()...); err != nil {
				return err
			}
		}
		for _, p := range w.pos {
			if !p.dirty {
				continue
			}
			if _, err := insP.ExecContext(ctx, w.wid, p.tid, p.mid, p.size, p.cost, p.fees, p.avg, p.bought,
				p.realized, p.firstAt, p.lastAt, p.traded); err != nil {
				return err
			}
		}
		for _, p := range w.combos {
			if p.dirty {
				if _, err := insC.ExecContext(ctx, w.wid, p.tid, p.mid, p.size, p.cost, p.fees, p.avg, p.payout,
					p.realized, p.firstAt, p.lastAt); err != nil {
					return err
				}
			}
		}
	}
	for _, m := range a.cat.byMid {
		if !m.dirty {
			continue
		}
		payouts := ""
		if m.resolved {
			payouts = mustJSON(m.payouts)
		}
		legs := ""
		if m.isCombo {
			legs = mustJSON(m.legs)
		}
		if _, err := tx.ExecContext(ctx, `INSERT OR REPLACE INTO markets (mid, condition_id, market_id, question, slug,
			event_id, event_slug, event_title, category, neg_risk, end_date, icon, active, closed, archived, outcomes,
			is_combo, legs, resolved, payouts, resolved_at, volume, volume_usdc, last_trade_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			m.mid, m.conditionID, m.marketID, m.question, m.slug, m.eventID, m.eventSlug, m.eventTitle, m.category,
			m.negRisk, m.endDate, m.icon, m.active, m.closed, m.archived, mustJSON(m.outcomes), m.isCombo, legs,
			m.resolved, payouts, m.resolvedAt, m.volume, m.volumeUSDC, m.lastTradeAt); err != nil {
			return err
		}
		m.dirty = false
	}
	for _, t := range a.cat.byTid {
		if !t.dirty {
			continue
		}
		if _, err := tx.ExecContext(ctx, `INSERT OR REPLACE INTO tokens (tid, token_id, mid, idx, outcome, price, priced)
			VALUES (?, ?, ?, ?, ?, ?, ?)`, t.tid, t.tokenID, t.mid, t.idx, t.outcome, t.price, t.priced); err != nil {
			return err
		}
		t.dirty = false
	}
	for code, name := range a.builders {
		if _, err := tx.ExecContext(ctx, `INSERT OR REPLACE INTO builders (code, name) VALUES (?, ?)`, code, name); err != nil {
			return err
		}
	}
	return nil
}
