package perpsauth

import (
	"encoding/json"
	"os"
	"testing"
	"time"
)

// TestOfficialClientVectors verifies requests signed by the official
// @polymarket/client 0.2.0's own signing code (testdata/gen-official-vectors.mjs
// says how they were made): compact rows built by the client, keyed ops as
// the client sends them, signatures by its signer.
func TestOfficialClientVectors(t *testing.T) {
	raw, err := os.ReadFile("testdata/official_client_vectors.json")
	if err != nil {
		t.Fatal(err)
	}
	var fx struct {
		Signer string `json:"signer"`
		Ops    []struct {
			Name string          `json:"name"`
			Type string          `json:"type"`
			Body json.RawMessage `json:"body"`
		} `json:"ops"`
		CreateProxy struct {
			Owner string          `json:"owner"`
			Body  json.RawMessage `json:"body"`
		} `json:"createProxy"`
	}
	if err := json.Unmarshal(raw, &fx); err != nil {
		t.Fatal(err)
	}
	if len(fx.Ops) < 13 {
		t.Fatalf("only %d vectors", len(fx.Ops))
	}
	v := New(Config{})
	for _, o := range fx.Ops {
		t.Run(o.Name, func(t *testing.T) {
			r, err := ParseRequest(o.Body)
			if err != nil {
				t.Fatal(err)
			}
			got, err := v.VerifyOp(r, o.Type, time.UnixMilli(int64(r.Ts)).Add(time.Second), Self)
			if err != nil {
				t.Fatal(err)
			}
			if got.Signer.Hex() != fx.Signer {
				t.Fatalf("recovered %s, client signed as %s", got.Signer.Hex(), fx.Signer)
			}
		})
	}
	r, err := ParseRequest(fx.CreateProxy.Body)
	if err != nil {
		t.Fatal(err)
	}
	cp, err := v.VerifyCreateProxy(r, time.UnixMilli(int64(r.Ts)).Add(time.Second))
	if err != nil {
		t.Fatal(err)
	}
	if cp.Owner.Hex() != fx.CreateProxy.Owner || cp.Proxy.Hex() != fx.Signer || cp.Label != "session" {
		t.Fatalf("createProxy: %+v", cp)
	}
}
