package perpshttp

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"pmx/internal/perps/perpsvc"
)

// transfer signs an internalTransfer with key (the owner or a proxy of from).
func (tr *trader) transfer(key tKey, account, to, amt, extra string) (int, moneyAns) {
	tr.e.t.Helper()
	keyed := fmt.Sprintf(`{"type":"internalTransfer","args":{"account":%q,"token":%q,"amount":%q,"to":%q}}`,
		account, perpsvc.CollateralToken, amt, to)
	compact := []any{"internalTransfer", []any{account, perpsvc.CollateralToken, amt, to}}
	code, b := tr.signed("POST", "/v1/account/internal-transfer", key, keyed, compact, extra)
	var a moneyAns
	if err := json.Unmarshal([]byte(b), &a); err != nil {
		tr.e.t.Fatalf("transfer: %d %s", code, b)
	}
	return code, a
}

type trRow struct {
	ID           uint64 `json:"transfer_id"`
	Asset        string
	Amount       string
	Direction    string
	Counterparty string
	Created      int64 `json:"created_timestamp"`
	Label        string
}

func (tr *trader) transfers(query string) ([]trRow, bool) {
	tr.e.t.Helper()
	var p struct {
		Data []trRow
		More bool
	}
	if code, b := tr.read("/v1/account/internal-transfers"+query, &p); code != 200 {
		tr.e.t.Fatalf("internal-transfers%s: %d %s", query, code, b)
	}
	return p.Data, p.More
}

func TestInternalTransferSettlesBothAccountsAtOnce(t *testing.T) {
	e := moneyEnv(t)
	a, b := e.trader(1, "100"), e.trader(2, "5")
	code, ans := a.transfer(a.owner, a.owner.hex, b.owner.hex, "40.5", `,"label":"rent"`)
	if code != 200 || ans.Status != "ok" || ans.TransferID != 1 {
		t.Fatalf("owner-signed transfer: %d %+v", code, ans)
	}
	e.advance(time.Second)
	if code, ans := a.transfer(a.proxy, a.owner.hex, b.owner.hex, "0.5", `,"label":"by proxy"`); code != 200 || ans.TransferID != 2 {
		t.Fatalf("proxy-signed transfer: %d %+v", code, ans)
	}
	if ab, bb := a.balance(), b.balance(); ab != "59" || bb != "46" {
		t.Fatalf("balances %s %s", ab, bb)
	}
	out, _ := a.transfers("")
	in, _ := b.transfers("")
	if len(out) != 2 || out[0].Direction != "out" || out[0].Counterparty != b.owner.hex || out[0].Amount != "0.5" ||
		out[1].Label != "rent" || out[1].Created != t0 || out[0].Asset != "pUSD" {
		t.Fatalf("sender's transfers %+v", out)
	}
	if len(in) != 2 || in[1].Direction != "in" || in[1].Counterparty != a.owner.hex || in[1].Amount != "40.5" {
		t.Fatalf("receiver's transfers %+v", in)
	}
	if rows, _ := b.transfers("?direction=out"); len(rows) != 0 {
		t.Fatalf("receiver's out %+v", rows)
	}
	if rows, _ := b.transfers("?direction=in"); len(rows) != 2 {
		t.Fatalf("receiver's in %+v", rows)
	}
	if rows, _ := a.transfers(fmt.Sprintf("?start=%d", t0+1)); len(rows) != 1 {
		t.Fatalf("window %+v", rows)
	}
	for _, q := range []string{"?direction=both", "?direction=IN", "?start=x"} {
		if code, body := a.read("/v1/account/internal-transfers"+q, nil); code != 400 || !strings.Contains(body, "invalid query parameters") {
			t.Errorf("%s: %d %s", q, code, body)
		}
	}
	// The receiver may move what it received.
	if code, _ := b.transfer(b.owner, b.owner.hex, a.owner.hex, "46", `,"label":"back"`); code != 200 {
		t.Fatal("receiver cannot spend the transfer")
	}
	e.restart()
	if ab, bb := a.balance(), b.balance(); ab != "105" || bb != "0" {
		t.Fatalf("balances after restart %s %s", ab, bb)
	}
}

func TestInternalTransferRefusals(t *testing.T) {
	e := moneyEnv(t)
	a, b := e.trader(1, "100"), e.trader(2, "")
	if code, ans := a.transfer(a.owner, a.owner.hex, b.owner.hex, "100.000001", `,"label":"x"`); code != 422 ||
		ans.Error != "insufficient_balance" || ans.TransferID == 0 || ans.Status != "err" {
		t.Fatalf("insufficient: %d %+v", code, ans)
	}
	if code, ans := a.transfer(a.owner, a.owner.hex, a.owner.hex, "1", `,"label":"x"`); code != 422 || ans.Error != "transfer_to_self" || ans.TransferID == 0 {
		t.Fatalf("to self: %d %+v", code, ans)
	}
	for name, c := range map[string]struct {
		key                 tKey
		account, amt, extra string
	}{
		"no label":          {a.owner, a.owner.hex, "1", ""},
		"empty label":       {a.owner, a.owner.hex, "1", `,"label":""`},
		"label of 65 bytes": {a.owner, a.owner.hex, "1", `,"label":"` + strings.Repeat("é", 32) + `x"`},
		"zero amount":       {a.owner, a.owner.hex, "0", `,"label":"x"`},
		"negative amount":   {a.owner, a.owner.hex, "-1", `,"label":"x"`},
		"7 decimals":        {a.owner, a.owner.hex, "0.0000001", `,"label":"x"`},
		"another's account": {b.owner, a.owner.hex, "1", `,"label":"x"`},
		"another's proxy":   {b.proxy, a.owner.hex, "1", `,"label":"x"`},
	} {
		if code, ans := a.transfer(c.key, c.account, b.owner.hex, c.amt, c.extra); code != 400 {
			t.Errorf("%s: %d %+v", name, code, ans)
		}
	}
	if code, ans := a.transfer(a.owner, a.owner.hex, b.owner.hex, "1", `,"label":"`+strings.Repeat("é", 32)+`"`); code != 200 {
		t.Fatalf("label of 64 bytes: %d %+v", code, ans)
	}
	if ab := a.balance(); ab != "99" {
		t.Fatalf("balance %s", ab)
	}
}

func TestInternalTransferResentNeverExecutesTwice(t *testing.T) {
	e := moneyEnv(t)
	a, b := e.trader(1, "100"), e.trader(2, "")
	salt, ts := e.salt.Add(1), e.now()
	amt := "10"
	compact := []any{"internalTransfer", []any{a.owner.hex, perpsvc.CollateralToken, amt, b.owner.hex}}
	body := fmt.Sprintf(`{"op":{"type":"internalTransfer","args":{"account":%q,"token":%q,"amount":%q,"to":%q}},"sig":%q,"salt":%d,"ts":%d,"label":"once"}`,
		a.owner.hex, perpsvc.CollateralToken, amt, b.owner.hex, a.owner.sign(tOpDigest(compact, salt, ts)), salt, ts)
	_, first := a.post("/v1/account/internal-transfer", body)
	if code, again := a.post("/v1/account/internal-transfer", body); code != 200 || again != first {
		t.Fatalf("resend: %d %+v want %+v", code, again, first)
	}
	e.restart()
	if code, again := a.post("/v1/account/internal-transfer", body); code != 200 || again != first {
		t.Fatalf("resend after restart: %d %+v want %+v", code, again, first)
	}
	if ab, bb := a.balance(), b.balance(); ab != "90" || bb != "10" {
		t.Fatalf("balances %s %s", ab, bb)
	}
}
