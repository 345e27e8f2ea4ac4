package sqlite

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"pmx/internal/amount"
	"pmx/internal/store"
)

// lbRow is one wallet's standing on a leaderboard window.
type lbRow struct {
	wid     int64
	p       profile
	pnl     amount.Micro
	volume  amount.Micro
	rankPnL int32 // 0 = not on the board
	rankVol int32
}

// leaderboard is a computed board of one (window, category): the PNL and
// VOLUME orders over the same rows, and the rows by address (user arm).
type leaderboard struct {
	byPnL, byVol []*lbRow
	byAddr       map[string]*lbRow
}

// Leaderboard implements store.Boards.
func (db *DB) Leaderboard(ctx context.Context, p store.LeaderboardParams) (store.OffsetPage[store.LeaderboardEntry], error) {
	b, err := db.leaderboard(ctx, p)
	if err != nil {
		return store.OffsetPage[store.LeaderboardEntry]{}, err
	}
	rows := b.byPnL
	if p.SortBy == store.BoardSortVolume {
		rows = b.byVol
	}
	pg := page(rows, p.Offset, p.Limit)
	out := store.OffsetPage[store.LeaderboardEntry]{Rows: make([]store.LeaderboardEntry, len(pg.Rows)), HasMore: pg.HasMore}
	for i, r := range pg.Rows {
		rank := r.rankPnL
		if p.SortBy == store.BoardSortVolume {
			rank = r.rankVol
		}
		out.Rows[i] = store.LeaderboardEntry{Rank: rank, UserID: r.p.addr, PnL: r.pnl, Volume: r.volume,
			UserName: r.p.name, ProfileImage: r.p.image, Verified: r.p.verified}
	}
	return out, nil
}

// LeaderboardUser implements store.Boards.
func (db *DB) LeaderboardUser(ctx context.Context, p store.LeaderboardParams, user string) (*store.LeaderboardUserEntry, error) {
	b, err := db.leaderboard(ctx, p)
	if err != nil {
		return nil, err
	}
	r := b.byAddr[user]
	if r == nil {
		var name, pseudo, image string
		var verified bool
		err := db.r.QueryRowContext(ctx, `SELECT name, pseudonym, profile_image, verified FROM wallets WHERE address = ?`,
			user).Scan(&name, &pseudo, &image, &verified)
		if err != nil {
			return nil, noRows(err)
		}
		r = &lbRow{p: profile{addr: user, name: displayName(name, pseudo), image: image, verified: verified}}
	}
	e := &store.LeaderboardUserEntry{UserID: user, PnL: r.pnl, Volume: r.volume, UserName: r.p.name,
		ProfileImage: r.p.image, Verified: r.p.verified}
	if r.rankPnL > 0 {
		v := r.rankPnL
		e.RankPnL = &v
	}
	if r.rankVol > 0 {
		v := r.rankVol
		e.RankVolume = &v
	}
	return e, nil
}

func (db *DB) leaderboard(ctx context.Context, p store.LeaderboardParams) (*leaderboard, error) {
	start := store.WindowStart(p.Period, p.Now)
	all := p.Period == store.PeriodAll
	category := strings.ToLower(p.Category)
	if category == "" {
		category = store.CategoryOverall
	}
	key := fmt.Sprintf("lb|%d|%t|%s", start, all, category)
	return cached(ctx, db, key, func(cat *catalog) (*leaderboard, error) {
		var rows map[int64]*lbRow
		var err error
		if category == store.CategoryOverall {
			rows, err = db.overallStandings(ctx, cat, start, all)
		} else {
			rows, err = db.categoryStandings(ctx, cat, start, all, category)
		}
		if err != nil {
			return nil, err
		}
		if err := db.fillProfiles(ctx, rows); err != nil {
			return nil, err
		}
		return rankLeaderboard(rows, category == store.CategoryCombos), nil
	})
}

