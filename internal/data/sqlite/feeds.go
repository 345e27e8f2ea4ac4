package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"slices"
	"strconv"

	"pmx/internal/amount"
	"pmx/internal/data/store"
)

const feedCols = `SELECT a.seq, a.ts, a.type, a.mid, a.tid, a.side, a.size, a.usdc, a.price, a.tx, `

// activitySelect joins each row's wallet (market and global feeds);
// walletFeedSelect leaves the profile to the caller, who knows the one wallet.
const (
	activitySelect   = feedCols + `w.address, w.name, w.pseudonym, w.bio, w.profile_image FROM activity a JOIN wallets w ON w.wid = a.wid WHERE `
	walletFeedSelect = feedCols + `'', '', '', '', '' FROM activity a WHERE `
)

// feedRow is one scanned activity row with its enrichment.
type feedRow struct {
	seq, ts, mid, tid  int64
	typ, side          int
	size, usdc, price  amount.Micro
	tx                 string
	addr, name, pseudo string
	bio, image         string
}

// feed runs an activity query ordered by (ts, seq) with keyset seeking and
// returns n rows at most.
func (db *DB) feed(ctx context.Context, sel string, w *where, win store.Window, asc bool, after *store.FeedKey, n int) ([]feedRow, error) {
	lo, hi := win.Start, win.End
	if hi == 0 {
		hi = 1<<63 - 1
	}
	if after != nil {
		if asc {
			lo = max(lo, after.Timestamp)
			w.add("(a.ts > ? OR a.seq > ?)", after.Timestamp, after.Seq)
		} else {
			hi = min(hi, after.Timestamp)
			w.add("(a.ts < ? OR a.seq < ?)", after.Timestamp, after.Seq)
		}
	}
	w.add("a.ts >= ? AND a.ts <= ?", lo, hi)
	order := " ORDER BY a.ts DESC, a.seq DESC"
	if asc {
		order = " ORDER BY a.ts, a.seq"
	}
	return db.scanFeed(ctx, sel+w.sql()+order+" LIMIT "+strconv.Itoa(n), w.args...)
}

