package cataloghttp

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"net/http"
	"strconv"
	"sync"

	"pmx/internal/amount"

	"pmx/internal/catalog/catalog"
)

// Rendering dominates a listing's cost, so rendered JSON is cached per
// object. An entry is valid for one store revision (Event.Rev/Market.Rev,
// bumped by every catalog write) and one set of live figures (liveKey);
// anything else renders afresh. Rev 0 means "not versioned": never cached.
type renderCache struct {
	mu      sync.Mutex
	entries map[renderKey]rendered
}

type renderKey struct {
	kind byte // 'e' event, 'm' market
	id   string
}

type rendered struct {
	rev  int64
	live string
	json []byte
}

// maxRendered bounds the cache; past it the cache starts over.
const maxRendered = 200_000

func (c *renderCache) get(k renderKey, rev int64, live string) []byte {
	if rev == 0 {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if r, ok := c.entries[k]; ok && r.rev == rev && r.live == live {
		return r.json
	}
	return nil
}

func (c *renderCache) put(k renderKey, rev int64, live string, b []byte) {
	if rev == 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.entries == nil || len(c.entries) >= maxRendered {
		c.entries = make(map[renderKey]rendered)
	}
	c.entries[k] = rendered{rev: rev, live: live, json: b}
}

// liveKey fingerprints the live figures applied to a market: a presence
// byte and 8 raw bytes per figure, the outcome prices counted, so distinct
// figures never share a key.
func liveKey(dst []byte, l catalog.Live, ok bool) []byte {
	if !ok {
		return append(dst, 0)
	}
	dst = append(dst, 1)
	for _, p := range [...]*amount.Micro{l.Volume, l.Volume24hr, l.Liquidity, l.OpenInterest, l.LastTradePrice, l.BestBid, l.BestAsk} {
		if p == nil {
			dst = append(dst, 0)
		} else {
			dst = binary.LittleEndian.AppendUint64(append(dst, 1), uint64(*p))
		}
	}
	dst = binary.LittleEndian.AppendUint32(dst, uint32(len(l.OutcomePrices)))
	for _, p := range l.OutcomePrices {
		dst = binary.LittleEndian.AppendUint64(dst, uint64(p))
	}
	return dst
}

var marketsNull = []byte(`"markets":null`)

// renderMarket returns m's JSON with the live figures applied.
func (h *Handler) renderMarket(m *catalog.Market, live string, lm map[string]catalog.Live) ([]byte, error) {
	k := renderKey{'m', string(m.ID)}
	if b := h.cache.get(k, m.Rev, live); b != nil {
		return b, nil
	}
	catalog.ApplyMarketLive(m, lm)
	b, err := json.Marshal(m)
	if err != nil {
		return nil, err
	}
	h.cache.put(k, m.Rev, live, b)
	return b, nil
}

// renderEvent returns e's JSON, splicing in its markets' cached JSON. The
// event is marshalled with markets nil and `"markets":null` replaced: an
// unescaped `"markets":null` can only be that key (quotes inside string
// values are escaped), and Event has exactly one such key.
func (h *Handler) renderEvent(e *catalog.Event, evLive string, lives []string, lm map[string]catalog.Live, withMarkets bool) ([]byte, error) {
	k := renderKey{'e', string(e.ID)}
	if !withMarkets {
		k.kind = 'E'
	}
	if b := h.cache.get(k, e.Rev, evLive); b != nil {
		return b, nil
	}
	catalog.ApplyEventLive(e, lm)
	markets := e.Markets
	e.Markets = nil
	head, err := json.Marshal(e)
	e.Markets = markets
	if err != nil {
		return nil, err
	}
	i := bytes.Index(head, marketsNull)
	if i < 0 {
		return json.Marshal(e)
	}
	if !withMarkets {
		// include_markets=false drops the key (production does), with the
		// comma before it: markets is never the first field.
		out := append(head[:i-1:i-1], head[i+len(marketsNull):]...)
		h.cache.put(k, e.Rev, evLive, out)
		return out, nil
	}
	var b bytes.Buffer
	b.Grow(len(head) + 4096*len(markets))
	b.Write(head[:i])
	b.WriteString(`"markets":[`)
	for j := range markets {
		if j > 0 {
			b.WriteByte(',')
		}
		mb, err := h.renderMarket(&markets[j], lives[j], lm)
		if err != nil {
			return nil, err
		}
		b.Write(mb)
	}
	b.WriteByte(']')
	b.Write(head[i+len(marketsNull):])
	out := b.Bytes()
	h.cache.put(k, e.Rev, evLive, out)
	return out, nil
}

// writeEvents writes events as one object (shape 'o'), a bare array ('a')
// or a keyset page ('k': {"events":[...],"next_cursor":...}, the cursor
// omitted on the last page). withMarkets false omits the markets key
// (include_markets=false, as production).
func (h *Handler) writeEvents(w http.ResponseWriter, evs []catalog.Event, live map[string]catalog.Live, shape byte, next string, withMarkets bool) {
	parts := make([][]byte, len(evs))
	var kb []byte
	var ends []int
	for i := range evs {
		e := &evs[i]
		// One key string per event; each market's key is a slice of it.
		kb, ends = kb[:0], ends[:0]
		for j := range e.Markets {
			var l catalog.Live
			ok := false
			if c := e.Markets[j].ConditionID; c != nil {
				l, ok = live[*c]
			}
			kb = liveKey(kb, l, ok)
			ends = append(ends, len(kb))
		}
		all := string(kb)
		lives := make([]string, len(e.Markets))
		start := 0
		for j, end := range ends {
			lives[j], start = all[start:end], end
		}
		b, err := h.renderEvent(e, all, lives, live, withMarkets)
		if err != nil {
			h.ok(w, err, "")
			return
		}
		parts[i] = b
	}
	writeParts(w, parts, shape, "events", next)
}

// writeMarkets is writeEvents for markets.
func (h *Handler) writeMarkets(w http.ResponseWriter, ms []catalog.Market, live map[string]catalog.Live, shape byte, next string) {
	parts := make([][]byte, len(ms))
	var kb []byte
	for i := range ms {
		var l catalog.Live
		ok := false
		if c := ms[i].ConditionID; c != nil {
			l, ok = live[*c]
		}
		kb = liveKey(kb[:0], l, ok)
		b, err := h.renderMarket(&ms[i], string(kb), live)
		if err != nil {
			h.ok(w, err, "")
			return
		}
		parts[i] = b
	}
	writeParts(w, parts, shape, "markets", next)
}

var bufPool = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// writeParts joins the pre-rendered parts in a pooled buffer and writes the
// body once with its length: one write (no chunked encoding) instead of a
// syscall per part.
func writeParts(w http.ResponseWriter, parts [][]byte, shape byte, key, next string) {
	b := bufPool.Get().(*bytes.Buffer)
	b.Reset()
	defer func() {
		if b.Cap() <= 4<<20 {
			bufPool.Put(b)
		}
	}()
	switch shape {
	case 'o':
		b.Write(parts[0])
	default:
		if shape == 'k' {
			b.WriteString(`{"` + key + `":`)
		}
		b.WriteByte('[')
		for i, p := range parts {
			if i > 0 {
				b.WriteByte(',')
			}
			b.Write(p)
		}
		b.WriteByte(']')
		if shape == 'k' {
			if next != "" {
				q, _ := json.Marshal(next)
				b.WriteString(`,"next_cursor":`)
				b.Write(q)
			}
			b.WriteByte('}')
		}
	}
	b.WriteByte('\n')
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(b.Len()))
	_, _ = w.Write(b.Bytes())
}
