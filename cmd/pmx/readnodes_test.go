package main

import (
	"bufio"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"pmx/internal/pgsql/pgtest"
)

// One writer and two stateless read nodes on one PostgreSQL database, each
// the real binary (docs/postgres.md).

// startRole runs `pmx serve --role role` on ephemeral ports and returns the
// URLs it printed once it is ready.
func startRole(t *testing.T, args ...string) (map[string]string, *exec.Cmd) {
	t.Helper()
	base := []string{"serve", "--data-addr", "127.0.0.1:0", "--catalog-addr", "127.0.0.1:0",
		"--clob-addr", "127.0.0.1:0", "--perps-addr", "127.0.0.1:0", "--admin-addr", "127.0.0.1:0", "--demo=false"}
	cmd := exec.Command(pmxBin, append(base, args...)...)
	stdout, _ := cmd.StdoutPipe()
	cmd.Stderr = io.Discard
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	hung := time.AfterFunc(time.Minute, func() { _ = cmd.Process.Kill() }) // a start that hangs fails
	defer hung.Stop()
	urls := map[string]string{}
	sc := bufio.NewScanner(stdout)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) == 2 && strings.HasPrefix(f[1], "http://") {
			urls[f[0]] = f[1]
		}
		if strings.HasPrefix(sc.Text(), "ready in ") { // listeners answer 503 "starting" until then
			break
		}
	}
	go io.Copy(io.Discard, stdout)
	if urls["admin"] == "" {
		t.Fatalf("serve %v printed no admin URL: %v", args, urls)
	}
	return urls, cmd
}

// eventually polls f until it reports true; the read-node bound is a
// notification's delivery, so a minute only guards against a hang.
func eventually(t *testing.T, what string, f func() bool) {
	t.Helper()
	for end := time.Now().Add(time.Minute); ; time.Sleep(20 * time.Millisecond) {
		if f() {
			return
		}
		if time.Now().After(end) {
			t.Fatalf("never: %s", what)
		}
	}
}

func tradeLine(block int, hash byte, ts int64, price, size string) string {
	return `{"kind":"trade","tx_hash":"0x` + strings.Repeat(strconv.FormatInt(int64(hash), 16), 64)[:64] + `","log_index":1,"block_number":` +
		strconv.Itoa(block) + `,"timestamp":` + strconv.FormatInt(ts, 10) + `,"token_id":"71","maker":"0x` +
		strings.Repeat("0a", 20) + `","taker":"0x` + strings.Repeat("0b", 20) + `","side":"BUY","price":"` + price + `","size":"` + size + `"}` + "\n"
}

