package sqlite

import (
	"cmp"
	"context"
	"encoding/hex"
	"slices"
	"sync"

	"pmx/internal/amount"
	"pmx/internal/hexid"
)

// The hot read model: every activity row of every wallet in memory, per
// wallet in (ts, seq) order, plus each wallet's profile and positions rows,
// so the wallet feeds (/v2/trades?user=, /v2/activity?user=) are a binary
// search and a short walk instead of an SQLite range scan (hot_feeds.go) and
// /v2/positions?user= reads no SQL (hot_positions.go). Loaded at Open,
// extended by Apply after commit.
//
// Invariants: hotModel.mu is held for writing only by publish, which applies
// a whole committed batch (rows, profiles, positions, the catalog pointer
// and its enrichment table) in one critical section; readers hold it for
// reading while they walk and load the catalog and table inside it, so they
// see either all of a batch or none of it, and the rows always match the
// catalog that enriches them. Rows, once stored, are never modified.

// hotRow is one activity row (the activity table's columns but wid and
// builder): 96 bytes and no pointers, so the garbage collector never scans
// the rows. The tx hash is stored inline as its 32 bytes: a page's rows are
// adjacent in memory, so encoding their hashes reads no scattered strings
// (when they were interned strings, reading them was a third of the JSON
// time of a page). A hash that is not 0x + 64 lower-case hex digits (the
// ledger canonicalises on-chain ones, so none today) is kept as a string
// in hotModel.oddTx instead, and txOdd is its index + 1.
type hotRow struct {
	seq, ts           int64
	eid               int64
	size, usdc, price amount.Micro
	tx                [32]byte
	txOdd             uint32
	mid, tid          int32
	typ, side, taker  uint8
}

// setTx stores tx in r: inline when canonical, else as odd[len] (returned
// grown); odd indexes are rebased by publish for batch-local slices.
func (r *hotRow) setTx(tx string, odd []string) []string {
	if c, ok := hexid.Canonical(tx, 64); ok && c == tx {
		_, _ = hex.Decode(r.tx[:], []byte(tx[2:])) // cannot fail: checked above
		r.txOdd = 0
		return odd
	}
	odd = append(odd, tx)
	r.txOdd = uint32(len(odd))
	return odd
}

// appendTx appends r's tx hash as text: "0x" and 64 hex digits.
func (r *hotRow) appendTx(b []byte, odd []string) []byte {
	if r.txOdd != 0 {
		return append(b, odd[r.txOdd-1]...)
	}
	b = append(b, '0', 'x')
	n := len(b)
	b = append(b, make([]byte, 64)...) // the compiler appends zeroes without allocating
	hex.Encode(b[n:], r.tx[:])
	return b
}

func (r *hotRow) before(ts, seq int64) bool { return r.ts < ts || (r.ts == ts && r.seq < seq) }

func hotCmp(a, b hotRow) int {
	if c := cmp.Compare(a.ts, b.ts); c != 0 {
		return c
	}
	return cmp.Compare(a.seq, b.seq)
}

// hotWallet is one wallet: its profile as the wallets table has it and its
// activity rows ordered by (ts, seq).
type hotWallet struct {
	prof     walletProf
	verified bool
	gen      int64 // catalog gen of the last publish that touched the wallet (WalletGeneration)
	rows     []hotRow
	pos      []hotPos // hot_positions.go
}

type hotModel struct {
	mu     sync.RWMutex
	byAddr map[string]*hotWallet
	byWid  map[int64]*hotWallet
	oddTx  []string   // non-canonical tx hashes, append-only; hotRow.txOdd-1 indexes it
	enr    *hotEnrich // for the published catalog (hot_enrich.go)
}

// hotAdd records an activity row the running Apply inserted (tx: its hash).
func (a *applier) hotAdd(wid int64, tx string, r hotRow) {
	a.hotTx = r.setTx(tx, a.hotTx) // an odd index is batch-local until publish rebases it
	a.hot = append(a.hot, hotPending{wid: wid, row: r})
}

// hotPending is one activity row inserted by the running Apply.
type hotPending struct {
	wid int64
	row hotRow
}

