package sqlite

import (
	"database/sql"
	"errors"

	"pmx/internal/amount"
)

// counters are a wallet's cumulative PnL and volume figures (§3.2 atoms).
type counters struct {
	realizedMarket amount.Micro
	realizedCombo  amount.Micro
	makerRebate    amount.Micro
	takerRebate    amount.Micro
	reward         amount.Micro
	yield          amount.Micro
	referral       amount.Micro
	deposits       amount.Micro
	withdrawals    amount.Micro
	fees           amount.Micro // charged, positive
	volume         amount.Micro
	volumeUSDC     amount.Micro
	tradeCount     int64
}

// wallet is Apply's working copy of one wallet: profile, aggregates and every
// position (loaded whole on first touch, so aggregates over the wallet's
// positions need no query).
type wallet struct {
	wid           int64
	addr          string
	name          string
	pseudonym     string
	bio           string
	image         string
	verified      bool
	joinedAt      int64
	views         int64
	firstSeen     int64
	lastBlock     int64
	marketsTraded int64
	biggestWin    amount.Micro
	c             counters

	pos    map[int64]*position // by token tid
	list   []*position         // the same positions, for fast iteration
	traded map[int64]bool      // markets with a traded position
	combos map[int64]*position // by combo token tid
	obsTs  int64               // last event time in the current observation day
	dirty  bool
}

func (w *wallet) position(tid, mid int64) *position {
	p := w.pos[tid]
	if p == nil {
		p = &position{tid: tid, mid: mid}
		w.pos[tid] = p
		w.list = append(w.list, p)
	}
	return p
}

func newWallet() *wallet {
	return &wallet{pos: map[int64]*position{}, combos: map[int64]*position{}, traded: map[int64]bool{}}
}

func (w *wallet) combo(tid, mid int64) *position {
	p := w.combos[tid]
	if p == nil {
		p = &position{tid: tid, mid: mid}
		w.combos[tid] = p
	}
	return p
}

const walletCols = `wid, address, name, pseudonym, bio, profile_image, verified, joined_at, views, first_seen,
	last_block, markets_traded, biggest_win, realized_market, realized_combo, maker_rebate, taker_rebate, reward,
	yield, referral, deposits, withdrawals, fees, volume, volume_usdc, trade_count`

func (w *wallet) scanDest() []any {
	return []any{&w.wid, &w.addr, &w.name, &w.pseudonym, &w.bio, &w.image, &w.verified, &w.joinedAt, &w.views,
		&w.firstSeen, &w.lastBlock, &w.marketsTraded, &w.biggestWin, &w.c.realizedMarket, &w.c.realizedCombo,
		&w.c.makerRebate, &w.c.takerRebate, &w.c.reward, &w.c.yield, &w.c.referral, &w.c.deposits,
		&w.c.withdrawals, &w.c.fees, &w.c.volume, &w.c.volumeUSDC, &w.c.tradeCount}
}

func (w *wallet) values() []any {
	return []any{w.wid, w.addr, w.name, w.pseudonym, w.bio, w.image, w.verified, w.joinedAt, w.views,
		w.firstSeen, w.lastBlock, w.marketsTraded, w.biggestWin, w.c.realizedMarket, w.c.realizedCombo,
		w.c.makerRebate, w.c.takerRebate, w.c.reward, w.c.yield, w.c.referral, w.c.deposits,
		w.c.withdrawals, w.c.fees, w.c.volume, w.c.volumeUSDC, w.c.tradeCount}
}

// loadWallet reads a wallet and all its positions; ok is false when unknown.
func (a *applier) loadWallet(addr string) (*wallet, bool, error) {
	w := newWallet()
	err := a.queryRow(`SELECT `+walletCols+` FROM wallets WHERE address = ?`, addr).Scan(w.scanDest()...)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	rows, err := a.query(`SELECT tid, mid, size, cost, fees, avg, bought, realized, first_at, last_at, traded
		FROM positions WHERE wid = ?`, w.wid)
	if err != nil {
		return nil, false, err
	}
	for rows.Next() {
		p := &position{}
		if err := rows.Scan(&p.tid, &p.mid, &p.size, &p.cost, &p.fees, &p.avg, &p.bought, &p.realized,
			&p.firstAt, &p.lastAt, &p.traded); err != nil {
			rows.Close()
			return nil, false, err
		}
		w.pos[p.tid] = p
		w.list = append(w.list, p)
		if p.traded {
			w.traded[p.mid] = true
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, false, err
	}
	rows, err = a.query(`SELECT tid, mid, size, cost, fees, avg, payout, realized, first_at, updated_at
		FROM combo_positions WHERE wid = ?`, w.wid)
	if err != nil {
		return nil, false, err
	}
	defer rows.Close()
	for rows.Next() {
		p := &position{}
		if err := rows.Scan(&p.tid, &p.mid, &p.size, &p.cost, &p.fees, &p.avg, &p.payout, &p.realized,
			&p.firstAt, &p.lastAt); err != nil {
			return nil, false, err
		}
		w.combos[p.tid] = p
	}
	return w, true, rows.Err()
}
