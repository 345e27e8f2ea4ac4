package perps

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"sort"
	"strconv"
)

// The operator deposit is the stand-in for an on-chain deposit: it credits
// the account at once (the operator vouches for it) and its record is
// pending until the simulated chain (withdraw.go) has given it Req
// confirmations. A deposit is seen on chain, so its hash exists from the
// start (the official client requires one).

type depRef struct {
	Addr string
	ID   uint64
}

// DepositUpdate is a deposit whose state changed, for its account's
// deposits channel.
type DepositUpdate struct {
	Account string
	Deposit DepositWire
}

// AccountBalance is an account's balance after a money command.
type AccountBalance struct {
	Account string
	Balance Balance
}

func (m *Machine) balanceOf(a *Account) AccountBalance {
	return AccountBalance{Account: a.Addr, Balance: m.BalancesOf(a.Addr)[0]}
}

func (m *Machine) depositMade(a *Account, ts int64, ev *Event) {
	d := &a.Deposits[len(a.Deposits)-1]
	if d.Req > 0 {
		d.Hash = depositHash(d.ID, a.Addr)
		m.mo.deps = append(m.mo.deps, depRef{Addr: a.Addr, ID: d.ID})
		m.chainWaits(&d.Chain, d.Conf, d.Req)
	}
	ev.Deposits = append(ev.Deposits, DepositUpdate{Account: a.Addr, Deposit: d.Wire(a.Addr)})
	ev.Balances = append(ev.Balances, m.balanceOf(a))
}

func (m *Machine) findDeposit(r depRef) *Deposit {
	ds := m.accts[r.Addr].Deposits
	i := sort.Search(len(ds), func(i int) bool { return ds[i].ID >= r.ID })
	return &ds[i]
}

// confirmDeposits is a legacy block (KBlock without BlockTime) for the
// deposits still on legacy blocks.
func (m *Machine) confirmDeposits(ts int64, ev *Event) {
	keep := m.mo.deps[:0]
	for _, r := range m.mo.deps {
		d := m.findDeposit(r)
		if d.BlockTime != 0 {
			keep = append(keep, r)
			continue
		}
		d.Conf++
		if d.Conf >= d.Req {
			d.Confirmed = ts
		} else {
			keep = append(keep, r)
		}
		ev.Deposits = append(ev.Deposits, DepositUpdate{Account: r.Addr, Deposit: d.Wire(r.Addr)})
	}
	m.mo.deps = keep
}

func depositHash(id uint64, addr string) string {
	h := sha256.Sum256([]byte("pmx-deposit:" + strconv.FormatUint(id, 10) + ":" + addr))
	return "0x" + hex.EncodeToString(h[:])
}

func (m *Machine) restoreDeposits() {
	for _, a := range m.accts {
		for _, d := range a.Deposits {
			if d.Conf < d.Req {
				m.mo.deps = append(m.mo.deps, depRef{Addr: a.Addr, ID: d.ID})
			}
		}
	}
	sort.Slice(m.mo.deps, func(i, j int) bool { return m.mo.deps[i].ID < m.mo.deps[j].ID })
	m.mo.chainDue = m.nextChainDue()
}

// DepositWire is the contract's deposit object. from is not modelled (the
// operator credits): it is the zero address.
type DepositWire struct {
	ID        uint64 `json:"-"`
	Hash      string `json:"hash"`
	Asset     string `json:"asset"`
	Amount    string `json:"amount"`
	From      string `json:"from"`
	To        string `json:"to"`
	Status    string `json:"status"`
	Conf      int64  `json:"confirmations"`
	Req       int64  `json:"required_confirmations"`
	Created   int64  `json:"created_timestamp"`
	Confirmed int64  `json:"confirmed_timestamp,omitempty"`
}

// Wire is d in the contract's shape.
func (d *Deposit) Wire(addr string) DepositWire {
	w := DepositWire{ID: d.ID, Hash: cmp.Or(d.Hash, depositHash(d.ID, addr)), Asset: Asset, Amount: FormatMicro(d.Amount),
		From: "0x0000000000000000000000000000000000000000", To: addr, Status: WConfirmed, Conf: d.Conf, Req: d.Req,
		Created: d.TS, Confirmed: d.Confirmed}
	if d.Conf < d.Req {
		w.Status = WPending
	} else if d.Req == 0 {
		w.Confirmed = d.TS // made before the chain: confirmed when credited
	}
	return w
}

// DepositsOf lists addr's deposits created in [start, end), newest first,
// filtered by status and hash when non-empty; at most limit, more when
// others matched.
func (m *Machine) DepositsOf(addr, status, hash string, start, end int64, limit int) ([]DepositWire, bool) {
	out := []DepositWire{}
	a := m.accts[addr]
	if a == nil {
		return out, false
	}
	for i := len(a.Deposits) - 1; i >= 0; i-- {
		w := a.Deposits[i].Wire(addr)
		if w.Created < start || w.Created >= end || (status != "" && w.Status != status) || (hash != "" && w.Hash != hash) {
			continue
		}
		if len(out) == limit {
			return out, true
		}
		out = append(out, w)
	}
	return out, false
}