// loadHot reads every wallet and activity row (called by Open, before the
// store is shared). The table is scanned in seq order (no index), which
// leaves a wallet's rows almost sorted by (ts, seq).
func (db *DB) loadHot(ctx context.Context) error {
	h := &db.hot
	h.byAddr, h.byWid = map[string]*hotWallet{}, map[int64]*hotWallet{}
	rows, err := db.r.QueryContext(ctx, `SELECT wid, address, name, pseudonym, bio, profile_image, verified
		FROM wallets`)
	if err != nil {
		return err
	}
	for rows.Next() {
		w := &hotWallet{}
		p := &w.prof
		if err := rows.Scan(&p.wid, &p.addr, &p.name, &p.pseudo, &p.bio, &p.image, &w.verified); err != nil {
			rows.Close()
			return err
		}
		h.byAddr[p.addr], h.byWid[p.wid] = w, w
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	rows, err = db.r.QueryContext(ctx, `SELECT seq, wid, ts, type, mid, tid, eid, side, size, usdc, price, taker, tx
		FROM activity ORDER BY seq`)
	if err != nil {
		return err
	}
	defer rows.Close()
	var last *hotWallet
	for rows.Next() {
		// int64 destinations: database/sql converts other integer kinds
		// through strings.
		var r hotRow
		var wid, typ, mid, tid, side, size, usdc, price, taker int64
		var tx string
		if err := rows.Scan(&r.seq, &wid, &r.ts, &typ, &mid, &tid, &r.eid, &side, &size, &usdc,
			&price, &taker, &tx); err != nil {
			return err
		}
		r.typ, r.mid, r.tid, r.side, r.taker = uint8(typ), int32(mid), int32(tid), uint8(side), uint8(taker)
		r.size, r.usdc, r.price = amount.Micro(size), amount.Micro(usdc), amount.Micro(price)
		h.oddTx = r.setTx(tx, h.oddTx)
		if last == nil || last.prof.wid != wid {
			if last = h.byWid[wid]; last == nil { // cannot happen: activity rows name known wallets
				last = &hotWallet{prof: walletProf{wid: wid}}
				h.byWid[wid] = last
			}
		}
		last.rows = append(last.rows, r)
	}
	if err := rows.Err(); err != nil {
		return err
	}
	for _, w := range h.byWid {
		if !slices.IsSortedFunc(w.rows, hotCmp) {
			slices.SortFunc(w.rows, hotCmp)
		}
		w.rows = slices.Clip(w.rows)
	}
	h.enr = newHotEnrich(db.cat.Load())
	return db.loadHotPositions(ctx)
}

// publish makes a committed Apply visible: its catalog, the profiles of the
// wallets it touched and its activity rows, all in one write-locked section.
// The batch's rows are grouped by wallet before the lock is taken.
func (db *DB) publish(a *applier) {
	pend := a.hot
	h := &db.hot
	base := uint32(len(h.oddTx)) // only publish appends to oddTx, and Apply is single-writer
	for i := range pend {
		if pend[i].row.txOdd != 0 {
			pend[i].row.txOdd += base
		}
	}
	slices.SortFunc(pend, func(x, y hotPending) int {
		if c := cmp.Compare(x.wid, y.wid); c != 0 {
			return c
		}
		return hotCmp(x.row, y.row)
	})
	bumpHolders(a, h)        // before the catalog is published: it is still Apply's alone
	enr := h.enr.next(a.cat) // publish is h.enr's only writer
	h.mu.Lock()
	defer h.mu.Unlock()
	db.cat.Store(a.cat)
	h.enr = enr
	h.oddTx = append(h.oddTx, a.hotTx...)
	for _, w := range a.wallets {
		hw := h.byWid[w.wid]
		if hw == nil {
			hw = &hotWallet{}
			h.byWid[w.wid] = hw
		}
		hw.gen = a.cat.gen
		hw.prof = walletProf{wid: w.wid, addr: w.addr, name: w.name, pseudo: w.pseudonym, bio: w.bio, image: w.image}
		hw.verified = w.verified
		publishPositions(hw, w)
		h.byAddr[w.addr] = hw
	}
	for i := 0; i < len(pend); {
		j := i + 1
		for j < len(pend) && pend[j].wid == pend[i].wid {
			j++
		}
		hw := h.byWid[pend[i].wid] // every row's wallet is in a.wallets
		hw.rows = mergeHot(hw.rows, pend[i:j])
		i = j
	}
}

// mergeHot adds sorted new rows to sorted rows. Fresh rows usually come
// after every stored one (an append); otherwise the slice is rebuilt, so a
// reader never sees it half-merged (publish holds the write lock anyway).
func mergeHot(rows []hotRow, add []hotPending) []hotRow {
	if len(rows) == 0 || hotCmp(rows[len(rows)-1], add[0].row) < 0 {
		for _, p := range add {
			rows = append(rows, p.row)
		}
		return rows
	}
	out := make([]hotRow, 0, len(rows)+len(add))
	i := 0
	for _, p := range add {
		for i < len(rows) && hotCmp(rows[i], p.row) < 0 {
			out = append(out, rows[i])
			i++
		}
		out = append(out, p.row)
	}
	return append(out, rows[i:]...)
}

// bumpHolders moves the hold generation of every market where the batch
// changed a position, and of every market a wallet whose profile changed
// holds (holders rows carry the profile). publish is the only writer of
// the hot model, so reading it here without the lock is safe.
func bumpHolders(a *applier, h *hotModel) {
	for _, w := range a.wallets {
		for _, p := range w.list {
			if p.dirty {
				a.cat.bump(p.mid, false)
			}
		}
		hw := h.byWid[w.wid]
		if hw == nil {
			continue // new: its markets are among its dirty positions
		}
		if hw.prof != (walletProf{wid: w.wid, addr: w.addr, name: w.name, pseudo: w.pseudonym, bio: w.bio, image: w.image}) ||
			hw.verified != w.verified {
			for _, p := range w.list {
				a.cat.bump(p.mid, false)
			}
		}
	}
}
