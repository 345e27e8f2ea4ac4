// Package config holds pmx serve's settings: flags, each also settable by a
// PMX_* environment variable (flag > environment > default).
package config

import (
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"pmx/internal/amount"
	"pmx/internal/chain"
)

// Serve is the configuration of `pmx serve`.
type Serve struct {
	DataDir     string
	DataAddr    string
	CatalogAddr string
	ClobAddr    string
	PerpsAddr   string
	AdminAddr   string
	Demo        bool
	IPLimits    bool // the contract's IP-based request limits (off: benchmarks, local use)
	// ClobRateLimits is the CLOB per-signer token buckets' mode: enforce, warn or off.
	ClobRateLimits string
	// ClobAutoRedeem is how long after a resolution the CLOB redeems the
	// market's remaining holders automatically (negative: never).
	ClobAutoRedeem time.Duration
	DemoSeed       int64
	DemoScale      float64
	// DemoMarketMakers runs the perps demo market makers (only on an
	// exchange seeded by the demo); DemoMMInterval is their requote period.
	DemoMarketMakers bool
	DemoMMInterval   time.Duration
	// DemoTakers is the number of CLOB demo taker bots on a demo data dir
	// (0: none); DemoTakerInterval is the time between two of their trades.
	DemoTakers        int64
	DemoTakerInterval time.Duration
	LogFormat         string // text or json
	// Perps in-flight windows (docs/perps.md): awaiting risk checks, accept
	// in flight, taker delay, pending modify; held cancels on accepts. Zero
	// delays (the default) enter orders and apply modifies in their own step.
	PerpsRiskDelay, PerpsAcceptDelay, PerpsTakerDelay, PerpsModifyDelay time.Duration
	PerpsHeldCancels                                                    bool
	// PerpsCOIDWait: how long a cancel-by-coid of an unknown coid waits for
	// a racing create (production ~100 ms; 0: order_unknown at once).
	PerpsCOIDWait time.Duration
	// PerpsFundingInterval: how often perps funding settles (one hourly rate
	// each; tests shorten it). Default 1 h.
	PerpsFundingInterval time.Duration
	// PerpsAutoCancelDaily: auto-cancel triggers allowed per account per UTC
	// day. Default 1,000.
	PerpsAutoCancelDaily int
	// PerpsCloseOnlyWindow and PerpsIndexWindow: how long a market must be
	// close-only, and how long a fresh index window must be, before it can
	// settle. Default 30 minutes each.
	PerpsCloseOnlyWindow, PerpsIndexWindow time.Duration
	// ChainBlockTime and ChainConfirmations describe the one simulated chain
	// both exchanges settle on (CLOB trades, perps deposits and withdrawals).
	ChainBlockTime     time.Duration
	ChainConfirmations int64
	// PerpsWithdrawFee is the pUSD withdrawal fee.
	PerpsWithdrawFee string
	// Store and Role: where the data and catalog live and what this process
	// serves (store.go).
	Store, Role string
}

// MaxPerpsDelay bounds each perps in-flight window (the engine's limit).
const MaxPerpsDelay = time.Minute

// Defaults are the documented defaults.
func Defaults() Serve {
	return Serve{
		DataDir:            "./pmx-data",
		DataAddr:           "127.0.0.1:8081",
		CatalogAddr:        "127.0.0.1:8082",
		ClobAddr:           "127.0.0.1:8083",
		PerpsAddr:          "127.0.0.1:8084",
		AdminAddr:          "127.0.0.1:8089",
		Demo:               true,
		IPLimits:           true,
		ChainBlockTime:     chain.DefaultBlockTime * time.Millisecond,
		ChainConfirmations: chain.DefaultConfirmations,
		PerpsWithdrawFee:   "1",
		ClobRateLimits:     "enforce",
		ClobAutoRedeem:     time.Hour,
		DemoSeed:           1,
		DemoScale:          1,
		DemoMarketMakers:   true,
		DemoMMInterval:     2 * time.Second,
		DemoTakers:         3, DemoTakerInterval: 5 * time.Second,
		LogFormat:        "text",
		PerpsHeldCancels: true,

		PerpsFundingInterval: time.Hour,
		PerpsAutoCancelDaily: 1000,
		PerpsCloseOnlyWindow: 30 * time.Minute,
		PerpsIndexWindow:     30 * time.Minute,
	}
}

