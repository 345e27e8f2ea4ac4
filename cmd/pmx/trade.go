package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/decred/dcrd/dcrec/secp256k1/v4"
	"github.com/decred/dcrd/dcrec/secp256k1/v4/ecdsa"

	"pmx/internal/crypto/eip712"
	"pmx/internal/crypto/keccak"
	"pmx/internal/crypto/secp"
	"pmx/internal/perps/perpsauth"
)

// pmx trade: a small perps signing helper, so an order can be placed from a
// shell (docs/quickstart.md). It signs exactly as the official client does
// (EIP-712 Op over the MessagePack compact form, domain "Polymarket", chain
// 137) and prints the request body, or sends it with --send.

const tradeUsage = `Usage: pmx trade COMMAND [flags]

Signs perps requests with a private key, as the official client does, and
prints the JSON body to send (or sends it with --send URL and prints the
answer). Keys are 0x-prefixed hex; --key may also come from PMX_TRADE_KEY.

  key     [--name N] [--key K]       a new private key (or K's address), as shell lines
                                     N_KEY=0x... and N_ADDRESS=0x...
  proxy   --key OWNER --proxy ADDR   authorise ADDR as the owner's trading key
                                     (POST /v1/account/proxy)
  order   --key PROXY --instrument ID --side buy|sell --qty Q [--price P] [--tif T]
                                     place an order (POST /v1/trade/orders)
  cancel  --key PROXY OID...         cancel orders by id (DELETE /v1/trade/orders)
  sign    --key K --op JSON          sign any keyed op, e.g. '{"type":"cancelAll","args":{}}'

'pmx trade COMMAND -h' lists a command's flags.
`

var tradeHelp = map[string]string{
	"key": `Usage: pmx trade key [--name N] [--key K]

Prints a new random private key and its address as shell assignments
(N_KEY=0x... and N_ADDRESS=0x...), for eval "$(pmx trade key --name OWNER)".
With --key, prints that key's address instead of making one.

Flags:
`,
	"proxy": `Usage: pmx trade proxy --key OWNER_KEY --proxy PROXY_ADDRESS [--expiry D] [--label L] [--send URL]

Signs createProxy: the owner (whose account holds the collateral) authorises
the proxy address to trade for it. The answer's "secret" authenticates the
proxy's reads (SVC-PROXY / SVC-SECRET headers); signed trading needs only
the proxy key.

Flags:
`,
	"order": `Usage: pmx trade order --key PROXY_KEY --instrument ID --side buy|sell --qty Q [--price P] [flags]

Signs createOrders with one order. Without --price it is a market order
(--tif ioc or fok). Prices and quantities are decimals within the
instrument's decimals (GET /v1/info/instruments).

Flags:
`,
	"cancel": `Usage: pmx trade cancel --key PROXY_KEY [--send URL] OID...

Signs cancelOrders for the given order ids.

Arguments:
  OID...   order ids, as the order's "oid" in the placement answer

Flags:
`,
	"sign": `Usage: pmx trade sign --key KEY --op JSON [--send URL --method M --path P]

Signs any keyed perps op (the "op" object of a signed request) and prints the
envelope {"op":...,"sig":...,"salt":...,"ts":...}.

Flags:
`,
}

func tradeCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprint(stderr, tradeUsage)
		return errors.New("trade: no command given")
	}
	if args[0] == "help" || wantsHelp(args[:1]) {
		fmt.Fprint(stdout, tradeUsage)
		return flag.ErrHelp
	}
	help, ok := tradeHelp[args[0]]
	if !ok {
		fmt.Fprint(stderr, tradeUsage)
		return fmt.Errorf("trade: unknown command %q", args[0])
	}
	t := &trader{fs: newFlagSet("trade "+args[0], help), stdout: stdout, now: time.Now}
	t.fs.StringVar(&t.keyHex, "key", os.Getenv("PMX_TRADE_KEY"), "private key, 0x-prefixed hex (env PMX_TRADE_KEY)")
	if args[0] != "key" {
		t.fs.StringVar(&t.send, "send", "", "perps listener URL to send to (e.g. http://127.0.0.1:8084); default: print the body")
	}
	switch args[0] {
	case "key":
		name := t.fs.String("name", "PMX", "prefix of the printed variable names")
		if err := t.parse(args[1:], stdout, stderr, false); err != nil {
			return err
		}
		return t.newKey(*name)
	case "proxy":
		proxy := t.fs.String("proxy", "", "the proxy's address, 0x... (required)")
		expiry := t.fs.Duration("expiry", 7*24*time.Hour, "how long the proxy may trade")
		label := t.fs.String("label", "pmx trade", "a label for the credential")
		if err := t.parse(args[1:], stdout, stderr, true); err != nil {
			return err
		}
		return t.createProxy(ctx, *proxy, *expiry, *label)
	case "order":
		iid := t.fs.Uint64("instrument", 0, "instrument id (required)")
		side := t.fs.String("side", "", "buy or sell (required)")
		price := t.fs.String("price", "", "limit price, decimal (absent: a market order)")
		qty := t.fs.String("qty", "", "quantity, decimal (required)")
		tif := t.fs.String("tif", "", "time in force: gtc, ioc or fok (default gtc with a price, ioc without)")
		po := t.fs.Bool("post-only", false, "post only (never takes)")
		ro := t.fs.Bool("reduce-only", false, "reduce only")
		coid := t.fs.String("coid", "", "client order id")
		if err := t.parse(args[1:], stdout, stderr, true); err != nil {
			return err
		}
		return t.order(ctx, *iid, *side, *price, *qty, *tif, *po, *ro, *coid)
	case "cancel":
		if err := t.parse(args[1:], stdout, stderr, true); err != nil {
			return err
		}
		if t.fs.NArg() == 0 {
			return errors.New("trade cancel: at least one OID is required")
		}
		ids := make([]string, t.fs.NArg())
		for i, a := range t.fs.Args() {
			if _, err := strconv.ParseUint(a, 10, 64); err != nil {
				return fmt.Errorf("trade cancel: %q is not an order id", a)
			}
			ids[i] = a
		}
		return t.signed(ctx, "DELETE", "/v1/trade/orders", `{"type":"cancelOrders","args":[`+strings.Join(ids, ",")+`]}`)
	case "sign":
		op := t.fs.String("op", "", "the keyed op JSON (required)")
		method := t.fs.String("method", "POST", "HTTP method for --send")
		path := t.fs.String("path", "/v1/trade/orders", "route for --send")
		if err := t.parse(args[1:], stdout, stderr, true); err != nil {
			return err
		}
		if *op == "" {
			return errors.New("trade sign: --op is required")
		}
		return t.signed(ctx, *method, *path, *op)
	}
	return nil
}

type trader struct {
	fs     *flag.FlagSet
	keyHex string
	key    *secp256k1.PrivateKey
	send   string
	stdout io.Writer
	now    func() time.Time
}

func (t *trader) parse(args []string, stdout, stderr io.Writer, needKey bool) error {
	if err := parseFlags(t.fs, args, stdout, stderr); err != nil {
		return err
	}
	if t.keyHex == "" {
		if needKey {
			return fmt.Errorf("%s: --key is required", t.fs.Name())
		}
		return nil
	}
	b, err := hex.DecodeString(strings.TrimPrefix(strings.TrimSpace(t.keyHex), "0x"))
	if err != nil || len(b) != 32 {
		return fmt.Errorf("%s: --key must be 32 bytes of hex", t.fs.Name())
	}
	t.key = secp256k1.PrivKeyFromBytes(b)
	return nil
}

func (t *trader) newKey(name string) error {
	if t.key == nil {
		k, err := secp256k1.GeneratePrivateKey()
		if err != nil {
			return err
		}
		t.key = k
	}
	kb := t.key.Key.Bytes()
	_, err := fmt.Fprintf(t.stdout, "%s_KEY=0x%s\n%s_ADDRESS=%s\n", name, hex.EncodeToString(kb[:]), name, address(t.key))
	return err
}

func address(k *secp256k1.PrivateKey) string {
	return secp.PubkeyAddress(k.PubKey()).Checksum()
}

