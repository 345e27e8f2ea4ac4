package ledger

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
	"testing"
)

// decodeStd is the reference decoder: encoding/json with unknown fields
// disallowed. decodeLine must agree with it wherever it accepts.
func decodeStd(line []byte, e *Event) error {
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.DisallowUnknownFields()
	if err := dec.Decode(e); err != nil {
		return err
	}
	if _, err := dec.Token(); err != io.EOF {
		return errors.New("trailing data")
	}
	return Validate(e)
}

// stricter lists why decodeLine may reject what encoding/json accepts.
var stricter = []string{"duplicate field", "unknown field", "UTF-8", "surrogate", "null element"}

func FuzzDecodeAgrees(f *testing.F) {
	for _, l := range strings.Split(string(readValid(f)), "\n") {
		f.Add([]byte(l))
	}
	for _, k := range []string{"trade", "market", "resolution", "conversion", "combo_market", "combo_activity", "tip"} {
		f.Add([]byte(line(k)))
	}
	f.Add([]byte(`{"kind":"tr\u0061de","KIND":"x"}`))
	f.Add([]byte(`{"\u006bind":"builder","code":"0x` + strings.Repeat("a", 64) + `","name":"\ud83d\ude00 \u00e9\n","verified":null}`))
	f.Add([]byte(`{"kind":"market","outcomes":null,"token_ids":[],"active":null,"closed":false,"legs":[null]}`))
	f.Add([]byte(`{"kind":"trade","price":-0,"size":1e2,"log_index":-0,"block_number":1.0}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var fast, std Event
		errF := Unmarshal(data, &fast)
		errS := decodeStd(data, &std)
		switch {
		case errF == nil && errS != nil:
			t.Fatalf("fast accepted what encoding/json rejects (%v): %q", errS, data)
		case errF == nil && !reflect.DeepEqual(fast, std):
			t.Fatalf("decoders disagree on %q:\nfast %+v\nstd  %+v", data, fast, std)
		case errF != nil && errS == nil:
			for _, s := range stricter {
				if strings.Contains(errF.Error(), s) {
					return
				}
			}
			t.Fatalf("fast rejected (%v) what encoding/json accepts: %q", errF, data)
		}
	})
}

// TestScanCoversEveryField: every json tag of Event is a key decodeLine knows.
func TestScanCoversEveryField(t *testing.T) {
	ty := reflect.TypeOf(Event{})
	for i := 0; i < ty.NumField(); i++ {
		tag := strings.Split(ty.Field(i).Tag.Get("json"), ",")[0]
		var e Event
		err := decodeLine([]byte(fmt.Sprintf(`{%q:null}`, tag)), &e)
		if err != nil && strings.Contains(err.Error(), "unknown field") {
			t.Errorf("decodeLine does not know %q", tag)
		}
	}
}

func TestScanDetails(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`{"kind":"trade","kind":"trade"}`, `duplicate field "kind"`},
		{`{"kind":"trade","size":"1","size":"2"}`, `duplicate field "size"`},
		{`{"Kind":"trade"}`, `unknown field "Kind"`},
		{`{"kind":"trade","tx_hash":"\ud800"}`, "unpaired surrogate"},
		{"{\"kind\":\"tr\xffade\"}", "not valid UTF-8"},
		{`{"kind":"trade","log_index":1.5}`, `field "log_index": expected a 64-bit integer, got JSON number 1.5`},
		{`{"kind":"trade","log_index":"1"}`, `field "log_index": expected a 64-bit integer, got JSON string`},
		{`{"kind":"trade","log_index":99999999999999999999}`, "expected a 64-bit integer"},
		{`{"kind":"trade","price":01}`, "invalid JSON at byte 26"},
		{`{"kind":"trade","price":null}`, `field "price": not a decimal number`},
		{`{"kind":"trade","price":"0.5}`, "truncated JSON"},
		{`{"kind":"trade" "x":1}`, "invalid JSON at byte 17"},
		{`{"kind":"market","outcomes":["a",null]}`, `field "outcomes": null element`},
		{`{"kind":"market","outcomes":"Yes"}`, `field "outcomes": expected array, got JSON string`},
		{`{"kind":"market","neg_risk":1}`, `field "neg_risk": expected bool, got JSON number`},
		{`  `, "truncated JSON"},
	} {
		var e Event
		err := decodeLine([]byte(tc.in), &e)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want %q", tc.in, err, tc.want)
		}
	}
	var e Event
	in := `{ "kind" : "builder" , "name" : "a\"b\\c\/d\b\f\n\r\t\u00e9\ud83d\ude00" , "verified" : true , "code" : "x" }`
	if err := decodeLine([]byte(in), &e); err != nil || e.Name != "a\"b\\c/d\b\f\n\r\té😀" || !e.Verified {
		t.Fatalf("escapes: %v %q", err, e.Name)
	}
}