// Bind registers the flags on fs with defaults taken from env (PMX_DATA_DIR, ...).
func (c *Serve) Bind(fs *flag.FlagSet, env func(string) string) {
	d := Defaults()
	str := func(p *string, name, def, usage string) { StringVar(fs, env, p, name, def, usage) }
	str(&c.DataDir, "data-dir", d.DataDir, "data directory")
	str(&c.DataAddr, "data-addr", d.DataAddr, "data service v2 listen address")
	str(&c.CatalogAddr, "catalog-addr", d.CatalogAddr, "catalog service listen address")
	str(&c.ClobAddr, "clob-addr", d.ClobAddr, "CLOB listen address")
	str(&c.PerpsAddr, "perps-addr", d.PerpsAddr, "perpetuals exchange listen address")
	str(&c.AdminAddr, "admin-addr", d.AdminAddr, "admin listen address (loopback by default)")
	str(&c.LogFormat, "log-format", d.LogFormat, "log format: text or json")
	fs.BoolVar(&c.Demo, "demo", envBool(env, "demo", d.Demo), "load the demo world into an empty data dir (env PMX_DEMO)")
	fs.BoolVar(&c.IPLimits, "ip-limits", envBool(env, "ip-limits", d.IPLimits), "enforce the IP-based request limits (env PMX_IP_LIMITS)")
	fs.Int64Var(&c.DemoSeed, "demo-seed", envInt(env, "demo-seed", d.DemoSeed), "demo world seed (env PMX_DEMO_SEED)")
	fs.Float64Var(&c.DemoScale, "demo-scale", envFloat(env, "demo-scale", d.DemoScale), "demo world scale, 1 = full size (env PMX_DEMO_SCALE)")
	fs.BoolVar(&c.DemoMarketMakers, "demo-market-makers", envBool(env, "demo-market-makers", d.DemoMarketMakers), "run the perps demo market makers on a demo-seeded exchange (env PMX_DEMO_MARKET_MAKERS)")
	fs.DurationVar(&c.DemoMMInterval, "demo-mm-interval", envDuration(env, "demo-mm-interval", d.DemoMMInterval), "perps demo market makers' requote period (env PMX_DEMO_MM_INTERVAL)")
	dur := func(p *time.Duration, name string, def time.Duration, usage string) {
		fs.DurationVar(p, name, envDuration(env, name, def), usage+" (env "+EnvName(name)+")")
	}
	fs.Int64Var(&c.DemoTakers, "demo-takers", envInt(env, "demo-takers", d.DemoTakers), "CLOB demo taker bots on a demo data dir, 0 = none (env PMX_DEMO_TAKERS)")
	dur(&c.DemoTakerInterval, "demo-taker-interval", d.DemoTakerInterval, "CLOB demo taker bots: time between two of their trades")
	dur(&c.PerpsRiskDelay, "perps-risk-delay", d.PerpsRiskDelay, "perps: how long an accepted order awaits its risk checks, whole ms, 0 = none")
	dur(&c.PerpsAcceptDelay, "perps-accept-delay", d.PerpsAcceptDelay, "perps: how long an order's accept is in flight before it enters the book")
	dur(&c.PerpsTakerDelay, "perps-taker-delay", d.PerpsTakerDelay, "perps: extra wait of an order that would match on entry (production 20ms)")
	dur(&c.PerpsModifyDelay, "perps-modify-delay", d.PerpsModifyDelay, "perps: how long a modify is pending (modify_already_pending meanwhile)")
	dur(&c.PerpsFundingInterval, "perps-funding-interval", d.PerpsFundingInterval, "perps: how often funding settles (each settlement applies one hourly rate)")
	dur(&c.PerpsCloseOnlyWindow, "perps-close-only-window", d.PerpsCloseOnlyWindow, "perps: continuous close-only time before a market may settle")
	dur(&c.PerpsIndexWindow, "perps-index-window", d.PerpsIndexWindow, "perps: the fresh index window a settlement averages")
	fs.IntVar(&c.PerpsAutoCancelDaily, "perps-auto-cancel-daily", int(envInt(env, "perps-auto-cancel-daily", int64(d.PerpsAutoCancelDaily))), "perps: auto-cancel triggers allowed per account per UTC day (env PMX_PERPS_AUTO_CANCEL_DAILY)")
	dur(&c.PerpsCOIDWait, "perps-coid-wait", d.PerpsCOIDWait, "perps: how long a cancel by an unknown client order id waits for a racing create (production ~100ms)")
	c.bindChain(fs, env, d)
	StringVar(fs, env, &c.PerpsWithdrawFee, "perps-withdraw-fee", d.PerpsWithdrawFee, "perps: withdrawal fee in pUSD, withheld from the amount sent")
	str(&c.ClobRateLimits, "clob-rate-limits", d.ClobRateLimits, "CLOB per-signer token buckets: enforce, warn (process and flag) or off")
	dur(&c.ClobAutoRedeem, "clob-auto-redeem", d.ClobAutoRedeem, "CLOB: delay after a market's resolution before its remaining holders are redeemed automatically (negative: never)")
	fs.BoolVar(&c.PerpsHeldCancels, "perps-held-cancels", envBool(env, "perps-held-cancels", d.PerpsHeldCancels), "perps: hold a cancel that races an accept (else order_in_flight) (env PMX_PERPS_HELD_CANCELS)")
	c.bindStore(fs, env)
}

