package perps

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// The state tables of docs/perps.md (cancel, modify, proxy lifecycle) as
// data-driven transcripts in testdata/*.txt, in the datadriven style: a
// directive with key=value arguments, "----", the machine's answer, a blank
// line. `go test -run TestTranscripts -rewrite` rewrites the answers (then
// read the diff: it is the contract).
//
// Directives: instrument, deposit, place, cancel, cancel-coid, modify,
// modify-coid, cancel-all, config, mode, tick, create-proxy, delete-proxy,
// proxies, orders; for liquidation (liquidation-*.txt): index, leverage,
// sweep, insurance, state (accounts' balance, position, flag and adl_index,
// then the insurance fund); for retirement (retire.txt): close-only, settle; for TP/SL (tpsl.txt): bracket,
// pos-tpsl, roundtrip (snapshot, restore, same hash). Accounts and proxies are short names; ts=N sets the
// command's time (ms, default: the previous command's).
//
// Isolated margin (isolated*.txt): margin acct= amt= [iid=] [sts=], and
// state shows an isolated position's allocation (margin=, iso-flagged).

var rewrite = flag.Bool("rewrite", false, "rewrite the transcripts' answers")

func TestTranscripts(t *testing.T) {
	files, _ := filepath.Glob("testdata/*.txt")
	if len(files) < 3 {
		t.Fatalf("transcripts missing: %v", files)
	}
	for _, path := range files {
		t.Run(filepath.Base(path), func(t *testing.T) { runTranscript(t, path) })
	}
}

type transcript struct {
	m  *Machine
	ts int64
}

