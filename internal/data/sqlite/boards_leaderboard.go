package sqlite

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"pmx/internal/amount"
	"pmx/internal/data/store"
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
	cur, err := cached(ctx, db, "lbnow", func(cat *catalog) (map[int64]walletNow, error) { return db.walletsNow(ctx, cat) })
	if err != nil {
		return nil, err
	}
	rows := make(map[int64]*lbRow, len(cur))
	for wid, c := range cur {
		r := &lbRow{wid: wid, volume: c.volume, pnl: c.economic}
		if all {
			r.pnl = c.realized
		}
		rows[wid] = r
	}
	if all {
		return rows, nil
	}
	// Each wallet's last observation before the window (two primary-key
	// seeks per wallet rather than a pass over every observation), and
	// whether it has one inside the window.
	q, err := db.r.QueryContext(ctx, `SELECT o.wid, o.realized_market + o.realized_combo + o.unrealized + o.maker_rebate +
		o.taker_rebate + o.reward + o.yield + o.referral, o.volume,
		(SELECT MAX(day) FROM pnl_obs WHERE wid = w.wid) >= ? FROM wallets w
		JOIN pnl_obs o ON o.wid = w.wid AND o.day = (SELECT MAX(day) FROM pnl_obs WHERE wid = w.wid AND day < ?)`, start, start)
	if err != nil {
		return nil, err
	}
	defer q.Close()
	var marks map[int64]amount.Micro // token marks at the window's start, built on first need
	for q.Next() {
		var wid int64
		var pnl, vol amount.Micro
		var active bool
		if err := q.Scan(&wid, &pnl, &vol, &active); err != nil {
			return nil, err
		}
		r := rows[wid]
		if r == nil {
			continue
		}
		r.volume -= vol
		if active {
			r.pnl -= pnl
			continue
		}
		// Idle since before the window: its holdings then are its holdings
		// now, so its opening value is re-marked at the window's start
		// (its last observation carries the marks of an older day, and
		// every later move would otherwise count in this window).
		if marks == nil {
			if marks, err = db.marksAt(ctx, cat, start); err != nil {
				return nil, err
			}
		}
		c := cur[wid]
		open := c.realized + c.income
		for _, p := range c.open {
			open += amount.Mul(p.size, marks[p.tid]) - p.cost
		}
		r.pnl -= open
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
