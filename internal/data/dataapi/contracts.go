package dataapi

// protocolContracts is the one list of known protocol contract addresses
// (lower-case) that are never a wallet: a `user` naming one is a 400. The
// addresses are the token and spender contracts of the approvals catalog
// (fixtures/data-v2/approvals.json) plus the CLOB client's Polygon contract
// table (spec/clob-and-catalog.md §5.1).
var protocolContracts = map[string]string{
	// Collateral and conditional tokens.
	"0xc011a7e12a19f7b1f670d46f03b03f3342e82dfb": "pUSD collateral token",
	"0x2791bca1f2de4661ed88a30c99a7a9449aa84174": "USDC.e",
	"0x4d97dcd97ec945f40cf65f87097ace5ea0476045": "Conditional Tokens (CTF)",
	"0x006f54f7f9a22e0000cc2ab60031000000ae9fef": "V2 position manager",
	// Exchanges and adapters.
	"0x4bfb41d5b3570defd03c39a9a4d8de6bd8b8982e": "CTF Exchange",
	"0xc5d563a36ae78145c45a50134d48a1215220f80a": "Neg-Risk CTF Exchange",
	"0xe111180000d2663c0091e4f400237545b87b996b": "CTF Exchange (pUSD)",
	"0xe2222d279d744050d28e00520010520000310f59": "Neg-Risk CTF Exchange (pUSD)",
	"0xd91e80cf2e7be2e162c6513ced06f1dd0da35296": "Neg-Risk Adapter",
	"0xada100db00ca00073811820692005400218fce1f": "Collateral Adapter",
	"0xada2005600dec949baf300f4c6120000bdb6eaab": "Neg-Risk Collateral Adapter",
	"0xe3333700ca9d93003f00f0f71f8515005f6c00aa": "V2 Exchange",
	"0x12121212006e4cd160d18e3f00711da5c3372600": "V2 Router",
	"0x93070a847efef7f70739046a929d47a521f5b8ee": "USDC.e collateral onramp",
	"0xdca4af75705dbb50f62437045aff9921947917d2": "Perps pUSD deposit",
	"0xdd8db71ce3be8d71ff148b2163d64da181a29e8b": "Sponsor rewards",
	"0xf3cfb6a6ebfeb51876289eb235719eb1c65252b0": "Auto-redeem CTF operator",
	"0xa1200000d0002264c9a1698e001292d00e1b00af": "Auto-redeem V2 redeemer",
	"0x1000008dd9001b968442c1000017eae6e0da00ba": "CTF binary module",
	"0x200000900045e3b6259600682756002200028933": "CTF neg-risk module",
	"0xe3f18acc55091e2c48d883fc8c8413319d4ab7b0": "Fee module",
	"0xb768891e3130f6df18214ac804d4db76c2c37730": "Neg-Risk fee module",
}

// IsProtocolContract reports whether a lower-case address is a known protocol
// contract, and its name.
func IsProtocolContract(addr string) (string, bool) {
	name, ok := protocolContracts[addr]
	return name, ok
}
