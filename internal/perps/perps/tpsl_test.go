package perps

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
)

// tpslOrders builds a TP/SL request for the transcripts. bracket: the entry
// (side, p, qty, tif) then legs tp=TRP[:P] and sl=TRP[:P] on the other
// side (market unless :P); pos-tpsl: position legs on side, qty "0".
func tpslOrders(kind string, args map[string]string) []OrderReq {
	var out []OrderReq
	grp := "position"
	legBuy := args["side"] == "buy"
	if kind == "bracket" {
		grp = "order"
		e := OrderReq{IID: 1, Buy: args["side"] == "buy", Qty: args["qty"], Grp: grp}
		if p, ok := args["p"]; ok {
			e.P = &p
		}
		if tif, ok := args["tif"]; ok {
			e.TIF = &tif
		}
		out = append(out, e)
		legBuy = !e.Buy
	}
	for _, k := range []string{"tp", "sl"} {
		v, ok := args[k]
		if !ok {
			continue
		}
		trp, p, limit := strings.Cut(v, ":")
		l := OrderReq{IID: 1, Buy: legBuy, Qty: "0", RO: true, TR: true, TrP: trp, TrKind: k, TrMarket: !limit, Grp: grp}
		if kind == "bracket" {
			l.Qty = args["qty"]
		}
		if limit {
			l.P = &p
		}
		out = append(out, l)
	}
	return out
}

// roundtrip snapshots the machine, restores the snapshot into a fresh one
// and continues with it; the hashes must agree.
func (tr *transcript) roundtrip() (string, error) {
	var b bytes.Buffer
	if err := tr.m.Snapshot(&b); err != nil {
		return "", err
	}
	m := New(Config{})
	if err := m.Restore(&b); err != nil {
		return "", err
	}
	if m.Hash() != tr.m.Hash() {
		return "", fmt.Errorf("hash after restore differs")
	}
	if !slices.Equal(m.allLegs(), tr.m.allLegs()) {
		return "", fmt.Errorf("legs after restore: %v, before %v", m.allLegs(), tr.m.allLegs())
	}
	tr.m = m
	return fmt.Sprintf("ok legs=%v", m.allLegs()), nil
}
