package ratelimit

import (
	"net/http"
	"strings"
	"time"
)

// Rule is one sliding window: at most Limit requests per Window per client
// key, over the requests its Match selects. Several rules may share a Scope
// (e.g. a burst and a sustained window on the same route); a request must fit
// every rule it matches.
type Rule struct {
	Scope  string
	Limit  int
	Window time.Duration
	Match  Match
}

// Match selects requests by method and path. Empty Methods means any method.
// A request matches when its path equals one of Paths or starts with one of
// Prefixes, and starts with none of Except.
type Match struct {
	Methods  []string
	Paths    []string
	Prefixes []string
	Except   []string
}

func (m Match) matches(method, path string) bool {
	if len(m.Methods) > 0 {
		ok := false
		for _, x := range m.Methods {
			if x == method {
				ok = true
				break
			}
		}
		if !ok {
			return false
		}
	}
	for _, e := range m.Except {
		if strings.HasPrefix(path, e) {
			return false
		}
	}
	for _, p := range m.Paths {
		if p == path {
			return true
		}
	}
	for _, p := range m.Prefixes {
		if strings.HasPrefix(path, p) {
			return true
		}
	}
	return false
}

// Config is a limiter's configuration. Zero fields take the defaults named
// beside them.
type Config struct {
	Rules []Rule
	// MaxWait is the longest a request is delayed; one that would wait
	// longer is answered 429 at once. Default 2 s.
	MaxWait time.Duration
	// Buckets is how many sub-windows each window is cut into. Admission is
	// exact at that granularity and conservative: no Window-long interval
	// ever admits more than Limit. Default 10.
	Buckets int
	// MaxKeys bounds the number of client keys tracked (memory bound).
	// Default 65536.
	MaxKeys int
}

const (
	defaultMaxWait = 2 * time.Second
	defaultBuckets = 10
	defaultMaxKeys = 1 << 16
)

const tenSeconds = 10 * time.Second

func exact(paths ...string) Match  { return Match{Paths: paths} }
func prefix(paths ...string) Match { return Match{Prefixes: paths} }

// each makes one rule per path, so each path has its own allowance.
func each(scope string, limit int, window time.Duration, paths ...string) []Rule {
	var rs []Rule
	for _, p := range paths {
		rs = append(rs, Rule{Scope: scope + " " + p, Limit: limit, Window: window, Match: exact(p)})
	}
	return rs
}

// DataDefaults is the contract's "IP-based request limits" table for the data
// service listener (v1 and v2 routes, /ok, and the edge-wide general limit).
// A row naming several routes without "each" is one shared allowance.
func DataDefaults() Config {
	rules := []Rule{
		{Scope: "general", Limit: 15000, Window: tenSeconds, Match: prefix("/")},
		{Scope: "ok", Limit: 100, Window: tenSeconds, Match: exact("/ok")},
		{Scope: "v2", Limit: 800, Window: tenSeconds, Match: prefix("/v2/")},
		{Scope: "v2 trades", Limit: 300, Window: tenSeconds, Match: exact("/v2/trades")},
		{Scope: "v2 positions", Limit: 200, Window: tenSeconds, Match: exact("/v2/positions", "/v2/positions/combos")},
		{Scope: "v2 activity", Limit: 200, Window: tenSeconds, Match: exact("/v2/activity", "/v2/activity/combos")},
		{Scope: "v2 prices-history", Limit: 200, Window: tenSeconds, Match: exact("/v2/prices-history")},
		{Scope: "v2 status", Limit: 100, Window: tenSeconds, Match: exact("/v2/status")},
		// Version 1: every path that is neither /v2 nor /ok.
		{Scope: "v1", Limit: 1000, Window: tenSeconds, Match: Match{Prefixes: []string{"/"}, Except: []string{"/v2/", "/ok"}}},
		{Scope: "v1 trades", Limit: 200, Window: tenSeconds, Match: exact("/trades")},
	}
	rules = append(rules, each("v1", 150, tenSeconds, "/positions", "/closed-positions")...)
	return Config{Rules: rules}
}

