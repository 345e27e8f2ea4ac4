package config

import (
	"flag"
	"testing"
	"time"
)

func TestFlagBeatsEnvBeatsDefault(t *testing.T) {
	env := map[string]string{"PMX_DATA_ADDR": "127.0.0.1:9001", "PMX_DEMO": "false", "PMX_ADMIN_ADDR": "127.0.0.1:9009"}
	var c Serve
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	c.Bind(fs, func(k string) string { return env[k] })
	if err := fs.Parse([]string{"--admin-addr", "127.0.0.1:7000"}); err != nil {
		t.Fatal(err)
	}
	if c.DataAddr != "127.0.0.1:9001" {
		t.Errorf("env not applied: %q", c.DataAddr)
	}
	if c.Demo {
		t.Error("PMX_DEMO=false not applied")
	}
	if c.AdminAddr != "127.0.0.1:7000" {
		t.Errorf("flag did not win: %q", c.AdminAddr)
	}
	if c.CatalogAddr != Defaults().CatalogAddr || c.DataDir != "./pmx-data" {
		t.Errorf("defaults not applied: %+v", c)
	}
}

func TestEnvName(t *testing.T) {
	if got := EnvName("data-dir"); got != "PMX_DATA_DIR" {
		t.Fatal(got)
	}
}

// TestPerpsWindows: the in-flight window flags and their environment
// variables; Check refuses what the engine would.
func TestPerpsWindows(t *testing.T) {
	d := Defaults()
	if d.PerpsRiskDelay != 0 || d.PerpsAcceptDelay != 0 || d.PerpsTakerDelay != 0 || d.PerpsModifyDelay != 0 || !d.PerpsHeldCancels {
		t.Fatalf("defaults: %+v", d)
	}
	env := map[string]string{"PMX_PERPS_TAKER_DELAY": "20ms", "PMX_PERPS_HELD_CANCELS": "false", "PMX_PERPS_RISK_DELAY": "1s"}
	var c Serve
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	c.Bind(fs, func(k string) string { return env[k] })
	if err := fs.Parse([]string{"--perps-accept-delay", "5ms", "--perps-modify-delay", "200ms", "--perps-risk-delay", "2ms"}); err != nil {
		t.Fatal(err)
	}
	if c.PerpsTakerDelay != 20*time.Millisecond || c.PerpsHeldCancels || c.PerpsAcceptDelay != 5*time.Millisecond ||
		c.PerpsModifyDelay != 200*time.Millisecond || c.PerpsRiskDelay != 2*time.Millisecond {
		t.Errorf("parsed: %+v", c)
	}
	for _, bad := range []struct {
		flag, val string
	}{{"--perps-taker-delay", "-1ms"}, {"--perps-accept-delay", "1500us"}, {"--perps-risk-delay", "2m"}, {"--perps-modify-delay", "61s"}} {
		if _, err := Parse([]string{bad.flag, bad.val}); err == nil {
			t.Errorf("%s %s accepted", bad.flag, bad.val)
		}
	}
	if _, err := Parse([]string{"--perps-modify-delay", "1m"}); err != nil {
		t.Errorf("the limit itself: %v", err)
	}
}

// StringVar is how the other subcommands (ingest, admin) read PMX_* defaults.
func TestStringVar(t *testing.T) {
	env := map[string]string{"PMX_DATA_DIR": "/from-env"}
	for _, c := range []struct {
		env  func(string) string
		args []string
		want string
	}{
		{func(string) string { return "" }, nil, "def"},
		{func(k string) string { return env[k] }, nil, "/from-env"},
		{func(k string) string { return env[k] }, []string{"--data-dir", "/flag"}, "/flag"},
	} {
		fs := flag.NewFlagSet("x", flag.ContinueOnError)
		var got string
		StringVar(fs, c.env, &got, "data-dir", "def", "data directory")
		if err := fs.Parse(c.args); err != nil {
			t.Fatal(err)
		}
		if got != c.want {
			t.Errorf("args %v: %q, want %q", c.args, got, c.want)
		}
		if u := fs.Lookup("data-dir").Usage; u != "data directory (env PMX_DATA_DIR)" {
			t.Errorf("usage %q", u)
		}
	}
}

// Every typed PMX_* variable is applied; one that does not parse leaves the
// default.
func TestTypedEnvValues(t *testing.T) {
	env := map[string]string{"PMX_DEMO_SEED": "7", "PMX_DEMO_SCALE": "0.25", "PMX_PERPS_AUTO_CANCEL_DAILY": "3",
		"PMX_DEMO_MM_INTERVAL": "5s", "PMX_IP_LIMITS": "yes-please"}
	var c Serve
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	c.Bind(fs, func(k string) string { return env[k] })
	if err := fs.Parse(nil); err != nil {
		t.Fatal(err)
	}
	if c.DemoSeed != 7 || c.DemoScale != 0.25 || c.PerpsAutoCancelDaily != 3 || c.DemoMMInterval != 5*time.Second {
		t.Errorf("typed env not applied: %+v", c)
	}
	if c.IPLimits != Defaults().IPLimits {
		t.Error("an unparsable PMX_IP_LIMITS changed the default")
	}
}

// TestPerpsFundingIntervalFlag: --perps-funding-interval defaults to 1h, is
// read from its flag and environment variable, and refuses under 1s.
func TestPerpsFundingIntervalFlag(t *testing.T) {
	if d := Defaults(); d.PerpsFundingInterval != time.Hour {
		t.Fatalf("default %v", d.PerpsFundingInterval)
	}
	c, err := Parse([]string{"--perps-funding-interval", "2s"})
	if err != nil || c.PerpsFundingInterval != 2*time.Second {
		t.Fatalf("parsed %v %v", c.PerpsFundingInterval, err)
	}
	for _, bad := range []string{"0s", "999ms", "-1h", "1500us"} {
		if _, err := Parse([]string{"--perps-funding-interval", bad}); err == nil {
			t.Errorf("%s accepted", bad)
		}
	}
}

// TestPerpsAutoCancelDailyFlag: default 1,000; 0 is refused.
func TestPerpsAutoCancelDailyFlag(t *testing.T) {
	if d := Defaults(); d.PerpsAutoCancelDaily != 1000 {
		t.Fatalf("default %d", d.PerpsAutoCancelDaily)
	}
	if c, err := Parse([]string{"--perps-auto-cancel-daily", "3"}); err != nil || c.PerpsAutoCancelDaily != 3 {
		t.Fatalf("parsed %d %v", c.PerpsAutoCancelDaily, err)
	}
	if _, err := Parse([]string{"--perps-auto-cancel-daily", "0"}); err == nil {
		t.Error("0 accepted")
	}
}

func TestPerpsRetireWindowFlags(t *testing.T) {
	if d := Defaults(); d.PerpsCloseOnlyWindow != 30*time.Minute || d.PerpsIndexWindow != 30*time.Minute {
		t.Fatalf("defaults %v %v", d.PerpsCloseOnlyWindow, d.PerpsIndexWindow)
	}
	c, err := Parse([]string{"--perps-close-only-window", "2s", "--perps-index-window", "3s"})
	if err != nil || c.PerpsCloseOnlyWindow != 2*time.Second || c.PerpsIndexWindow != 3*time.Second {
		t.Fatalf("parsed %v %v %v", c.PerpsCloseOnlyWindow, c.PerpsIndexWindow, err)
	}
	if _, err := Parse([]string{"--perps-index-window", "0s"}); err == nil {
		t.Error("0 accepted")
	}
}
