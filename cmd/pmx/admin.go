package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"pmx/internal/config"
)

const adminUsage = `Usage: pmx admin [--admin-url URL] [--data-dir DIR] COMMAND [flags]

Operator commands over the admin listener (token read from DIR/admin.token).

  instruments list
  instruments create --symbol S --category C --price-decimals N --quantity-decimals N
                     --max-leverage N [--min-notional D] [--base-asset A] [--max-price D]
  deposit --account 0x... --amount D        credit pUSD collateral (a deposit record)
  index --instrument ID --price D           push an index price
  mode                                      show the perps trading mode
  mode --set normal|cancel_only|post_only [--retry-after S]
                                            set it (exchange-wide; journaled)
  flight                                    show the perps in-flight windows in force
  clob ...                                  CLOB operator stand-ins (pmx admin clob for the list)
  insurance --amount D                      top up the perps insurance fund
  close-only --instrument ID                put a perps market in close-only
  settle --instrument ID                    settle a close-only perps market

Each prints the server's JSON answer; a refused command exits non-zero.
'pmx admin COMMAND -h' describes one command.

Flags:
`

// adminClient talks to the admin listener with the data dir's bearer token
// (read at the first request, so a command's help needs no data dir).
type adminClient struct {
	url, dir, token string
	hc              *http.Client
	stdout          io.Writer
}

func adminCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	d := config.Defaults()
	fs := newFlagSet("admin", adminUsage)
	var url, dir string
	config.StringVar(fs, os.Getenv, &url, "admin-url", "http://"+d.AdminAddr, "admin listener URL")
	config.StringVar(fs, os.Getenv, &dir, "data-dir", d.DataDir, "data directory holding admin.token")
	// Flags before the command; -h there is help on admin itself.
	fs.SetOutput(stderr)
	usage := fs.Usage
	fs.Usage = func() {}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fs.SetOutput(stdout)
		}
		usage()
		return err
	}
	fs.Usage = usage
	rest := fs.Args()
	if len(rest) == 0 {
		fs.Usage()
		return errors.New("admin: no command given")
	}
	if rest[0] == "help" {
		if len(rest) == 1 {
			fs.SetOutput(stdout)
			fs.Usage()
			return flag.ErrHelp
		}
		rest = append(rest[1:2], "--help")
	}
	// Commands without flags of their own answer -h here; the others in
	// their flag sets.
	if h, ok := adminHelp[rest[0]]; ok && wantsHelp(rest[1:]) && !adminHasFlags(rest) {
		fmt.Fprint(stdout, h)
		return flag.ErrHelp
	}
	c := &adminClient{url: strings.TrimRight(url, "/"), dir: dir, hc: &http.Client{Timeout: 30 * time.Second}, stdout: stdout}
	switch {
	case len(rest) >= 2 && rest[0] == "instruments" && rest[1] == "list":
		return c.do(ctx, "GET", "/admin/perps/instruments", nil, stdout)
	case len(rest) >= 2 && rest[0] == "instruments" && rest[1] == "create":
		return c.createInstrument(ctx, rest[2:], stdout, stderr)
	case rest[0] == "deposit":
		return c.deposit(ctx, rest[1:], stdout, stderr)
	case rest[0] == "index":
		return c.index(ctx, rest[1:], stdout, stderr)
	case rest[0] == "mode":
		return c.mode(ctx, rest[1:], stdout, stderr)
	case rest[0] == "clob":
		return c.clob(ctx, rest[1:], stdout, stderr)
	case rest[0] == "flight":
		return c.do(ctx, "GET", "/admin/perps/flight", nil, stdout)
	case rest[0] == "insurance":
		return c.insurance(ctx, rest[1:], stdout, stderr)
	case rest[0] == "close-only" || rest[0] == "settle":
		return c.retire(ctx, rest[0], rest[1:], stdout, stderr)
	}
	fs.Usage()
	return fmt.Errorf("admin: unknown command %q", strings.Join(rest, " "))
}

// adminFlagSet is an admin command's flag set, its help from adminHelp.
func adminFlagSet(name string) *flag.FlagSet {
	return newFlagSet("admin "+name, adminHelp[strings.Fields(name)[0]]+"\nFlags:\n")
}

