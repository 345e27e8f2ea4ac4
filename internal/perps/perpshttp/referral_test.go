package perpshttp

import (
	"encoding/json"
	"strings"
	"testing"
)

type inviteAns struct {
	Status     string
	Code       string
	Available  *int   `json:"referrals_available"`
	CooldownMs *int64 `json:"cooldown_ms"`
}

func (tr *trader) hdrPost(path, body string, out any) (int, string) {
	return tr.e.do("POST", tr.e.api.URL+path, []byte(body), tr.hdr(), out)
}

// TestInviteCodeIsCreatedOnceAndCountsDownOnReferral: POST /v1/account/invite
// creates the primary code and returns the same one after (idempotent),
// referrals_available counts down as other accounts bind it, cooldown_ms is
// null (a lifetime cap); the body must be {}.
func TestInviteCodeIsCreatedOnceAndCountsDownOnReferral(t *testing.T) {
	e := moneyEnv(t)
	a, b := e.trader(1, "100"), e.trader(2, "100")
	var inv inviteAns
	code, body := a.hdrPost("/v1/account/invite", `{}`, &inv)
	if code != 200 || inv.Status != "ok" || len(inv.Code) != 8 || inv.Available == nil || *inv.Available != 25 ||
		!strings.Contains(body, `"cooldown_ms":null`) {
		t.Fatalf("invite: %d %s", code, body)
	}
	first := inv.Code
	if code, body := b.hdrPost("/v1/account/referral", `{"code":"`+first+`"}`, nil); code != 200 || strings.TrimSpace(body) != `{"status":"ok"}` {
		t.Fatalf("bind: %d %s", code, body)
	}
	e.restart()
	inv = inviteAns{}
	if code, body := a.hdrPost("/v1/account/invite", ``, &inv); code != 200 || inv.Code != first || *inv.Available != 24 {
		t.Fatalf("invite again (after a restart): %d %s", code, body)
	}
	if code, body := a.hdrPost("/v1/account/invite", `{"x":1}`, nil); code != 400 {
		t.Fatalf("invite with a property: %d %s", code, body)
	}
	if code, _ := e.do("POST", e.api.URL+"/v1/account/invite", []byte(`{}`), nil, nil); code != 401 {
		t.Fatalf("invite without headers: %d", code)
	}
}

