package sqlite

import (
	"context"

	"pmx/internal/amount"
)

// walletNow is a wallet's cumulative figures now, shared by every window's
// board of one data generation.
type walletNow struct {
	realized amount.Micro // market + combo
	income   amount.Micro // rebates, rewards, yield, referral
	economic amount.Micro // realized + unrealized at current marks + income
	volume   amount.Micro
	open     []openPos // positions held now
}

type openPos struct {
	tid        int64
	size, cost amount.Micro
}

func (db *DB) walletsNow(ctx context.Context, cat *catalog) (map[int64]walletNow, error) {
	out := map[int64]walletNow{}
	q, err := db.r.QueryContext(ctx, `SELECT wid, realized_market + realized_combo,
		maker_rebate + taker_rebate + reward + yield + referral, volume FROM wallets`)
	if err != nil {
		return nil, err
	}
	for q.Next() {
		var wid int64
		var w walletNow
		if err := q.Scan(&wid, &w.realized, &w.income, &w.volume); err != nil {
			q.Close()
			return nil, err
		}
		w.economic = w.realized + w.income
		out[wid] = w
	}
	q.Close()
	if err := q.Err(); err != nil {
		return nil, err
	}
	q, err = db.r.QueryContext(ctx, `SELECT wid, tid, size, cost FROM positions WHERE size > 0`)
	if err != nil {
		return nil, err
	}
	defer q.Close()
	for q.Next() {
		var wid, tid int64
		var size, cost amount.Micro
		if err := q.Scan(&wid, &tid, &size, &cost); err != nil {
			return nil, err
		}
		if w, ok := out[wid]; ok {
			if t := cat.byTid[tid]; t != nil {
				w.economic += amount.Mul(size, cat.mark(t)) - cost
				w.open = append(w.open, openPos{tid, size, cost})
				out[wid] = w
			}
		}
	}
	return out, q.Err()
}

// marksAt is every token's mark as of ts (the rule of docs/store.md applied
// to the fills and resolutions before ts): the payout if its market resolved
// at or before ts, else its last fill's price before ts, or 1 − the other
// outcome's in a two-outcome market if that was later; 0 if never traded.
// One backward walk of the market's taker fills per market (index
// trades_market), stopping once every outcome is priced.
func (db *DB) marksAt(ctx context.Context, cat *catalog, ts int64) (map[int64]amount.Micro, error) {
	out := map[int64]amount.Micro{}
	for _, m := range cat.byMid {
		if m.isCombo || len(m.tokens) == 0 {
			continue
		}
		if m.resolved && m.resolvedAt <= ts {
			for i, t := range m.tokens {
				if t != nil && i < len(m.payouts) {
					out[t.tid] = m.payouts[i]
				}
			}
			continue
		}
		if err := db.lastPrices(ctx, m, ts, out); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func (db *DB) lastPrices(ctx context.Context, m *market, ts int64, out map[int64]amount.Micro) error {
	q, err := db.r.QueryContext(ctx, `SELECT tid, price FROM activity WHERE mid = ? AND type = 0 AND taker = 1 AND ts < ?
		ORDER BY ts DESC, seq DESC`, m.mid, ts)
	if err != nil {
		return err
	}
	defer q.Close()
	priced := 0
	for q.Next() && priced < len(m.tokens) {
		var tid int64
		var price amount.Micro
		if err := q.Scan(&tid, &price); err != nil {
			return err
		}
		if len(m.tokens) == 2 { // the latest fill prices both outcomes
			for _, t := range m.tokens {
				if t != nil {
					out[t.tid] = price
					if t.tid != tid {
						out[t.tid] = amount.One - price
					}
				}
			}
			return nil
		}
		if _, ok := out[tid]; !ok {
			out[tid] = price
			priced++
		}
	}
	return q.Err()
}