func (db *DB) scanFeed(ctx context.Context, q string, args ...any) ([]feedRow, error) {
	rows, err := db.r.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []feedRow
	for rows.Next() {
		var r feedRow
		if err := rows.Scan(&r.seq, &r.ts, &r.typ, &r.mid, &r.tid, &r.side, &r.size, &r.usdc, &r.price, &r.tx,
			&r.addr, &r.name, &r.pseudo, &r.bio, &r.image); err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// pageOf trims limit+1 scanned rows to a page; keys[i] is rows[i]'s seek key.
func pageOf[R, K any](rows []R, keys []K, limit int) store.Page[R, K] {
	p := store.Page[R, K]{Rows: rows}
	if len(rows) > limit {
		p.Rows, p.HasMore = rows[:limit], true
		k := keys[limit-1]
		p.Next = &k
	}
	return p
}

// enrich fills the market columns shared by trades and activity.
type enrichment struct {
	cond, token, title, slug, icon, eventSlug, outcome string
	idx                                                int
	combo                                              bool
}

func (c *catalog) enrich(mid, tid int64) enrichment {
	e := enrichment{idx: store.NoOutcome}
	if m := c.byMid[mid]; m != nil {
		e.cond, e.title, e.slug, e.icon, e.eventSlug, e.combo = m.conditionID, m.question, m.slug, m.icon, m.eventSlug, m.isCombo
	}
	if t := c.byTid[tid]; t != nil {
		e.token, e.outcome, e.idx = t.tokenID, t.outcome, outcomeIndex(t)
	}
	return e
}

// tradesSQL is Trades through SQL (hot_feeds.go serves the hot shapes). The wallet shape reads the wallet index
// (maker and taker rows alike). The market and global shapes read taker rows
// through the partial trade indexes; with IncludeMaker each taker row brings
// its maker row (seq + 1, same timestamp, just before it in DESC order).
func (db *DB) tradesSQL(ctx context.Context, p store.TradesParams) (store.Page[store.Trade, store.FeedKey], error) {
	var none store.Page[store.Trade, store.FeedKey]
	cat := db.cat.Load()
	w := &where{}
	w.add("a.type = 0")
	var win store.Window
	var mids []int64
	if len(p.Conditions) > 0 {
		if mids = cat.mids(p.Conditions); len(mids) == 0 {
			return none, nil
		}
	}
	min := p.FilterAmount
	if min <= 0 {
		min = store.DefaultTradeFilter
	}
	if p.FilterType == store.FilterCash {
		w.add("a.usdc >= ?", min)
	} else {
		w.add("a.size >= ?", min)
	}
	var rows []feedRow
	var err error
	if p.User != "" {
		wp, ok, err := db.walletProfile(ctx, p.User)
		if err != nil || !ok {
			return none, err
		}
		w.add("a.wid = ?", wp.wid)
		if mids != nil {
			w.in("a.mid", mids)
		}
		if len(p.EventIDs) > 0 {
			w.in("a.eid", p.EventIDs)
		}
		if p.IncludeMaker {
			w.add("a.taker IN (0, 1)")
		} else {
			w.add("a.taker = 1")
		}
		if p.Side != "" {
			w.add("a.side = ?", sideCode(p.Side))
		}
		rows, err = db.feed(ctx, walletFeedSelect, w, p.Window, false, p.After, p.Limit+1)
		wp.fill(rows)
	} else {
		win = store.GlobalFeedWindow(p.Now)
		if mids != nil || len(p.EventIDs) > 0 {
			// condition and event_id together select markets in both.
			win = store.MarketFeedWindow(p.Now)
			if len(p.EventIDs) > 0 {
				var ev []int64
				for _, id := range p.EventIDs {
					for _, m := range cat.byEvent[id] {
						if mids == nil || slices.Contains(mids, m.mid) {
							ev = append(ev, m.mid)
						}
					}
				}
				mids = ev
			}
			if len(mids) == 0 {
				return none, nil
			}
			w.in("a.mid", mids)
		}
		w.add("a.taker = 1")
		if !p.IncludeMaker {
			if p.Side != "" {
				w.add("a.side = ?", sideCode(p.Side))
			}
			rows, err = db.feed(ctx, activitySelect, w, win, false, p.After, p.Limit+1)
		} else {
			// Each taker row yields at least one row, except possibly the
			// first (its maker may be the seek key itself): read one more.
			if rows, err = db.feed(ctx, activitySelect, w, win, false, p.After, p.Limit+2); err == nil {
				rows, err = db.withMakers(ctx, rows, p.After, sideCode(p.Side), p.Limit+1)
			}
		}
	}
	if err != nil {
		return none, err
	}
	return pageOf(tradeRows(cat, rows), feedKeys(rows), p.Limit), nil
}

func tradeRows(cat enricher, rows []feedRow) []store.Trade {
	out := make([]store.Trade, len(rows))
	for i, r := range rows {
		e := cat.enrich(r.mid, r.tid)
		out[i] = store.Trade{ProxyWallet: r.addr, Side: sideNames[r.side], TokenID: e.token, ConditionID: e.cond,
			Size: r.size, Price: r.price, Timestamp: r.ts, Title: e.title, Slug: e.slug, Icon: e.icon,
			EventSlug: e.eventSlug, Outcome: e.outcome, OutcomeIndex: e.idx, Name: r.name, Pseudonym: r.pseudo,
			Bio: r.bio, ProfileImage: r.image, TransactionHash: r.tx}
	}
	return out
}

// withMakers interleaves each taker row with its maker row (DESC order:
// maker first), keeps rows strictly after the seek key and of the wanted side
// (sideNone = any), and returns at most n.
func (db *DB) withMakers(ctx context.Context, takers []feedRow, after *store.FeedKey, side, n int) ([]feedRow, error) {
	if len(takers) == 0 {
		return nil, nil
	}
	seqs := make([]int64, len(takers))
	for i, r := range takers {
		seqs[i] = r.seq + 1
	}
	w := &where{}
	w.in("a.seq", seqs)
	makers, err := db.scanFeed(ctx, activitySelect+w.sql())
	if err != nil {
		return nil, err
	}
	bySeq := make(map[int64]feedRow, len(makers))
	for _, r := range makers {
		bySeq[r.seq] = r
	}
	out := make([]feedRow, 0, n)
	keep := func(r feedRow) {
		if len(out) < n && (side == sideNone || r.side == side) &&
			(after == nil || r.ts < after.Timestamp || (r.ts == after.Timestamp && r.seq < after.Seq)) {
			out = append(out, r)
		}
	}
	for _, t := range takers {
		if mk, ok := bySeq[t.seq+1]; ok {
			keep(mk)
		}
		keep(t)
	}
	return out, nil
}

func feedKeys(rows []feedRow) []store.FeedKey {
	keys := make([]store.FeedKey, len(rows))
	for i, r := range rows {
		keys[i] = store.FeedKey{Timestamp: r.ts, Seq: r.seq}
	}
	return keys
}

func sideCode(s string) int {
	switch s {
	case "BUY":
		return sideBuy
	case "SELL":
		return sideSell
	}
	return sideNone
}

// activitySQL is Activity through SQL (hot_feeds.go serves the hot shapes).
func (db *DB) activitySQL(ctx context.Context, p store.ActivityParams) (store.Page[store.Activity, store.FeedKey], error) {
	var none store.Page[store.Activity, store.FeedKey]
	cat := db.cat.Load()
	wp, ok, err := db.walletProfile(ctx, p.User)
	if err != nil || !ok {
		return none, err
	}
	w := &where{}
	w.add("a.wid = ?", wp.wid)
	types := activityTypeCodes(p.Types, p.IncludeDepositsWithdrawals)
	if len(types) == 0 {
		return none, nil
	}
	if len(types) < len(store.ActivityTypes) {
		w.in("a.type", types)
	}
	if len(p.Conditions) > 0 {
		mids := cat.mids(p.Conditions)
		if len(mids) == 0 {
			return none, nil
		}
		w.in("a.mid", mids)
	}
	if len(p.EventIDs) > 0 {
		w.in("a.eid", p.EventIDs)
	}
	if p.Side != "" {
		w.add("a.side = ?", sideCode(p.Side))
	}
	rows, err := db.feed(ctx, walletFeedSelect, w, p.Window, p.Ascending, p.After, p.Limit+1)
	if err != nil {
		return none, err
	}
	wp.fill(rows)
	return pageOf(activityRows(cat, rows), feedKeys(rows), p.Limit), nil
}

func activityRows(cat enricher, rows []feedRow) []store.Activity {
	out := make([]store.Activity, len(rows))
	for i, r := range rows {
		e := cat.enrich(r.mid, r.tid)
		out[i] = store.Activity{ProxyWallet: r.addr, Timestamp: r.ts, ConditionID: e.cond,
			Type: store.ActivityTypes[r.typ], Size: r.size, USDCSize: r.usdc, TransactionHash: r.tx, Price: r.price,
			TokenID: e.token, Side: sideNames[r.side], OutcomeIndex: e.idx, Title: e.title, Slug: e.slug,
			Icon: e.icon, EventSlug: e.eventSlug, Outcome: e.outcome, Name: r.name, Pseudonym: r.pseudo, Bio: r.bio,
			ProfileImage: r.image, BlockTimestamp: r.ts, SequenceID: r.seq, IsCombo: e.combo && r.typ == actTrade}
	}
	return out
}

// activityTypeCodes resolves the requested types: empty means every type but
// TIP; DEPOSIT and WITHDRAWAL are dropped unless included explicitly.
func activityTypeCodes(types []string, includeDW bool) []int64 {
	want := map[string]bool{}
	if len(types) == 0 {
		for _, t := range store.ActivityTypes {
			want[t] = t != store.ActTip
		}
	} else {
		for _, t := range types {
			want[t] = true
		}
	}
	if !includeDW {
		want[store.ActDeposit], want[store.ActWithdrawal] = false, false
	}
	var out []int64
	for i, t := range store.ActivityTypes {
		if want[t] {
			out = append(out, int64(i))
		}
	}
	return out
}

// walletProf is one wallet's id and profile, for the wallet feeds' rows.
type walletProf struct {
	wid                            int64
	addr, name, pseudo, bio, image string
}

func (db *DB) walletProfile(ctx context.Context, addr string) (walletProf, bool, error) {
	wp := walletProf{addr: addr}
	err := db.r.QueryRowContext(ctx, `SELECT wid, name, pseudonym, bio, profile_image FROM wallets WHERE address = ?`,
		addr).Scan(&wp.wid, &wp.name, &wp.pseudo, &wp.bio, &wp.image)
	if errors.Is(err, sql.ErrNoRows) {
		return wp, false, nil
	}
	return wp, err == nil, err
}

func (wp walletProf) fill(rows []feedRow) {
	for i := range rows {
		r := &rows[i]
		r.addr, r.name, r.pseudo, r.bio, r.image = wp.addr, wp.name, wp.pseudo, wp.bio, wp.image
	}
}
