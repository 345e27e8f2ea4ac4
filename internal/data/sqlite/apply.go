package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"pmx/internal/amount"
	"pmx/internal/data/ledger"
	"pmx/internal/data/store"
)

// Activity type codes: the index in store.ActivityTypes.
const (
	actTrade = iota
	actSplit
	actMerge
	actRedeem
	actConversion
	actMigration
	actReward
	actYield
	actMakerRebate
	actTakerRebate
	actReferralReward
	actDeposit
	actWithdrawal
	actTip
)

// Activity side codes.
const (
	sideNone = iota
	sideBuy
	sideSell
	sideIn
	sideOut
)

var sideNames = [...]string{"", "BUY", "SELL", "IN", "OUT"}

// Bounds that keep store.SequenceID unique and within int64.
const (
	maxLogIndex = 1_000_000
	maxBlock    = 900_000_000_000
)

// Trade-row participant flags in activity.taker.
const (
	rowMaker = 0
	rowTaker = 1
	rowCombo = 2 // combo trade: activity only, never in /v2/trades
)

// applier is the state of one Apply: a private catalog, the wallets touched
// so far (each loaded whole), prepared statements inside the transaction, and
// the daily observation bookkeeping.
type applier struct {
	ctx       context.Context
	tx        *sql.Tx
	conn      *sql.Conn  // tx's connection (COPY)
	dia       *Dialect   // the database server's differences (dialect.go)
	stmts     *stmtCache // nil: parse each statement (a server store's driver caches them)
	cat       *catalog
	wallets   map[string]*wallet
	nextWid   int64
	noWallets bool // the wallets table was empty when Apply began

	act, obs          *bulk
	insCombo, findSeq *sql.Stmt
	obsRows           [][18]int64 // observations, written sorted at the end

	maxSeqAtStart int64
	maxSeq        int64
	lastBlock     int64
	lastTs        int64
	builders      map[string]*ledger.Event // builder code → its latest builder event

	hot   []hotPending // activity rows of this batch, published after commit (hot.go)
	hotTx []string     // their non-canonical tx hashes (hotRow.txOdd-1 indexes this until publish)

	day     int64 // current observation day (UTC midnight)
	touched map[*wallet]struct{}
}

// Apply implements store.Store. The whole batch is one transaction; the new
// catalog is published only after commit, so a failed batch leaves nothing.
func (db *DB) Apply(ctx context.Context, events []ledger.Event) (int, error) {
	if db.dia.Follower {
		return 0, ErrFollower
	}
	db.mu.Lock()
	defer db.mu.Unlock()
	n, err := db.apply(ctx, events)
	if db.stmts != nil {
		db.stmts.prepareMissed(ctx, db.w) // the writer connection is back in its pool
	}
	return n, err
}

// apply is Apply under the writer lock: one transaction on the writer
// connection, returned to the pool before apply returns.
func (db *DB) apply(ctx context.Context, events []ledger.Event) (int, error) {
	// COPY runs on the transaction's own connection (Dialect.Copy).
	conn, err := db.w.Conn(ctx)
	if err != nil {
		return 0, err
	}
	defer conn.Close()
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return 0, err
	}
	defer tx.Rollback() // no-op after commit (runs before conn.Close)
	if db.dia.ApplyLock != "" {
		if _, err := tx.ExecContext(ctx, db.dia.ApplyLock); err != nil {
			return 0, err
		}
	}
	cat := db.cat.Load()
	if sharedOK(events) {
		cat = cat.cloneShared()
	} else {
		cat = cat.clone()
	}
	a := &applier{ctx: ctx, tx: tx, conn: conn, dia: &db.dia, stmts: db.stmts, cat: cat, wallets: map[string]*wallet{},
		builders: map[string]*ledger.Event{}, touched: map[*wallet]struct{}{}}
	var applied0 int64
	if err := a.queryRow(`SELECT max_seq, last_block, last_ts, applied FROM ingest WHERE id = 1`).
		Scan(&a.maxSeqAtStart, &a.lastBlock, &a.lastTs, &applied0); err != nil {
		return 0, err
	}
	a.maxSeq = a.maxSeqAtStart
	if err := a.queryRow(`SELECT COALESCE(MAX(wid), 0) + 1 FROM wallets`).Scan(&a.nextWid); err != nil {
		return 0, err
	}
	a.noWallets = a.nextWid == 1
	if err := a.prepare(); err != nil {
		return 0, err
	}
	defer a.close()
	rebuild, err := a.dropIndexesForBulk(len(events))
	if err != nil {
		return 0, err
	}
	applied := 0
	for i := range events {
		if i%16384 == 0 && i > 0 {
			if err := ctx.Err(); err != nil {
				return 0, err
			}
			if db.progress != nil {
				db.progress(i, len(events))
			}
		}
		switch events[i].Kind {
		case ledger.KindMarket, ledger.KindComboMarket, ledger.KindResolution, ledger.KindBuilder:
			a.cat.textsGen = a.cat.gen
		}
		ok, err := a.apply(&events[i])
		if err != nil {
			if isStoreFailure(err) {
				return 0, fmt.Errorf("event %d (%s): %w", i+1, events[i].Kind, err)
			}
			return 0, &store.RejectedError{Event: i + 1, Kind: string(events[i].Kind), Err: err}
		}
		if ok {
			applied++
		}
	}
	if db.progress != nil {
		db.progress(len(events), len(events))
	}
	if err := a.flushDay(); err != nil {
		return 0, err
	}
	if err := a.act.flush(); err != nil {
		return 0, err
	}
	if err := a.writeObs(); err != nil {
		return 0, err
	}
	if err := a.writeBack(); err != nil {
		return 0, err
	}
	for _, q := range rebuild {
		if _, err := tx.ExecContext(ctx, q); err != nil {
			return 0, err
		}
	}
	if _, err := a.exec(`UPDATE ingest SET max_seq = ?, last_block = ?, last_ts = ?, applied = ?,
		applied_at = ? WHERE id = 1`, a.maxSeq, a.lastBlock, a.lastTs, applied0+int64(applied), db.clock().Unix()); err != nil {
		return 0, err
	}
	if err := tx.Commit(); err != nil {
		return 0, err
	}
	db.publish(a) // the catalog and the hot read model together (hot.go)
	return applied, nil
}

