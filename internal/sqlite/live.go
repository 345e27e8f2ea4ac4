package sqlite

import (
	"context"
	"database/sql"

	"pmx/internal/amount"
	gamma "pmx/internal/catalog"
)

var _ gamma.LiveFields = (*DB)(nil)

// Live serves the catalog's live market fields from the data store, so the
// catalog never freezes them at import: volume (all-time USDC), 24-hour
// volume, the last trade price (outcome 0's mark), outcome prices (marks, or
// payouts once resolved) and open interest (outstanding complete sets: the
// supply of outcome 0, one USDC each). Liquidity and best bid/ask belong to
// the order book, not the ledger, and are left to the stored values.
func (db *DB) Live(ctx context.Context, conditionIDs []string) (map[string]gamma.Live, error) {
	cat := db.cat.Load()
	now := db.clock().Unix()
	out := make(map[string]gamma.Live, len(conditionIDs))
	for _, id := range conditionIDs {
		m := cat.byCond[id]
		if m == nil || m.isCombo || len(m.tokens) == 0 {
			continue
		}
		l := gamma.Live{}
		vol := m.volumeUSDC
		l.Volume = &vol
		var v24, oi sql.NullInt64
		if err := db.r.QueryRowContext(ctx,
			`SELECT SUM(usdc) FROM activity WHERE mid = ? AND ts >= ? AND type = 0 AND taker = 1`,
			m.mid, now-86400).Scan(&v24); err != nil {
			return nil, err
		}
		v := amount.Micro(v24.Int64)
		l.Volume24hr = &v
		if t0 := m.tokens[0]; t0 != nil {
			if err := db.r.QueryRowContext(ctx, `SELECT SUM(size) FROM positions WHERE tid = ? AND size > 0`, t0.tid).Scan(&oi); err != nil {
				return nil, err
			}
			o := amount.Micro(oi.Int64)
			l.OpenInterest = &o
			if t0.priced || m.resolved {
				p := cat.mark(t0)
				l.LastTradePrice = &p
			}
		}
		prices := make([]amount.Micro, len(m.tokens))
		known := m.resolved
		for i, t := range m.tokens {
			if t != nil {
				prices[i] = cat.mark(t)
				known = known || t.priced
			}
		}
		if known {
			l.OutcomePrices = prices
		}
		out[id] = l
	}
	return out, nil
}
