// Package loadgen drives a running pmx listener with closed-loop HTTP clients
// (keep-alive, each sending its next request when the last one answered) and
// reports latency percentiles. It is the method of the anchors' loopback
// measurements: run it in its own process, pinned to its own core, against a
// server pinned to the other (see docs/PERFORMANCE.md).
package loadgen

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"
)

// Config is one run.
type Config struct {
	URLs     []string      // requested round-robin by every client
	Clients  int           // concurrent connections
	Duration time.Duration // measured time (after Warmup)
	Warmup   time.Duration
	Headers  []string // extra request header lines, "Name: value"
}

// Result summarises a run. Percentiles are exact over every request.
type Result struct {
	Requests      int
	Errors        int // transport errors and non-2xx answers
	Elapsed       time.Duration
	P50, P90, P99 time.Duration
	P999, Max     time.Duration
}

// RPS is requests per second.
func (r Result) RPS() float64 { return float64(r.Requests) / r.Elapsed.Seconds() }

func (r Result) String() string {
	return fmt.Sprintf("requests=%d errors=%d rps=%.0f p50=%s p90=%s p99=%s p99.9=%s max=%s",
		r.Requests, r.Errors, r.RPS(), ms(r.P50), ms(r.P90), ms(r.P99), ms(r.P999), ms(r.Max))
}

func ms(d time.Duration) string { return fmt.Sprintf("%.2fms", float64(d.Microseconds())/1000) }

// Run drives the URLs and returns the measured-phase result.
func Run(ctx context.Context, c Config) (Result, error) {
	if len(c.URLs) == 0 || c.Clients <= 0 || c.Duration <= 0 {
		return Result{}, errors.New("loadgen: URLs, Clients and Duration are required")
	}
	var extra string
	for _, h := range c.Headers {
		if strings.ContainsAny(h, "\r\n") || !strings.Contains(h, ":") {
			return Result{}, fmt.Errorf("loadgen: header %q is not one \"Name: value\" line", h)
		}
		extra += h + "\r\n"
	}
	targets := make([]target, len(c.URLs))
	for i, raw := range c.URLs {
		u, err := url.Parse(raw)
		if err != nil || u.Scheme != "http" || u.Host == "" {
			return Result{}, fmt.Errorf("loadgen: %q is not an http:// URL", raw)
		}
		targets[i] = target{host: u.Host, path: u.RequestURI(), header: extra}
	}

	start := time.Now()
	measureFrom := start.Add(c.Warmup)
	stop := measureFrom.Add(c.Duration)
	lat := make([][]time.Duration, c.Clients)
	errs := make([]int, c.Clients)
	var wg sync.WaitGroup
	for i := range c.Clients {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			conns := map[string]*Conn{} // one keep-alive connection per host
			defer func() {
				for _, cn := range conns {
					_ = cn.Close()
				}
			}()
			for n := i; ctx.Err() == nil; n++ {
				t0 := time.Now()
				if t0.After(stop) {
					return
				}
				ok := get(conns, targets[n%len(targets)])
				if t0.Before(measureFrom) {
					continue
				}
				lat[i] = append(lat[i], time.Since(t0))
				if !ok {
					errs[i]++
				}
			}
		}(i)
	}
	wg.Wait()
	var all []time.Duration
	r := Result{Elapsed: time.Since(measureFrom)}
	if r.Elapsed > c.Duration {
		r.Elapsed = c.Duration
	}
	for i := range lat {
		all = append(all, lat[i]...)
		r.Errors += errs[i]
	}
	if len(all) == 0 {
		return r, errors.New("loadgen: no request completed")
	}
	slices.Sort(all)
	at := func(q float64) time.Duration { return all[min(len(all)-1, int(q*float64(len(all))))] }
	r.Requests = len(all)
	r.P50, r.P90, r.P99, r.P999, r.Max = at(0.50), at(0.90), at(0.99), at(0.999), all[len(all)-1]
	return r, ctx.Err()
}

type target struct{ host, path, header string }

// get requests t on this client's connection to its host (dialled on first
// use, re-dialled after a failure) and reports a 2xx answer.
func get(conns map[string]*Conn, t target) bool {
	cn := conns[t.host]
	if cn == nil {
		var err error
		if cn, err = Dial(t.host); err != nil {
			return false
		}
		cn.Header = t.header
		conns[t.host] = cn
	}
	status, _, err := cn.Get(t.path)
	return err == nil && status >= 200 && status < 300
}
