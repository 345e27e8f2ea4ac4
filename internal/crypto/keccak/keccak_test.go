package keccak

import (
	"encoding/hex"
	"hash"
	"testing"

	"golang.org/x/crypto/sha3"
)

func TestSum256(t *testing.T) {
	tests := []struct {
		name  string
		parts [][]byte
		want  string
	}{
		// Well-known Keccak-256 values (they differ from NIST SHA3-256).
		{"empty", nil, "c5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470"},
		{"abc", [][]byte{[]byte("abc")}, "4e03657aea45a94fc7d47ba826c8d667c0d1e6e33a64a036ec44f58fa12d6c45"},
		{"abc split", [][]byte{[]byte("a"), []byte("bc")}, "4e03657aea45a94fc7d47ba826c8d667c0d1e6e33a64a036ec44f58fa12d6c45"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := Sum256(tc.parts...)
			if hex.EncodeToString(got[:]) != tc.want {
				t.Fatalf("got %x want %s", got, tc.want)
			}
		})
	}
	if String("abc") != Sum256([]byte("abc")) {
		t.Fatal("String disagrees with Sum256")
	}
}

// Long inputs cross the copy buffer's block boundary; the result must be
// the same however the input is split.
func TestSum256Chunking(t *testing.T) {
	data := make([]byte, 1000)
	for i := range data {
		data[i] = byte(i * 7)
	}
	whole := Sum256(data)
	for _, cut := range []int{0, 1, 135, 136, 137, 272, 999, 1000} {
		if got := Sum256(data[:cut], data[cut:]); got != whole {
			t.Fatalf("split at %d: %x want %x", cut, got, whole)
		}
	}
	// Known value: keccak256 of 1000 bytes i*7 mod 256, checked against
	// x/crypto's sha3 directly (not through the pool).
	h := newReference()
	h.Write(data)
	if want := h.Sum(nil); string(want) != string(whole[:]) {
		t.Fatalf("got %x want %x", whole, want)
	}
}

func newReference() hash.Hash { return sha3.NewLegacyKeccak256() }
