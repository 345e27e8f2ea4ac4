package perpshttp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
)

// TestConcurrentBatchesKeepTheirOwnOrders: batches placed at once by several
// accounts (the request side reuses each batch's command, rows and spans
// once it is applied) rest exactly as each was signed, survive a restart
// from the journal with the same orders, and stay spent: resending any of
// them after the restart is signature_already_used.
func TestConcurrentBatchesKeepTheirOwnOrders(t *testing.T) {
	e := newEnv(t, Options{IPBudget: 1 << 30, ActionBudget: 1 << 30})
	e.instrument()
	traders := []*trader{e.trader(1, "1000000000"), e.trader(2, "1000000000"), e.trader(3, "1000000000")}
	type placed struct{ coid, price, qty string }
	type batch struct {
		tr     int
		body   []byte
		orders []placed
	}
	r := rand.New(rand.NewPCG(15, 2))
	var batches []batch
	for i := range 120 {
		b := batch{tr: i % len(traders)}
		var os []ord
		for j := range 1 + r.IntN(25) {
			o := ord{iid: 1, buy: r.IntN(2) == 0, qty: fmt.Sprintf("%d.%d", 1+r.IntN(9), 1+r.IntN(9)), tif: "gtc"}
			if o.buy { // buys below every sell: nothing trades
				o.p = fmt.Sprint(100 + r.IntN(100))
			} else {
				o.p = fmt.Sprint(300 + r.IntN(100))
			}
			if r.IntN(4) > 0 {
				o.c = fmt.Sprintf("%032x", uint64(i)<<8|uint64(j)+1)
			}
			os = append(os, o)
			b.orders = append(b.orders, placed{o.c, o.p, o.qty})
		}
		keyed, rows := make([]string, len(os)), []any{}
		for j, o := range os {
			keyed[j], rows = o.keyed(), append(rows, o.compact())
		}
		salt, ts := e.salt.Add(1), e.now()
		sig := traders[b.tr].proxy.sign(tOpDigest([]any{"createOrders", rows}, salt, ts))
		b.body = fmt.Appendf(nil, `{"op":{"type":"createOrders","args":[%s]},"sig":%q,"salt":%d,"ts":%d}`, strings.Join(keyed, ","), sig, salt, ts)
		batches = append(batches, b)
	}
	post := func(body []byte) (int, string, error) {
		res, err := http.Post(e.api.URL+"/v1/trade/orders", "application/json", bytes.NewReader(body))
		if err != nil {
			return 0, "", err
		}
		defer res.Body.Close()
		b, err := io.ReadAll(res.Body)
		return res.StatusCode, string(b), err
	}
	errs := make(chan error, len(batches))
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < len(batches); i += 8 {
				b := batches[i]
				code, body, err := post(b.body)
				var acks []ack
				if err == nil {
					err = json.Unmarshal([]byte(body), &acks)
				}
				if err != nil || code != 200 || len(acks) != len(b.orders) {
					errs <- fmt.Errorf("batch %d: %d %s %v", i, code, body, err)
					continue
				}
				for j, a := range acks {
					if a.Status != "ok" || a.COID != b.orders[j].coid {
						errs <- fmt.Errorf("batch %d order %d: %+v, sent coid %q", i, j, a, b.orders[j].coid)
						break
					}
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if t.Failed() {
		t.FailNow()
	}
	want := make([][]string, len(traders))
	for _, b := range batches {
		for _, o := range b.orders {
			want[b.tr] = append(want[b.tr], o.coid+" "+o.price+" "+o.qty)
		}
	}
	check := func(when string) {
		for i, tr := range traders {
			var open []orderRow
			tr.read("/v1/account/open-orders", &open)
			var got []string
			for _, o := range open {
				got = append(got, o.COID+" "+o.Price+" "+o.Quantity)
			}
			sort.Strings(got)
			sort.Strings(want[i])
			if !slices.Equal(got, want[i]) {
				t.Fatalf("%s: trader %d rests %d orders, want %d; first difference %q",
					when, i, len(got), len(want[i]), firstDiff(got, want[i]))
			}
		}
	}
	check("live")
	e.restart()
	check("after restart")
	for i, b := range batches {
		if code, body, err := post(b.body); err != nil || code != 422 || !strings.Contains(body, "signature_already_used") {
			t.Fatalf("batch %d resent after restart: %d %s %v", i, code, body, err)
		}
	}
}

func firstDiff(a, b []string) string {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return a[i] + " / " + b[i]
		}
	}
	return "(one is a prefix of the other)"
}
