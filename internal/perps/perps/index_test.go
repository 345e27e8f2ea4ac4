package perps

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"
)

// TestPerAccountMoneyIndexesMatchAScan: withdrawals and transfers listed per
// account (from the per-account indexes) are exactly what a scan of every
// record finds, before and after a snapshot restore, and the kept transfers
// stay bounded (the oldest dropped with their replay keys) while ids keep
// counting.
func TestPerAccountMoneyIndexesMatchAScan(t *testing.T) {
	defer func(n int) { maxTransfers = n }(maxTransfers)
	maxTransfers = 1000
	m := New(Config{})
	accts := []string{"0xa", "0xb", "0xc", "0xd"}
	var seq uint64
	do := func(c Command) {
		seq++
		m.Apply(seq, int64(seq), cmd(c), nil)
	}
	for _, a := range accts {
		do(Command{Kind: KDeposit, Account: a, Amount: "1000000"})
	}
	rng := rand.New(rand.NewPCG(1, 2))
	n := maxTransfers + maxTransfers/4 + 1000
	made := uint64(0)
	for i := 0; i < n; i++ {
		a, b := accts[rng.IntN(4)], accts[rng.IntN(4)]
		if a == b {
			b = accts[(rng.IntN(3)+1+indexOf(accts, a))%4]
		}
		if i%50 == 0 {
			do(Command{Kind: KWithdraw, Account: a, Amount: "2", Fee: "1", To: b, Required: 1})
			continue
		}
		do(Command{Kind: KTransfer, Account: a, To: b, Amount: "0.000001", Label: "x", Replay: []byte(fmt.Sprint(i))})
		made++
	}
	if l := len(m.mo.trs); l > maxTransfers+maxTransfers/4 || l < maxTransfers {
		t.Fatalf("%d transfers kept", l)
	}
	if got, want := m.mo.trs[len(m.mo.trs)-1].ID, made; got != want {
		t.Fatalf("last transfer id %d, want %d (ids keep counting)", got, want)
	}
	if _, _, ok := m.TransferOutcome([]byte("1")); ok {
		t.Fatal("a dropped transfer's replay key is kept")
	}
	check := func(m *Machine) {
		for _, a := range accts {
			for _, dir := range []string{"", "in", "out"} {
				got, _ := m.TransfersOf(a, dir, 0, MaxMs, 1<<30)
				var want []uint64
				for i := len(m.mo.trs) - 1; i >= 0; i-- {
					tr := m.mo.trs[i]
					if (tr.From == a && dir != "in") || (tr.To == a && dir != "out") {
						want = append(want, tr.ID)
					}
				}
				if len(got) != len(want) {
					t.Fatalf("%s %q: %d transfers, a scan finds %d", a, dir, len(got), len(want))
				}
				for i := range got {
					if got[i].ID != want[i] {
						t.Fatalf("%s %q: #%d is %d, a scan finds %d", a, dir, i, got[i].ID, want[i])
					}
				}
			}
			ws, _ := m.WithdrawalsOf(a, "", "", 0, MaxMs, 1<<30)
			nw := 0
			for _, w := range m.mo.wds {
				if w.Account == a {
					nw++
				}
			}
			if len(ws) != nw {
				t.Fatalf("%s: %d withdrawals listed, %d made", a, len(ws), nw)
			}
		}
	}
	check(m)
	var buf bytes.Buffer
	m.Snapshot(&buf)
	m2 := New(Config{})
	if err := m2.Restore(&buf); err != nil {
		t.Fatal(err)
	}
	check(m2)
}

func indexOf(s []string, v string) int {
	for i, x := range s {
		if x == v {
			return i
		}
	}
	return -1
}
