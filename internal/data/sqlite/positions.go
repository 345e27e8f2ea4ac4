package sqlite

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"pmx/internal/amount"
	"pmx/internal/data/store"
)

// posRow is a scanned position with its computed figures.
type posRow struct {
	wid, tid, mid int64
	size, cost    amount.Micro
	fees, avg     amount.Micro
	bought        amount.Micro
	realized      amount.Micro
	firstAt       int64
	lastAt        int64
	addr, name    string
	image         string
	verified      bool

	m      *market
	t      *token
	mark   amount.Micro
	value  amount.Micro
	unreal amount.Micro
	key    store.PositionKey
}

const hundred = 100 * amount.One

// Positions implements store.Store. Candidates are read with the anchor and
// market-level filters (a user's from the hot read model, hot_positions.go;
// a market's in SQL, an index range); status, dust, marks and the sort are
// computed here, exactly, in fixed point.
func (db *DB) Positions(ctx context.Context, p store.PositionsParams) (store.Page[store.Position, store.PositionKey], error) {
	return db.positions(ctx, p, !db.dia.Follower)
}

// positions is Positions; hot = false reads a user's candidates through SQL
// too (the differential tests compare both).
func (db *DB) positions(ctx context.Context, p store.PositionsParams, hot bool) (store.Page[store.Position, store.PositionKey], error) {
	var none store.Page[store.Position, store.PositionKey]
	cat := db.cat.Load()
	status := p.Status
	if status == "" {
		status = store.StatusOpen
	}
	sortBy := p.SortBy
	if sortBy == "" {
		sortBy = store.DefaultPositionSort(status)
	}
	userAnchor := p.User != ""
	if userAnchor && status == store.StatusClosed {
		switch sortBy {
		case store.SortTokens, store.SortCurrentValue, store.SortPrice, store.SortUnrealizedPnL:
			sortBy = store.SortRealizedPnL
		}
	}
	w := &where{}
	var midSets [][]int64 // the user anchor's market filters (the IN lists of w)
	var raw []*posRow     // candidates read by the hot model
	if userAnchor && hot {
		buf := posRowPool.Get().(*posRowBuf)
		defer posRowPool.Put(buf) // after the page is copied out (below)
		var ok bool
		if cat, raw, ok = db.hotPositionRows(p.User, buf); !ok {
			return none, nil
		}
	}
	if userAnchor {
		if !hot {
			wid, ok, err := db.walletID(ctx, p.User)
			if err != nil || !ok {
				return none, err
			}
			w.add("p.wid = ?", wid)
		}
		if len(p.Conditions) > 0 {
			mids := cat.mids(p.Conditions)
			if len(mids) == 0 {
				return none, nil
			}
			w.in("p.mid", mids)
			midSets = append(midSets, mids)
		}
		if len(p.EventIDs) > 0 {
			var mids []int64
			for _, id := range p.EventIDs {
				for _, m := range cat.byEvent[id] {
					mids = append(mids, m.mid)
				}
			}
			if len(mids) == 0 {
				return none, nil
			}
			w.in("p.mid", mids)
			midSets = append(midSets, mids)
		}
	} else {
		mids := cat.mids(p.Conditions)
		if len(mids) != 1 {
			return none, nil
		}
		w.add("p.mid = ?", mids[0])
	}
	var titled map[int64]bool
	if p.Title != "" {
		var err error
		if titled, err = db.titleMatches(ctx, p.Title); err != nil {
			return none, err
		}
	}
	minSize, minValue := store.DustShares, amount.Micro(0)
	if p.FilterType == store.FilterCash {
		minValue = p.FilterAmount
	} else if p.FilterAmount > 0 {
		minSize = p.FilterAmount
	}
	closedBelow := store.DustShares // a user's CLOSED set ignores filter_amount
	if !userAnchor {
		closedBelow = minSize // on a market anchor it moves the boundary
	}
	// A market anchor can have thousands of holders: drop rows below dust in
	// SQL (they can be neither served nor make another row mergeable). A
	// user's few hundred rows are all read, and wallet profiles are joined
	// only for the page's rows (below).
	if !userAnchor && status != store.StatusClosed {
		w.add("p.size >= ?", min(minSize, store.DustShares))
	}
	// A user's rows are contiguous in the primary key: read them whole. A
	// market's come from the covering positions_mid index, with only what
	// filtering and sorting need; the page's rows get the rest (details).
	q := `SELECT p.wid, p.tid, p.size, p.cost, p.realized, p.last_at, p.fees, p.avg, p.bought, p.first_at,
		w.address, w.name, w.profile_image, w.verified FROM positions p JOIN wallets w ON w.wid = p.wid WHERE `
	if !userAnchor {
		q = `SELECT p.wid, p.tid, p.size, p.cost, p.realized, p.last_at FROM positions p WHERE `
	}
	if !userAnchor || !hot {
		rows, err := db.r.QueryContext(ctx, q+w.sql(), w.args...)
		if err != nil {
			return none, err
		}
		for rows.Next() {
			r := &posRow{}
			dest := []any{&r.wid, &r.tid, &r.size, &r.cost, &r.realized, &r.lastAt}
			if userAnchor {
				dest = append(dest, &r.fees, &r.avg, &r.bought, &r.firstAt, &r.addr, &r.name, &r.image, &r.verified)
			}
			if err := rows.Scan(dest...); err != nil {
				rows.Close()
				return none, err
			}
			raw = append(raw, r)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return none, err
		}
	}
	var all []*posRow
	for _, r := range raw {
		if userAnchor && hot && !inAll(midSets, r.mid) {
			continue // the hot rows' market filters (SQL applied them already)
		}
		r.t = cat.byTid[r.tid]
		if r.t == nil {
			continue // committed by an Apply whose catalog is not published yet
		}
		r.mid = r.t.mid
		r.m = cat.byMid[r.mid]
		if r.m != nil && (!r.m.active || (r.m.archived && (!p.IncludeArchived || status == store.StatusClosed))) {
			continue
		}
		if titled != nil && !titled[r.mid] {
			continue
		}
		r.mark = cat.mark(r.t)
		r.value = amount.Mul(r.size, r.mark)
		r.unreal = r.value - r.cost
		all = append(all, r)
	}

	// live[wid,mid] counts tokens held above dust in unresolved markets.
	type wm struct{ wid, mid int64 }
	live := make(map[wm]int, len(all))
	for _, r := range all {
		if r.size >= store.DustShares && r.m != nil && !r.m.resolved {
			live[wm{r.wid, r.mid}]++
		}
	}
	var sel []*posRow
	for _, r := range all {
		if (p.Start != 0 || p.End != 0) && r.lastAt == 0 {
			continue
		}
		if (p.Start != 0 && r.lastAt < p.Start) || (p.End != 0 && r.lastAt > p.End) {
			continue
		}
		held := r.size >= minSize && r.value >= minValue
		resolved := r.m != nil && r.m.resolved
		ok := false
		switch status {
		case store.StatusOpen:
			ok = held
		case store.StatusRedeemable:
			ok = held && resolved
		case store.StatusRedeemableLost:
			ok = held && resolved && r.mark == 0
		case store.StatusMergeable:
			ok = held && (!userAnchor || (!resolved && live[wm{r.wid, r.mid}] >= 2))
		case store.StatusClosed:
			ok = r.size < closedBelow
		}
		if !ok {
			continue
		}
		r.key = store.PositionKey{Value: sortValue(r, sortBy), TokenID: r.t.tokenID}
		if !userAnchor {
			r.key.Wallet = strconv.FormatInt(r.wid, 10) // the store's wallet id: cursors are opaque
		}
		if status == store.StatusRedeemable && r.mark == 0 {
			r.key.Group = 1 // winners first
		}
		if p.After == nil || comparePositionKeys(r.key, *p.After, p.Ascending) > 0 {
			sel = append(sel, r)
		}
	}
	slices.SortFunc(sel, func(a, b *posRow) int { return comparePositionKeys(a.key, b.key, p.Ascending) })
	if len(sel) > p.Limit+1 {
		sel = sel[:p.Limit+1]
	}
	if !userAnchor {
		if err := db.details(ctx, sel); err != nil {
			return none, err
		}
	}
	out := make([]store.Position, len(sel))
	keys := make([]store.PositionKey, len(sel))
	for i, r := range sel {
		out[i] = positionRow(cat, r, closedBelow, live[wm{r.wid, r.mid}])
		keys[i] = r.key
	}
	return pageOf(out, keys, p.Limit), nil
}

