package tally

import (
	"bytes"
	"fmt"
	"testing"
)

func TestApplyRules(t *testing.T) {
	tests := []struct {
		name     string
		cmds     [][]byte
		wantBal  int64
		rejected string
	}{
		{"credit", [][]byte{Encode("a", 5)}, 5, ""},
		{"debit within", [][]byte{Encode("a", 5), Encode("a", -5)}, 0, ""},
		{"debit beyond", [][]byte{Encode("a", 5), Encode("a", -6)}, 5, "insufficient"},
		{"overflow", [][]byte{Encode("a", 1<<62), Encode("a", 1<<62)}, 1 << 62, "overflow"},
		{"malformed", [][]byte{{0}}, 0, "malformed"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := New()
			var evs []Event
			for i, c := range tc.cmds {
				evs = m.Apply(uint64(i+1), 0, c, evs[:0])
			}
			if got := m.Balance("a"); got != tc.wantBal || evs[0].Rejected != tc.rejected {
				t.Fatalf("balance %d rejected %q", got, evs[0].Rejected)
			}
		})
	}
}

func TestSnapshotRestoreHash(t *testing.T) {
	m := New()
	for i := range 500 {
		m.Apply(uint64(i+1), int64(i), Encode(fmt.Sprintf("k%d", i%37), int64(i%11)-3), nil)
	}
	var buf bytes.Buffer
	if err := m.Snapshot(&buf); err != nil {
		t.Fatal(err)
	}
	m2 := New()
	if err := m2.Restore(&buf); err != nil {
		t.Fatal(err)
	}
	if m.Hash() != m2.Hash() {
		t.Fatal("restored hash differs")
	}
	m2.Apply(501, 0, Encode("k1", 1), nil)
	if m.Hash() == m2.Hash() {
		t.Fatal("hash ignores a change")
	}
}

func FuzzDecode(f *testing.F) {
	f.Add(Encode("key", -7))
	f.Add([]byte{})
	f.Add([]byte{65, 'a'})
	f.Fuzz(func(t *testing.T, cmd []byte) {
		key, delta, err := Decode(cmd)
		if err != nil {
			return
		}
		if !bytes.Equal(Encode(string(key), delta), cmd) {
			t.Fatal("re-encoding differs")
		}
	})
}

func FuzzRestore(f *testing.F) {
	m := New()
	m.Apply(1, 5, Encode("a", 3), nil)
	m.Apply(2, 6, Encode("bb", 4), nil)
	var buf bytes.Buffer
	m.Snapshot(&buf)
	f.Add(buf.Bytes())
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		m := New()
		if err := m.Restore(bytes.NewReader(data)); err != nil {
			return
		}
		var again bytes.Buffer
		m.Snapshot(&again)
		if m2 := New(); m2.Restore(&again) != nil || m2.Hash() != m.Hash() {
			t.Fatal("restored state does not round-trip")
		}
	})
}
