package ledger

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

// FuzzParse feeds arbitrary bytes to ParseAll. A rejected batch must come
// back as nil events and a *LineError with a real line number; an accepted
// one must survive Encode -> ParseAll -> Encode byte for byte.
func FuzzParse(f *testing.F) {
	for _, l := range strings.Split(string(readValid(f)), "\n") {
		f.Add([]byte(l))
	}
	f.Add(readValid(f))
	for _, k := range []string{"trade", "market", "resolution", "conversion", "combo_market", "combo_activity", "tip"} {
		f.Add([]byte(line(k)))
	}
	f.Add([]byte("\n\n{\"kind\":\"trade\"}\n"))
	f.Add([]byte(`{"kind":"market","outcomes":null}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		evs, err := ParseAll(bytes.NewReader(data))
		if err != nil {
			var le *LineError
			if !errors.As(err, &le) || le.Line < 1 || le.Line > bytes.Count(data, []byte("\n"))+1 {
				t.Fatalf("bad error %T %v", err, err)
			}
			if evs != nil {
				t.Fatal("events returned with an error")
			}
			return
		}
		var a, b bytes.Buffer
		enc := NewEncoder(&a)
		for i := range evs {
			enc.Encode(&evs[i])
		}
		enc.Flush()
		again, err := ParseAll(bytes.NewReader(a.Bytes()))
		if err != nil {
			t.Fatalf("re-parse of encoded events: %v\n%s", err, a.String())
		}
		if len(again) != len(evs) {
			t.Fatalf("%d events became %d", len(evs), len(again))
		}
		enc = NewEncoder(&b)
		for i := range again {
			enc.Encode(&again[i])
		}
		enc.Flush()
		if !bytes.Equal(a.Bytes(), b.Bytes()) {
			t.Fatalf("unstable encoding:\n%s\n%s", a.String(), b.String())
		}
	})
}
