package config

import (
	"flag"
	"fmt"
	"time"

	"pmx/internal/chain"
)

// The one simulated chain of both exchanges (docs/ARCHITECTURE.md "One
// simulated chain"). --perps-block-time and --clob-chain-delay, the two
// exchanges' former knobs, remain as deprecated aliases of --chain-block-time.
var deprecatedBlockTime = []string{"perps-block-time", "clob-chain-delay"}

// MaxConfirmations bounds --chain-confirmations.
const MaxConfirmations = 1000

func (c *Serve) bindChain(fs *flag.FlagSet, env func(string) string, d Serve) {
	def := d.ChainBlockTime
	for _, name := range append(deprecatedBlockTime, "chain-block-time") { // the new variable wins
		def = envDuration(env, name, def)
	}
	fs.DurationVar(&c.ChainBlockTime, "chain-block-time", def,
		"simulated chain: block interval, whole ms; CLOB trades and perps deposits and withdrawals settle on it (env PMX_CHAIN_BLOCK_TIME)")
	for _, old := range deprecatedBlockTime {
		fs.DurationVar(&c.ChainBlockTime, old, def, "deprecated: --chain-block-time (env "+EnvName(old)+")")
	}
	fs.Int64Var(&c.ChainConfirmations, "chain-confirmations", envInt(env, "chain-confirmations", d.ChainConfirmations),
		"simulated chain: blocks (the first included) that confirm a transaction (env PMX_CHAIN_CONFIRMATIONS)")
}

func (c *Serve) checkChain() error {
	if c.ChainBlockTime <= 0 || c.ChainBlockTime > time.Hour || c.ChainBlockTime%time.Millisecond != 0 {
		return fmt.Errorf("--chain-block-time %v: must be whole milliseconds above 0 and at most 1h", c.ChainBlockTime)
	}
	if c.ChainConfirmations < 1 || c.ChainConfirmations > MaxConfirmations {
		return fmt.Errorf("--chain-confirmations %d: must be 1 to %d", c.ChainConfirmations, MaxConfirmations)
	}
	return nil
}

// Chain is the simulated chain the flags describe (genesis at the Unix epoch).
func (c *Serve) Chain() chain.Params {
	return chain.Params{BlockTime: c.ChainBlockTime.Milliseconds(), Confirmations: c.ChainConfirmations}
}
