package config

import (
	"testing"
	"time"
)

func TestPerpsBlockTimeAndWithdrawFee(t *testing.T) {
	c, err := Parse(nil)
	if err != nil || c.PerpsBlockTime != 2*time.Second || c.PerpsWithdrawFee != "1" {
		t.Fatalf("defaults: %v %v %q", err, c.PerpsBlockTime, c.PerpsWithdrawFee)
	}
	if c, err := Parse([]string{"--perps-block-time", "250ms", "--perps-withdraw-fee", "0.5"}); err != nil ||
		c.PerpsBlockTime != 250*time.Millisecond || c.PerpsWithdrawFee != "0.5" {
		t.Fatalf("parsed: %v %+v", err, c)
	}
	for _, bad := range [][]string{{"--perps-block-time", "0s"}, {"--perps-block-time", "2h"},
		{"--perps-withdraw-fee", "-1"}, {"--perps-withdraw-fee", "x"}} {
		if _, err := Parse(bad); err == nil {
			t.Errorf("%v accepted", bad)
		}
	}
}
