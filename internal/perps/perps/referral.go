package perps

import (
	"crypto/sha256"
	"encoding/binary"
	"strings"
)

// Invites and referrals (docs/perps.md "invites and referrals"). An account's
// primary invite code is created by its first KInvite and returned by every
// later one. Another account binds it once (KReferral): the code's owner
// becomes its parent, one of the code's lifetime referrals is used, and from
// then on the parent is credited fee_share_rate of every positive fee the
// child pays (a share that does not fit the parent's balance stays with the
// venue). Referrals are one level deep and a pair never refers each other.

// Command kinds of invites and referrals.
const (
	KInvite   = "invite"   // Account: create or return the primary code
	KReferral = "referral" // Account binds Label (the code)
)

// Referral rules.
const (
	InviteReferrals = 25      // lifetime referrals of a code (cooldown_ms null)
	FeeSharePPM     = 200_000 // the parent's share of a child's fees (0.2)
	ActiveWindowMs  = 30 * dayMs
	codeLen         = 8
	codeAlphabet    = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789" // no 0/O, 1/I
)

// Referral refusals (the texts clients see).
const (
	ErrReferralBound  = "account already has a referrer"
	ErrReferralCode   = "invalid referral code"
	ErrReferralSelf   = "cannot use your own referral code"
	ErrReferralUsedUp = "referral code has no referrals left"
	ErrReferralCycle  = "referral code belongs to an account you referred"
)

// Referral is an account's invite code, its parent and what its children
// brought. Children are at most InviteReferrals, so the record is bounded.
type Referral struct {
	Code     string   `json:"code,omitempty"`
	Parent   string   `json:"parent,omitempty"`
	Children []string `json:"children,omitempty"` // in binding order
	Volume   int64    `json:"vol,omitempty"`      // children's traded notional (micro)
	Fees     int64    `json:"fees,omitempty"`     // children's positive fees (micro)
	Earned   int64    `json:"earned,omitempty"`   // shares credited
	LastFill int64    `json:"last,omitempty"`     // this account's last fill (ms), for its parent's active count
}

func (a *Account) ref() *Referral {
	if a.Ref == nil {
		a.Ref = &Referral{}
	}
	return a.Ref
}

// codes maps every code to its owner (built from the accounts on first use
// after a reset or restore; not state).
func (m *Machine) codeIndex() map[string]string {
	if m.codes == nil {
		m.codes = map[string]string{}
		for _, a := range m.accts {
			if a.Ref != nil && a.Ref.Code != "" {
				m.codes[a.Ref.Code] = a.Addr
			}
		}
	}
	return m.codes
}

func (m *Machine) invite(c *Command, ts int64, ev *Event) {
	if c.Account == "" {
		ev.Err = "invalid_command"
		return
	}
	a := m.account(c.Account, ts)
	r := a.ref()
	if r.Code == "" {
		idx := m.codeIndex()
		h := sha256.Sum256([]byte("pmx-invite:" + a.Addr))
		for n := uint64(0); ; n++ { // a collision takes the next hash: deterministic
			if n > 0 {
				binary.BigEndian.PutUint64(h[:8], n)
				h = sha256.Sum256(h[:])
			}
			var b [codeLen]byte
			for i := range b {
				b[i] = codeAlphabet[h[i]%byte(len(codeAlphabet))]
			}
			if idx[string(b[:])] == "" {
				r.Code = string(b[:])
				idx[r.Code] = a.Addr
				break
			}
		}
	}
}

func (m *Machine) bindReferral(c *Command, ts int64, ev *Event) {
	code := strings.ToUpper(c.Label)
	if c.Account == "" {
		ev.Err = "invalid_command"
		return
	}
	if len(code) != codeLen {
		ev.Err = ErrReferralCode
		return
	}
	owner := m.codeIndex()[code]
	a := m.account(c.Account, ts)
	switch {
	case owner == "":
		ev.Err = ErrReferralCode
	case a.Ref != nil && a.Ref.Parent != "":
		ev.Err = ErrReferralBound
	case owner == a.Addr:
		ev.Err = ErrReferralSelf
	case m.accts[owner].Ref.Parent == a.Addr:
		ev.Err = ErrReferralCycle
	case len(m.accts[owner].Ref.Children) >= InviteReferrals:
		ev.Err = ErrReferralUsedUp
	}
	if ev.Err != "" {
		return
	}
	p := m.accts[owner].Ref
	p.Children = append(p.Children, a.Addr)
	a.ref().Parent = owner
}

