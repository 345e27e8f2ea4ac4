package perpsvc

import (
	"time"

	"pmx/internal/perps/perps"
)

// Funding driver: the service's clock decides when, the journaled commands
// carry the time (perps/funding.go). A premium sample is due every
// PremiumInterval and a settlement at every multiple of FundingInterval
// since the Unix epoch (the top of the hour by default). A clock that jumps
// ahead (a stopped process, an injected test clock) gets one sample and one
// settlement, not one per missed period: funding is paid for the intervals
// the exchange was running.

// Funding defaults (docs/perps-risk.md "Funding").
const (
	DefaultFundingInterval = time.Hour
	DefaultPremiumInterval = 5 * time.Second
	fundingPoll            = 100 * time.Millisecond
)

func nextBoundary(now time.Time, every time.Duration) int64 {
	ms, e := now.UnixMilli(), every.Milliseconds()
	return ms - ms%e + e
}

// funding submits the samples and settlements as they fall due, and the
// liquidation sweeps (liquidation.go), until stop.
func (s *Service) funding(stop <-chan struct{}) {
	defer close(s.fundOff)
	t := time.NewTicker(fundingPoll)
	defer t.Stop()
	now := s.now()
	nextSample := nextBoundary(now, s.opt.PremiumInterval)
	nextFunding := nextBoundary(now, s.opt.FundingInterval)
	for {
		select {
		case <-stop:
			return
		case <-t.C:
		}
		now := s.now()
		ms := now.UnixMilli()
		if ms >= nextSample {
			if _, err := s.Submit(&perps.Command{Kind: perps.KFundingSample}); err != nil {
				s.log.Error("perps funding sample", "err", err)
			}
			nextSample = nextBoundary(now, s.opt.PremiumInterval)
		}
		if ms >= nextFunding {
			if _, err := s.Submit(&perps.Command{Kind: perps.KFunding}); err != nil {
				s.log.Error("perps funding", "err", err)
			}
			nextFunding = nextBoundary(now, s.opt.FundingInterval)
		}
		s.fireAutoCancelsIfDue()
		s.sweepIfDue()
	}
}
