package clobws

import (
	"strings"
	"testing"
)

const cond = "0x5f65177b394277fd294cd75650044e32ba009a95022d88a0c1d565897d72f8f1"

// TestParse: production's subscription shapes are accepted, anything else
// is ErrInvalid.
func TestParse(t *testing.T) {
	for _, c := range []struct {
		msg  string
		user bool
		ok   bool
		want Message
	}{
		{`{"assets_ids":["1","22"],"type":"market"}`, false, true, Message{Type: "market", Assets: []string{"1", "22"}}},
		{`{"assets_ids":[],"type":"MARKET","custom_feature_enabled":true,"initial_dump":true}`, false, true, Message{Type: "market", Assets: []string{}}},
		{`{"assets_ids":["7"],"operation":"unsubscribe"}`, false, true, Message{Op: "unsubscribe", Assets: []string{"7"}}},
		{`{"auth":{"apiKey":"k","secret":"s","passphrase":"p"},"type":"user"}`, true, true, Message{Type: "user", Auth: Auth{"k", "s", "p"}}},
		{`{"auth":{"apiKey":"k","secret":"s","passphrase":"p"},"type":"user","markets":["0x12"]}`, true, false, Message{}},
		{`{"markets":["` + strings.Replace(cond, "f", "F", 1) + `"],"operation":"subscribe"}`, true, true, Message{Op: "subscribe", Markets: []string{cond}}},
		{`{"assets_ids":["1"],"type":"user"}`, false, false, Message{}},
		{`{"assets_ids":["01"],"type":"market"}`, false, false, Message{}},
		{`{"assets_ids":["-1"],"type":"market"}`, false, false, Message{}},
		{`{"assets_ids":[1],"type":"market"}`, false, false, Message{}},
		{`{"assets_ids":["1"]}`, false, false, Message{}},
		{`{"assets_ids":["1"],"operation":"resubscribe"}`, false, false, Message{}},
		{`{"assets_ids":["1"],"type":"market","markets":[]}`, false, false, Message{}},
		{`{"type":"user","auth":{"apiKey":"","secret":"s","passphrase":"p"}}`, true, false, Message{}},
		{`{"markets":[],"operation":"subscribe"}`, true, false, Message{}},
		{`{"markets":["0x1\u0010"],"operation":"subscribe"}`, true, false, Message{}},
		{`PING`, false, false, Message{}},
		{``, true, false, Message{}},
		{`["x"]`, false, false, Message{}},
	} {
		m, err := Parse([]byte(c.msg), c.user)
		if (err == nil) != c.ok {
			t.Errorf("%s: err %v", c.msg, err)
			continue
		}
		if c.ok && (m.Type != c.want.Type || m.Op != c.want.Op || strings.Join(m.Assets, ",") != strings.Join(c.want.Assets, ",") ||
			strings.Join(m.Markets, ",") != strings.Join(c.want.Markets, ",") || m.Auth != c.want.Auth) {
			t.Errorf("%s: %+v, want %+v", c.msg, m, c.want)
		}
	}
}

// FuzzParse: no input panics, and an accepted message holds only valid
// ids within the limits.
func FuzzParse(f *testing.F) {
	for _, s := range []string{`{"assets_ids":["1"],"type":"market"}`, `{"assets_ids":["1"],"operation":"subscribe"}`,
		`{"auth":{"apiKey":"k","secret":"s","passphrase":"p"},"type":"user","markets":["` + cond + `"]}`,
		`{"markets":["` + cond + `"],"operation":"unsubscribe"}`, `{}`, `[]`, `PING`} {
		f.Add([]byte(s), true)
		f.Add([]byte(s), false)
	}
	f.Fuzz(func(t *testing.T, b []byte, user bool) {
		m, err := Parse(b, user)
		if err != nil {
			return
		}
		if (m.Type == "") == (m.Op == "") {
			t.Fatalf("type %q op %q", m.Type, m.Op)
		}
		for _, a := range m.Assets {
			if !tokenID(a) || user {
				t.Fatalf("asset %q on user=%v", a, user)
			}
		}
		for _, c := range m.Markets {
			if !condID(c) || c != strings.ToLower(c) || !user {
				t.Fatalf("market %q", c)
			}
		}
		if user && m.Type != "" && (m.Auth.APIKey == "" || m.Auth.Secret == "" || m.Auth.Passphrase == "") {
			t.Fatalf("auth %+v", m.Auth)
		}
	})
}