func (a *applier) prepare() error {
	var err error
	prep := func(q string) *sql.Stmt {
		if err != nil {
			return nil
		}
		var s *sql.Stmt
		s, err = a.stmt(q)
		return s
	}
	a.act = a.newBulk(`INSERT INTO activity (seq, wid, ts, type, mid, tid, eid, side, size, usdc, price,
		taker, tx, builder) VALUES `, 14)
	a.act.errWrap = func(err error) error {
		if strings.Contains(err.Error(), "UNIQUE") || strings.Contains(err.Error(), "SQLSTATE 23505") {
			return fmt.Errorf("%w within the batch", store.ErrDuplicate)
		}
		return err
	}
	a.obs = a.newBulk(`INSERT OR REPLACE INTO pnl_obs (wid, day, ts, block, realized_market,
		realized_combo, unrealized, maker_rebate, taker_rebate, reward, yield, referral, deposits, withdrawals, fees,
		volume, volume_usdc, trade_count) VALUES `, 18)
	for _, b := range []*bulk{a.act, a.obs} {
		a.copyMode(b)
	}
	a.insCombo = prep(`INSERT INTO combo_activity (seq, wid, ts, block, log, type, mid, tid, amount, payout, tx)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
	a.findSeq = prep(`SELECT tx FROM activity WHERE seq = ? UNION ALL SELECT tx FROM combo_activity WHERE seq = ?`)
	return err
}

// copyMode puts b on the dialect's COPY, when it has one.
func (a *applier) copyMode(b *bulk) {
	if a.dia.Copy == nil {
		return
	}
	min := 1 // a plain insert: COPY costs what a multi-row INSERT does, or less
	if strings.Contains(b.head, "OR REPLACE") {
		min = a.dia.CopyMin // an upsert: COPY goes through a staging table
	}
	b.copyMode(func(table string, cols []string, upsert bool, rows [][]any) error {
		return a.dia.Copy(a.ctx, a.conn, table, cols, upsert, rows)
	}, min)
}

func (a *applier) close() {
	for _, s := range []*sql.Stmt{a.insCombo, a.findSeq} {
		if s != nil {
			s.Close()
		}
	}
	a.act.close()
	a.obs.close()
}

// apply dispatches one event; ok is false for a skipped exact replay.
func (a *applier) apply(e *ledger.Event) (bool, error) {
	if e.Kind.Onchain() {
		if e.LogIndex < 0 || e.LogIndex >= maxLogIndex || e.BlockNumber <= 0 || e.BlockNumber >= maxBlock {
			return false, fmt.Errorf("block_number %d / log_index %d out of the store's range", e.BlockNumber, e.LogIndex)
		}
		replay, err := a.seen(e)
		if err != nil || replay {
			return false, err
		}
		a.lastBlock = max(a.lastBlock, e.BlockNumber)
		a.lastTs = max(a.lastTs, e.Timestamp)
		a.maxSeq = max(a.maxSeq, store.SequenceID(e.BlockNumber, e.LogIndex, 1))
		if err := a.advanceDay(e.Timestamp); err != nil {
			return false, err
		}
	}
	var err error
	switch e.Kind {
	case ledger.KindMarket:
		err = a.market(e)
	case ledger.KindTrade:
		err = a.trade(e)
	case ledger.KindSplit:
		err = a.split(e)
	case ledger.KindMerge:
		err = a.merge(e)
	case ledger.KindRedeem:
		err = a.redeem(e)
	case ledger.KindConversion:
		err = a.conversion(e)
	case ledger.KindMigration, ledger.KindReward, ledger.KindYield, ledger.KindMakerRebate, ledger.KindTakerRebate,
		ledger.KindReferralReward, ledger.KindDeposit, ledger.KindWithdrawal:
		err = a.cash(e)
	case ledger.KindTip:
		err = a.tip(e)
	case ledger.KindResolution:
		err = a.resolution(e)
	case ledger.KindProfile:
		err = a.profile(e)
	case ledger.KindBuilder:
		a.builders[e.Code] = e
	case ledger.KindComboMarket:
		err = a.comboMarket(e)
	case ledger.KindComboTrade:
		err = a.comboTrade(e)
	case ledger.KindComboActivity:
		err = a.comboActivity(e)
	default:
		err = fmt.Errorf("unknown kind %q", e.Kind)
	}
	return err == nil, err
}

// seen reports whether the event's sequence slot is already applied by the
// same transaction (a replay, skipped). Only slots at or below the stored
// high-water mark can be taken, so fresh data costs no lookup. A slot taken
// by another transaction is ErrDuplicate; a duplicate inside one batch fails
// on the primary key.
func (a *applier) seen(e *ledger.Event) (bool, error) {
	seq := store.SequenceID(e.BlockNumber, e.LogIndex, 0)
	if seq > a.maxSeqAtStart {
		return false, nil
	}
	var tx string
	err := a.findSeq.QueryRowContext(a.ctx, seq, seq).Scan(&tx)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return false, nil
	case err != nil:
		return false, err
	case tx == e.TxHash:
		return true, nil
	}
	return false, fmt.Errorf("%w: block %d log %d", store.ErrDuplicate, e.BlockNumber, e.LogIndex)
}

// wallet returns the working copy of addr, loading or creating it. Every
// wallet touched by an on-chain event is marked for the day's observation.
func (a *applier) wallet(addr string) (*wallet, error) {
	if w := a.wallets[addr]; w != nil {
		return w, nil
	}
	var w *wallet
	ok := false
	if !a.noWallets { // an empty table needs no lookups (bulk loads)
		var err error
		if w, ok, err = a.loadWallet(addr); err != nil {
			return nil, err
		}
	}
	if !ok {
		w = newWallet()
		w.wid, w.addr, w.dirty = a.nextWid, addr, true
		a.nextWid++
	}
	a.wallets[addr] = w
	return w, nil
}

// party is wallet() for an on-chain participant at e.
func (a *applier) party(addr string, e *ledger.Event) (*wallet, error) {
	w, err := a.wallet(addr)
	if err != nil {
		return nil, err
	}
	if w.firstSeen == 0 || e.Timestamp < w.firstSeen {
		w.firstSeen = e.Timestamp
	}
	w.lastBlock = max(w.lastBlock, e.BlockNumber)
	w.obsTs = max(w.obsTs, e.Timestamp)
	w.dirty = true
	a.touched[w] = struct{}{}
	return w, nil
}

type actRow struct {
	participant int
	w           *wallet
	typ         int
	m           *market
	t           *token
	side        int
	size, usdc  amount.Micro
	price       amount.Micro
	taker       int
	builder     string
}

func (a *applier) insert(e *ledger.Event, r actRow) error {
	var mid, tid, eid int64
	if r.m != nil {
		mid, eid = r.m.mid, r.m.eventID
	}
	if r.t != nil {
		tid = r.t.tid
	}
	var builder any
	if r.builder != "" {
		builder = r.builder
	}
	seq := store.SequenceID(e.BlockNumber, e.LogIndex, r.participant)
	a.hotAdd(r.w.wid, e.TxHash, hotRow{seq: seq, ts: e.Timestamp, eid: eid, size: r.size, usdc: r.usdc,
		price: r.price, mid: int32(mid), tid: int32(tid), typ: uint8(r.typ), side: uint8(r.side), taker: uint8(r.taker)})
	return a.act.add(seq, r.w.wid,
		e.Timestamp, r.typ, mid, tid, eid, r.side, int64(r.size), int64(r.usdc), int64(r.price), r.taker, e.TxHash, builder)
}

func (a *applier) marketOf(cond string) (*market, error) {
	m := a.cat.byCond[cond]
	if m == nil || m.isCombo {
		return nil, fmt.Errorf("unknown condition %s", cond)
	}
	return m, nil
}
