package perps

import (
	"bytes"
	"fmt"
	"testing"
)

// TestInvitesAndReferrals is the invite/referral table: a code is created
// once per account (idempotent), bound once per account, never by its owner
// or by the owner's own referrer, and at most InviteReferrals times.
func TestInvitesAndReferrals(t *testing.T) {
	m := New(Config{})
	var seq uint64
	do := func(c Command) string {
		seq++
		return m.Apply(seq, 1000, cmd(c), nil)[0].Err
	}
	do(Command{Kind: KInvite, Account: "0xa"})
	code := m.InviteOf("0xa").Code
	if len(code) != codeLen {
		t.Fatalf("code %q", code)
	}
	do(Command{Kind: KInvite, Account: "0xa"})
	if again := m.InviteOf("0xa"); again.Code != code || again.Available != InviteReferrals {
		t.Fatalf("a second invite: %+v", again)
	}
	do(Command{Kind: KInvite, Account: "0xb"})
	if m.InviteOf("0xb").Code == code {
		t.Fatal("two accounts share a code")
	}
	for _, tc := range []struct {
		who, code, err string
	}{
		{"0xb", "NOSUCH22", ErrReferralCode},
		{"0xb", "short", ErrReferralCode},
		{"0xa", code, ErrReferralSelf},
		{"0xb", code, ""},
		{"0xb", code, ErrReferralBound},
		{"0xa", m.InviteOf("0xb").Code, ErrReferralCycle},
		{"0xc", toLower(code), ""}, // codes are case-insensitive
	} {
		if got := do(Command{Kind: KReferral, Account: tc.who, Label: tc.code}); got != tc.err {
			t.Errorf("%s binds %q: %q, want %q", tc.who, tc.code, got, tc.err)
		}
	}
	for i := 3; i <= InviteReferrals; i++ {
		if e := do(Command{Kind: KReferral, Account: fmt.Sprintf("0x%x", 0x100+i), Label: code}); e != "" {
			t.Fatalf("referral %d: %s", i, e)
		}
	}
	if e := do(Command{Kind: KReferral, Account: "0xdd", Label: code}); e != ErrReferralUsedUp {
		t.Fatalf("past the cap: %q", e)
	}
	r := m.ReferralOf("0xb", 1000)
	if r.Parent == nil || *r.Parent != "0xa" || r.Code != m.InviteOf("0xb").Code || r.FeeShareRate != "0.2" {
		t.Fatalf("b's referral %+v", r)
	}
	if ra := m.ReferralOf("0xa", 1000); ra.Children != InviteReferrals || ra.ReferralsLeft != 0 || ra.Parent != nil {
		t.Fatalf("a's referral %+v", ra)
	}
	// Restored from a snapshot, the code index is rebuilt.
	var buf bytes.Buffer
	m.Snapshot(&buf)
	m2 := New(Config{})
	if err := m2.Restore(&buf); err != nil {
		t.Fatal(err)
	}
	if v := m2.InviteValid(code, ""); v != ErrReferralUsedUp {
		t.Fatalf("restored: %q", v)
	}
}

func toLower(s string) string { return string(bytes.ToLower([]byte(s))) }

// TestReferralFeeShare: the parent is credited 20 % of each positive fee its
// child pays (truncated), booked as its pnl; its statistics count the
// child's volume and fees; the money moved is exactly the share.
func TestReferralFeeShare(t *testing.T) {
	m := New(Config{})
	m.cfg.MakerPPM, m.cfg.TakerPPM = 125, 400
	var seq uint64
	do := func(ts int64, c Command) {
		seq++
		if e := m.Apply(seq, ts, cmd(c), nil)[0]; e.Err != "" {
			t.Fatalf("%s: %s", c.Kind, e.Err)
		}
	}
	do(0, Command{Kind: KCreateInstrument, Instrument: &InstrumentSpec{Symbol: "X-USD", Category: "index", PriceDecimals: 2, QtyDecimals: 2, MaxLeverage: 10}})
	for _, a := range []string{"0xp", "0xc", "0xm"} {
		do(0, Command{Kind: KDeposit, Account: a, Amount: "10000"})
	}
	do(0, Command{Kind: KInvite, Account: "0xp"})
	do(0, Command{Kind: KReferral, Account: "0xc", Label: m.InviteOf("0xp").Code})
	do(1000, Command{Kind: KCreateOrders, Account: "0xm", Orders: []OrderReq{{IID: 1, P: sp("100"), Qty: "10"}}})
	do(2000, Command{Kind: KCreateOrders, Account: "0xc", Orders: []OrderReq{{IID: 1, Buy: true, P: sp("100"), Qty: "10", TIF: sp("ioc")}}})
	// c takes 1,000 of notional: fee 0.4, the parent's share 0.08.
	if p := m.accts["0xp"].Balance; p != 10000_080000 {
		t.Fatalf("parent balance %d", p)
	}
	if c := m.accts["0xc"].Balance; c != 10000e6-400000 {
		t.Fatalf("child balance %d", c)
	}
	r := m.ReferralOf("0xp", 3000)
	if r.ChildVolume != "1000" || r.ChildFees != "0.4" || r.Earned != "0.08" || r.Active != 1 {
		t.Fatalf("parent's referral %+v", r)
	}
	if pnl, _ := m.PnLHistory("0xp", hourMs, 0, MaxMs, 10); len(pnl) != 1 || pnl[0].V != 80000 {
		t.Fatalf("the share is the parent's pnl: %+v", pnl)
	}
	if r := m.ReferralOf("0xp", 3000+ActiveWindowMs); r.Active != 0 {
		t.Fatalf("a child idle for the window is not active: %+v", r)
	}
}