// TestReferralIsBoundOnceAndSharesFees: POST /v1/account/referral binds a
// code once (a second bind is 400 "account already has a referrer"); unknown
// codes, one's own code and a code of one's own referee are refused 400;
// GET /v1/account/referral shows the parent, the children and, after the
// child trades, its volume and fees and the parent's 20 % share, credited
// to the parent's balance. GET /v1/info/invite checks a code.
func TestReferralIsBoundOnceAndSharesFees(t *testing.T) {
	e := moneyEnv(t)
	e.instrument()
	p, c, m := e.trader(1, "1000"), e.trader(2, "1000"), e.trader(3, "1000")
	var inv inviteAns
	p.hdrPost("/v1/account/invite", `{}`, &inv)
	var cInv inviteAns
	c.hdrPost("/v1/account/invite", `{}`, &cInv)
	var chk struct {
		Valid bool
		Error string
	}
	if code, body := e.get("/v1/info/invite?code="+inv.Code+"&address="+c.owner.hex, &chk); code != 200 || !chk.Valid {
		t.Fatalf("info/invite: %d %s", code, body)
	}
	for _, tc := range []struct {
		who        *trader
		body, want string
	}{
		{c, `{"code":"ZZZZZZZZ"}`, "invalid referral code"},
		{p, `{"code":"` + inv.Code + `"}`, "cannot use your own referral code"},
		{c, `{"code":""}`, "invalid request"},
		{c, `{"code":"` + inv.Code + `","x":1}`, "invalid request"},
		{c, `{"code":"` + strings.ToLower(inv.Code) + `"}`, ""},
		{c, `{"code":"` + inv.Code + `"}`, "account already has a referrer"},
		{p, `{"code":"` + cInv.Code + `"}`, "referral code belongs to an account you referred"},
	} {
		code, body := tc.who.hdrPost("/v1/account/referral", tc.body, nil)
		if (tc.want == "" && code != 200) || (tc.want != "" && (code != 400 || !strings.Contains(body, tc.want))) {
			t.Errorf("bind %s: %d %s, want %q", tc.body, code, body, tc.want)
		}
	}
	if code, body := e.get("/v1/info/invite?code="+inv.Code+"&address="+c.owner.hex, &chk); code != 200 || chk.Valid ||
		chk.Error != "account already has a referrer" {
		t.Fatalf("info/invite for a bound account: %d %s", code, body)
	}
	if code, _ := e.get("/v1/info/invite", nil); code != 400 {
		t.Fatalf("info/invite without a code: %d", code)
	}
	m.placeOK(ord{iid: 1, p: "100", qty: "10"})
	c.placeOK(ord{iid: 1, buy: true, p: "100", qty: "10", tif: "ioc"}) // 1,000 notional, taker fee 0.4
	var r map[string]any
	if code, body := p.read("/v1/account/referral", &r); code != 200 || r["code"] != inv.Code || r["children_count"] != 1.0 ||
		r["active_children_count"] != 1.0 || r["children_volume"] != "1000" || r["children_fees"] != "0.4" ||
		r["referrals_left"] != 24.0 || r["fee_share_rate"] != "0.2" || r["parent"] != nil {
		t.Fatalf("parent's referral: %d %s", code, body)
	}
	if code, body := c.read("/v1/account/referral", &r); code != 200 || r["parent"] != strings.ToLower(p.owner.hex) {
		t.Fatalf("child's referral: %d %s", code, body)
	}
	if b := p.balance(); b != "1000.08" {
		t.Fatalf("parent balance %s, want its 20 %% share of 0.4", b)
	}
	var raw json.RawMessage
	if code, _ := e.get("/v1/account/referral", &raw); code != 401 {
		t.Fatalf("referral without headers: %d", code)
	}
}

// TestCreateProxyWithAnInviteCodeBindsTheNewAccount: the unsigned `code` of
// the createProxy that creates an account binds that account to the code's
// owner; a code on an existing account's createProxy, or an unknown code,
// binds nothing and the proxy is still created.
func TestCreateProxyWithAnInviteCodeBindsTheNewAccount(t *testing.T) {
	e := moneyEnv(t)
	p := e.trader(1, "100")
	var inv inviteAns
	p.hdrPost("/v1/account/invite", `{}`, &inv)
	parent := func(tr *trader) any {
		var r map[string]any
		if code, body := tr.read("/v1/account/referral", &r); code != 200 {
			t.Fatalf("referral: %d %s", code, body)
		}
		return r["parent"]
	}
	for _, tc := range []struct {
		seed    byte
		deposit bool // the account exists before its createProxy
		code    string
		bound   bool
	}{
		{2, false, inv.Code, true},
		{3, true, inv.Code, false},
		{4, false, "NOPE2345", false},
	} {
		tr := &trader{e: e, owner: newKey(t, tc.seed), proxy: newKey(t, tc.seed+100)}
		if tc.deposit {
			e.adminPost("/admin/perps/deposits", `{"address":"`+tr.owner.hex+`","amount":"1"}`)
		}
		code, body := tr.createProxy(e.now()+86400000, `,"code":"`+tc.code+`"`)
		if code != 200 {
			t.Fatalf("createProxy with code %s: %d %s", tc.code, code, body)
		}
		var r struct{ Secret string }
		json.Unmarshal([]byte(body), &r)
		tr.secret = r.Secret
		if got := parent(tr); (got == strings.ToLower(p.owner.hex)) != tc.bound {
			t.Errorf("seed %d (existing %v, code %s): parent %v, bound want %v", tc.seed, tc.deposit, tc.code, got, tc.bound)
		}
	}
}
