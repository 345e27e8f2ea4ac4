package perps

import (
	"crypto/sha256"
	"encoding/hex"
	"strconv"

	"pmx/internal/perps/risk"
)

// Money out: withdrawals to a simulated chain and internal transfers
// (transfer.go). The chain is a stand-in (docs/perps.md, chain.go): a
// withdrawal is sent at its command's time and gains confirmations with the
// chain's height as later commands arrive; the first block mines it (its
// hash appears) and the required_confirmations-th confirms it. The operator
// may end a pending one as removed or failed (KWithdrawStatus), which
// refunds the account.

// Command kinds of money out (appended after the trading kinds).
const (
	KWithdraw       = "withdraw"       // Account, Amount (micro), Fee (micro), To, Required, Replay
	KBlock          = "block"          // legacy: one simulated block; with BlockTime, adopt legacy items (chain.go)
	KWithdrawStatus = "withdrawStatus" // WID, Status: the operator ends a pending withdrawal
	KTransfer       = "transfer"       // Account → To, Amount (micro), Label, Replay
)

// Withdrawal statuses.
const (
	WPending   = "pending"
	WConfirmed = "confirmed"
	WRemoved   = "removed"
	WFailed    = "failed"
)

// Error identifiers of money commands (the HTTP layer answers them 422 with
// the id).
const (
	ErrInsufficientBalance = "insufficient_balance"
	ErrTransferToSelf      = "transfer_to_self"
)

// Withdrawal is one withdrawal request. Amount is debited from the balance
// when it is accepted; Fee is withheld from what reaches To (Amount − Fee).
type Withdrawal struct {
	ID        uint64 `json:"id"`
	Account   string `json:"account"`
	Amount    int64  `json:"amount"`
	Fee       int64  `json:"fee"`
	To        string `json:"to"`
	Status    string `json:"status"`
	Hash      string `json:"hash,omitempty"` // set when mined
	Conf      int64  `json:"conf"`
	Required  int64  `json:"required"`
	Created   int64  `json:"created"`
	Confirmed int64  `json:"confirmed,omitempty"`
	Replay    []byte `json:"replay,omitempty"`
	Chain
}

// Refusal is a refused signed money command, kept so that a resent identical
// request is answered with the first outcome (it never executes twice).
type Refusal struct {
	Replay []byte `json:"replay"`
	ID     uint64 `json:"id"`
	Err    string `json:"err"`
}

// maxRefusals bounds the kept refusals (up to a quarter more) (a replay key is only valid for the
// verifier's signature age anyway).
const maxRefusals = 4096

// money is the machine's money-out state.
type money struct {
	wds      []*Withdrawal // by id; ids are 1..len
	pending  []*Withdrawal // status pending, by id
	trs      []*Transfer   // by id; ids are 1..len
	refused  []Refusal
	deps     []depRef          // deposits awaiting confirmations, by id
	byReplay map[string]uint64 // replay key → withdrawal id; transferReplayPrefix+key → transfer id
	chainDue int64             // earliest next block of a chain item, 0 none (not state: chain.go)

	// Per-account indexes (not state: rebuilt by restore), in id order, so
	// an account's history is read without scanning everyone's.
	wdBy map[string][]*Withdrawal
	trBy map[string][]*Transfer // both parties
}

func (mo *money) reset() {
	*mo = money{byReplay: map[string]uint64{}, wdBy: map[string][]*Withdrawal{}, trBy: map[string][]*Transfer{}}
}

// OutcomeByReplay returns the outcome of the signed withdrawal with this
// replay key: its id and refusal ("" if accepted); ok false if none applied.
func (m *Machine) OutcomeByReplay(key []byte) (id uint64, refusal string, ok bool) {
	if id, ok := m.mo.byReplay[string(key)]; ok {
		return id, "", true
	}
	return m.refusedOutcome(key)
}

func (m *Machine) refusedOutcome(key []byte) (id uint64, refusal string, ok bool) {
	for i := len(m.mo.refused) - 1; i >= 0; i-- {
		if string(m.mo.refused[i].Replay) == string(key) {
			return m.mo.refused[i].ID, m.mo.refused[i].Err, true
		}
	}
	return 0, "", false
}

