package perpsvc

import (
	"pmx/internal/perps/perps"
)

// sweepIfDue submits a liquidation sweep when a command since the last one
// may have moved a mark or a position (perps.Machine.SweepDue). The funding
// driver's poll calls it, so a sweep follows an index push, a fill or a
// funding settlement within one poll period.
func (s *Service) sweepIfDue() {
	due := false
	if err := s.View(func(m *perps.Machine) { due = m.SweepDue() }); err != nil || !due {
		return
	}
	if _, err := s.Submit(&perps.Command{Kind: perps.KLiqSweep}); err != nil {
		s.log.Error("perps liquidation sweep", "err", err)
	}
}

// TopUpInsurance adds amount (a decimal pUSD string) to the insurance fund
// and returns the fund's balance after it.
func (s *Service) TopUpInsurance(amount string) (string, error) {
	var fund string
	err := s.operator(&perps.Command{Kind: perps.KInsurance, Amount: amount}, nil)
	if err == nil {
		err = s.View(func(m *perps.Machine) { fund = perps.FormatMicro(m.Insurance()) })
	}
	return fund, err
}
