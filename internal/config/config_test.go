package config

import (
	"flag"
	"testing"
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
