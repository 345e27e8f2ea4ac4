package catalog

import (
	"testing"

	"pmx/internal/amount"
)

func TestSumEvent(t *testing.T) {
	c1, c2 := "0x01", "0x02"
	mic := func(s string) *amount.Micro { v := amount.MustParse(s); return &v }
	e := Event{
		Volume: ptr(Num("999")), Liquidity: ptr(Num("7")), OpenInterest: ptr(Num("5")),
		Markets: []Market{
			{ConditionID: &c1, Volume: ptr(Str("10.5")), Liquidity: ptr(Str("100.123456789"))},
			{ConditionID: &c2, Volume: ptr(Str("1335.045385")), Liquidity: ptr(Str("50"))},
		},
	}
	sumEvent(&e, map[string]Live{c1: {Volume: mic("20.25"), OpenInterest: mic("3")}})
	for name, c := range map[string]struct {
		got  *Num
		want string
	}{
		"volume":       {e.Volume, "1355.295385"}, // live 20.25 + stored 1335.045385
		"liquidity":    {e.Liquidity, "7"},        // no market has live liquidity: stored total kept
		"openInterest": {e.OpenInterest, "3"},     // live 3 + unknown
		"volume24hr":   {e.Volume24hr, "<nil>"},   // nothing anywhere
	} {
		got := "<nil>"
		if c.got != nil {
			got = string(*c.got)
		}
		if got != c.want {
			t.Errorf("%s = %s, want %s", name, got, c.want)
		}
	}
	sumEvent(&e, map[string]Live{c2: {Liquidity: mic("1")}})
	if *e.Liquidity != "101.123456789" || *e.LiquidityClob != "101.123456789" {
		t.Errorf("liquidity = %s (exact sum of stored 100.123456789 and live 1)", *e.Liquidity)
	}
}
