package perpsvc

import (
	"strconv"
	"strings"

	"pmx/internal/perps/perps"
)

// Market-data channels (perps.md §8; shapes of the production captures in
// fixtures/perps/ws): tickers::{iid} every 100 ms, statistics::{iid} every
// 1 s, klines::{iid}::{interval} when the current candle changed (checked
// every 100 ms). tickers::all and statistics::all deliver the per-instrument
// frames (labelled tickers::{iid}, as production does; sq counts per label).

// WSTicker is the tickers:: data object.
type WSTicker struct {
	IID  uint32 `json:"iid"`
	Idx  string `json:"idx"`
	Mark string `json:"mark"`
	Last string `json:"last"`
	Mid  string `json:"mid"`
	OI   string `json:"oi"`
	FR   string `json:"fr"`
	NXF  int64  `json:"nxf"`
}

// WSStatistic is the statistics:: data object.
type WSStatistic struct {
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
		return ok && err == nil && Intervals[iv] > 0
	}
	return false
}

// marketWants collects what the sessions subscribe to (from the index):
// instrument ids for tickers and statistics (0 = all) and klines channels.
type marketWants struct {
	tickers, stats map[uint32]bool
	klines         map[string]bool
}

func (s *Service) marketWants() marketWants {
	w := marketWants{tickers: map[uint32]bool{}, stats: map[uint32]bool{}, klines: map[string]bool{}}
	for _, ch := range s.hub.channels("klines::") {
		w.klines[ch] = true
	}
	for name, set := range map[string]map[uint32]bool{"tickers::": w.tickers, "statistics::": w.stats} {
		for _, ch := range s.hub.channels(name) {
			rest := ch[len(name):]
			if rest == "all" {
				set[0] = true
			} else if n, err := strconv.ParseUint(rest, 10, 32); err == nil {
				set[uint32(n)] = true
			}
		}
	}
	return w
}

// pushMarket runs on the book ticker's goroutine every 100 ms (tick counts
// them); lastKline (touched only here) keeps the last candle pushed per
// klines channel so an unchanged candle is not resent.
func (s *Service) pushMarket(buf []*Session, tick int) []*Session {
	w := s.marketWants()
	stats := tick%10 == 0
	if len(w.tickers) == 0 && len(w.klines) == 0 && (!stats || len(w.stats) == 0) {
		return buf
	}
	now := s.now().UnixMilli()
	var tks []perps.Ticker
	var sts []perps.Statistic
	kls := map[string][]any{}
	err := s.View(func(m *perps.Machine) {
		tks = pick(w.tickers, func(id uint32) []perps.Ticker { return m.Tickers(id, now) })
		if stats {
			sts = pick(w.stats, func(id uint32) []perps.Statistic { return m.Statistics(id, now) })
		}
		for ch := range w.klines {
			parts := strings.Split(ch, "::")
			id, _ := strconv.ParseUint(parts[1], 10, 32)
			iv := Intervals[parts[2]]
			open := now / iv * iv
			if k, _ := m.Klines(uint32(id), iv, open, now+1, 1000); len(k) > 0 {
				kls[ch] = k[len(k)-1]
			}
		}
	})
	if err != nil {
		return buf
	}
	for _, t := range tks {
		ch := "tickers::" + strconv.FormatUint(uint64(t.ID), 10)
		buf = s.send(buf, ch, "tickers::all", "", now, func() []byte {
			return marshal(WSTicker{IID: t.ID, Idx: t.IndexPrice, Mark: t.MarkPrice, Last: t.LastPrice,
				Mid: t.MidPrice, OI: t.OpenInterest, FR: t.FundingRate, NXF: t.NextFunding})
		})
	}
	for _, st := range sts {
		ch := "statistics::" + strconv.FormatUint(uint64(st.ID), 10)
		buf = s.send(buf, ch, "statistics::all", "", now, func() []byte {
			return marshal(WSStatistic{IID: st.ID, Vol: st.Volume, Open: st.OpenPrice, Klines: st.Klines})
		})
	}
	if s.lastKline == nil {
		s.lastKline = map[string]string{}
	}
	for ch, k := range kls {
		data := marshal([][]any{k})
		if s.lastKline[ch] == string(data) {
			continue
		}
		s.lastKline[ch] = string(data)
		buf = s.send(buf, ch, "", "", now, func() []byte { return data })
	}
	return buf
}

// Intervals are the kline intervals (ms) of /v1/info/klines and klines::
// channels.
var Intervals = map[string]int64{"1m": 60e3, "5m": 300e3, "15m": 900e3, "30m": 1800e3, "1h": 3600e3,
	"4h": 4 * 3600e3, "6h": 6 * 3600e3, "12h": 12 * 3600e3, "1d": 86400e3, "1w": 7 * 86400e3}

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
