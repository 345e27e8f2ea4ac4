package perps

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"encoding/json"
	"os"
	"strconv"
	"strings"
	"testing"
)

const (
	chainA  = "0x00000000000000000000000000000000000000aa"
	chainB  = "0x00000000000000000000000000000000000000bb"
	chainTo = "0x00000000000000000000000000000000000000cc"
	chainT0 = int64(1790000000000) // a multiple of the 2 s block time
)

// replayOldChain applies testdata/oldchain.journal (written by the build
// before internal/chain: `block` records confirm deposits and withdrawals)
// and returns the machine, the next sequence and what the old build saw.
func replayOldChain(t *testing.T) (*Machine, uint64, map[string]string) {
	t.Helper()
	f, err := os.Open("testdata/oldchain.journal")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	m, seq, want := New(Config{}), uint64(0), map[string]string{}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		k, v, _ := strings.Cut(line, " ")
		switch {
		case strings.HasPrefix(line, "#"):
		case k == "hash":
			want["hash"] = v
		case k == "withdrawals" || k == "deposits":
			acct, js, _ := strings.Cut(v, " ")
			want[k+" "+acct] = js
		default:
			ts, err1 := strconv.ParseInt(k, 10, 64)
			rec, err2 := hex.DecodeString(v)
			if err1 != nil || err2 != nil {
				t.Fatalf("bad line %q", line)
			}
			seq++
			if ev := m.Apply(seq, ts, rec, nil); ev[0].Err != "" {
				t.Fatalf("%q: %s", line, ev[0].Err)
			}
		}
	}
	if len(want) != 5 || seq != 11 {
		t.Fatalf("fixture: %d records, %d expectations", seq, len(want))
	}
	return m, seq, want
}

func wireOf(t *testing.T, m *Machine, acct string) (string, string) {
	w, _ := m.WithdrawalsOf(acct, "", "", 0, 1<<62, 100)
	d, _ := m.DepositsOf(acct, "", "", 0, 1<<62, 100)
	jw, err1 := json.Marshal(w)
	jd, err2 := json.Marshal(d)
	if err1 != nil || err2 != nil {
		t.Fatal(err1, err2)
	}
	return string(jw), string(jd)
}

// TestOldJournalBlockRecordsReplayToTheSameState: a data dir written before
// internal/chain replays its `block` records with their old meaning (same
// snapshot hash, same deposits and withdrawals); a `block` record with a
// block time then puts its still-pending items on the chain, which confirms
// them by height with the confirmations they had.
func TestOldJournalBlockRecordsReplayToTheSameState(t *testing.T) {
	m, seq, want := replayOldChain(t)
	if h := m.Hash(); hex.EncodeToString(h[:]) != want["hash"] {
		t.Fatalf("hash %x, the old build had %s", h, want["hash"])
	}
	for _, acct := range []string{chainA, chainB} {
		w, d := wireOf(t, m, acct)
		if w != want["withdrawals "+acct] || d != want["deposits "+acct] {
			t.Fatalf("%s:\n%s\n%s\nwant\n%s\n%s", acct, w, d, want["withdrawals "+acct], want["deposits "+acct])
		}
	}
	if !m.LegacyChainItems() || m.NextChainDue() != 0 {
		t.Fatalf("legacy items %v, due %d", m.LegacyChainItems(), m.NextChainDue())
	}
	apply := func(ts int64, c Command) Event {
		seq++
		return m.Apply(seq, ts, c.Encode(), nil)[0]
	}
	// The newer service adopts them at t0+9 s: next block at t0+10 s.
	apply(chainT0+9000, Command{Kind: KBlock, BlockTime: 2000})
	if m.LegacyChainItems() || m.NextChainDue() != chainT0+10000 {
		t.Fatalf("adopted: legacy %v, due %d", m.LegacyChainItems(), m.NextChainDue())
	}
	apply(chainT0+9500, Command{Kind: KBlock}) // a legacy block no longer moves them
	if w := m.mo.wds[2]; w.Conf != 1 || w.Status != WPending {
		t.Fatalf("after a legacy block: %+v", w)
	}
	ev := apply(chainT0+10000, Command{Kind: KTick})
	if len(ev.Withdrawals) != 1 || ev.Withdrawals[0].Conf != 2 || len(ev.Deposits) != 1 || ev.Deposits[0].Deposit.Conf != 2 {
		t.Fatalf("block at t0+10s: %+v", ev)
	}
	ev = apply(chainT0+12001, Command{Kind: KTick})
	w := m.mo.wds[2]
	if w.Status != WConfirmed || w.Conf != 3 || w.Confirmed != chainT0+12000 || len(ev.Deposits) != 1 ||
		ev.Deposits[0].Deposit.Status != WConfirmed || ev.Deposits[0].Deposit.Confirmed != chainT0+12000 || m.NextChainDue() != 0 {
		t.Fatalf("confirmed: %+v %+v", w, ev.Deposits)
	}
}