// details fills the page rows' remaining position and wallet columns.
func (db *DB) details(ctx context.Context, rows []*posRow) error {
	if len(rows) == 0 {
		return nil
	}
	var b strings.Builder
	type wt struct{ wid, tid int64 }
	byKey := make(map[wt]*posRow, len(rows))
	for i, r := range rows {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "(%d, %d)", r.wid, r.tid) // integers only: safe to inline
		byKey[wt{r.wid, r.tid}] = r
	}
	q, err := db.r.QueryContext(ctx, `SELECT p.wid, p.tid, p.fees, p.avg, p.bought, p.first_at, w.address, w.name,
		w.profile_image, w.verified FROM positions p JOIN wallets w ON w.wid = p.wid
		WHERE (p.wid, p.tid) IN (VALUES `+b.String()+`)`)
	if err != nil {
		return err
	}
	defer q.Close()
	for q.Next() {
		var k wt
		var fees, avg, bought amount.Micro
		var firstAt int64
		var addr, name, image string
		var verified bool
		if err := q.Scan(&k.wid, &k.tid, &fees, &avg, &bought, &firstAt, &addr, &name, &image, &verified); err != nil {
			return err
		}
		if r := byKey[k]; r != nil {
			r.fees, r.avg, r.bought, r.firstAt = fees, avg, bought, firstAt
			r.addr, r.name, r.image, r.verified = addr, name, image, verified
		}
	}
	return q.Err()
}

