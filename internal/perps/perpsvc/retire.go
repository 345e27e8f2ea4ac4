package perpsvc

import "pmx/internal/perps/perps"

// CloseOnly puts an instrument in close-only (perps retire.go).
func (s *Service) CloseOnly(iid uint32) error {
	return s.operator(&perps.Command{Kind: perps.KCloseOnly, IID: iid}, nil)
}

// Settle settles a close-only instrument; the windows in force travel on
// the command, so a replay decides the same.
func (s *Service) Settle(iid uint32) error {
	return s.operator(&perps.Command{Kind: perps.KSettle, IID: iid,
		Window: s.opt.CloseOnlyWindow.Milliseconds(), IndexWindow: s.opt.IndexWindow.Milliseconds()}, nil)
}