// TestChainConfirmsByHeight: a withdrawal and a deposit sent on the chain
// gain a confirmation per block, read at each command's time; the first
// mines the withdrawal (its hash appears), the third confirms both at that
// block's time; a snapshot taken midway restores to the same state and due
// time; a legacy `block` record does not move them.
func TestChainConfirmsByHeight(t *testing.T) {
	m := New(Config{})
	seq := uint64(0)
	apply := func(ts int64, c Command) Event {
		seq++
		return m.Apply(seq, ts, c.Encode(), nil)[0]
	}
	apply(chainT0, Command{Kind: KDeposit, Account: chainA, Amount: "100"})
	apply(chainT0+500, Command{Kind: KWithdraw, Account: chainA, Amount: "40", Fee: "1", To: chainTo, Required: 3, BlockTime: 2000})
	apply(chainT0+1000, Command{Kind: KDeposit, Account: chainB, Amount: "5", Required: 3, BlockTime: 2000})
	for _, c := range []struct {
		ts               int64
		kind             string
		wConf, dConf     int64
		wStatus          string
		hashed, restored bool
	}{
		{chainT0 + 1999, KTick, 0, 0, WPending, false, false},  // block 1 is at t0+2 s
		{chainT0 + 1999, KBlock, 0, 0, WPending, false, false}, // a legacy block: not this chain
		{chainT0 + 2000, KTick, 1, 1, WPending, true, false},
		{chainT0 + 3000, KTick, 1, 1, WPending, true, true},
		{chainT0 + 4500, KIndex, 2, 2, WPending, true, false}, // any command reads the chain
		{chainT0 + 9000, KTick, 3, 3, WConfirmed, true, true}, // blocks skipped: one update, confirmed at block 3's time
		{chainT0 + 20000, KTick, 3, 3, WConfirmed, true, false},
	} {
		apply(c.ts, Command{Kind: c.kind})
		w, d := m.mo.wds[0], m.accts[chainB].Deposits[0]
		if w.Conf != c.wConf || d.Conf != c.dConf || w.Status != c.wStatus || (w.Hash != "") != c.hashed {
			t.Fatalf("at %d: withdrawal %+v deposit %+v", c.ts-chainT0, w, d)
		}
		if c.restored {
			var buf bytes.Buffer
			if err := m.Snapshot(&buf); err != nil {
				t.Fatal(err)
			}
			r := New(Config{})
			if err := r.Restore(&buf); err != nil {
				t.Fatal(err)
			}
			if r.Hash() != m.Hash() || r.NextChainDue() != m.NextChainDue() {
				t.Fatalf("at %d: restored due %d, want %d", c.ts-chainT0, r.NextChainDue(), m.NextChainDue())
			}
			m = r
		}
	}
	w, d := m.mo.wds[0], m.accts[chainB].Deposits[0]
	if w.Confirmed != chainT0+6000 || d.Confirmed != chainT0+6000 || m.NextChainDue() != 0 {
		t.Fatalf("confirmed at %d and %d, due %d", w.Confirmed-chainT0, d.Confirmed-chainT0, m.NextChainDue())
	}
}
