package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
)

const adminClobUsage = `  clob deposit  --address 0x... --amount D [--signer 0x...]  credit collateral (the chain's deposit);
                                                        --signer ties a proxy/Safe/deposit wallet to its EOA
  clob withdraw --address 0x... --amount D              debit free collateral
  clob split    --address 0x... --market 0xCOND --amount D   collateral -> full sets
  clob merge    --address 0x... --market 0xCOND --amount D   full sets -> collateral
  clob nonce    --address 0x...                         incrementNonce: the maker's orders are void
  clob mode     [--set normal|halted|cancel_only|post_only [--retry-after S]]
  clob address  --address 0x... --status normal|banned|closed_only
  clob tier     --address 0x... --tier 0..7|-1          pin a rate-limit tier (-1 unpins)
  clob account  --address 0x...                         balances and open orders
  clob sync                                             re-read the catalog's markets
  clob resolve  --market 0xCOND --payouts P0,P1         settle a market (USDC per share of each outcome, summing to 1)
  clob redeem   --address 0x... --market 0xCOND         redeemPositions: the holding -> collateral at the payouts
  clob tick-size --market 0xCOND --tick 0.1|0.01|0.001|0.0001   change a market's tick size
`

// clob runs `pmx admin clob ...` against the /admin/clob routes.
func (c *adminClient) clob(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprint(stderr, adminClobUsage)
		return errors.New("admin clob: no command given")
	}
	fs := flag.NewFlagSet("admin clob "+args[0], flag.ContinueOnError)
	fs.SetOutput(stderr)
	addr := fs.String("address", "", "address, 0x...")
	amt := fs.String("amount", "", "amount, decimal (6 places at most)")
	market := fs.String("market", "", "condition id, 0x...")
	set := fs.String("set", "", "new mode")
	retry := fs.Int64("retry-after", 0, "seconds clients are told to wait in post-only mode")
	status := fs.String("status", "", "address status")
	tier := fs.Int("tier", -2, "tier index 0 (Standard) .. 7 (Elite), -1 to unpin")
	payouts := fs.String("payouts", "", "resolve: payouts per outcome, comma-separated decimals")
	signer := fs.String("signer", "", "deposit: the EOA that owns the address (proxy, Safe or deposit wallet)")
	tick := fs.String("tick", "", "tick-size: the new tick size, 0.1, 0.01, 0.001 or 0.0001")
	if err := fs.Parse(args[1:]); err != nil {
		return err
	}
	need := func(names ...string) error {
		vals := map[string]string{"address": *addr, "amount": *amt, "market": *market, "status": *status, "payouts": *payouts, "tick": *tick}
		var missing []string
		for _, n := range names {
			if vals[n] == "" {
				missing = append(missing, "--"+n)
			}
		}
		if len(missing) > 0 {
			return fmt.Errorf("admin clob %s: %s required", args[0], strings.Join(missing, ", "))
		}
		return nil
	}
	switch args[0] {
	case "deposit", "withdraw":
		if err := need("address", "amount"); err != nil {
			return err
		}
		path := map[string]string{"deposit": "/admin/clob/deposits", "withdraw": "/admin/clob/withdrawals"}[args[0]]
		body := map[string]string{"address": *addr, "amount": *amt}
		if *signer != "" {
			body["signer"] = *signer
		}
		return c.do(ctx, "POST", path, body, stdout)
	case "split", "merge":
		if err := need("address", "market", "amount"); err != nil {
			return err
		}
		return c.do(ctx, "POST", "/admin/clob/"+args[0], map[string]string{"address": *addr, "condition_id": *market, "amount": *amt}, stdout)
	case "nonce":
		if err := need("address"); err != nil {
			return err
		}
		return c.do(ctx, "POST", "/admin/clob/nonce", map[string]string{"address": *addr}, stdout)
	case "mode":
		if *set == "" {
			return c.do(ctx, "GET", "/admin/clob/mode", nil, stdout)
		}
		body := map[string]any{"mode": *set}
		if *retry != 0 {
			body["retry_after_seconds"] = *retry
		}
		return c.do(ctx, "POST", "/admin/clob/mode", body, stdout)
	case "address":
		if err := need("address", "status"); err != nil {
			return err
		}
		return c.do(ctx, "POST", "/admin/clob/addresses", map[string]string{"address": *addr, "status": *status}, stdout)
	case "tier":
		if *addr == "" || *tier < -1 {
			return errors.New("admin clob tier: --address and --tier are required")
		}
		return c.do(ctx, "POST", "/admin/clob/tier", map[string]any{"address": *addr, "tier": *tier}, stdout)
	case "account":
		if err := need("address"); err != nil {
			return err
		}
		return c.do(ctx, "GET", "/admin/clob/accounts/"+*addr, nil, stdout)
	case "sync":
		return c.do(ctx, "POST", "/admin/clob/sync", nil, stdout)
	case "resolve":
		if err := need("market", "payouts"); err != nil {
			return err
		}
		return c.do(ctx, "POST", "/admin/clob/resolve", map[string]any{"condition_id": *market, "payouts": strings.Split(*payouts, ",")}, stdout)
	case "tick-size":
		if err := need("market", "tick"); err != nil {
			return err
		}
		return c.do(ctx, "POST", "/admin/clob/tick-size", map[string]string{"condition_id": *market, "tick_size": *tick}, stdout)
	case "redeem":
		if err := need("address", "market"); err != nil {
			return err
		}
		return c.do(ctx, "POST", "/admin/clob/redeem", map[string]string{"address": *addr, "condition_id": *market}, stdout)
	}
	fmt.Fprint(stderr, adminClobUsage)
	return fmt.Errorf("admin clob: unknown command %q", args[0])
}
