package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"maps"
	"slices"

	"pmx/internal/amount"
	"pmx/internal/data/ledger"
	"pmx/internal/data/store"
)

// market is a market (or combo market) as the store knows it. Markets are
// few (hundreds to thousands), so the whole set lives in memory: Apply
// mutates a private copy and publishes it after commit; queries read the
// published, immutable catalog without locks.
type market struct {
	mid         int64
	conditionID string
	marketID    int64
	question    string
	slug        string
	eventID     int64
	eventSlug   string
	eventTitle  string
	category    string
	negRisk     bool
	endDate     string
	icon        string
	active      bool
	closed      bool
	archived    bool
	outcomes    []string
	isCombo     bool
	legs        []ledger.ComboLeg
	resolved    bool
	payouts     []amount.Micro
	resolvedAt  int64
	volume      amount.Micro
	volumeUSDC  amount.Micro
	lastTradeAt int64
	tokens      []*token // by outcome index
	dirty       bool
}

type token struct {
	tid     int64
	tokenID string
	mid     int64
	idx     int // store.NoOutcome while unknown
	outcome string
	price   amount.Micro
	priced  bool
	dirty   bool
}

// mark is the token's current price: the payout once resolved, else the last
// trade mark (0 before any trade).
func (c *catalog) mark(t *token) amount.Micro {
	if m := c.byMid[t.mid]; m != nil && m.resolved && t.idx < len(m.payouts) {
		return m.payouts[t.idx]
	}
	return t.price
}

// catalog indexes markets and tokens.
type catalog struct {
	byMid   map[int64]*market
	byCond  map[string]*market
	byTid   map[int64]*token
	byToken map[string]*token
	byEvent map[int64][]*market
	nextMid int64
	nextTid int64
	// gen numbers published catalogs: Open's is 0 and each Apply's clone is
	// its parent's + 1, so (Apply being single-writer) a later publish has a
	// larger gen. The boards memo's generation (boards.go).
	gen   int64
	cache genCache // market-route reads cached for this generation (markets_cache.go)
	// textsGen is the gen of the last catalog whose batch had a market,
	// combo_market, resolution or builder event: what enriches a wallet's
	// feed rows last changed then (WalletGeneration).
	textsGen int64
	// mgen is, by mid, the gen of the last catalog that changed the market's
	// marks (mark) or any position in it or the profile of a holder (hold):
	// what /v2/positions, /v2/value and /v2/holders read of a market moved
	// then (PositionsGeneration, HoldersGeneration). Copied on clone.
	mgen []mktGen
	// shared: made by cloneShared, so markets and tokens not in owned are
	// the parent's (published, read by queries) and own copies one before
	// Apply changes it.
	shared bool
	owned  map[int64]struct{} // mids of the markets this catalog owns
	ownedM []*market
	ownedT []*token
}

// mktGen is one market's generations (catalog.mgen).
type mktGen struct{ mark, hold int64 }

// bump records that this catalog changes market mid's marks or holdings.
func (c *catalog) bump(mid int64, mark bool) {
	if mid < 0 {
		return
	}
	if int(mid) >= len(c.mgen) {
		c.mgen = append(c.mgen, make([]mktGen, int(mid)+1-len(c.mgen))...)
	}
	if mark {
		c.mgen[mid].mark = c.gen
	} else {
		c.mgen[mid].hold = c.gen
	}
}

// markGen is the gen of market mid's marks.
func (c *catalog) markGen(mid int64) int64 {
	if mid < 0 || int(mid) >= len(c.mgen) {
		return 0
	}
	return c.mgen[mid].mark
}

// holdersGen is the later of market mid's generations.
func (c *catalog) holdersGen(mid int64) int64 {
	if mid < 0 || int(mid) >= len(c.mgen) {
		return 0
	}
	return max(c.mgen[mid].mark, c.mgen[mid].hold)
}

func newCatalog() *catalog {
	return &catalog{byMid: map[int64]*market{}, byCond: map[string]*market{}, byTid: map[int64]*token{},
		byToken: map[string]*token{}, byEvent: map[int64][]*market{}, nextMid: 1, nextTid: 1}
}