func sortValue(r *posRow, sortBy string) int64 {
	switch sortBy {
	case store.SortPrice:
		return int64(r.mark)
	case store.SortTokens:
		return int64(r.size)
	case store.SortUnrealizedPnL:
		return int64(r.unreal)
	case store.SortRealizedPnL:
		return int64(r.realized)
	case store.SortTotalPnL:
		return int64(r.realized + r.unreal)
	case store.SortTimestamp:
		return r.lastAt
	}
	return int64(r.value)
}

// comparePositionKeys orders keys: Group ascending always, then (Value,
// TokenID numerically, Wallet) in the requested direction.
func comparePositionKeys(a, b store.PositionKey, asc bool) int {
	if a.Group != b.Group {
		if a.Group < b.Group {
			return -1
		}
		return 1
	}
	c := 0
	switch {
	case a.Value != b.Value:
		c = cmpInt(a.Value, b.Value)
	case a.TokenID != b.TokenID:
		c = cmpDecimal(a.TokenID, b.TokenID)
	case a.Wallet != b.Wallet:
		c = cmpDecimal(a.Wallet, b.Wallet)
	}
	if !asc {
		c = -c
	}
	return c
}

func cmpInt(a, b int64) int {
	if a < b {
		return -1
	}
	if a > b {
		return 1
	}
	return 0
}