// sign is the r‖s‖v signature (v = 27/28) of digest.
func (t *trader) sign(digest [32]byte) string {
	c := ecdsa.SignCompact(t.key, digest[:], false)
	return "0x" + hex.EncodeToString(append(c[1:], c[0]))
}

// salt is random and below 2^53 (JavaScript clients' exact integers).
func salt() uint64 {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return binary.BigEndian.Uint64(b[:]) >> 11
}

var opDomain = eip712.Domain{Name: perpsauth.DefaultDomainName, Version: "1", ChainID: perpsauth.DefaultChainID}.Separator()

func (t *trader) createProxy(ctx context.Context, proxy string, expiry time.Duration, label string) error {
	pa, err := secp.ParseAddress(proxy)
	if err != nil {
		return fmt.Errorf("trade proxy: --proxy: %w", err)
	}
	now := uint64(t.now().UnixMilli())
	exp := now + uint64(expiry.Milliseconds())
	s := salt()
	sig := t.sign(eip712.Digest(opDomain, eip712.CreateProxyHash(pa, exp, s, now)))
	op, _ := json.Marshal(map[string]any{"type": "createProxy",
		"args": map[string]any{"owner": address(t.key), "proxy": proxy, "expiry": exp}})
	body, _ := json.Marshal(map[string]any{"op": json.RawMessage(op), "sig": sig, "salt": s, "ts": now, "label": label})
	return t.out(ctx, "POST", "/v1/account/proxy", body)
}

func (t *trader) order(ctx context.Context, iid uint64, side, price, qty, tif string, po, ro bool, coid string) error {
	if iid == 0 || qty == "" || (side != "buy" && side != "sell") {
		return errors.New("trade order: --instrument, --side buy|sell and --qty are required")
	}
	if tif == "" {
		tif = "gtc"
		if price == "" {
			tif = "ioc"
		}
	}
	// Keys in the order the official client sends them.
	var b strings.Builder
	fmt.Fprintf(&b, `{"iid":%d,"buy":%t`, iid, side == "buy")
	if price != "" {
		fmt.Fprintf(&b, `,"p":%q`, price)
	}
	fmt.Fprintf(&b, `,"qty":%q,"tif":%q,"po":%t`, qty, tif, po)
	if ro {
		b.WriteString(`,"ro":true`)
	}
	if coid != "" {
		fmt.Fprintf(&b, `,"c":%q`, coid)
	}
	b.WriteString("}")
	return t.signed(ctx, "POST", "/v1/trade/orders", `{"type":"createOrders","args":[`+b.String()+`]}`)
}

// signed signs a keyed op with the Op type and prints or sends the envelope.
func (t *trader) signed(ctx context.Context, method, path, op string) error {
	_, packed, err := perpsauth.Compact(json.RawMessage(op))
	if err != nil {
		return fmt.Errorf("%s: the op cannot be signed: %w", t.fs.Name(), err)
	}
	now, s := uint64(t.now().UnixMilli()), salt()
	sig := t.sign(eip712.Digest(opDomain, eip712.OpHash(keccak.Sum256(packed), s, now)))
	body, err := json.Marshal(map[string]any{"op": json.RawMessage(op), "sig": sig, "salt": s, "ts": now})
	if err != nil {
		return err
	}
	return t.out(ctx, method, path, body)
}

// out prints body, or sends it to --send and prints the answer (a non-2xx
// answer is an error).
func (t *trader) out(ctx context.Context, method, path string, body []byte) error {
	if t.send == "" {
		_, err := fmt.Fprintf(t.stdout, "%s\n", body)
		return err
	}
	req, err := http.NewRequestWithContext(ctx, method, strings.TrimRight(t.send, "/")+path, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	res, err := (&http.Client{Timeout: 30 * time.Second}).Do(req)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(res.Body, 1<<20))
	if err != nil {
		return err
	}
	fmt.Fprintf(t.stdout, "%s\n", bytes.TrimSpace(raw))
	if res.StatusCode/100 != 2 {
		return fmt.Errorf("%s %s: HTTP %d", method, path, res.StatusCode)
	}
	return nil
}