func (c *adminClient) createInstrument(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := adminFlagSet("instruments create")
	symbol := fs.String("symbol", "", "symbol, e.g. BTC-USD (required)")
	category := fs.String("category", "", "equity, commodity, index or crypto (required)")
	pd := fs.Uint("price-decimals", 0, "price decimals (tick = 10^-N)")
	qd := fs.Uint("quantity-decimals", 0, "quantity decimals (lot = 10^-N)")
	lev := fs.Int64("max-leverage", 0, "maximum leverage, 1..200 (required)")
	minN := fs.String("min-notional", "", "minimum order notional, pUSD")
	base := fs.String("base-asset", "", "base asset (default: the symbol before '-')")
	maxP := fs.String("max-price", "", "highest order price (default 100000)")
	if err := parseFlags(fs, args, c.stdout, stderr); err != nil {
		return err
	}
	if *symbol == "" || *category == "" || *lev == 0 {
		return errors.New("admin instruments create: --symbol, --category and --max-leverage are required")
	}
	if *pd > 8 || *qd > 8 {
		return errors.New("admin instruments create: decimals are at most 8")
	}
	body := map[string]any{"symbol": *symbol, "category": *category, "price_decimals": *pd,
		"quantity_decimals": *qd, "max_leverage": *lev}
	for k, v := range map[string]string{"min_notional": *minN, "base_asset": *base, "max_price": *maxP} {
		if v != "" {
			body[k] = v
		}
	}
	return c.do(ctx, "POST", "/admin/perps/instruments", body, stdout)
}

func (c *adminClient) deposit(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := adminFlagSet("deposit")
	acct := fs.String("account", "", "account address, 0x... (required)")
	amt := fs.String("amount", "", "pUSD amount, decimal (required)")
	if err := parseFlags(fs, args, c.stdout, stderr); err != nil {
		return err
	}
	if *acct == "" || *amt == "" {
		return errors.New("admin deposit: --account and --amount are required")
	}
	return c.do(ctx, "POST", "/admin/perps/deposits", map[string]string{"address": *acct, "amount": *amt}, stdout)
}

func (c *adminClient) index(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := adminFlagSet("index")
	iid := fs.Uint("instrument", 0, "instrument id (required)")
	price := fs.String("price", "", "index price, decimal (required)")
	if err := parseFlags(fs, args, c.stdout, stderr); err != nil {
		return err
	}
	if *iid == 0 || *price == "" {
		return errors.New("admin index: --instrument and --price are required")
	}
	return c.do(ctx, "POST", "/admin/perps/index", map[string]any{"instrument_id": *iid, "price": *price}, stdout)
}

func (c *adminClient) insurance(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := adminFlagSet("insurance")
	amt := fs.String("amount", "", "pUSD amount, decimal (required)")
	if err := parseFlags(fs, args, c.stdout, stderr); err != nil {
		return err
	}
	if *amt == "" {
		return errors.New("admin insurance: --amount is required")
	}
	return c.do(ctx, "POST", "/admin/perps/insurance", map[string]string{"amount": *amt}, stdout)
}

// retire puts an instrument in close-only or settles it.
func (c *adminClient) retire(ctx context.Context, name string, args []string, stdout, stderr io.Writer) error {
	fs := adminFlagSet(name)
	iid := fs.Uint("instrument", 0, "instrument id (required)")
	if err := parseFlags(fs, args, c.stdout, stderr); err != nil {
		return err
	}
	if *iid == 0 {
		return fmt.Errorf("admin %s: --instrument is required", name)
	}
	return c.do(ctx, "POST", "/admin/perps/"+name, map[string]any{"instrument_id": *iid}, stdout)
}

// mode shows or sets the perps trading mode.
func (c *adminClient) mode(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := adminFlagSet("mode")
	set := fs.String("set", "", "new mode: normal, cancel_only or post_only (absent: show the mode)")
	retry := fs.Int64("retry-after", 0, "seconds clients are told to wait (Retry-After), default 60")
	if err := parseFlags(fs, args, c.stdout, stderr); err != nil {
		return err
	}
	if *set == "" {
		return c.do(ctx, "GET", "/admin/perps/mode", nil, stdout)
	}
	body := map[string]any{"mode": *set}
	if *retry != 0 {
		body["retry_after_seconds"] = *retry
	}
	return c.do(ctx, "POST", "/admin/perps/mode", body, stdout)
}

// do sends one request and copies the JSON answer to stdout (indented); a
// non-2xx answer is an error carrying the server's message.
func (c *adminClient) do(ctx context.Context, method, path string, body any, stdout io.Writer) error {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.url+path, rd)
	if err != nil {
		return err
	}
	if c.token == "" {
		tok, err := os.ReadFile(filepath.Join(c.dir, "admin.token"))
		if err != nil {
			return fmt.Errorf("admin: reading the admin token: %w", err)
		}
		c.token = strings.TrimSpace(string(tok))
	}
	req.Header.Set("Authorization", "Bearer "+c.token)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	res, err := c.hc.Do(req)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(res.Body, 16<<20))
	if err != nil {
		return err
	}
	if res.StatusCode/100 != 2 {
		return fmt.Errorf("admin %s %s: HTTP %d: %s", method, path, res.StatusCode, bytes.TrimSpace(raw))
	}
	var out bytes.Buffer
	if json.Indent(&out, raw, "", "  ") != nil {
		out.Reset()
		out.Write(raw)
	}
	_, err = fmt.Fprintln(stdout, strings.TrimSpace(out.String()))
	return err
}
