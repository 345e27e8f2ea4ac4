package perpshttp

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"pmx/internal/perps/perpsvc"
)

func TestWSMarketChannels(t *testing.T) {
	e := newEnv(t, Options{})
	if _, err := e.srv.SeedDemo(); err != nil {
		t.Fatal(err)
	}
	// The taker trades every instrument each round.
	if err := e.srv.Service().RunDemoRounds(3, MarketMakerOptions{Levels: 2, TakeEvery: 1, Seed: 3}); err != nil {
		t.Fatal(err)
	}
	w := e.dial(t)
	if d := w.call("sub", `"chs":["tickers::2","statistics::all","klines::1::1m","klines::1::1s","tickers::x","statistics::"]`); string(d) !=
		`[{"status":"ok"},{"status":"ok"},{"status":"ok"},{"status":"err","error":"invalid channel: klines::1::1s"},{"status":"err","error":"invalid channel: tickers::x"},{"status":"err","error":"invalid channel: statistics::"}]` {
		t.Fatalf("sub: %s", d)
	}
	// Channels interleave (klines are pushed once per candle change), so
	// collect frames by label until each wanted one has arrived.
	got := map[string][]map[string]json.RawMessage{}
	for len(got["tickers::2"]) < 2 || len(got["statistics::5"]) == 0 || len(got["klines::1::1m"]) == 0 {
		f := w.next()
		var ch string
		json.Unmarshal(f["ch"], &ch)
		got[ch] = append(got[ch], f)
	}
	var tk perpsvc.WSTicker
	if data := got["tickers::2"][0]["data"]; json.Unmarshal(data, &tk) != nil || tk.IID != 2 || tk.Idx == "" || tk.Mid == "" || tk.Last == "" || tk.NXF == 0 {
		t.Errorf("tickers::2 data: %s", data)
	}
	var sq1, sq2 int64
	json.Unmarshal(got["tickers::2"][0]["sq"], &sq1)
	json.Unmarshal(got["tickers::2"][1]["sq"], &sq2)
	if sq2 != sq1+1 {
		t.Errorf("tickers sq %d then %d", sq1, sq2)
	}
	// statistics::all arrives as per-instrument labels.
	var st perpsvc.WSStatistic
	if data := got["statistics::5"][0]["data"]; json.Unmarshal(data, &st) != nil || st.IID != 5 || st.Vol == "0" || len(st.Klines) != 1 {
		t.Errorf("statistics::5 data: %s", data)
	}
	var kl [][]any
	if data := got["klines::1::1m"][0]["data"]; json.Unmarshal(data, &kl) != nil || len(kl) != 1 || len(kl[0]) != 7 ||
		int64(kl[0][0].(float64)) != t0/60000*60000 {
		t.Errorf("klines::1::1m data: %s", data)
	}
	if len(got["tickers::1"])+len(got["klines::1::1s"]) > 0 {
		t.Errorf("pushes on channels not subscribed: %v", got)
	}
	// An unsubscribed channel stops; the next ticker push is still in sequence.
	w.call("unsub", `"chs":["klines::1::1m"]`)
	if sq3, _ := w.pushOn("tickers::2"); sq3 <= sq2 {
		t.Errorf("tickers sq after unsub: %d", sq3)
	}
}

// FuzzWSChannel: the channel-name parser never panics, and what it accepts
// is exactly a known name with a decimal instrument id (or "all" for
// tickers/statistics) and, for klines, a known interval.
func FuzzWSChannel(f *testing.F) {
	for _, s := range []string{"tickers::1", "tickers::all", "statistics::7", "klines::1::1m", "klines::1::1s",
		"klines::all::1m", "book::2", "trades::", "bbo::4294967296", "tickers::-1", "klines::1::1m::x", "statistics::all::"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, ch string) {
		if !perpsvc.ValidPublicChannel(ch) {
			return
		}
		parts := strings.Split(ch, "::")
		id := func(s string) bool { _, err := strconv.ParseUint(s, 10, 32); return err == nil }
		ok := false
		switch parts[0] {
		case "trades", "bbo", "book":
			ok = len(parts) == 2 && id(parts[1])
		case "tickers", "statistics":
			ok = len(parts) == 2 && (parts[1] == "all" || id(parts[1]))
		case "klines":
			ok = len(parts) == 3 && id(parts[1]) && intervals[parts[2]] > 0
		}
		if !ok {
			t.Fatalf("accepted %q", ch)
		}
	})
}