// overallStandings: volume = both-sides shares filled in the window (the
// wallet's cumulative volume now minus at the last observation before the
// window); pnl = for all, lifetime realized PnL; for a finite window, the
// change in economic PnL (realized + unrealized at current marks + rebates
// and rewards; deposits and withdrawals are not PnL) since the end of the
// day before the window.
func (db *DB) overallStandings(ctx context.Context, cat *catalog, start int64, all bool) (map[int64]*lbRow, error) {
	rows := map[int64]*lbRow{}
	q, err := db.r.QueryContext(ctx, `SELECT wid, realized_market + realized_combo,
		maker_rebate + taker_rebate + reward + yield + referral, volume FROM wallets`)
	if err != nil {
		return nil, err
	}
	for q.Next() {
		r := &lbRow{}
		var realized, income amount.Micro
		if err := q.Scan(&r.wid, &realized, &income, &r.volume); err != nil {
			q.Close()
			return nil, err
		}
		r.pnl = realized
		if !all {
			r.pnl += income
		}
		rows[r.wid] = r
	}
	q.Close()
	if err := q.Err(); err != nil {
		return nil, err
	}
	if all {
		return rows, nil
	}
	q, err = db.r.QueryContext(ctx, `SELECT wid, tid, size, cost FROM positions WHERE size > 0`)
	if err != nil {
		return nil, err
	}
	for q.Next() {
		var wid, tid int64
		var size, cost amount.Micro
		if err := q.Scan(&wid, &tid, &size, &cost); err != nil {
			q.Close()
			return nil, err
		}
		if r, t := rows[wid], cat.byTid[tid]; r != nil && t != nil {
			r.pnl += amount.Mul(size, cat.mark(t)) - cost
		}
	}
	q.Close()
	if err := q.Err(); err != nil {
		return nil, err
	}
	// SQLite takes the bare columns of a MAX() aggregate from the max row.
	q, err = db.r.QueryContext(ctx, `SELECT wid, MAX(day), realized_market + realized_combo + unrealized + maker_rebate +
		taker_rebate + reward + yield + referral, volume FROM pnl_obs WHERE day < ? GROUP BY wid`, start)
	if err != nil {
		return nil, err
	}
	defer q.Close()
	for q.Next() {
		var wid, d int64
		var pnl, vol amount.Micro
		if err := q.Scan(&wid, &d, &pnl, &vol); err != nil {
			return nil, err
		}
		if r := rows[wid]; r != nil {
			r.pnl -= pnl
			r.volume -= vol
		}
	}
	return rows, q.Err()
}

// categoryStandings: a market category's board counts the wallet's fills in
// that category's markets within the window (volume) and the PnL of its
// positions there: lifetime realized for all; for a finite window, realized
// plus unrealized at current marks of the positions with an event in the
// window (the store keeps no per-position history, so a category board
// attributes a position's whole PnL to the window of its last event).
// combos: combo positions likewise (no volume: combo fills are not board
// volume).
func (db *DB) categoryStandings(ctx context.Context, cat *catalog, start int64, all bool, category string) (map[int64]*lbRow, error) {
	rows := map[int64]*lbRow{}
	row := func(wid int64) *lbRow {
		r := rows[wid]
		if r == nil {
			r = &lbRow{wid: wid}
			rows[wid] = r
		}
		return r
	}
	addPos := func(wid int64, t *token, size, cost, realized amount.Micro, lastAt int64, mark amount.Micro) {
		switch {
		case all:
			row(wid).pnl += realized
		case lastAt >= start:
			row(wid).pnl += realized + amount.Mul(size, mark) - cost
		}
	}
	if category == store.CategoryCombos {
		q, err := db.r.QueryContext(ctx, `SELECT wid, tid, size, cost, realized, updated_at FROM combo_positions`)
		if err != nil {
			return nil, err
		}
		defer q.Close()
		for q.Next() {
			var wid, tid, lastAt int64
			var size, cost, realized amount.Micro
			if err := q.Scan(&wid, &tid, &size, &cost, &realized, &lastAt); err != nil {
				return nil, err
			}
			t := cat.byTid[tid]
			if t == nil || cat.byMid[t.mid] == nil {
				continue
			}
			mark := amount.Micro(0)
			if size > 0 {
				mark = amount.Div(cost, size) // unresolved: at cost (no combo price feed)
			}
			if st := cat.comboState(cat.byMid[t.mid]); st.resolved {
				mark = st.payoff(t.idx)
			}
			addPos(wid, t, size, cost, realized, lastAt, mark)
		}
		return rows, q.Err()
	}
	var mids []int64
	for _, m := range cat.byMid {
		if !m.isCombo && strings.EqualFold(m.category, category) {
			mids = append(mids, m.mid)
		}
	}
	if len(mids) == 0 {
		return rows, nil
	}
	var w where
	w.in("mid", mids)
	q, err := db.r.QueryContext(ctx, `SELECT wid, tid, size, cost, realized, last_at FROM positions WHERE `+w.sql())
	if err != nil {
		return nil, err
	}
	for q.Next() {
		var wid, tid, lastAt int64
		var size, cost, realized amount.Micro
		if err := q.Scan(&wid, &tid, &size, &cost, &realized, &lastAt); err != nil {
			q.Close()
			return nil, err
		}
		if t := cat.byTid[tid]; t != nil {
			addPos(wid, t, size, cost, realized, lastAt, cat.mark(t))
		}
	}
	q.Close()
	if err := q.Err(); err != nil {
		return nil, err
	}
	var tw where
	tw.in("t.mid", mids)
	q, err = db.r.QueryContext(ctx, `SELECT t.wid, m.wid, t.size FROM activity t
		JOIN activity m ON m.seq = t.seq + 1
		WHERE `+tw.sql()+` AND t.type = 0 AND t.taker = 1 AND t.ts >= ?`, start)
	if err != nil {
		return nil, err
	}
	defer q.Close()
	for q.Next() {
		var taker, maker int64
		var size amount.Micro
		if err := q.Scan(&taker, &maker, &size); err != nil {
			return nil, err
		}
		row(taker).volume += size
		row(maker).volume += size
	}
	return rows, q.Err()
}