// Check validates values the flag types cannot.
func (c *Serve) Check() error {
	for _, d := range []struct {
		name string
		v    time.Duration
	}{{"perps-risk-delay", c.PerpsRiskDelay}, {"perps-accept-delay", c.PerpsAcceptDelay},
		{"perps-taker-delay", c.PerpsTakerDelay}, {"perps-modify-delay", c.PerpsModifyDelay},
		{"perps-coid-wait", c.PerpsCOIDWait}} {
		if d.v < 0 || d.v > MaxPerpsDelay || d.v%time.Millisecond != 0 {
			return fmt.Errorf("--%s %v: must be whole milliseconds from 0 to %v", d.name, d.v, MaxPerpsDelay)
		}
	}
	if err := c.checkChain(); err != nil {
		return err
	}
	if v, err := amount.Parse(c.PerpsWithdrawFee); err != nil || v < 0 {
		return fmt.Errorf("--perps-withdraw-fee %q: a non-negative pUSD amount", c.PerpsWithdrawFee)
	}
	if c.DemoTakers < 0 || c.DemoTakers > 100 {
		return fmt.Errorf("--demo-takers %d: must be 0 to 100", c.DemoTakers)
	}
	if c.DemoTakerInterval < 10*time.Millisecond {
		return fmt.Errorf("--demo-taker-interval %v: must be at least 10ms", c.DemoTakerInterval)
	}
	switch c.ClobRateLimits {
	case "enforce", "warn", "off":
	default:
		return fmt.Errorf("--clob-rate-limits %q: must be enforce, warn or off", c.ClobRateLimits)
	}
	if c.PerpsFundingInterval < time.Second || c.PerpsFundingInterval%time.Millisecond != 0 {
		return fmt.Errorf("--perps-funding-interval %v: must be whole milliseconds, at least 1s", c.PerpsFundingInterval)
	}
	if c.PerpsCloseOnlyWindow < time.Millisecond || c.PerpsIndexWindow < time.Millisecond {
		return fmt.Errorf("--perps-close-only-window and --perps-index-window: at least 1ms")
	}
	if c.PerpsAutoCancelDaily < 1 {
		return fmt.Errorf("--perps-auto-cancel-daily %d: must be 1 or more", c.PerpsAutoCancelDaily)
	}
	return c.checkStore()
}

// EnvName maps a flag name to its environment variable: data-dir -> PMX_DATA_DIR.
func EnvName(flagName string) string {
	return "PMX_" + strings.ToUpper(strings.ReplaceAll(flagName, "-", "_"))
}

// StringVar defines string flag name whose default is its PMX_* environment
// variable (read through env) when set, else def; the usage names the variable.
func StringVar(fs *flag.FlagSet, env func(string) string, p *string, name, def, usage string) {
	fs.StringVar(p, name, envOr(env, name, def), usage+" (env "+EnvName(name)+")")
}

func envOr(env func(string) string, name, def string) string {
	if v := env(EnvName(name)); v != "" {
		return v
	}
	return def
}

// envParsed is the PMX_* variable of flag name parsed by parse, or def
// when unset or unparsable.
func envParsed[T any](env func(string) string, name string, def T, parse func(string) (T, error)) T {
	if v, err := parse(env(EnvName(name))); err == nil {
		return v
	}
	return def
}

func envBool(env func(string) string, name string, def bool) bool {
	return envParsed(env, name, def, strconv.ParseBool)
}

func envInt(env func(string) string, name string, def int64) int64 {
	return envParsed(env, name, def, func(s string) (int64, error) { return strconv.ParseInt(s, 10, 64) })
}

func envDuration(env func(string) string, name string, def time.Duration) time.Duration {
	return envParsed(env, name, def, time.ParseDuration)
}

func envFloat(env func(string) string, name string, def float64) float64 {
	return envParsed(env, name, def, func(s string) (float64, error) { return strconv.ParseFloat(s, 64) })
}

// Parse parses args for `pmx serve`.
func Parse(args []string) (Serve, error) {
	var c Serve
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	c.Bind(fs, os.Getenv)
	if err := fs.Parse(args); err != nil {
		return c, err
	}
	if fs.NArg() > 0 {
		return c, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	return c, c.Check()
}
