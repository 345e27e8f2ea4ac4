package perpshttp

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"pmx/internal/exchange/fixed"
)

// TestWSSubscribeWithChannelsInsideOpIsAnError: a sub/unsub frame whose
// channels are not a top-level "chs" list (here nested in an "op", as a
// post would carry them) is answered with an error naming the expected
// shape, not an empty success.
func TestWSSubscribeWithChannelsInsideOpIsAnError(t *testing.T) {
	e := newEnv(t, Options{})
	e.instrument()
	w := e.dial(t)
	for _, body := range []string{`"op":{"chs":["trades::1"]}`, `"op":{"chs":["trades::1"]},"chs":["trades::1"]`, `"channels":["trades::1"]`} {
		for _, req := range []string{"sub", "unsub"} {
			d := string(w.call(req, body))
			if !strings.Contains(d, `"status":"err"`) || !strings.Contains(d, "invalid_request") || !strings.Contains(d, `"chs\"`) {
				t.Errorf("%s %s: %s", req, body, d)
			}
		}
	}
	if d := string(w.call("sub", `"chs":["trades::1"]`)); d != `[{"status":"ok"}]` {
		t.Errorf("well-formed sub after errors: %s", d)
	}
}

// TestBookOfAnUnknownInstrumentIsNotFound: the book of an instrument that
// was never listed is 404 instrument_not_found, not an empty book.
func TestBookOfAnUnknownInstrumentIsNotFound(t *testing.T) {
	e := newEnv(t, Options{})
	e.instrument()
	if code, body := e.get("/v1/info/book?instrument_id=99", nil); code != 404 || strings.TrimSpace(body) != `{"status":"err","error":"instrument_not_found"}` {
		t.Errorf("unknown instrument: %d %s", code, body)
	}
	if code, body := e.get("/v1/info/book?instrument_id=1", nil); code != 200 || !strings.Contains(body, `"instrument_id":1`) {
		t.Errorf("listed instrument: %d %s", code, body)
	}
}

// TestDemoBooksAreNotMirrored: the demo makers' bid and ask ladders are
// built independently (gaps, sizes, lean), so no book's asks mirror its bids
// level for level, in distance from the mid or in size.
func TestDemoBooksAreNotMirrored(t *testing.T) {
	e := newEnv(t, Options{})
	if _, err := e.srv.SeedDemo(); err != nil {
		t.Fatal(err)
	}
	books := e.mmBooks(t)
	rng := rand.New(rand.NewPCG(5, 6))
	var prev []uint64
	var err error
	for range 3 {
		if prev, err = e.srv.mmRound(books, prev, MarketMakerOptions{Levels: 5, TakeEvery: 1000}, rng); err != nil {
			t.Fatal(err)
		}
	}
	for iid := 1; iid <= len(demoInstruments); iid++ {
		var bk struct{ Bids, Asks [][2]string }
		e.get(fmt.Sprintf("/v1/info/book?instrument_id=%d&depth=10", iid), &bk)
		if len(bk.Bids) < 3 || len(bk.Asks) < 3 {
			t.Fatalf("instrument %d: thin book %v", iid, bk)
		}
		sameSizes, sameGaps := true, true
		for l := 0; l < min(len(bk.Bids), len(bk.Asks)); l++ {
			sameSizes = sameSizes && bk.Bids[l][1] == bk.Asks[l][1]
			if l > 0 {
				bg := dec(t, bk.Bids[l-1][0]) - dec(t, bk.Bids[l][0])
				ag := dec(t, bk.Asks[l][0]) - dec(t, bk.Asks[l-1][0])
				sameGaps = sameGaps && bg == ag
			}
		}
		if sameSizes || sameGaps {
			t.Errorf("instrument %d: mirrored book (same sizes %t, same gaps %t): %v", iid, sameSizes, sameGaps, bk)
		}
	}
}

func dec(t *testing.T, s string) float64 {
	t.Helper()
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// TestDemoVenueOpensWithOpenInterest: the seeded venue starts with open
// interest of demoOpenLots innermost quotes per instrument, and an empty book
// (the opening cross filled whole).
func TestDemoVenueOpensWithOpenInterest(t *testing.T) {
	e := newEnv(t, Options{})
	if _, err := e.srv.SeedDemo(); err != nil {
		t.Fatal(err)
	}
	var tk []struct {
		ID           int    `json:"instrument_id"`
		OpenInterest string `json:"open_interest"`
	}
	if e.get("/v1/info/tickers", &tk); len(tk) != len(demoInstruments) {
		t.Fatalf("tickers: %v", tk)
	}
	for _, x := range tk {
		d := demoInstruments[x.ID-1]
		if want := gridOf(d).FormatQty(fixed.Qty(d.lots * demoOpenLots)); x.OpenInterest != want {
			t.Errorf("instrument %d open interest %s, want %s", x.ID, x.OpenInterest, want)
		}
		var bk struct{ Bids, Asks [][2]string }
		if e.get(fmt.Sprintf("/v1/info/book?instrument_id=%d", x.ID), &bk); len(bk.Bids)+len(bk.Asks) != 0 {
			t.Errorf("instrument %d: the opening cross left a book %v", x.ID, bk)
		}
	}
}
