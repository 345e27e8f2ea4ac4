package dataapi

import (
	"bytes"
	"strings"
	"testing"
)

// TestAppendJSONStringWordPath puts each byte class that needs care at every
// offset of a 24-byte string, so plain8's 8-byte skip meets it in every lane.
func TestAppendJSONStringWordPath(t *testing.T) {
	specials := []string{"\"", "\\", "\x00", "\x1f", "\n", " ", "~", "\x7f", "é", "\u2028", "\xff", "<"}
	for _, sp := range specials {
		for at := 0; at < 24; at++ {
			s := strings.Repeat("a", at) + sp + strings.Repeat("b", 24-at)
			got := appendJSONString(nil, s)
			want := bytes.TrimSuffix(stdJSON(t, s), []byte("\n"))
			if !bytes.Equal(got, want) {
				t.Fatalf("%q:\n got %s\nwant %s", s, got, want)
			}
		}
	}
}
