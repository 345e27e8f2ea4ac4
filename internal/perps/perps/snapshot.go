package perps

import (
	"crypto/sha256"
	"encoding/json"
	"io"
	"sort"

	"pmx/internal/exchange/book"
)

// state is the snapshot form: every collection as a slice in id order, books
// as book.AppendSnapshot bytes, so equal states encode (and hash) equally.
type state struct {
	Instruments []*Instrument `json:"instruments"`
	Books       [][]byte      `json:"books"`
	Accounts    []*Account    `json:"accounts"`
	Proxies     []*Proxy      `json:"proxies"`
	Orders      []*Order      `json:"orders"`
	NextOID     uint64        `json:"next_oid"`
	NextTID     uint64        `json:"next_tid"`
	NextAcct    uint64        `json:"next_acct"`
	NextDep     uint64        `json:"next_dep"`
	LastTS      int64         `json:"last_ts"`
	// Exchange-wide state (modes.go, pendmod.go); absent when zero, so the
	// encoding of a state without them is unchanged.
	Flight    Flight        `json:"flight,omitzero"`
	Mode      string        `json:"mode,omitempty"`
	ModeRetry int64         `json:"mode_retry,omitempty"`
	Mods      []*PendingMod `json:"mods,omitempty"`
	ModsDone  []*PendingMod `json:"mods_done,omitempty"`
	NextMod   uint64        `json:"next_mod,omitempty"`
	CCs       []*COIDWait   `json:"ccs,omitempty"` // coidwait.go
	CCsDone   []*COIDWait   `json:"ccs_done,omitempty"`
	NextCC    uint64        `json:"next_cc,omitempty"`
	// Risk state (funding.go); absent when zero.
	Insurance int64                `json:"insurance,omitempty"`
	NextFund  uint64               `json:"next_fund,omitempty"`
	FundPos   map[uint32]*Position `json:"fund_pos,omitempty"` // liqexec.go
	// Money out (withdraw.go); absent when empty.
	Withdrawals []*Withdrawal `json:"withdrawals,omitempty"`
	Transfers   []*Transfer   `json:"transfers,omitempty"`
	Refused     []Refusal     `json:"refused,omitempty"`
}

func (m *Machine) encode() []byte {
	s := state{NextOID: m.nextOID, NextTID: m.nextTID, NextAcct: m.nextAcct, NextDep: m.nextDep, LastTS: m.lastTS,
		Flight: m.fl, Mode: m.mode, ModeRetry: m.modeRetry, Mods: m.mods.pend,
		ModsDone: m.mods.done, CCs: m.ccs.pend, CCsDone: m.ccs.done,
		Withdrawals: m.mo.wds, Transfers: m.mo.trs, Refused: m.mo.refused}
	if m.mods.next > 1 {
		s.NextMod = m.mods.next
	}
	if m.ccs.next > 1 {
		s.NextCC = m.ccs.next
	}
	s.Insurance, s.FundPos = m.insurance, m.fundPos
	if m.nextFund > 1 {
		s.NextFund = m.nextFund
	}
	for _, id := range m.instIDs {
		in := m.inst[id]
		s.Instruments = append(s.Instruments, in)
		s.Books = append(s.Books, book.AppendSnapshot(nil, in.book))
	}
	for _, a := range m.accts {
		s.Accounts = append(s.Accounts, a)
	}
	sort.Slice(s.Accounts, func(i, j int) bool { return s.Accounts[i].ID < s.Accounts[j].ID })
	for _, p := range m.proxies {
		s.Proxies = append(s.Proxies, p)
	}
	sort.Slice(s.Proxies, func(i, j int) bool { return s.Proxies[i].Addr < s.Proxies[j].Addr })
	for _, o := range m.orders {
		s.Orders = append(s.Orders, o)
	}
	sort.Slice(s.Orders, func(i, j int) bool { return s.Orders[i].OID < s.Orders[j].OID })
	b, _ := json.Marshal(&s) // maps inside marshal with sorted keys
	return b
}

// Snapshot writes the full state (engine.Machine).
func (m *Machine) Snapshot(w io.Writer) error {
	_, err := w.Write(m.encode())
	return err
}

// Restore replaces the state with a Snapshot's output.
func (m *Machine) Restore(r io.Reader) error {
	b, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	var s state
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	m.reset()
	for i, in := range s.Instruments {
		bk, err := book.Restore(m.bookConfig(in.Ticks), s.Books[i])
		if err != nil {
			return err
		}
		in.book = bk
		m.inst[in.ID] = in
		m.instIDs = append(m.instIDs, in.ID)
	}
	for _, a := range s.Accounts {
		if a.Positions == nil {
			a.Positions = map[uint32]*Position{}
		}
		if a.Open == nil {
			a.Open = map[uint64]bool{}
		}
		if a.COIDs == nil {
			a.COIDs = map[string]uint64{}
		}
		m.accts[a.Addr] = a
		m.byID[a.ID] = a
	}
	for _, p := range s.Proxies {
		m.proxies[p.Addr] = p
	}
	for _, o := range s.Orders {
		m.orders[o.OID] = o
		if o.Due > 0 {
			m.pend = append(m.pend, o.OID) // order is irrelevant: processDue picks by (Due, oid)
		}
	}
	m.nextOID, m.nextTID, m.nextAcct, m.nextDep, m.lastTS = s.NextOID, s.NextTID, s.NextAcct, s.NextDep, s.LastTS
	m.fl, m.mode, m.modeRetry = s.Flight, s.Mode, s.ModeRetry
	m.mods.pend, m.mods.done = s.Mods, s.ModsDone
	if s.NextMod > 0 {
		m.mods.next = s.NextMod
	}
	m.ccs.pend, m.ccs.done = s.CCs, s.CCsDone
	if s.NextCC > 0 {
		m.ccs.next = s.NextCC
	}
	m.insurance, m.sweepDue, m.fundPos = s.Insurance, true, s.FundPos
	if s.NextFund > 0 {
		m.nextFund = s.NextFund
	}
	m.mo.restore(s.Withdrawals, s.Transfers, s.Refused)
	m.restoreDeposits()
	m.restoreTriggers()
	m.rebuildADL()
	m.auditRestored()
	return nil
}

// Hash is SHA-256 of the snapshot encoding.
func (m *Machine) Hash() [32]byte { return sha256.Sum256(m.encode()) }
