package perps

// Transfer is one settled internal transfer: both balances change in the
// one Apply, so no state exists in which only one side moved.
type Transfer struct {
	ID      uint64 `json:"id"`
	From    string `json:"from"`
	To      string `json:"to"`
	Amount  int64  `json:"amount"`
	Label   string `json:"label,omitempty"`
	Created int64  `json:"created"`
	Replay  []byte `json:"replay,omitempty"`
}

// maxTransfers bounds the transfers kept (the oldest are dropped, with their
// replay keys, a quarter at a time): transfers carry no fee, so their
// history must not grow with hostile traffic. Ids keep counting. (A
// variable only so the test can exercise the trim quickly.)
var maxTransfers = 100_000

// transferReplayPrefix keeps transfer replay keys apart from withdrawal ones
// in money.byReplay (the ids are separate sequences).
const transferReplayPrefix = "t"

func (m *Machine) transfer(c *Command, ts int64, ev *Event) {
	amt, ok := ParseMicro(c.Amount)
	if !ok || amt <= 0 || c.Account == "" || c.To == "" || len(c.Label) > 64 {
		ev.Err = "invalid_command"
		return
	}
	id := m.mo.nextTransfer()
	if c.To == c.Account {
		m.refuse(c, id, ErrTransferToSelf, ev)
		return
	}
	from := m.accts[c.Account]
	if from == nil || m.withdrawable(c.Account, ts) < amt {
		m.refuse(c, id, ErrInsufficientBalance, ev)
		return
	}
	if to := m.accts[c.To]; to != nil && !m.fits(to, 0, amt) {
		m.refuse(c, id, ErrAmountRange, ev)
		return
	}
	to := m.account(c.To, ts)
	from.Balance -= amt // amt ≤ withdrawable ≤ balance
	to.Balance += amt   // fits: checked above (a new account starts at 0)
	m.auditCredit(from, -amt)
	m.auditCredit(to, amt)
	t := &Transfer{ID: id, From: c.Account, To: c.To, Amount: amt, Label: c.Label, Created: ts, Replay: c.Replay}
	m.mo.trs = append(m.mo.trs, t)
	m.mo.indexTransfer(t)
	m.mo.trimTransfers()
	if len(c.Replay) > 0 {
		m.mo.byReplay[transferReplayPrefix+string(c.Replay)] = id
	}
	ev.ID = id
	ev.Balances = append(ev.Balances, m.balanceOf(from), m.balanceOf(to))
}

// TransferOutcome is OutcomeByReplay for a transfer's replay key.
func (m *Machine) TransferOutcome(key []byte) (id uint64, refusal string, ok bool) {
	if id, ok := m.mo.byReplay[transferReplayPrefix+string(key)]; ok {
		return id, "", true
	}
	return m.refusedOutcome(key)
}

// TransferWire is the contract's internal transfer object.
type TransferWire struct {
	ID           uint64 `json:"transfer_id"`
	Asset        string `json:"asset"`
	Amount       string `json:"amount"`
	Direction    string `json:"direction"`
	Counterparty string `json:"counterparty"`
	Created      int64  `json:"created_timestamp"`
	Label        string `json:"label,omitempty"`
}

// TransfersOf lists acct's transfers created in [start, end), newest first;
// dir "in", "out" or "" for both; at most limit, more when others matched.
func (m *Machine) TransfersOf(acct, dir string, start, end int64, limit int) ([]TransferWire, bool) {
	out := []TransferWire{}
	trs := m.mo.trBy[acct]
	for i := len(trs) - 1; i >= 0; i-- {
		t := trs[i]
		if t.Created < start || t.Created >= end {
			continue
		}
		w := TransferWire{ID: t.ID, Asset: Asset, Amount: FormatMicro(t.Amount), Created: t.Created, Label: t.Label}
		switch {
		case t.From == acct && dir != "in":
			w.Direction, w.Counterparty = "out", t.To
		case t.To == acct && dir != "out":
			w.Direction, w.Counterparty = "in", t.From
		default:
			continue
		}
		if len(out) == limit {
			return out, true
		}
		out = append(out, w)
	}
	return out, false
}

// MaxMs is the largest timestamp a history window may name.
const MaxMs = int64(1<<63 - 1)

func (mo *money) nextTransfer() uint64 {
	if n := len(mo.trs); n > 0 {
		return mo.trs[n-1].ID + 1
	}
	return 1
}

func (mo *money) indexTransfer(t *Transfer) {
	mo.trBy[t.From] = append(mo.trBy[t.From], t)
	mo.trBy[t.To] = append(mo.trBy[t.To], t)
}

// trimTransfers drops the oldest transfers past maxTransfers×5/4 from the
// list, the indexes (where they are the oldest too) and the replay map.
func (mo *money) trimTransfers() {
	if len(mo.trs) <= maxTransfers+maxTransfers/4 {
		return
	}
	drop := len(mo.trs) - maxTransfers
	for _, t := range mo.trs[:drop] {
		for _, addr := range [2]string{t.From, t.To} {
			if l := mo.trBy[addr]; len(l) > 0 && l[0] == t {
				if len(l) == 1 {
					delete(mo.trBy, addr)
				} else {
					mo.trBy[addr] = l[1:]
				}
			}
		}
		if len(t.Replay) > 0 {
			delete(mo.byReplay, transferReplayPrefix+string(t.Replay))
		}
	}
	mo.trs = append([]*Transfer(nil), mo.trs[drop:]...)
}
