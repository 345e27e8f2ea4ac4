package perpsvc

import "pmx/internal/perps/perps"

// Invites and referrals (perps/referral.go): the service journals the
// commands and reads the answers back.

// Invite creates (once) or returns acct's primary invite code. Once a code
// exists nothing is journaled.
func (s *Service) Invite(acct string) (perps.InviteWire, error) {
	var w perps.InviteWire
	read := func() error { return s.View(func(m *perps.Machine) { w = m.InviteOf(acct) }) }
	if err := read(); err != nil {
		return w, unavailable()
	}
	if w.Code != "" {
		return w, nil
	}
	ev, err := s.Submit(&perps.Command{Kind: perps.KInvite, Account: acct})
	if err != nil {
		return w, unavailable()
	}
	if ev.Err != "" {
		return w, E(CodeRejected, ev.Err)
	}
	if err := read(); err != nil {
		return w, unavailable()
	}
	return w, nil
}

// BindReferral makes the owner of code acct's referrer (once). Refusals are
// CodeRefused with the machine's text (400, as production answers the
// loser of a concurrent bind).
func (s *Service) BindReferral(acct, code string) error {
	if code == "" || len(code) > 64 {
		return E(CodeInvalidRequest, "code: a referral code")
	}
	ev, err := s.Submit(&perps.Command{Kind: perps.KReferral, Account: acct, Label: code})
	if err != nil {
		return unavailable()
	}
	if ev.Err != "" {
		return E(CodeRefused, ev.Err)
	}
	return nil
}
