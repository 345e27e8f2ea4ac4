package perpshttp

import (
	"encoding/json"
	"strconv"
	"strings"

	"pmx/internal/perps/perps"
)

// Market-data channels (perps.md §8; shapes of the production captures in
// fixtures/perps/ws): tickers::{iid} every 100 ms, statistics::{iid} every
// 1 s, klines::{iid}::{interval} when the current candle changed (checked
// every 100 ms). tickers::all and statistics::all deliver the per-instrument
// frames (labelled tickers::{iid}, as production does; sq counts per label).

// wsTicker is the tickers:: data object.
type wsTicker struct {
	IID  uint32 `json:"iid"`
	Idx  string `json:"idx"`
	Mark string `json:"mark"`
	Last string `json:"last"`
	Mid  string `json:"mid"`
	OI   string `json:"oi"`
	FR   string `json:"fr"`
	NXF  int64  `json:"nxf"`
}

// wsStatistic is the statistics:: data object.
type wsStatistic struct {
	IID    uint32  `json:"iid"`
	Vol    string  `json:"vol"`
	Open   string  `json:"open"`
	Klines [][]any `json:"klines"`
}

func validMarketChannel(name, rest string) bool {
	switch name {
	case "tickers", "statistics":
		if rest == "all" {
			return true
		}
		_, err := strconv.ParseUint(rest, 10, 32)
		return err == nil
	case "klines":
		id, iv, ok := strings.Cut(rest, "::")
		_, err := strconv.ParseUint(id, 10, 32)
		return ok && err == nil && intervals[iv] > 0
	}
	return false
}

// marketWants collects what the connections subscribe to: instrument ids
// for tickers and statistics (0 = all) and klines channels.
type marketWants struct {
	tickers, stats map[uint32]bool
	klines         map[string]bool
}

func (s *Server) marketWants(conns []*wsConn) marketWants {
	w := marketWants{tickers: map[uint32]bool{}, stats: map[uint32]bool{}, klines: map[string]bool{}}
	for _, c := range conns {
		c.mu.Lock()
		for ch := range c.subs {
			name, rest, _ := strings.Cut(ch, "::")
			var set map[uint32]bool
			switch name {
			case "tickers":
				set = w.tickers
			case "statistics":
				set = w.stats
			case "klines":
				w.klines[ch] = true
				continue
			default:
				continue
			}
			if rest == "all" {
				set[0] = true
			} else if n, err := strconv.ParseUint(rest, 10, 32); err == nil {
				set[uint32(n)] = true
			}
		}
		c.mu.Unlock()
	}
	return w
}

// pushMarket runs on the book ticker's goroutine every 100 ms (tick counts
// them); lastKline (touched only here) keeps the last candle pushed per
// klines channel so an unchanged candle is not resent.
func (s *Server) pushMarket(conns []*wsConn, tick int) {
	w := s.marketWants(conns)
	stats := tick%10 == 0
	if len(w.tickers) == 0 && len(w.klines) == 0 && (!stats || len(w.stats) == 0) {
		return
	}
	now := s.now().UnixMilli()
	var tks []perps.Ticker
	var sts []perps.Statistic
	kls := map[string][]any{}
	err := s.view(func(m *perps.Machine) {
		tks = pick(w.tickers, func(id uint32) []perps.Ticker { return m.Tickers(id, now) })
		if stats {
			sts = pick(w.stats, func(id uint32) []perps.Statistic { return m.Statistics(id, now) })
		}
		for ch := range w.klines {
			parts := strings.Split(ch, "::")
			id, _ := strconv.ParseUint(parts[1], 10, 32)
			iv := intervals[parts[2]]
			open := now / iv * iv
			if k, _ := m.Klines(uint32(id), iv, open, now+1, 1000); len(k) > 0 {
				kls[ch] = k[len(k)-1]
			}
		}
	})
	if err != nil {
		return
	}
	for _, t := range tks {
		data, _ := json.Marshal(wsTicker{IID: t.ID, Idx: t.IndexPrice, Mark: t.MarkPrice, Last: t.LastPrice,
			Mid: t.MidPrice, OI: t.OpenInterest, FR: t.FundingRate, NXF: t.NextFunding})
		ch := "tickers::" + strconv.FormatUint(uint64(t.ID), 10)
		for _, c := range conns {
			c.pushAs(ch, "tickers::all", "", now, data)
		}
	}
	for _, st := range sts {
		data, _ := json.Marshal(wsStatistic{IID: st.ID, Vol: st.Volume, Open: st.OpenPrice, Klines: st.Klines})
		ch := "statistics::" + strconv.FormatUint(uint64(st.ID), 10)
		for _, c := range conns {
			c.pushAs(ch, "statistics::all", "", now, data)
		}
	}
	if s.lastKline == nil {
		s.lastKline = map[string]string{}
	}
	for ch, k := range kls {
		data, _ := json.Marshal([][]any{k})
		if s.lastKline[ch] == string(data) {
			continue
		}
		s.lastKline[ch] = string(data)
		for _, c := range conns {
			c.push(ch, "", now, data)
		}
	}
}

// pick queries all instruments if ids holds 0, else each id in ids.
func pick[T any](ids map[uint32]bool, q func(uint32) []T) []T {
	if len(ids) == 0 {
		return nil
	}
	if ids[0] {
		return q(0)
	}
	var out []T
	for id := range ids {
		out = append(out, q(id)...)
	}
	return out
}