// bindOnCreate binds the invite code a new account's first createProxy
// carried; an unusable code is ignored (the proxy is still created).
func (m *Machine) bindOnCreate(acct, code string, ts int64) {
	var scratch Event
	m.bindReferral(&Command{Kind: KReferral, Account: acct, Label: code}, ts, &scratch)
}

// referralFee books a fill's fee f (micro) on notional n for a child: its
// parent's statistics and fee share.
func (m *Machine) referralFee(a *Account, f, n, ts int64) {
	if a.Ref == nil || a.Ref.Parent == "" {
		return
	}
	a.Ref.LastFill = ts
	pa := m.accts[a.Ref.Parent]
	p := pa.Ref
	p.Volume = satAdd(p.Volume, n)
	if f <= 0 {
		return
	}
	p.Fees = satAdd(p.Fees, f)
	share, ok := mulDiv(f, FeeSharePPM, 1_000_000)
	if !ok || share <= 0 || !m.fits(pa, 0, share) {
		return
	}
	pa.Balance += share // fits: checked above
	m.auditCredit(pa, share)
	p.Earned = satAdd(p.Earned, share)
	m.booked(pa, ts, share)
}

// ReferralWire is GET /v1/account/referral.
type ReferralWire struct {
	Code          string  `json:"code"`
	Parent        *string `json:"parent,omitempty"`
	Children      int     `json:"children_count"`
	Active        int     `json:"active_children_count"`
	ChildVolume   string  `json:"children_volume"`
	ChildFees     string  `json:"children_fees"`
	ReferralsLeft int     `json:"referrals_left"`
	FeeShareRate  string  `json:"fee_share_rate"`
	Earned        string  `json:"fee_share_earned"`
}

// InviteWire is POST /v1/account/invite's answer.
type InviteWire struct {
	Status     string `json:"status"`
	Code       string `json:"code"`
	Available  int    `json:"referrals_available"`
	CooldownMs *int64 `json:"cooldown_ms"` // null: a lifetime cap
}

// InviteOf is addr's primary code and its referrals left ("" before KInvite).
func (m *Machine) InviteOf(addr string) InviteWire {
	w := InviteWire{Status: "ok", Available: InviteReferrals}
	if a := m.accts[addr]; a != nil && a.Ref != nil {
		w.Code, w.Available = a.Ref.Code, InviteReferrals-len(a.Ref.Children)
	}
	return w
}

// ReferralOf answers GET /v1/account/referral at nowMs.
func (m *Machine) ReferralOf(addr string, nowMs int64) ReferralWire {
	w := ReferralWire{ReferralsLeft: InviteReferrals, FeeShareRate: ratio(FeeSharePPM, 1_000_000, 0), ChildVolume: "0",
		ChildFees: "0", Earned: "0"}
	a := m.accts[addr]
	if a == nil || a.Ref == nil {
		return w
	}
	r := a.Ref
	w.Code, w.Children, w.ReferralsLeft = r.Code, len(r.Children), InviteReferrals-len(r.Children)
	if r.Parent != "" {
		p := r.Parent
		w.Parent = &p
	}
	for _, c := range r.Children {
		if cr := m.accts[c].Ref; cr.LastFill > 0 && nowMs-cr.LastFill < ActiveWindowMs {
			w.Active++
		}
	}
	w.ChildVolume, w.ChildFees, w.Earned = FormatMicro(r.Volume), FormatMicro(r.Fees), FormatMicro(r.Earned)
	return w
}

// InviteValid answers GET /v1/info/invite: whether code can be bound, by
// addr if given ("" if valid, else why not).
func (m *Machine) InviteValid(code, addr string) string {
	owner := m.codeIndex()[strings.ToUpper(code)]
	switch {
	case owner == "":
		return ErrReferralCode
	case addr == owner:
		return ErrReferralSelf
	case addr != "" && m.accts[addr] != nil && m.accts[addr].Ref != nil && m.accts[addr].Ref.Parent != "":
		return ErrReferralBound
	case len(m.accts[owner].Ref.Children) >= InviteReferrals:
		return ErrReferralUsedUp
	}
	return ""
}
