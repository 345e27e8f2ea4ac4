package perpshttp

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

type depRow struct {
	Hash      string
	Asset     string
	Amount    string
	From      string
	To        string
	Status    string
	Conf      int64 `json:"confirmations"`
	Req       int64 `json:"required_confirmations"`
	Created   int64 `json:"created_timestamp"`
	Confirmed int64 `json:"confirmed_timestamp"`
}

func (tr *trader) deposits(query string) ([]depRow, bool) {
	tr.e.t.Helper()
	var p struct {
		Data []depRow
		More bool
	}
	if code, b := tr.read("/v1/account/deposits"+query, &p); code != 200 {
		tr.e.t.Fatalf("deposits%s: %d %s", query, code, b)
	}
	return p.Data, p.More
}

func TestOperatorDepositIsPendingThenConfirmed(t *testing.T) {
	e := moneyEnv(t)
	a := e.trader(1, "100")
	rows, more := a.deposits("")
	if len(rows) != 1 || more {
		t.Fatalf("deposits %+v", rows)
	}
	d := rows[0]
	if d.Status != "pending" || len(d.Hash) != 66 || d.Conf != 0 || d.Req != 3 || d.Amount != "100" || d.Asset != "pUSD" ||
		d.To != a.owner.hex || d.Created != t0 || d.Confirmed != 0 {
		t.Fatalf("pending deposit %+v", d)
	}
	if b := a.balance(); b != "100" {
		t.Fatalf("the operator's deposit credits at once: %s", b)
	}
	for i := int64(1); i <= 3; i++ {
		e.mine(1)
		d = rows0(a.deposits(""))
		if d.Conf != i || len(d.Hash) != 66 {
			t.Fatalf("block %d: %+v", i, d)
		}
	}
	if d.Status != "confirmed" || d.Confirmed != int64(e.now()) {
		t.Fatalf("confirmed deposit %+v", d)
	}
	e.adminPost("/admin/perps/deposits", fmt.Sprintf(`{"address":%q,"amount":"5"}`, a.owner.hex))
	if rows, _ := a.deposits("?deposit_status=pending"); len(rows) != 1 || rows[0].Amount != "5" {
		t.Fatalf("status filter %+v", rows)
	}
	if rows, _ := a.deposits("?status=confirmed&hash=" + d.Hash); len(rows) != 1 || rows[0] != d {
		t.Fatalf("hash filter %+v", rows)
	}
	if rows, _ := a.deposits(fmt.Sprintf("?end=%d", t0)); len(rows) != 1 {
		t.Fatalf("window %+v", rows)
	}
	e.restart()
	e.mine(3)
	if rows, _ := a.deposits("?deposit_status=confirmed"); len(rows) != 2 {
		t.Fatalf("after restart and blocks %+v", rows)
	}
	if code, b := a.read("/v1/account/deposits?deposit_status=failed", nil); code != 400 || !strings.Contains(b, "invalid query parameters") {
		t.Fatalf("bad status: %d %s", code, b)
	}
}

func rows0(rows []depRow, _ bool) depRow {
	if len(rows) == 0 {
		return depRow{}
	}
	return rows[0]
}

func TestWebSocketMoneyChannelsCarryUpdates(t *testing.T) {
	e := moneyEnv(t)
	a, b := e.trader(1, ""), e.trader(2, "")
	ws := e.dial(t)
	ws.auth(a)
	if d := ws.call("sub", `"chs":["deposits","withdrawals","balances"]`); strings.Count(string(d), `{"status":"ok"}`) != 3 {
		t.Fatalf("sub: %s", d)
	}
	e.adminPost("/admin/perps/deposits", fmt.Sprintf(`{"address":%q,"amount":"100"}`, a.owner.hex))
	_, d := ws.pushOn("deposits")
	if !strings.HasPrefix(string(d), `[{"hash":"0x`) || !strings.HasSuffix(string(d), `","asset":"pUSD","amount":"100","status":"pending"}]`) || len(d) != len(`[{"hash":"","asset":"pUSD","amount":"100","status":"pending"}]`)+66 {
		t.Fatalf("deposit push %s", d)
	}
	_, bal := ws.pushOn("balances")
	if string(bal) != `{"asset":"pUSD","balance":"100","value":"100"}` {
		t.Fatalf("balance push %s", bal)
	}
	a.post("/v1/account/withdraw", a.withdrawBody(30_000_000, newKey(t, 77)))
	_, w := ws.pushOn("withdrawals")
	var ws1 []map[string]any
	json.Unmarshal(w, &ws1)
	if len(ws1) != 1 || ws1[0]["status"] != "pending" || ws1[0]["hash"] != "0x" || ws1[0]["amount"] != "30" || ws1[0]["fee"] != "1" ||
		ws1[0]["withdraw_id"] != 1.0 || ws1[0]["to"] != newKey(t, 77).hex || ws1[0]["asset"] != "pUSD" {
		t.Fatalf("withdrawal push %s", w)
	}
	if _, bal := ws.pushOn("balances"); !strings.Contains(string(bal), `"balance":"70"`) {
		t.Fatalf("balance after withdrawal %s", bal)
	}
	e.mine(3)
	// Per block: the withdrawals frame, then the deposits frame.
	var last string
	for range 3 {
		_, w := ws.pushOn("withdrawals")
		last = string(w)
		if _, d := ws.pushOn("deposits"); !strings.Contains(string(d), `"hash":"0x`) || len(d) < 80 {
			t.Fatalf("deposit block push %s", d)
		}
	}
	if !strings.Contains(last, `"status":"confirmed"`) || strings.Contains(last, `"hash":"0x"`) {
		t.Fatalf("last withdrawal push %s", last)
	}
	// A transfer in moves the balance too; b's money never reaches a's socket.
	e.adminPost("/admin/perps/deposits", fmt.Sprintf(`{"address":%q,"amount":"10"}`, b.owner.hex))
	if code, ans := b.transfer(b.owner, b.owner.hex, a.owner.hex, "4", `,"label":"x"`); code != 200 {
		t.Fatalf("transfer: %d %+v", code, ans)
	}
	if _, bal := ws.pushOn("balances"); !strings.Contains(string(bal), `"balance":"74"`) {
		t.Fatalf("balance after a transfer in %s", bal)
	}
}