// fillProfiles sets each row's address and display fields.
func (db *DB) fillProfiles(ctx context.Context, rows map[int64]*lbRow) error {
	q, err := db.r.QueryContext(ctx, `SELECT wid, address, name, pseudonym, profile_image, verified FROM wallets`)
	if err != nil {
		return err
	}
	defer q.Close()
	for q.Next() {
		var wid int64
		var p profile
		var pseudo string
		if err := q.Scan(&wid, &p.addr, &p.name, &pseudo, &p.image, &p.verified); err != nil {
			return err
		}
		if r := rows[wid]; r != nil {
			p.name = displayName(p.name, pseudo)
			r.p = p
		}
	}
	return q.Err()
}

// rankLeaderboard keeps the wallets with volume or PnL in the window and
// ranks them both ways. Ranks are competition ranks (ties share a rank, the
// next rank skips); tied rows are listed by address so pages are stable.
// The VOLUME order of the combos board is empty (combo fills are not board
// volume).
func rankLeaderboard(rows map[int64]*lbRow, noVolume bool) *leaderboard {
	b := &leaderboard{byAddr: map[string]*lbRow{}}
	for _, r := range rows {
		if r.p.addr == "" {
			continue
		}
		b.byAddr[r.p.addr] = r
		if r.volume != 0 || r.pnl != 0 {
			b.byPnL = append(b.byPnL, r)
			if !noVolume && r.volume > 0 {
				b.byVol = append(b.byVol, r)
			}
		}
	}
	rank := func(list []*lbRow, key func(*lbRow) amount.Micro, set func(*lbRow, int32)) {
		sort.Slice(list, func(i, j int) bool {
			a, b := key(list[i]), key(list[j])
			if a != b {
				return a > b
			}
			return list[i].p.addr < list[j].p.addr
		})
		prev := int32(0)
		for i, r := range list {
			n := int32(i + 1)
			if i > 0 && key(list[i-1]) == key(r) {
				n = prev
			}
			set(r, n)
			prev = n
		}
	}
	rank(b.byPnL, func(r *lbRow) amount.Micro { return r.pnl }, func(r *lbRow, n int32) { r.rankPnL = n })
	rank(b.byVol, func(r *lbRow) amount.Micro { return r.volume }, func(r *lbRow, n int32) { r.rankVol = n })
	return b
}