func runTranscript(t *testing.T, path string) {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	tr := &transcript{m: New(Config{}), ts: 1000}
	var out strings.Builder
	sc := bufio.NewScanner(strings.NewReader(string(b)))
	line := 0
	for sc.Scan() {
		line++
		l := sc.Text()
		if strings.TrimSpace(l) == "" || strings.HasPrefix(l, "#") {
			out.WriteString(l + "\n")
			continue
		}
		directive := l
		var want []string
		if !sc.Scan() || sc.Text() != "----" {
			t.Fatalf("%s:%d: %q: want ---- after the directive", path, line, directive)
		}
		line++
		for sc.Scan() {
			line++
			if sc.Text() == "" {
				break
			}
			want = append(want, sc.Text())
		}
		got, err := tr.run(directive)
		if err != nil {
			t.Fatalf("%s:%d: %s: %v", path, line, directive, err)
		}
		if !*rewrite && strings.Join(want, "\n") != got {
			t.Errorf("%s:%d: %s\ngot:\n%s\nwant:\n%s", path, line, directive, got, strings.Join(want, "\n"))
		}
		fmt.Fprintf(&out, "%s\n----\n%s\n\n", directive, got)
	}
	if *rewrite {
		if err := os.WriteFile(path, []byte(strings.TrimRight(out.String(), "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// addr is a transcript name's account key.
func addr(name string) string { return "0x" + name }

func (tr *transcript) run(directive string) (string, error) {
	f := strings.Fields(directive)
	args := map[string]string{}
	for _, a := range f[1:] {
		k, v, ok := strings.Cut(a, "=")
		if !ok {
			v = "true"
		}
		args[k] = v
	}
	if v, ok := args["ts"]; ok {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return "", err
		}
		tr.ts = n
	}
	num := func(k string) uint64 { n, _ := strconv.ParseUint(args[k], 10, 64); return n }
	ids := func(k string) []uint64 {
		var out []uint64
		for _, s := range strings.Split(args[k], ",") {
			n, _ := strconv.ParseUint(s, 10, 64)
			out = append(out, n)
		}
		return out
	}
	c := Command{Account: addr(args["acct"])}
	switch f[0] {
	case "instrument":
		c = Command{Kind: KCreateInstrument, Instrument: &InstrumentSpec{Symbol: "BTC-USD", Category: "crypto",
			PriceDecimals: 1, QtyDecimals: 3, MaxLeverage: 20, MinNotional: args["min"]}}
	case "deposit":
		c.Kind, c.Amount = KDeposit, args["amount"]
	case "place":
		o := OrderReq{IID: 1, Buy: args["side"] == "buy", Qty: args["qty"], PO: args["po"] != "", RO: args["ro"] != "", C: args["c"]}
		if p, ok := args["p"]; ok {
			o.P = &p
		}
		if tif, ok := args["tif"]; ok {
			o.TIF = &tif
		}
		c.Kind, c.Orders = KCreateOrders, []OrderReq{o}
	case "bracket", "pos-tpsl": // tpsl.txt
		c.Kind, c.Orders = KCreateOrders, tpslOrders(f[0], args)
	case "roundtrip":
		return tr.roundtrip()
	case "cancel":
		c.Kind, c.OIDs = KCancel, ids("oids")
	case "cancel-coid":
		c.Kind, c.COIDs = KCancelCOID, strings.Split(args["coids"], ",")
	case "modify":
		c.Kind, c.Modifies = KModify, []ModifyReq{{OID: num("oid"), P: args["p"], Qty: args["qty"]}}
	case "modify-coid":
		c.Kind, c.Modifies = KModifyCOID, []ModifyReq{{COID: args["coid"], P: args["p"], Qty: args["qty"]}}
	case "cancel-all":
		c.Kind = KCancelAll
	case "config":
		c = Command{Kind: KConfig, Flight: &Flight{AcceptMs: int64(num("accept")), TakerMs: int64(num("taker")),
			RiskMs: int64(num("risk")), ModifyMs: int64(num("modify")), COIDWaitMs: int64(num("coidwait")),
			NoHeldCancels: args["noheld"] != ""}}
	case "mode":
		c = Command{Kind: KMode, Mode: args["mode"], RetryAfter: int64(num("retry"))}
	case "tick":
		c = Command{Kind: KTick}
	case "create-proxy":
		c.Kind, c.Proxy = KCreateProxy, &Proxy{Addr: addr(args["proxy"]), ExpiryMs: int64(num("expiry"))}
	case "delete-proxy":
		c.Kind, c.Proxy = KDeleteProxy, &Proxy{Addr: addr(args["proxy"])}
	case "index":
		c = Command{Kind: KIndex, IID: 1, Price: args["p"]}
	case "leverage":
		c.Kind, c.Leverages = KLeverage, []LeverageReq{{IID: 1, Lev: int64(num("lev")), Cross: args["cross"] != ""}}
	case "sweep":
		c = Command{Kind: KLiqSweep}
	case "margin": // isolated.go; iid defaults to 1
		c.Kind, c.IID, c.Amount = KMargin, uint32(max(num("iid"), 1)), args["amt"]
		if s, ok := args["sts"]; ok { // the signature's timestamp (ms)
			c.SigTS, _ = strconv.ParseInt(s, 10, 64)
		}
	case "insurance":
		c = Command{Kind: KInsurance, Amount: args["amount"]}
	case "close-only":
		c = Command{Kind: KCloseOnly, IID: 1}
	case "settle":
		c = Command{Kind: KSettle, IID: 1, Window: int64(num("win")), IndexWindow: int64(num("iwin"))}
	case "state":
		return tr.state(strings.Split(args["acct"], ",")), nil
	case "proxies":
		return tr.proxies(), nil
	case "orders":
		return tr.orders(addr(args["acct"])), nil
	default:
		return "", fmt.Errorf("unknown directive %q", f[0])
	}
	return render(tr.m.Apply(0, tr.ts, c.Encode(), nil)[0]), nil
}

// render is an event as transcript lines.
func render(ev Event) string {
	var l []string
	if ev.Err != "" {
		s := "err: " + ev.Err
		if ev.RetryAfter != 0 {
			s += fmt.Sprintf(" retry=%d", ev.RetryAfter)
		}
		l = append(l, s)
	}
	for _, a := range ev.Acks {
		s := "ack: " + a.Status
		if a.OID != 0 {
			s += fmt.Sprintf(" oid=%d", a.OID)
		}
		if a.Error != "" {
			s += " " + a.Error
		}
		l = append(l, s)
	}
	for _, it := range ev.Items {
		s := "item: " + it.Status
		if it.OID != 0 {
			s += fmt.Sprintf(" oid=%d", it.OID)
		}
		if it.COID != "" {
			s += " coid=" + it.COID
		}
		if it.Due != 0 {
			s += fmt.Sprintf(" due=%d", it.Due)
		}
		if it.Error != "" {
			s += " " + it.Error
		}
		if it.Order != nil {
			s += fmt.Sprintf(" -> %s %s@%s", it.Order.Status, it.Order.Qty, it.Order.P)
		}
		l = append(l, s)
	}
	for _, o := range ev.Orders {
		l = append(l, fmt.Sprintf("order: oid=%d %s %s@%s filled=%s", o.OID, o.Status, o.Qty, o.P, o.Fill))
	}
	for _, f := range ev.Fills {
		role := "maker"
		if f.Fill.Taker {
			role = "taker"
		}
		s := fmt.Sprintf("fill: %s oid=%d %s %s %s@%s fee=%s pnl=%s", strings.TrimPrefix(f.Account, "0x"),
			f.Fill.OID, role, f.Fill.Side, f.Fill.Qty, f.Fill.P, f.Fill.Fee, f.Fill.PnL)
		if f.Fill.Liq {
			s += " liq"
		}
		if f.Fill.ADL {
			s += " adl"
		}
		l = append(l, s)
	}
	if len(l) == 0 {
		return "ok"
	}
	return strings.Join(l, "\n")
}

func (tr *transcript) proxies() string {
	var l []string
	for _, p := range tr.m.Proxies() {
		st := "active"
		switch {
		case p.Deleted:
			st = "deleted"
		case !p.Active(tr.ts):
			st = "expired"
		}
		l = append(l, fmt.Sprintf("%s of %s %s", strings.TrimPrefix(p.Addr, "0x"), strings.TrimPrefix(p.Account, "0x"), st))
	}
	sort.Strings(l)
	if len(l) == 0 {
		return "none"
	}
	return strings.Join(l, "\n")
}

func (tr *transcript) orders(acct string) string {
	var l []string
	for _, o := range tr.m.OrdersOf(acct, 0, "", 0, 0, tr.ts+1, 100) {
		s := fmt.Sprintf("oid=%d %s %s@%s filled=%s", o.OrderID, o.Status, o.Quantity, o.Price, o.Filled)
		if t := o.TPSL; t != nil {
			// parent: the machine's link (the wire shows parent_oid only for an attached leg)
			s += fmt.Sprintf(" %s/%s trp=%s parent=%d armed_qty=%s", t.Kind, t.Scope, t.TrP, tr.m.orders[o.OrderID].TPSL.Parent, t.ArmedQty)
		}
		l = append(l, s)
	}
	if len(l) == 0 {
		return "none"
	}
	return strings.Join(l, "\n")
}

// state is each account's balance, position (size@entry), liquidation flag
// and adl_index, then the insurance fund's balance and position.
func (tr *transcript) state(names []string) string {
	var l []string
	for _, n := range names {
		p := tr.m.PortfolioOf(addr(n), tr.ts)
		s := fmt.Sprintf("%s: balance=%s", n, FormatMicro(tr.m.accts[addr(n)].Balance))
		for _, pos := range p.Positions {
			s += fmt.Sprintf(" pos=%s@%s adl_index=%d", pos.Size, pos.EntryPrice, pos.ADLIndex)
		}
		if ip := tr.m.accts[addr(n)].Positions[1]; ip != nil && ip.Iso { // isolated.go
			s += " margin=" + FormatMicro(ip.Margin)
			if ip.Liq {
				s += " iso-flagged"
			}
		}
		if p.InLiquidation {
			s += " flagged"
		}
		l = append(l, s)
	}
	s := "fund: " + FormatMicro(tr.m.Insurance())
	if size, cost := tr.m.FundPosition(1); size != 0 {
		s += fmt.Sprintf(" pos=%s@%s", tr.m.inst[1].grid().FormatQty(fixedQty(size)), ratio(cost, abs(size), 1))
	}
	return strings.Join(append(l, s), "\n")
}