// clone deep-copies the catalog so Apply can mutate it privately.
func (c *catalog) clone() *catalog {
	n := newCatalog()
	n.nextMid, n.nextTid, n.gen, n.textsGen = c.nextMid, c.nextTid, c.gen+1, c.textsGen
	n.mgen = slices.Clone(c.mgen)
	for _, m := range c.byMid {
		mc := *m
		mc.tokens = nil
		mc.dirty = false
		n.addMarket(&mc)
	}
	for _, t := range c.byTid {
		tc := *t
		tc.dirty = false
		n.addToken(&tc)
	}
	n.relink()
	return n
}

// cloneShared is clone for a batch that changes no market's texts or
// tokens (sharedOK): the indexes are copied, the markets and tokens are
// shared with c until the batch changes one (own). A batch of one trade
// then costs the same in a store of ten markets or ten thousand, where
// clone was O(markets) per batch: the CLOB's feed commits every fill on an
// idle venue as its own batch.
func (c *catalog) cloneShared() *catalog {
	return &catalog{byMid: maps.Clone(c.byMid), byCond: maps.Clone(c.byCond), byTid: maps.Clone(c.byTid),
		byToken: maps.Clone(c.byToken), byEvent: maps.Clone(c.byEvent), nextMid: c.nextMid, nextTid: c.nextTid,
		gen: c.gen + 1, textsGen: c.textsGen, mgen: slices.Clone(c.mgen), shared: true, owned: map[int64]struct{}{}}
}

// sharedOK reports whether events change no market but by trading: their
// batch may use cloneShared. Markets, combos, resolutions, conversions and
// builders take the full clone.
func sharedOK(events []ledger.Event) bool {
	for i := range events {
		switch events[i].Kind {
		case ledger.KindTrade, ledger.KindSplit, ledger.KindMerge, ledger.KindRedeem, ledger.KindMigration,
			ledger.KindReward, ledger.KindYield, ledger.KindMakerRebate, ledger.KindTakerRebate,
			ledger.KindReferralReward, ledger.KindDeposit, ledger.KindWithdrawal, ledger.KindTip, ledger.KindProfile:
		default:
			return false
		}
	}
	return true
}

// own makes market m and its tokens this catalog's before a change and
// returns them: m's copy and the copy of t (one of m's tokens, or nil).
// A no-op on a full clone, whose objects are all its own.
func (c *catalog) own(m *market, t *token) (*market, *token) {
	if !c.shared || m == nil {
		return m, t
	}
	if _, ok := c.owned[m.mid]; ok {
		return m, t
	}
	mc := *m
	mc.tokens = make([]*token, len(m.tokens))
	tc := t
	for i, x := range m.tokens {
		if x == nil {
			continue
		}
		xc := *x
		mc.tokens[i] = &xc
		c.byTid[xc.tid], c.byToken[xc.tokenID] = &xc, &xc
		c.ownedT = append(c.ownedT, &xc)
		if x == t {
			tc = &xc
		}
	}
	if tc == t && t != nil { // not at its outcome index (cannot happen: relink put it there)
		x := *t
		tc = &x
		c.byTid[x.tid], c.byToken[x.tokenID] = tc, tc
		c.ownedT = append(c.ownedT, tc)
	}
	t = tc
	c.byMid[mc.mid], c.byCond[mc.conditionID] = &mc, &mc
	if evs := c.byEvent[mc.eventID]; len(evs) > 0 {
		cp := slices.Clone(evs)
		for i := range cp {
			if cp[i] == m {
				cp[i] = &mc
			}
		}
		c.byEvent[mc.eventID] = cp
	}
	c.owned[mc.mid] = struct{}{}
	c.ownedM = append(c.ownedM, &mc)
	return &mc, t
}

// changeable lists the markets and tokens Apply may have changed: the
// owned ones of a shared clone, else all.
func (c *catalog) changeable() ([]*market, []*token) {
	if c.shared {
		return c.ownedM, c.ownedT
	}
	return slices.Collect(maps.Values(c.byMid)), slices.Collect(maps.Values(c.byTid))
}