func TestReadNodes_OneWriterTwoReadNodesServeEveryAcknowledgedWrite(t *testing.T) {
	db := pgtest.DB(t)
	wdir := t.TempDir()
	writer, wcmd := startRole(t, "--data-dir", wdir, "--store", db, "--role", "writer")
	if writer["data"] != "" || writer["clob"] == "" || writer["perps"] == "" {
		t.Fatalf("writer listeners %v: want the exchanges and admin, no data listener", writer)
	}
	tok, err := os.ReadFile(filepath.Join(wdir, "admin.token"))
	if err != nil {
		t.Fatal(err)
	}
	token := strings.TrimSpace(string(tok))
	var nodes []map[string]string
	var cmds []*exec.Cmd
	for range 2 {
		u, c := startRole(t, "--data-dir", t.TempDir(), "--store", db, "--role", "data")
		if u["data"] == "" || u["catalog"] == "" || u["clob"] != "" || u["perps"] != "" {
			t.Fatalf("read node listeners %v: want data and catalog, no exchange", u)
		}
		nodes, cmds = append(nodes, u), append(cmds, c)
	}

	cond := "0x" + strings.Repeat("cd", 32)
	postLedger(t, writer["admin"], token, `{"kind":"market","condition_id":"`+cond+`","question":"Live?","slug":"live","event_id":7,"event_slug":"ev","event_title":"Ev","category":"crypto","outcomes":["Yes","No"],"token_ids":["71","72"],"end_date":"2030-01-01T00:00:00Z"}`+"\n")
	now := time.Now().Unix()
	// The maker holds what it sells (a full set split from collateral).
	postLedger(t, writer["admin"], token, `{"kind":"split","tx_hash":"0x`+strings.Repeat("ee", 32)+`","log_index":0,"block_number":9,"timestamp":`+
		strconv.FormatInt(now-120, 10)+`,"user":"0x`+strings.Repeat("0a", 20)+`","condition_id":"`+cond+`","amount":"100"}`+"\n")
	postLedger(t, writer["admin"], token, tradeLine(10, 1, now-60, "0.25", "40"))

	taker := "0x" + strings.Repeat("0b", 20)
	trades := func(node map[string]string) int {
		code, body := get(t, node["data"]+"/v2/trades?user="+taker)
		var page struct {
			Data []json.RawMessage `json:"data"`
		}
		if code != 200 || json.Unmarshal([]byte(body), &page) != nil {
			t.Fatalf("trades: %d %s", code, body)
		}
		return len(page.Data)
	}
	volume := func(node map[string]string) any {
		code, body := get(t, node["catalog"]+"/markets?condition_ids="+cond)
		var ms []map[string]any
		if code != 200 || json.Unmarshal([]byte(body), &ms) != nil || len(ms) != 1 {
			return nil
		}
		return ms[0]["volume"]
	}
	for i, n := range nodes {
		eventually(t, "read node "+strconv.Itoa(i)+" serves the trade", func() bool { return trades(n) == 1 })
		// The catalog's live fields come from the node's in-memory catalog,
		// refreshed by the writer's commit notification.
		eventually(t, "read node "+strconv.Itoa(i)+" serves the live volume", func() bool { return volume(n) == "10" })
	}

	// A cursor issued by one read node is accepted by the other (the cursor
	// key is the deployment's, kept in the database).
	postLedger(t, writer["admin"], token, tradeLine(11, 2, now-30, "0.5", "10"))
	eventually(t, "second trade on node 0", func() bool { return trades(nodes[0]) == 2 })
	code, body := get(t, nodes[0]["data"]+"/v2/trades?limit=1&user="+taker)
	var page struct {
		Pagination struct {
			Next string `json:"next_cursor"`
		} `json:"pagination"`
	}
	if code != 200 || json.Unmarshal([]byte(body), &page) != nil || page.Pagination.Next == "" {
		t.Fatalf("page 1: %d %s", code, body)
	}
	if code, body := get(t, nodes[1]["data"]+"/v2/trades?limit=1&user="+taker+"&cursor="+page.Pagination.Next); code != 200 || !strings.Contains(body, `"price":0.25`) {
		t.Fatalf("page 2 on the other node: %d %s", code, body)
	}

	// Killing a read node loses nothing: a new one serves everything.
	_ = cmds[0].Process.Signal(syscall.SIGKILL)
	_ = cmds[0].Wait()
	fresh, _ := startRole(t, "--data-dir", t.TempDir(), "--store", db, "--role", "data")
	if n := trades(fresh); n != 2 {
		t.Fatalf("a fresh read node serves %d trades, want 2", n)
	}

	// Killing the writer loses no acknowledged write; a new writer goes on.
	_ = wcmd.Process.Signal(syscall.SIGKILL)
	_ = wcmd.Wait()
	writer, _ = startRole(t, "--data-dir", wdir, "--store", db, "--role", "writer")
	for _, n := range []map[string]string{nodes[1], fresh} {
		if got := trades(n); got != 2 {
			t.Fatalf("after the writer died: %d trades, want 2", got)
		}
	}
	postLedger(t, writer["admin"], token, tradeLine(12, 3, now-10, "0.75", "4"))
	for _, n := range []map[string]string{nodes[1], fresh} {
		eventually(t, "the new writer's trade on a read node", func() bool { return trades(n) == 3 })
	}
}