func (m *Machine) refuse(c *Command, id uint64, err string, ev *Event) {
	ev.Err, ev.ID = err, id
	if len(c.Replay) > 0 {
		if len(m.mo.refused) >= maxRefusals+maxRefusals/4 { // a quarter at a time: amortized O(1)
			m.mo.refused = append(m.mo.refused[:0], m.mo.refused[len(m.mo.refused)-maxRefusals+1:]...)
		}
		m.mo.refused = append(m.mo.refused, Refusal{Replay: c.Replay, ID: id, Err: err})
	}
}

// withdrawable is what the account may take out now: risk.Withdrawable of
// its risk view, the one rule for withdrawals, transfers and the portfolio's
// withdrawable (0 for an unknown account or arithmetic that does not fit).
func (m *Machine) withdrawable(addr string, _ int64) int64 {
	a := m.accts[addr]
	if a == nil {
		return 0
	}
	ra, mk := m.riskView(a, 0)
	for iid, mt := range mk { // without a mark, the pre-trade check's stand-in prices
		if mt.Mark <= 0 {
			mt.Mark = m.standIn(a, iid)
		}
	}
	v, err := risk.Withdrawable(&ra, mk)
	if err != nil {
		return 0
	}
	return v
}

func (m *Machine) withdraw(c *Command, ts int64, ev *Event) {
	amt, ok1 := ParseMicro(c.Amount)
	fee, ok2 := ParseMicro(c.Fee)
	if c.Fee == "" {
		fee, ok2 = 0, true
	}
	if !ok1 || !ok2 || amt <= 0 || fee < 0 || c.Account == "" || c.To == "" || c.Required < 1 {
		ev.Err = "invalid_command"
		return
	}
	id := uint64(len(m.mo.wds)) + 1
	if amt <= fee {
		m.refuse(c, id, "amount_below_fee", ev)
		return
	}
	a := m.accts[c.Account]
	if a == nil || m.withdrawable(c.Account, ts) < amt {
		m.refuse(c, id, ErrInsufficientBalance, ev)
		return
	}
	a.Balance -= amt // amt ≤ withdrawable ≤ balance
	m.auditCredit(a, -amt)
	w := &Withdrawal{ID: id, Account: c.Account, Amount: amt, Fee: fee, To: c.To, Status: WPending,
		Required: c.Required, Created: ts, Replay: c.Replay, Chain: sentAt(c, ts)}
	m.mo.wds = append(m.mo.wds, w)
	m.mo.wdBy[w.Account] = append(m.mo.wdBy[w.Account], w)
	m.mo.pending = append(m.mo.pending, w)
	if len(c.Replay) > 0 {
		m.mo.byReplay[string(c.Replay)] = id
	}
	ev.ID = id
	ev.Withdrawals = append(ev.Withdrawals, *w)
	ev.Balances = append(ev.Balances, m.balanceOf(a))
	m.chainWaits(&w.Chain, w.Conf, w.Required)
}

func withdrawalHash(w *Withdrawal) string {
	h := sha256.Sum256([]byte("pmx-withdrawal:" + strconv.FormatUint(w.ID, 10) + ":" + w.Account))
	return "0x" + hex.EncodeToString(h[:])
}

// block is a journaled `block` record: with a BlockTime, it puts the items
// still waiting for legacy blocks on the chain (chain.go); without, it is a
// block of a journal written before internal/chain, which adds one
// confirmation to every legacy item (the chain's items ignore it).
func (m *Machine) block(c *Command, ts int64, ev *Event) {
	if c.BlockTime > 0 {
		m.adoptLegacy(c.BlockTime, ts)
		return
	}
	m.confirmDeposits(ts, ev)
	keep := m.mo.pending[:0]
	for _, w := range m.mo.pending {
		if w.BlockTime != 0 {
			keep = append(keep, w)
			continue
		}
		w.Conf++
		if w.Hash == "" {
			w.Hash = withdrawalHash(w)
		}
		if w.Conf >= w.Required {
			w.Status, w.Confirmed = WConfirmed, ts
		} else {
			keep = append(keep, w)
		}
		ev.Withdrawals = append(ev.Withdrawals, *w)
	}
	clear(m.mo.pending[len(keep):])
	m.mo.pending = keep
}

