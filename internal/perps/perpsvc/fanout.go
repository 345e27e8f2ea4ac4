package perpsvc

import (
	"encoding/json"
	"strconv"
	"time"

	"pmx/internal/perps/perps"
)

type wsTrade struct {
	TID        uint64 `json:"tid"`
	IID        uint32 `json:"iid"`
	Side       string `json:"side"`
	P          string `json:"p"`
	Qty        string `json:"qty"`
	Settlement bool   `json:"settlement"`
	TS         int64  `json:"ts"`
	Hash       string `json:"hash"`
}

type wsBBO struct {
	IID uint32 `json:"iid"`
	BP  string `json:"bp,omitempty"`
	BQ  string `json:"bq,omitempty"`
	AP  string `json:"ap,omitempty"`
	AQ  string `json:"aq,omitempty"`
}

// fanout follows the engine and pushes every applied command's updates to
// the sessions the index names. The engine never waits for it; if it falls
// behind it is cut off and resubscribes (pushes of the missed commands are
// lost; clients re-read over REST). Encoding happens here, off the apply
// goroutine, once per update.
func (s *Service) fanout(stop <-chan struct{}) {
	defer close(s.fanDone)
	var buf []*Session
	for {
		sub := s.eng.Subscribe(4096)
		for batch := range sub.C {
			if s.hub.empty() {
				continue
			}
			for _, ap := range batch {
				for i := range ap.Events {
					buf = s.dispatch(buf, &ap.Events[i], ap.TS)
				}
			}
		}
		if !sub.Lagged() {
			return // engine closed
		}
		select {
		case <-stop:
			return
		default:
		}
		s.log.Warn("perps websocket fan-out lagged; resubscribing")
	}
}

// send pushes data on ch (for acct's sessions when acct is set) to its
// subscribers; buf is scratch space, returned for reuse.
func (s *Service) send(buf []*Session, ch, alias, acct string, ets int64, data func() []byte) []*Session {
	keys := []string{indexKey(ch, acct)}
	if alias != "" {
		keys = append(keys, alias)
	}
	buf = s.hub.subscribers(buf[:0], keys...)
	if len(buf) == 0 {
		return buf
	}
	b := data()
	ts := s.now().UnixMilli()
	for _, c := range buf {
		c.pushAs(ch, alias, acct, ts, ets, b)
	}
	clear(buf)
	return buf
}

func (s *Service) dispatch(buf []*Session, ev *perps.Event, ets int64) []*Session {
	for i := range ev.Orders {
		o := &ev.Orders[i]
		buf = s.send(buf, "orders", "", o.Account, ets, func() []byte { return marshal(o) })
		if o.TPSL {
			buf = s.sendTPSL(buf, o, ets) // tpsl.go
		}
	}
	for i := 0; i < len(ev.Fills); {
		j := i
		for j < len(ev.Fills) && ev.Fills[j].Account == ev.Fills[i].Account {
			j++
		}
		run := ev.Fills[i:j]
		buf = s.send(buf, "fills", "", run[0].Account, ets, func() []byte {
			fs := make([]perps.FillWire, len(run))
			for k := range run {
				fs[k] = run[k].Fill
			}
			return marshal(fs)
		})
		i = j
	}
	for i := range ev.Funding { // funding.go: one charge per push
		f := &ev.Funding[i]
		buf = s.send(buf, "funding", "", f.Account, ets, func() []byte { return marshal(f.Charge) })
	}
	for i := 0; i < len(ev.Trades); {
		j := i
		for j < len(ev.Trades) && ev.Trades[j].ID == ev.Trades[i].ID {
			j++
		}
		run := ev.Trades[i:j]
		ch := "trades::" + strconv.FormatUint(uint64(run[0].ID), 10)
		buf = s.send(buf, ch, "", "", ets, func() []byte {
			ts := make([]wsTrade, len(run))
			for k, t := range run {
				ts[k] = wsTrade{TID: t.TradeID, IID: t.ID, Side: t.Side, P: t.Price, Qty: t.Quantity, TS: t.Timestamp, Hash: t.Hash}
			}
			return marshal(ts)
		})
		i = j
	}
	buf = s.dispatchMoney(buf, ev, ets)
	for _, b := range ev.BBOs {
		ch := "bbo::" + strconv.FormatUint(uint64(b.ID), 10)
		buf = s.send(buf, ch, "", "", ets, func() []byte {
			return marshal(wsBBO{IID: b.ID, BP: b.BidPrice, BQ: b.BidQty, AP: b.AskPrice, AQ: b.AskQty})
		})
	}
	return buf
}

func marshal(v any) []byte {
	b, _ := json.Marshal(v)
	return b
}

// pushAccounts sends portfolio and balances snapshots to the authenticated
// sessions subscribed to them (perps.md §8.6: every 5 s). The values are
// read on the apply goroutine and encoded after.
func (s *Service) pushAccounts(buf []*Session) []*Session {
	want := map[string]bool{}
	for _, ch := range []string{"portfolio|", "balances|"} {
		for _, k := range s.hub.channels(ch) {
			want[k[len(ch):]] = true
		}
	}
	if len(want) == 0 {
		return buf
	}
	now := s.now().UnixMilli()
	ports, bals := map[string]perps.Portfolio{}, map[string]perps.Balance{}
	err := s.View(func(m *perps.Machine) {
		for a := range want {
			ports[a] = m.PortfolioOf(a, now)
			bals[a] = m.BalancesOf(a)[0]
		}
	})
	if err != nil {
		return buf
	}
	for a := range want {
		port, bal := marshal(ports[a]), marshal(bals[a])
		// Both channels to every session subscribed to either (the order
		// of the frames per session is portfolio, then balances).
		buf = s.hub.subscribers(buf[:0], indexKey("portfolio", a), indexKey("balances", a))
		for _, c := range buf {
			c.push("portfolio", a, now, now, port)
			c.push("balances", a, now, now, bal)
		}
		clear(buf)
	}
	return buf
}

// ticker pushes full book snapshots (top 20) every 100 ms to book::{iid}
// subscribers (perps.md §8.5), market data (market.go) and account
// snapshots every 5 s.
func (s *Service) ticker(stop <-chan struct{}) {
	t := time.NewTicker(100 * time.Millisecond)
	defer t.Stop()
	var buf []*Session
	for tick := 1; ; tick++ {
		select {
		case <-stop:
			return
		case <-t.C:
		}
		if tick%50 == 0 { // every 5 s
			buf = s.pushAccounts(buf)
		}
		buf = s.pushMarket(buf, tick)
		want := map[uint32]bool{}
		for _, ch := range s.hub.channels("book::") {
			if n, err := strconv.ParseUint(ch[len("book::"):], 10, 32); err == nil {
				want[uint32(n)] = true
			}
		}
		if len(want) == 0 {
			continue
		}
		books := map[uint32]perps.BookWire{}
		now := s.now().UnixMilli()
		err := s.View(func(m *perps.Machine) {
			for id := range want {
				books[id] = m.Book(id, bookLevels, now)
			}
		})
		if err != nil {
			return
		}
		for id, b := range books {
			ch := "book::" + strconv.FormatUint(uint64(id), 10)
			buf = s.send(buf, ch, "", "", 0, func() []byte { return marshal(map[string][][2]string{"b": b.Bids, "a": b.Asks}) })
		}
	}
}
