package perps

import (
	"bytes"
	"testing"
)

// TestMoneyCommands is the withdrawal, block and transfer table: each row
// applies one command to a fresh exchange where acA holds 100 and acB 0,
// and checks the outcome and the balances after.
func TestMoneyCommands(t *testing.T) {
	for _, tc := range []struct {
		name     string
		cmds     []Command
		err      string
		balA     int64 // micro
		balB     int64
		pendingW int
	}{
		{"withdraw debits the amount", []Command{{Kind: KWithdraw, Account: acA, Amount: "40", Fee: "1", To: acB, Required: 2}}, "", 60e6, 0, 1},
		{"withdraw all", []Command{{Kind: KWithdraw, Account: acA, Amount: "100", Fee: "1", To: acB, Required: 2}}, "", 0, 0, 1},
		{"withdraw beyond balance", []Command{{Kind: KWithdraw, Account: acA, Amount: "100.000001", To: acB, Required: 2}}, ErrInsufficientBalance, 100e6, 0, 0},
		{"withdraw by a stranger", []Command{{Kind: KWithdraw, Account: acB, Amount: "1", To: acA, Required: 2}}, ErrInsufficientBalance, 100e6, 0, 0},
		{"withdraw not above the fee", []Command{{Kind: KWithdraw, Account: acA, Amount: "1", Fee: "1", To: acB, Required: 2}}, "amount_below_fee", 100e6, 0, 0},
		{"withdraw of nothing", []Command{{Kind: KWithdraw, Account: acA, Amount: "0", To: acB, Required: 2}}, "invalid_command", 100e6, 0, 0},
		{"withdraw without confirmations", []Command{{Kind: KWithdraw, Account: acA, Amount: "1", To: acB}}, "invalid_command", 100e6, 0, 0},
		{"confirmed after the required blocks", []Command{{Kind: KWithdraw, Account: acA, Amount: "10", To: acB, Required: 2},
			{Kind: KBlock}, {Kind: KBlock}}, "", 90e6, 0, 0},
		{"failed refunds", []Command{{Kind: KWithdraw, Account: acA, Amount: "10", To: acB, Required: 2},
			{Kind: KWithdrawStatus, WID: 1, Status: WFailed}}, "", 100e6, 0, 0},
		{"removed after a block refunds", []Command{{Kind: KWithdraw, Account: acA, Amount: "10", To: acB, Required: 2},
			{Kind: KBlock}, {Kind: KWithdrawStatus, WID: 1, Status: WRemoved}}, "", 100e6, 0, 0},
		{"confirmed cannot fail", []Command{{Kind: KWithdraw, Account: acA, Amount: "10", To: acB, Required: 1},
			{Kind: KBlock}, {Kind: KWithdrawStatus, WID: 1, Status: WFailed}}, "withdrawal_not_pending", 90e6, 0, 0},
		{"operator cannot confirm", []Command{{Kind: KWithdraw, Account: acA, Amount: "10", To: acB, Required: 1},
			{Kind: KWithdrawStatus, WID: 1, Status: WConfirmed}}, "invalid status", 90e6, 0, 1},
		{"unknown withdrawal", []Command{{Kind: KWithdrawStatus, WID: 3, Status: WFailed}}, "withdrawal_not_found", 100e6, 0, 0},
		{"transfer moves both", []Command{{Kind: KTransfer, Account: acA, To: acB, Amount: "12.5"}}, "", 87.5e6, 12.5e6, 0},
		{"transfer to self", []Command{{Kind: KTransfer, Account: acA, To: acA, Amount: "1"}}, ErrTransferToSelf, 100e6, 0, 0},
		{"transfer beyond balance", []Command{{Kind: KTransfer, Account: acA, To: acB, Amount: "101"}}, ErrInsufficientBalance, 100e6, 0, 0},
		{"transfer with a long label", []Command{{Kind: KTransfer, Account: acA, To: acB, Amount: "1", Label: string(make([]byte, 65))}}, "invalid_command", 100e6, 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := New(Config{})
			var ev []Event
			ev = m.Apply(1, 1000, cmd(Command{Kind: KDeposit, Account: acA, Amount: "100"}), ev)
			for i, c := range tc.cmds {
				ev = m.Apply(uint64(i+2), int64(2000+i), cmd(c), ev[:0])
			}
			if got := ev[0].Err; got != tc.err {
				t.Fatalf("last command: err %q, want %q", got, tc.err)
			}
			var ba, bb int64
			if a := m.accts[acA]; a != nil {
				ba = a.Balance
			}
			if b := m.accts[acB]; b != nil {
				bb = b.Balance
			}
			if ba != tc.balA || bb != tc.balB || len(m.mo.pending) != tc.pendingW {
				t.Fatalf("balances %d %d pending %d", ba, bb, len(m.mo.pending))
			}
		})
	}
}

// A signed money command's outcome is kept by its replay key, refused ones
// included, and survives a snapshot.
func TestMoneyOutcomesByReplayKey(t *testing.T) {
	m := New(Config{})
	m.Apply(1, 1, cmd(Command{Kind: KDeposit, Account: acA, Amount: "10"}), nil)
	m.Apply(2, 2, cmd(Command{Kind: KWithdraw, Account: acA, Amount: "4", To: acB, Required: 1, Replay: []byte("w1")}), nil)
	m.Apply(3, 3, cmd(Command{Kind: KWithdraw, Account: acA, Amount: "40", To: acB, Required: 1, Replay: []byte("w2")}), nil)
	m.Apply(4, 4, cmd(Command{Kind: KTransfer, Account: acA, To: acB, Amount: "1", Replay: []byte("t1")}), nil)
	check := func(m *Machine) {
		if id, ref, ok := m.OutcomeByReplay([]byte("w1")); !ok || id != 1 || ref != "" {
			t.Fatalf("w1: %d %q %v", id, ref, ok)
		}
		if id, ref, ok := m.OutcomeByReplay([]byte("w2")); !ok || id != 2 || ref != ErrInsufficientBalance {
			t.Fatalf("w2: %d %q %v", id, ref, ok)
		}
		if id, ref, ok := m.TransferOutcome([]byte("t1")); !ok || id != 1 || ref != "" {
			t.Fatalf("t1: %d %q %v", id, ref, ok)
		}
		if _, _, ok := m.TransferOutcome([]byte("w1")); ok {
			t.Fatal("a withdrawal key found as a transfer")
		}
	}
	check(m)
	var buf bytes.Buffer
	if err := m.Snapshot(&buf); err != nil {
		t.Fatal(err)
	}
	r := New(Config{})
	if err := r.Restore(&buf); err != nil {
		t.Fatal(err)
	}
	check(r)
	if r.Hash() != m.Hash() {
		t.Fatal("hash changed across snapshot")
	}
}
