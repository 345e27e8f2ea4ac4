package jsonstr

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// std is encoding/json's form of s without HTML escaping.
func std(t testing.TB, s string) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(s); err != nil {
		t.Fatal(err)
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}

func TestAppend(t *testing.T) {
	for in, want := range map[string]string{
		"plain":             `"plain"`,
		"q\"b\\":            `"q\"b\\"`,
		"nl\n\t\r\x01\b\f":  `"nl\n\t\r\u0001\b\f"`,
		"é°F":               `"é°F"`,
		"bad\xff":           `"bad\ufffd"`,
		"<html>&amp;":       `"<html>&amp;"`,
		"sep\u2028\u2029":   `"sep\u2028\u2029"`,
		"":                  `""`,
		"\x7f del stays as": "\"\x7f del stays as\"",
	} {
		if got := string(Append([]byte("x"), in)); got != "x"+want {
			t.Errorf("%q: got %s want x%s", in, got, want)
		}
	}
}

// TestAppendWordPath puts each byte class that needs care at every offset
// of a 24-byte string, so plain8's 8-byte skip meets it in every lane.
func TestAppendWordPath(t *testing.T) {
	everyLane(t, []string{"\"", "\\", "\x00", "\x1f", "\n", " ", "~", "\x7f", "é", "\u2028", "\xff", "<"}, Append, std)
}

// everyLane puts each of specials at every offset of a 24-byte string and
// requires enc to give want's bytes.
func everyLane(t *testing.T, specials []string, enc func([]byte, string) []byte, want func(testing.TB, string) []byte) {
	t.Helper()
	for _, sp := range specials {
		for at := 0; at < 24; at++ {
			s := strings.Repeat("a", at) + sp + strings.Repeat("b", 24-at)
			if got, w := enc(nil, s), want(t, s); !bytes.Equal(got, w) {
				t.Fatalf("%q:\n got %s\nwant %s", s, got, w)
			}
		}
	}
}

func FuzzAppend(f *testing.F) {
	for _, s := range []string{"", "plain", `q"uote`, `back\slash`, "ctl\x00\x01\x1f\b\f\n\r\t", "<html>&amp;",
		"ünïcødé ✓ 😀", "bad\xffutf8\xc3", "sep\u2028\u2029", "\x7f del"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := Append(nil, s), std(t, s); !bytes.Equal(got, want) {
			t.Fatalf("%q:\n got %s\nwant %s", s, got, want)
		}
	})
}

// marshal is encoding/json's default form of s (HTML escaping on).
func marshal(t testing.TB, s string) []byte {
	q, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	return q
}

// AppendHTML is json.Marshal's bytes, with every special byte class in
// every lane of the 8-byte skip.
func TestAppendHTMLWordPath(t *testing.T) {
	everyLane(t, []string{"<", ">", "&", "\"", "\\", "\x00", "\n", "~", "é", "\u2028", "\xff"}, AppendHTML, marshal)
}

func FuzzAppendHTML(f *testing.F) {
	for _, s := range []string{"", "plain", "<html>&amp;", "a<b>c&d", "ünïcødé ✓", "bad\xff", "sep\u2028"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := AppendHTML(nil, s), marshal(t, s); !bytes.Equal(got, want) {
			t.Fatalf("%q:\n got %s\nwant %s", s, got, want)
		}
	})
}

// BenchmarkAppend escapes strings shaped like a feed row's (hashes, titles,
// URLs): go test -run '^$' -bench Append ./internal/jsonstr/
func BenchmarkAppend(b *testing.B) {
	in := []string{"0x9f2c7a1be3d04f5a6b7c8d9e0f1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c",
		"Will the Lakers win the 2026 NBA Finals?", "https://polymarket-upload.s3.us-east-2.amazonaws.com/lakers.png",
		"lakers-win-2026-nba-finals", "71321045679252212594626385532706912750332728571942532289631379312455583992563"}
	n := 0
	for _, s := range in {
		n += len(s)
	}
	b.SetBytes(int64(n))
	buf := make([]byte, 0, 4096)
	for range b.N {
		buf = buf[:0]
		for _, s := range in {
			buf = Append(buf, s)
		}
	}
}
