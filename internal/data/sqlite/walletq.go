package sqlite

import (
	"context"
	"database/sql"
	"errors"

	"pmx/internal/amount"
	"pmx/internal/data/store"
)

// obs is one pnl_obs row.
type obs struct {
	day, ts, block                            int64
	realizedMarket, realizedCombo, unrealized amount.Micro
	makerRebate, takerRebate, reward, yield   amount.Micro
	referral, deposits, withdrawals, fees     amount.Micro
	volume, volumeUSDC                        amount.Micro
	tradeCount                                int64
}

const obsCols = `day, ts, block, realized_market, realized_combo, unrealized, maker_rebate, taker_rebate, reward,
	yield, referral, deposits, withdrawals, fees, volume, volume_usdc, trade_count`

func (o *obs) dest() []any {
	return []any{&o.day, &o.ts, &o.block, &o.realizedMarket, &o.realizedCombo, &o.unrealized, &o.makerRebate,
		&o.takerRebate, &o.reward, &o.yield, &o.referral, &o.deposits, &o.withdrawals, &o.fees, &o.volume,
		&o.volumeUSDC, &o.tradeCount}
}

// point renders an observation as a §3.2 point at timestamp ts.
func (o *obs) point(ts int64) store.UserPnLPoint {
	p := func(v amount.Micro) *amount.Micro { return &v }
	realized := o.realizedMarket + o.realizedCombo
	income := o.makerRebate + o.takerRebate + o.reward + o.yield + o.referral
	positionPnL := realized + o.unrealized
	return store.UserPnLPoint{Timestamp: ts, SourceBlock: o.block, RealizedMarketPnL: o.realizedMarket,
		RealizedComboPnL: o.realizedCombo, UnrealizedPnL: p(o.unrealized), FeesRefunded: p(0),
		MakerRebate: p(o.makerRebate), TakerRebate: p(o.takerRebate), RewardIncome: p(o.reward),
		YieldIncome: p(o.yield), ReferralIncome: p(o.referral), Deposits: p(o.deposits),
		Withdrawals: p(o.withdrawals), RealizedPnL: realized, WalletIncome: p(income), PositionPnL: p(positionPnL),
		SettledPnL: p(realized + income), EconomicPnL: p(positionPnL + income), TradePnL: p(positionPnL + o.fees),
		SponsoredIncome: p(o.reward + o.yield + o.referral), Fees: p(-o.fees), FeesPaid: p(-o.fees),
		CashflowNet: p(o.deposits - o.withdrawals), Volume: o.volume, VolumeUSDC: o.volumeUSDC,
		TradeCount: o.tradeCount}
}

var intervals = map[string]int64{"1d": 86400, "12h": 43200, "6h": 21600, "1w": 7 * 86400, "1m": 30 * 86400}
var fidelities = map[string]int64{"1d": 86400, "18h": 64800, "12h": 43200, "3h": 10800, "1h": 3600}

// maxPoints bounds a max/all series on a fine grid (the oldest points go).
const maxPoints = 10_000

// UserPnL implements store.Store. The grid ends at now floored to the
// fidelity step and covers the interval (max/all: from the wallet's first
// observation); each point carries the newest observation at or before it,
// zeros before the first.
func (db *DB) UserPnL(ctx context.Context, p store.UserPnLParams) (store.UserPnLSeries, error) {
	interval, fidelity := p.Interval, p.Fidelity
	if interval == "" {
		interval = "1d"
	}
	if fidelity == "" {
		fidelity = "1h"
	}
	s := store.UserPnLSeries{ProxyWallet: p.User, Interval: interval, Fidelity: fidelity, SourceFidelity: "1d",
		Points: []store.UserPnLPoint{}}
	step := fidelities[fidelity]
	if step == 0 {
		step = 3600
	}
	last := p.Now - p.Now%step
	wid, ok, err := db.walletID(ctx, p.User)
	if err != nil || !ok {
		return s, err
	}
	rows, err := db.r.QueryContext(ctx, `SELECT `+obsCols+` FROM pnl_obs WHERE wid = ? AND ts <= ? ORDER BY day`, wid, last)
	if err != nil {
		return s, err
	}
	defer rows.Close()
	var all []obs
	for rows.Next() {
		var o obs
		if err := rows.Scan(o.dest()...); err != nil {
			return s, err
		}
		all = append(all, o)
	}
	if err := rows.Err(); err != nil {
		return s, err
	}
	var first int64
	if span, ok := intervals[interval]; ok {
		first = last - max(span/step-1, 0)*step
	} else if len(all) > 0 {
		first = all[0].ts - all[0].ts%step
	} else {
		first = last
	}
	if (last-first)/step+1 > maxPoints {
		first = last - (maxPoints-1)*step
	}
	var zero obs
	j := -1
	for t := first; t <= last; t += step {
		for j+1 < len(all) && all[j+1].ts <= t {
			j++
		}
		o := &zero
		if j >= 0 {
			o = &all[j]
		}
		s.Points = append(s.Points, o.point(t))
	}
	return s, nil
}