// CatalogDefaults is the catalog service's rows of the same table.
func CatalogDefaults() Config {
	return Config{Rules: []Rule{
		{Scope: "general", Limit: 15000, Window: tenSeconds, Match: prefix("/")},
		{Scope: "ok", Limit: 100, Window: tenSeconds, Match: exact("/ok")},
		{Scope: "catalog", Limit: 4000, Window: tenSeconds, Match: Match{Prefixes: []string{"/"}, Except: []string{"/ok"}}},
		{Scope: "catalog events", Limit: 500, Window: tenSeconds, Match: prefix("/events")},
		{Scope: "catalog markets", Limit: 300, Window: tenSeconds, Match: prefix("/markets")},
		{Scope: "catalog listing", Limit: 900, Window: tenSeconds, Match: exact("/markets", "/events")},
		{Scope: "catalog comments", Limit: 200, Window: tenSeconds, Match: prefix("/comments")},
		{Scope: "catalog tags", Limit: 200, Window: tenSeconds, Match: prefix("/tags")},
		{Scope: "catalog public-search", Limit: 350, Window: tenSeconds, Match: prefix("/public-search")},
	}}
}

// CLOBDefaults is the CLOB rows of the table, including the burst and
// sustained windows of the trading endpoints (two rules, one scope).
func CLOBDefaults() Config {
	tenMin := 10 * time.Minute
	rules := []Rule{
		{Scope: "general", Limit: 15000, Window: tenSeconds, Match: prefix("/")},
		{Scope: "ok", Limit: 100, Window: tenSeconds, Match: exact("/ok")},
		{Scope: "clob", Limit: 9000, Window: tenSeconds, Match: Match{Prefixes: []string{"/"}, Except: []string{"/ok"}}},
		{Scope: "clob balance-allowance get", Limit: 200, Window: tenSeconds, Match: Match{Methods: []string{http.MethodGet}, Paths: []string{"/balance-allowance"}}},
		{Scope: "clob balance-allowance update", Limit: 50, Window: tenSeconds, Match: exact("/balance-allowance/update")},
		{Scope: "clob prices-history", Limit: 1000, Window: tenSeconds, Match: exact("/prices-history")},
		{Scope: "clob tick-size", Limit: 200, Window: tenSeconds, Match: prefix("/tick-size")},
		{Scope: "clob ledger", Limit: 900, Window: tenSeconds, Match: Match{Methods: []string{http.MethodGet}, Paths: []string{"/trades", "/orders", "/notifications", "/order"}}},
		{Scope: "clob notifications", Limit: 125, Window: tenSeconds, Match: exact("/notifications")},
		{Scope: "clob api-keys", Limit: 100, Window: tenSeconds, Match: Match{Paths: []string{"/auth/api-key", "/auth/api-keys", "/auth/derive-api-key"}}},
	}
	rules = append(rules, each("clob", 1500, tenSeconds, "/book", "/price", "/midpoint")...)
	rules = append(rules, each("clob", 500, tenSeconds, "/books", "/prices", "/midpoints", "/data/orders", "/data/trades")...)
	trading := []struct {
		method, path     string
		burst, sustained int
	}{
		{http.MethodPost, "/order", 5000, 120000},
		{http.MethodDelete, "/order", 5000, 120000},
		{http.MethodPost, "/orders", 2000, 21000},
		{http.MethodDelete, "/orders", 2000, 15000},
		{http.MethodDelete, "/cancel-all", 250, 6000},
		{http.MethodDelete, "/cancel-market-orders", 1500, 21000},
	}
	for _, t := range trading {
		m := Match{Methods: []string{t.method}, Paths: []string{t.path}}
		scope := "clob " + t.method + " " + t.path
		rules = append(rules,
			Rule{Scope: scope, Limit: t.burst, Window: tenSeconds, Match: m},
			Rule{Scope: scope, Limit: t.sustained, Window: tenMin, Match: m})
	}
	return Config{Rules: rules}
}
