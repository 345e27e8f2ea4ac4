package keccak

import (
	"encoding/hex"
	"testing"
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