// UserStats implements store.Store.
func (db *DB) UserStats(ctx context.Context, user string) (*store.UserStats, error) {
	var wid, traded, views, joined, firstSeen int64
	var win amount.Micro
	err := db.r.QueryRowContext(ctx, `SELECT wid, markets_traded, biggest_win, views, joined_at, first_seen
		FROM wallets WHERE address = ?`, user).Scan(&wid, &traded, &win, &views, &joined, &firstSeen)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	st := &store.UserStats{ProxyWallet: user, Trades: traded, Views: views}
	if win > amount.One {
		st.BiggestWin = win
	}
	if joined == 0 {
		joined = firstSeen
	}
	if joined != 0 {
		st.JoinDate = &joined
	}
	var o obs
	err = db.r.QueryRowContext(ctx, `SELECT `+obsCols+` FROM pnl_obs WHERE wid = ? ORDER BY day DESC LIMIT 1`, wid).
		Scan(o.dest()...)
	switch {
	case errors.Is(err, sql.ErrNoRows):
	case err != nil:
		return nil, err
	default:
		pt := o.point(o.ts)
		st.AllTimePnL = &pt
	}
	return st, nil
}

// UserVolume implements store.Store: the difference of the cumulative
// counters across the whole-UTC-day window.
func (db *DB) UserVolume(ctx context.Context, p store.UserVolumeParams) (store.UserVolume, error) {
	var v store.UserVolume
	// Inverted means the end's UTC day precedes the start's: both bounds are
	// floored to their day first (datatests fix: start=12:00, end=00:03 of
	// the same day is that whole day, not an inverted window).
	if p.Start != 0 && p.End != 0 && store.DayFloor(p.Start) > store.DayFloor(p.End) {
		return v, nil
	}
	wid, ok, err := db.walletID(ctx, p.User)
	if err != nil || !ok {
		return v, err
	}
	at := func(cond string, arg int64) (amount.Micro, amount.Micro, int64, error) {
		var vol, usdc amount.Micro
		var n int64
		err := db.r.QueryRowContext(ctx, `SELECT volume, volume_usdc, trade_count FROM pnl_obs WHERE wid = ? AND `+
			cond+` ORDER BY day DESC LIMIT 1`, wid, arg).Scan(&vol, &usdc, &n)
		if errors.Is(err, sql.ErrNoRows) {
			err = nil
		}
		return vol, usdc, n, err
	}
	end := int64(1) << 62
	if p.End != 0 {
		end = store.DayFloor(p.End)
	}
	vol, usdc, n, err := at("day <= ?", end)
	if err != nil {
		return v, err
	}
	if p.Start != 0 {
		v0, u0, n0, err := at("day < ?", store.DayFloor(p.Start))
		if err != nil {
			return v, err
		}
		vol, usdc, n = vol-v0, usdc-u0, n-n0
	}
	return store.UserVolume{Volume: vol, VolumeUSDC: usdc, TradeCount: n}, nil
}

// Watermark implements store.Store.
func (db *DB) Watermark(ctx context.Context) (store.Watermark, error) {
	var w store.Watermark
	err := db.r.QueryRowContext(ctx, `SELECT last_block, last_ts, applied, applied_at FROM ingest WHERE id = 1`).
		Scan(&w.LastBlock, &w.LastTimestamp, &w.Applied, &w.AppliedAt)
	return w, err
}
