package config

import (
	"flag"
	"testing"
	"time"

	"pmx/internal/chain"
)

func TestChainFlagsAndWithdrawFee(t *testing.T) {
	c, err := Parse(nil)
	if err != nil || c.ChainBlockTime != 2*time.Second || c.ChainConfirmations != 3 || c.PerpsWithdrawFee != "1" {
		t.Fatalf("defaults: %v %v %d %q", err, c.ChainBlockTime, c.ChainConfirmations, c.PerpsWithdrawFee)
	}
	if c.Chain() != (chain.Params{BlockTime: 2000, Confirmations: 3}) {
		t.Fatalf("chain %+v", c.Chain())
	}
	for _, args := range [][]string{
		{"--chain-block-time", "250ms", "--chain-confirmations", "5", "--perps-withdraw-fee", "0.5"},
		{"--perps-block-time", "250ms", "--chain-confirmations", "5", "--perps-withdraw-fee", "0.5"}, // deprecated aliases
		{"--clob-chain-delay", "250ms", "--chain-confirmations", "5", "--perps-withdraw-fee", "0.5"},
	} {
		if c, err := Parse(args); err != nil || c.Chain() != (chain.Params{BlockTime: 250, Confirmations: 5}) || c.PerpsWithdrawFee != "0.5" {
			t.Fatalf("%v: %v %+v", args, err, c)
		}
	}
	for _, bad := range [][]string{{"--chain-block-time", "0s"}, {"--chain-block-time", "2h"}, {"--chain-block-time", "1500us"},
		{"--perps-block-time", "0s"}, {"--chain-confirmations", "0"}, {"--chain-confirmations", "1001"},
		{"--perps-withdraw-fee", "-1"}, {"--perps-withdraw-fee", "x"}} {
		if _, err := Parse(bad); err == nil {
			t.Errorf("%v accepted", bad)
		}
	}
}

func TestChainEnvironment(t *testing.T) {
	for _, c := range []struct {
		env  map[string]string
		want time.Duration
	}{
		{map[string]string{"PMX_CHAIN_BLOCK_TIME": "3s"}, 3 * time.Second},
		{map[string]string{"PMX_PERPS_BLOCK_TIME": "4s"}, 4 * time.Second},
		{map[string]string{"PMX_CLOB_CHAIN_DELAY": "5s"}, 5 * time.Second},
		{map[string]string{"PMX_CHAIN_BLOCK_TIME": "3s", "PMX_PERPS_BLOCK_TIME": "4s"}, 3 * time.Second}, // the new name wins
	} {
		var s Serve
		s.Bind(flag.NewFlagSet("serve", flag.ContinueOnError), func(k string) string { return c.env[k] })
		if s.ChainBlockTime != c.want {
			t.Errorf("%v: %v", c.env, s.ChainBlockTime)
		}
	}
}