// cmpDecimal compares unsigned decimal strings numerically.
func cmpDecimal(a, b string) int {
	if len(a) != len(b) {
		return cmpInt(int64(len(a)), int64(len(b)))
	}
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func positionRow(cat *catalog, r *posRow, closedBelow amount.Micro, live int) store.Position {
	pos := store.Position{ProxyWallet: r.addr, CurrentSize: r.size, AvgPrice: r.avg, EntryCostUSDC: r.cost,
		EntryFeesUSDC: r.fees, TotalCostUSDC: r.cost + r.fees, CurrentPrice: r.mark, CurrentValue: r.value,
		TotalSize: r.bought, RealizedPnL: r.realized, UnrealizedPnL: r.unreal, TotalPnL: r.realized + r.unreal,
		OutcomeIndex: store.NoOutcome, EndDate: "1970-01-01", LastEventAt: r.lastAt, FirstEntryAt: r.firstAt,
		Name: r.name, ProfileImage: r.image, Verified: r.verified, Status: store.StatusOpen}
	if r.cost > 0 {
		pos.PercentPnL = amount.MulDiv(r.unreal, hundred, r.cost)
	}
	if basis := amount.Mul(r.bought, r.avg); basis > 0 {
		pos.PercentRealizedPnL = amount.MulDiv(pos.TotalPnL, hundred, basis)
	}
	if r.t != nil {
		pos.TokenID = r.t.tokenID
		pos.Outcome, pos.OutcomeIndex = r.t.outcome, outcomeIndex(r.t)
	}
	resolved := false
	if m := r.m; m != nil {
		resolved = m.resolved
		pos.ConditionID, pos.NegativeRisk, pos.Archived = m.conditionID, m.negRisk, m.archived
		pos.Title, pos.Slug, pos.Icon, pos.EventSlug = m.question, m.slug, m.icon, m.eventSlug
		pos.EventID = strconv.FormatInt(m.eventID, 10)
		pos.EndDate = endDate(m.endDate)
		if len(m.tokens) == 2 && r.t != nil && r.t.idx < 2 {
			if o := m.tokens[1-r.t.idx]; o != nil {
				pos.OppositeOutcome, pos.OppositeTokenID = o.outcome, o.tokenID
			}
		}
	}
	switch {
	case r.size < closedBelow:
		pos.Status = store.StatusClosed
	case resolved:
		pos.Status = store.StatusRedeemable
	}
	pos.Redeemable = resolved && r.size > 0
	own := 0
	if r.size >= store.DustShares && !resolved {
		own = 1
	}
	pos.Mergeable = !resolved && live-own >= 1
	return pos
}

// titleMatches returns the markets whose question matches title as a
// case-insensitive SQL LIKE substring.
func (db *DB) titleMatches(ctx context.Context, title string) (map[int64]bool, error) {
	rows, err := db.r.QueryContext(ctx, `SELECT mid FROM markets WHERE question LIKE '%' || ? || '%'`, title)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[int64]bool{}
	for rows.Next() {
		var mid int64
		if err := rows.Scan(&mid); err != nil {
			return nil, err
		}
		out[mid] = true
	}
	return out, rows.Err()
}

// Value implements store.Store: held shares at their marks, plus unresolved
// combo positions at cost when no condition filter is given; rounded half
// away from zero to 4 decimals.
func (db *DB) Value(ctx context.Context, p store.ValueParams) (store.Value, error) {
	v := store.Value{ProxyWallet: p.User}
	cat := db.cat.Load()
	wid, ok, err := db.walletID(ctx, p.User)
	if err != nil || !ok {
		return v, err
	}
	w := &where{}
	w.add("wid = ?", wid)
	w.add("size > 0")
	if len(p.Conditions) > 0 {
		mids := cat.mids(p.Conditions)
		if len(mids) == 0 {
			return v, nil
		}
		w.in("mid", mids)
	}
	rows, err := db.r.QueryContext(ctx, `SELECT tid, size FROM positions WHERE `+w.sql(), w.args...)
	if err != nil {
		return v, err
	}
	var total amount.Micro
	for rows.Next() {
		var tid int64
		var size amount.Micro
		if err := rows.Scan(&tid, &size); err != nil {
			rows.Close()
			return v, err
		}
		if t := cat.byTid[tid]; t != nil {
			total += amount.Mul(size, cat.mark(t))
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return v, err
	}
	if len(p.Conditions) == 0 {
		rows, err := db.r.QueryContext(ctx, `SELECT mid, cost FROM combo_positions WHERE wid = ? AND size > 0`, wid)
		if err != nil {
			return v, err
		}
		defer rows.Close()
		for rows.Next() {
			var mid int64
			var cost amount.Micro
			if err := rows.Scan(&mid, &cost); err != nil {
				return v, err
			}
			if m := cat.byMid[mid]; m != nil && !cat.comboResolved(m) {
				total += cost
			}
		}
		if err := rows.Err(); err != nil {
			return v, err
		}
	}
	v.Value = round4(total)
	return v, nil
}

// round4 rounds half away from zero to 4 decimals.
func round4(v amount.Micro) amount.Micro {
	if v < 0 {
		return -round4(-v)
	}
	return (v + 50) / 100 * 100
}
