package clobengine

import (
	"slices"

	"pmx/internal/clob/clob"
)

// Reasons in not_canceled.
const (
	reasonNotFound = "order not found"
	reasonDone     = "order can't be canceled: already canceled or matched"
)

func (m *Machine) cancelIDs(signer string, ids []string) Result {
	if m.mode == ModeHalted {
		return Result{Err: clob.E(clob.ErrTradingDisabled)}
	}
	r := Result{Canceled: []string{}, NotCanceled: map[string]string{}}
	seen := map[string]bool{}
	for _, id := range ids {
		if seen[id] {
			continue
		}
		seen[id] = true
		o := m.byHash[id]
		switch {
		case o == nil || o.Signer != signer:
			r.NotCanceled[id] = reasonNotFound
		case o.Status != StatusLive && o.Status != StatusDelayed:
			r.NotCanceled[id] = reasonDone
		default:
			m.cancelOrder(o, StatusCanceled)
			r.Canceled = append(r.Canceled, id)
		}
	}
	return r
}

// cancelWhere cancels the signer's orders (or an API key's, for the
// heartbeat), optionally only in a market and/or token, oldest first.
func (m *Machine) cancelWhere(c *Command) Result {
	if m.mode == ModeHalted {
		return Result{Err: clob.E(clob.ErrTradingDisabled)}
	}
	var hit []*Order
	for _, o := range m.orders {
		if c.APIKey != "" {
			if o.APIKey != c.APIKey {
				continue
			}
		} else if o.Signer != c.Addr {
			continue
		}
		if c.Op == OpCancelMarket {
			if c.Cond != "" && m.markets[o.Mkt].ConditionID != c.Cond {
				continue
			}
			if c.Asset != "" && o.Token != c.Asset {
				continue
			}
		}
		hit = append(hit, o)
	}
	slices.SortFunc(hit, func(a, b *Order) int { return cmpInt(int64(a.OID), int64(b.OID)) })
	r := Result{Canceled: make([]string, 0, len(hit)), NotCanceled: map[string]string{}}
	for _, o := range hit {
		m.cancelOrder(o, StatusCanceled)
		r.Canceled = append(r.Canceled, o.Hash)
	}
	return r
}

// incrementNonce is the exchange contract's incrementNonce for a maker:
// every order it signed with the old nonce is void, so its live orders go.
func (m *Machine) incrementNonce(ts int64, addr string) Result {
	if addr == "" {
		return Result{Err: clob.E(clob.ErrInvalidPayload)}
	}
	m.nonce[addr]++
	m.nonceTS[addr] = ts
	var hit []*Order
	for _, o := range m.orders {
		if o.Maker == addr {
			hit = append(hit, o)
		}
	}
	slices.SortFunc(hit, func(a, b *Order) int { return cmpInt(int64(a.OID), int64(b.OID)) })
	r := Result{Canceled: []string{}, NotCanceled: map[string]string{}}
	for _, o := range hit {
		m.cancelOrder(o, StatusCanceled)
		r.Canceled = append(r.Canceled, o.Hash)
	}
	return r
}

// Nonce is addr's current exchange nonce.
func (m *Machine) Nonce(addr string) uint64 { return m.nonce[addr] }