func (c *catalog) addMarket(m *market) {
	c.byMid[m.mid] = m
	c.byCond[m.conditionID] = m
}

func (c *catalog) addToken(t *token) {
	c.byTid[t.tid] = t
	c.byToken[t.tokenID] = t
}

// relink rebuilds the market→tokens and event→markets indexes.
func (c *catalog) relink() {
	c.byEvent = map[int64][]*market{}
	for _, m := range c.byMid {
		m.tokens = make([]*token, len(m.outcomes))
		if !m.isCombo && m.eventID != 0 {
			c.byEvent[m.eventID] = append(c.byEvent[m.eventID], m)
		}
	}
	for _, t := range c.byTid {
		m := c.byMid[t.mid]
		if m == nil || t.idx < 0 || t.idx >= len(m.tokens) {
			continue
		}
		m.tokens[t.idx] = t
	}
}

// mids resolves condition ids to market ids, skipping unknown ones.
func (c *catalog) mids(conds []string) []int64 {
	out := make([]int64, 0, len(conds))
	for _, id := range conds {
		if m := c.byCond[id]; m != nil {
			out = append(out, m.mid)
		}
	}
	return out
}

func loadCatalog(ctx context.Context, q interface {
	QueryContext(context.Context, string, ...any) (*sql.Rows, error)
}) (*catalog, error) {
	c := newCatalog()
	rows, err := q.QueryContext(ctx, `SELECT mid, condition_id, market_id, question, slug, event_id, event_slug,
		event_title, category, neg_risk, end_date, icon, active, closed, archived, outcomes, is_combo, legs,
		resolved, payouts, resolved_at, volume, volume_usdc, last_trade_at FROM markets`)
	if err != nil {
		return nil, err
	}
	for rows.Next() {
		m := &market{}
		var outcomes, legs, payouts string
		if err := rows.Scan(&m.mid, &m.conditionID, &m.marketID, &m.question, &m.slug, &m.eventID, &m.eventSlug,
			&m.eventTitle, &m.category, &m.negRisk, &m.endDate, &m.icon, &m.active, &m.closed, &m.archived,
			&outcomes, &m.isCombo, &legs, &m.resolved, &payouts, &m.resolvedAt, &m.volume, &m.volumeUSDC,
			&m.lastTradeAt); err != nil {
			rows.Close()
			return nil, err
		}
		if err := unmarshalAll(outcomes, &m.outcomes, legs, &m.legs, payouts, &m.payouts); err != nil {
			rows.Close()
			return nil, err
		}
		c.addMarket(m)
		c.nextMid = max(c.nextMid, m.mid+1)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	rows, err = q.QueryContext(ctx, `SELECT tid, token_id, mid, idx, outcome, price, priced FROM tokens`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		t := &token{}
		if err := rows.Scan(&t.tid, &t.tokenID, &t.mid, &t.idx, &t.outcome, &t.price, &t.priced); err != nil {
			return nil, err
		}
		c.addToken(t)
		c.nextTid = max(c.nextTid, t.tid+1)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	c.relink()
	return c, nil
}

func unmarshalAll(pairs ...any) error {
	for i := 0; i < len(pairs); i += 2 {
		s := pairs[i].(string)
		if s == "" {
			continue
		}
		if err := json.Unmarshal([]byte(s), pairs[i+1]); err != nil {
			return err
		}
	}
	return nil
}

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err) // only plain slices are marshalled here
	}
	return string(b)
}

// outcomeIndex reports the token's outcome index or the sentinel.
func outcomeIndex(t *token) int {
	if t == nil || t.mid == 0 {
		return store.NoOutcome
	}
	return t.idx
}

// Outcomes implements store.Store from the published catalog.
func (db *DB) Outcomes(conditionID string) (int, bool) {
	m := db.cat.Load().byCond[conditionID]
	if m == nil {
		return 0, false
	}
	return len(m.outcomes), true
}
