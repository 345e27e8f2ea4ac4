package main

// adminHelp is each admin command's help, keyed by its first word ('pmx admin
// COMMAND -h'). A command with flags of its own lists them after this text.
var adminHelp = map[string]string{
	"instruments": `Usage: pmx admin instruments list
       pmx admin instruments create --symbol S --category C --price-decimals N
                                    --quantity-decimals N --max-leverage N [flags]

list prints the perps instruments (GET /admin/perps/instruments). create lists a
new perpetual (POST /admin/perps/instruments); its id is in the answer.
`,
	"deposit": `Usage: pmx admin deposit --account 0x... --amount D

Credits D pUSD of collateral to a perps account (a deposit record), e.g.
pmx admin deposit --account 0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266 --amount 10000
`,
	"index": `Usage: pmx admin index --instrument ID --price D

Pushes an index price for a perps instrument (marks, funding and the demo
market makers follow it).
`,
	"mode": `Usage: pmx admin mode
       pmx admin mode --set normal|cancel_only|post_only [--retry-after S]

Shows, or sets, the exchange-wide perps trading mode (journaled).
`,
	"insurance": `Usage: pmx admin insurance --amount D

Tops up the perps insurance fund by D pUSD (journaled); the answer carries the
fund's balance.
`,
	"close-only": `Usage: pmx admin close-only --instrument ID

Puts a perps market in close-only (journaled): orders that could add exposure
are cancelled with status instrument_close_only; new orders must be reduce-only.
`,
	"settle": `Usage: pmx admin settle --instrument ID

Settles a close-only perps market at the mean of its index window (pmx serve
--perps-close-only-window, --perps-index-window): orders are cancelled with
status instrument_settled and every position closes at that price.
`,
	"flight": `Usage: pmx admin flight

Shows the perps in-flight windows in force (pmx serve --perps-*-delay).
`,
}

// adminHasFlags reports whether the admin command in rest parses flags of
// its own (and so answers -h itself, listing them).
func adminHasFlags(rest []string) bool {
	switch rest[0] {
	case "deposit", "index", "mode", "insurance", "close-only", "settle":
		return true
	case "instruments":
		return len(rest) > 1 && rest[1] == "create"
	}
	return false
}
