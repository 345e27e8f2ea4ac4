package clobengine

import (
	"crypto/sha256"
	"encoding/json"
	"errors"
	"io"
	"maps"
	"slices"

	"pmx/internal/exchange/book"
)

// state is the snapshot form: every collection a slice in a fixed order
// (maps inside marshal with sorted keys), books as book.AppendSnapshot
// bytes, so equal states encode and hash equally.
type state struct {
	stateHead
	Orders  []*Order `json:"orders"` // live and delayed, by OID
	Done    []*Order `json:"done"`
	Delayed []uint64 `json:"delayed"`
	Trades  []*Trade `json:"trades"`
	stateTail
}

// stateHead and stateTail are the state around its long lists, each
// encoded by encoding/json (encodeState appends the lists by hand between
// them); embedded, so the JSON keys stay flat and in this order.
type stateHead struct {
	Markets  []*Market  `json:"markets"`
	Books    [][]byte   `json:"books"`
	Accounts []*Account `json:"accounts"`
}

type stateTail struct {
	Sets     []*SetOp          `json:"sets,omitempty"`
	NextOID  uint64            `json:"next_oid"`
	NextTr   uint64            `json:"next_tr"`
	LastTS   int64             `json:"last_ts"`
	Mode     string            `json:"mode"`
	Retry    int64             `json:"retry"`
	Status   map[string]string `json:"status"`
	Nonce    map[string]uint64 `json:"nonce"`
	NonceTS  map[string]int64  `json:"nonce_ts"`
	Binding  map[string]string `json:"binding"`
	Kinds    map[string]uint8  `json:"kinds,omitempty"`
	Tiers    map[string]int    `json:"tiers"`
	Deposits int64             `json:"deposits"`
	Fees     int64             `json:"fees"`
}

func (m *Machine) encode() []byte {
	s := m.state()
	return encodeState(&s)
}

// state is the machine's snapshot form.
func (m *Machine) state() state {
	s := state{stateHead: stateHead{Markets: m.markets}, Done: m.done, Delayed: m.delayed, Trades: m.trades,
		stateTail: stateTail{Sets: m.sets, NextOID: m.nextOID, NextTr: m.nextTr, LastTS: m.lastTS, Mode: m.mode,
			Retry: m.retry, Status: m.status, Nonce: m.nonce, NonceTS: m.nonceTS, Binding: m.binding, Kinds: m.kinds,
			Tiers: m.tiers, Deposits: m.deposits, Fees: m.fees}}
	for _, mk := range m.markets {
		s.Books = append(s.Books, book.AppendSnapshot(nil, mk.book))
	}
	for _, k := range slices.Sorted(maps.Keys(m.accts)) {
		s.Accounts = append(s.Accounts, m.accts[k])
	}
	for _, k := range slices.Sorted(maps.Keys(m.orders)) {
		s.Orders = append(s.Orders, m.orders[k])
	}
	return s
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
	if len(s.Books) != len(s.Markets) {
		return errors.New("clobengine: snapshot books and markets differ")
	}
	m.reset()
	for i, mk := range s.Markets {
		if mk.ID != uint32(i) || mk.Ticks <= 0 {
			return errors.New("clobengine: snapshot market ids out of order")
		}
		mk.upt = Unit / mk.Ticks
		if mk.book, err = book.Restore(book.Config{Ticks: mk.Ticks, Complement: true, STP: book.STPNone}, s.Books[i]); err != nil {
			return err
		}
		m.markets = append(m.markets, mk)
		m.byCond[mk.ConditionID] = mk.ID
		m.byToken[mk.Tokens[0].ID] = tokenRef{mk.ID, 0}
		m.byToken[mk.Tokens[1].ID] = tokenRef{mk.ID, 1}
	}
	for _, a := range s.Accounts {
		if a.Tokens == nil {
			a.Tokens = map[string]*TokenBal{}
		}
		m.accts[a.Addr] = a
	}
	for _, o := range s.Done {
		m.byHash[o.Hash] = o
	}
	for _, o := range s.Orders {
		m.orders[o.OID] = o
		m.byHash[o.Hash] = o
		if o.Type == "GTD" && o.Status == StatusLive {
			m.addGTD(o)
		}
	}
	m.done, m.delayed, m.trades, m.sets = s.Done, s.Delayed, s.Trades, s.Sets
	m.nextOID, m.nextTr, m.lastTS, m.mode, m.retry = s.NextOID, s.NextTr, s.LastTS, s.Mode, s.Retry
	m.deposits, m.fees = s.Deposits, s.Fees
	for dst, src := range map[*map[string]string]map[string]string{&m.status: s.Status, &m.binding: s.Binding} {
		if src != nil {
			*dst = src
		}
	}
	if s.Nonce != nil {
		m.nonce = s.Nonce
	}
	if s.NonceTS != nil {
		m.nonceTS = s.NonceTS
	}
	if s.Tiers != nil {
		m.tiers = s.Tiers
	}
	if s.Kinds != nil {
		m.kinds = s.Kinds
	}
	return nil
}

// Hash is a digest of the full state.
func (m *Machine) Hash() [32]byte { return sha256.Sum256(m.encode()) }