// withdrawStatus ends a pending withdrawal as removed or failed and refunds it.
func (m *Machine) withdrawStatus(c *Command, ev *Event) {
	if c.Status != WRemoved && c.Status != WFailed {
		ev.Err = "invalid status"
		return
	}
	if c.WID == 0 || c.WID > uint64(len(m.mo.wds)) {
		ev.Err = "withdrawal_not_found"
		return
	}
	w := m.mo.wds[c.WID-1]
	if w.Status != WPending {
		ev.Err = "withdrawal_not_pending"
		return
	}
	a := m.accts[w.Account]
	if !m.fits(a, 0, w.Amount) {
		ev.Err = ErrAmountRange
		return
	}
	a.Balance += w.Amount
	m.auditCredit(a, w.Amount)
	w.Status = c.Status
	for i, p := range m.mo.pending {
		if p == w {
			m.mo.pending = append(m.mo.pending[:i], m.mo.pending[i+1:]...)
			break
		}
	}
	ev.ID = w.ID
	ev.Withdrawals = append(ev.Withdrawals, *w)
	ev.Balances = append(ev.Balances, m.balanceOf(a))
}

// WithdrawalWire is the contract's withdrawal object.
type WithdrawalWire struct {
	ID        uint64 `json:"withdraw_id"`
	Asset     string `json:"asset"`
	Amount    string `json:"amount"`
	To        string `json:"to"`
	Fee       string `json:"fee"`
	Status    string `json:"status"`
	Hash      string `json:"hash"`
	Conf      int64  `json:"confirmations"`
	Required  int64  `json:"required_confirmations"`
	Created   int64  `json:"created_timestamp"`
	Confirmed int64  `json:"confirmed_timestamp,omitempty"`
}

// Wire is w in the contract's shape.
func (w *Withdrawal) Wire() WithdrawalWire {
	h := w.Hash
	if h == "" {
		h = "0x"
	}
	return WithdrawalWire{ID: w.ID, Asset: Asset, Amount: FormatMicro(w.Amount), To: w.To, Fee: FormatMicro(w.Fee),
		Status: w.Status, Hash: h, Conf: w.Conf, Required: w.Required, Created: w.Created, Confirmed: w.Confirmed}
}

// WithdrawalsOf lists acct's withdrawals created in [start, end), newest
// first, filtered by status and hash when non-empty; at most limit, more
// when others matched.
func (m *Machine) WithdrawalsOf(acct, status, hash string, start, end int64, limit int) ([]WithdrawalWire, bool) {
	out := []WithdrawalWire{}
	wds := m.mo.wdBy[acct]
	for i := len(wds) - 1; i >= 0; i-- {
		w := wds[i]
		if w.Created < start || w.Created >= end || (status != "" && w.Status != status) ||
			(hash != "" && w.Hash != hash) {
			continue
		}
		if len(out) == limit {
			return out, true
		}
		out = append(out, w.Wire())
	}
	return out, false
}

func (mo *money) restore(wds []*Withdrawal, trs []*Transfer, refused []Refusal) {
	mo.wds, mo.trs, mo.refused = wds, trs, refused
	for _, w := range wds {
		mo.wdBy[w.Account] = append(mo.wdBy[w.Account], w)
	}
	for _, t := range trs {
		mo.indexTransfer(t)
	}
	mo.deps = nil // re-derived by the machine from the accounts (restoreDeposits)
	for _, w := range wds {
		if w.Status == WPending {
			mo.pending = append(mo.pending, w)
		}
		if len(w.Replay) > 0 {
			mo.byReplay[string(w.Replay)] = w.ID
		}
	}
	for _, t := range trs {
		if len(t.Replay) > 0 {
			mo.byReplay[transferReplayPrefix+string(t.Replay)] = t.ID
		}
	}
}

// Record tags of the money fields: from 64 up, clear of the trading tags
// (record.go), which grow from 1.
const (
	tWID = 64 + iota
	tStatus
	tFee
	tTo
	tLabel
	tRequired
	tBlockTime
)

func (c *Command) encodeMoney(w *wbuf) {
	w.uint(tWID, c.WID)
	w.str(tStatus, c.Status)
	w.str(tFee, c.Fee)
	w.str(tTo, c.To)
	w.str(tLabel, c.Label)
	w.int(tRequired, c.Required)
	w.int(tBlockTime, c.BlockTime)
}

func (c *Command) decodeMoney(tag byte, r *rbuf) bool {
	switch tag {
	case tWID:
		c.WID = r.uv()
	case tStatus:
		c.Status = r.str()
	case tFee:
		c.Fee = r.str()
	case tTo:
		c.To = r.str()
	case tLabel:
		c.Label = r.str()
	case tRequired:
		c.Required = r.v()
	case tBlockTime:
		c.BlockTime = r.v()
	default:
		return false
	}
	return true
}
