package clobsvc

import (
	"strconv"
	"time"

	"pmx/internal/clob/clobengine"
	"pmx/internal/ratelimit"
)

// Tier is one row of the contract's per-signer token bucket table.
type Tier struct {
	Name      string
	MinVolume int64 // 30-day volume in whole USD
	Order     ratelimit.Spec
	Cancel    ratelimit.Spec
}

// Tiers is the contract's table ("CLOB per-signer token buckets").
var Tiers = [8]Tier{
	{"Standard", 0, ratelimit.Spec{Rate: 40, Burst: 60}, ratelimit.Spec{Rate: 80, Burst: 120, Debt: true}},
	{"Copper", 30_000, ratelimit.Spec{Rate: 60, Burst: 90}, ratelimit.Spec{Rate: 120, Burst: 180, Debt: true}},
	{"Bronze", 50_000, ratelimit.Spec{Rate: 80, Burst: 120}, ratelimit.Spec{Rate: 160, Burst: 240, Debt: true}},
	{"Silver", 100_000, ratelimit.Spec{Rate: 200, Burst: 300}, ratelimit.Spec{Rate: 400, Burst: 600, Debt: true}},
	{"Gold", 500_000, ratelimit.Spec{Rate: 400, Burst: 600}, ratelimit.Spec{Rate: 800, Burst: 1200, Debt: true}},
	{"Platinum", 2_500_000, ratelimit.Spec{Rate: 450, Burst: 675}, ratelimit.Spec{Rate: 900, Burst: 1350}},
	{"Diamond", 5_000_000, ratelimit.Spec{Rate: 525, Burst: 787}, ratelimit.Spec{Rate: 1050, Burst: 1575}},
	{"Elite", 10_000_000, ratelimit.Spec{Rate: 600, Burst: 900}, ratelimit.Spec{Rate: 1200, Burst: 1800}},
}

// TierFor maps a 30-day volume (micro-USDC) to a tier index.
func TierFor(volumeMicro int64) int {
	t := 0
	for i, row := range Tiers {
		if volumeMicro/1_000_000 >= row.MinVolume {
			t = i
		}
	}
	return t
}

// TierRefresh is how often the computed tiers are refreshed.
const TierRefresh = 3 * time.Hour

// TierOf is the signer's current tier index.
func (s *Service) TierOf(signer string) int {
	if v, ok := s.tiers.Load(signer); ok {
		return v.(int)
	}
	return 0
}

// RecomputeTiers refreshes every signer's tier from its 30-day volume on
// this venue (its own and its wallets'); a pinned tier wins, and unpinning
// falls back to the volume's tier.
func (s *Service) RecomputeTiers() error {
	now := s.now()
	return s.View(func(m *clobengine.Machine) {
		// A signer's volume is its own plus that of the wallets tied to it.
		vol := map[string]int64{}
		for _, a := range m.Addresses() {
			vol[m.SignerOf(a)] += m.Volume30d(a, now)
		}
		for _, a := range m.Pinned() {
			if _, ok := vol[a]; !ok {
				vol[a] = 0
			}
		}
		for a, v := range vol {
			t := TierFor(v)
			if p, ok := m.PinnedTier(a); ok {
				t = p
			}
			s.tiers.Store(a, t)
		}
	})
}

// Buckets of a signer.
const (
	OrderBucket  = 0
	CancelBucket = 1
)

// Decision is the per-signer limiter's answer, with the response headers.
type Decision struct {
	OK         bool // process the request (also true in warn mode)
	Warn       bool // would have been refused (warn mode)
	Evaluated  bool // the limiter ran (headers apply)
	Remaining  int64
	Reset      int64 // Unix seconds when the current wait ends
	Tier       string
	RetryAfter int64 // seconds, on refusal
}

func (s *Service) spec(signer string, bucket int) (ratelimit.Spec, string) {
	t := Tiers[s.TierOf(signer)]
	if bucket == OrderBucket {
		return t.Order, t.Name
	}
	return t.Cancel, t.Name
}

// Limit takes cost tokens from the signer's bucket.
func (s *Service) Limit(signer string, bucket int, cost int64) Decision {
	if s.opt.Limits == "off" {
		return Decision{OK: true}
	}
	spec, name := s.spec(signer, bucket)
	now := s.clock.Now()
	key := strconv.Itoa(bucket) + signer
	var v ratelimit.Verdict
	if s.opt.Limits == "warn" {
		if v = s.buckets.Peek(key, spec, cost, now); v.OK {
			v = s.buckets.Take(key, spec, cost, now)
		}
	} else {
		v = s.buckets.Take(key, spec, cost, now)
	}
	d := Decision{OK: v.OK, Evaluated: true, Remaining: v.Remaining, Reset: now.Unix(), Tier: name}
	if !v.OK {
		wait := v.Wait
		if wait < 0 { // above the burst: it can never pass; say a full refill
			wait = time.Duration(spec.Burst) * time.Second / time.Duration(spec.Rate)
		}
		d.RetryAfter = int64((wait + time.Second - 1) / time.Second)
		d.Reset = now.Add(wait).Unix()
		if wait%time.Second != 0 {
			d.Reset++
		}
		if s.opt.Limits == "warn" {
			d.OK, d.Warn = true, true
		}
	}
	return d
}

// ChargeCancels takes one more cancel token per order canceled by a
// cancel-all or cancel-market-orders, into debt where the tier allows.
func (s *Service) ChargeCancels(signer string, n int64) int64 {
	if s.opt.Limits == "off" || n <= 0 {
		return 0
	}
	spec, _ := s.spec(signer, CancelBucket)
	return s.buckets.Charge(strconv.Itoa(CancelBucket)+signer, spec, n, s.clock.Now())
}

// SetTier pins (tier 0-7) or unpins (-1) a signer's tier, journaled.
func (s *Service) SetTier(addr string, tier int) (clobengine.Result, error) {
	r, err := s.Submit(&clobengine.Command{Op: clobengine.OpTier, Addr: addr, Tier: tier})
	if err == nil && r.Err == nil {
		err = s.RecomputeTiers()
	}
	return r, err
}

// Heartbeat records a heartbeat of an API key and returns its id. Once a
// key has sent one, missing the next for the heartbeat window cancels the
// key's orders.
func (s *Service) Heartbeat(key string) string {
	s.hbMu.Lock()
	s.hb[key] = s.clock.Now()
	s.hbMu.Unlock()
	return "hb-" + strconv.FormatUint(s.hbSeq.Add(1), 10)
}

func (s *Service) expiredHeartbeats() []string {
	now := s.clock.Now()
	s.hbMu.Lock()
	defer s.hbMu.Unlock()
	var out []string
	for k, at := range s.hb {
		if now.Sub(at) > s.opt.Heartbeat {
			out = append(out, k)
			delete(s.hb, k)
		}
	}
	return out
}
