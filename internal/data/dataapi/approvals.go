package dataapi

// approval is one entry of the served approvals catalog: a token and the
// spender (ERC20 allowance) or operator (ERC1155 approval-for-all) it is
// granted to. The catalog is the production one, in its canonical order.
type approval struct {
	ID, Feature, Token, Spender, Standard string
}

// approvalCatalog is served in this order by /v2/approvals.
var approvalCatalog = []approval{
	{ID: "UsdcCtf", Feature: "trading", Token: "0xc011a7e12a19f7b1f670d46f03b03f3342e82dfb", Spender: "0x4d97dcd97ec945f40cf65f87097ace5ea0476045", Standard: "ERC20"},
	{ID: "UsdcExchange", Feature: "trading", Token: "0xc011a7e12a19f7b1f670d46f03b03f3342e82dfb", Spender: "0xe111180000d2663c0091e4f400237545b87b996b", Standard: "ERC20"},
	{ID: "UsdcNegRiskExchange", Feature: "trading", Token: "0xc011a7e12a19f7b1f670d46f03b03f3342e82dfb", Spender: "0xe2222d279d744050d28e00520010520000310f59", Standard: "ERC20"},
	{ID: "UsdcNegRiskAdapter", Feature: "trading", Token: "0xc011a7e12a19f7b1f670d46f03b03f3342e82dfb", Spender: "0xd91e80cf2e7be2e162c6513ced06f1dd0da35296", Standard: "ERC20"},
	{ID: "UsdcCollateralAdapter", Feature: "trading", Token: "0xc011a7e12a19f7b1f670d46f03b03f3342e82dfb", Spender: "0xada100db00ca00073811820692005400218fce1f", Standard: "ERC20"},
	{ID: "UsdcNegRiskCollateralAdapter", Feature: "trading", Token: "0xc011a7e12a19f7b1f670d46f03b03f3342e82dfb", Spender: "0xada2005600dec949baf300f4c6120000bdb6eaab", Standard: "ERC20"},
	{ID: "PusdV2Exchange", Feature: "trading", Token: "0xc011a7e12a19f7b1f670d46f03b03f3342e82dfb", Spender: "0xe3333700ca9d93003f00f0f71f8515005f6c00aa", Standard: "ERC20"},
	{ID: "PusdV2Router", Feature: "trading", Token: "0xc011a7e12a19f7b1f670d46f03b03f3342e82dfb", Spender: "0x12121212006e4cd160d18e3f00711da5c3372600", Standard: "ERC20"},
	{ID: "UsdceCollateralOnramp", Feature: "trading", Token: "0x2791bca1f2de4661ed88a30c99a7a9449aa84174", Spender: "0x93070a847efef7f70739046a929d47a521f5b8ee", Standard: "ERC20"},
	{ID: "PerpsPusdDeposit", Feature: "perps", Token: "0xc011a7e12a19f7b1f670d46f03b03f3342e82dfb", Spender: "0xdca4af75705dbb50f62437045aff9921947917d2", Standard: "ERC20"},
	{ID: "SponsorRewards", Feature: "rewards", Token: "0xc011a7e12a19f7b1f670d46f03b03f3342e82dfb", Spender: "0xdd8db71ce3be8d71ff148b2163d64da181a29e8b", Standard: "ERC20"},
	{ID: "CtfExchangeIsApprovedForAll", Feature: "trading", Token: "0x4d97dcd97ec945f40cf65f87097ace5ea0476045", Spender: "0xe111180000d2663c0091e4f400237545b87b996b", Standard: "ERC1155"},
	{ID: "CtfNegRiskExchangeIsApprovedForAll", Feature: "trading", Token: "0x4d97dcd97ec945f40cf65f87097ace5ea0476045", Spender: "0xe2222d279d744050d28e00520010520000310f59", Standard: "ERC1155"},
	{ID: "CtfNegRiskAdapterIsApprovedForAll", Feature: "trading", Token: "0x4d97dcd97ec945f40cf65f87097ace5ea0476045", Spender: "0xd91e80cf2e7be2e162c6513ced06f1dd0da35296", Standard: "ERC1155"},
	{ID: "CtfCollateralAdapterIsApprovedForAll", Feature: "trading", Token: "0x4d97dcd97ec945f40cf65f87097ace5ea0476045", Spender: "0xada100db00ca00073811820692005400218fce1f", Standard: "ERC1155"},
	{ID: "CtfNegRiskCollateralAdapterIsApprovedForAll", Feature: "trading", Token: "0x4d97dcd97ec945f40cf65f87097ace5ea0476045", Spender: "0xada2005600dec949baf300f4c6120000bdb6eaab", Standard: "ERC1155"},
	{ID: "V2PositionManagerRouterIsApprovedForAll", Feature: "trading", Token: "0x006f54f7f9a22e0000cc2ab60031000000ae9fef", Spender: "0x12121212006e4cd160d18e3f00711da5c3372600", Standard: "ERC1155"},
	{ID: "V2PositionManagerExchangeIsApprovedForAll", Feature: "trading", Token: "0x006f54f7f9a22e0000cc2ab60031000000ae9fef", Spender: "0xe3333700ca9d93003f00f0f71f8515005f6c00aa", Standard: "ERC1155"},
	{ID: "AutoRedeemCtfOperator", Feature: "auto-redeem", Token: "0x4d97dcd97ec945f40cf65f87097ace5ea0476045", Spender: "0xf3cfb6a6ebfeb51876289eb235719eb1c65252b0", Standard: "ERC1155"},
	{ID: "AutoRedeemCtfV2Redeemer", Feature: "auto-redeem", Token: "0x4d97dcd97ec945f40cf65f87097ace5ea0476045", Spender: "0xa1200000d0002264c9a1698e001292d00e1b00af", Standard: "ERC1155"},
	{ID: "AutoRedeemV2PositionManagerV2Redeemer", Feature: "auto-redeem", Token: "0x006f54f7f9a22e0000cc2ab60031000000ae9fef", Spender: "0xa1200000d0002264c9a1698e001292d00e1b00af", Standard: "ERC1155"},
	{ID: "CtfBinaryModuleIsApprovedForAll", Feature: "trading", Token: "0x4d97dcd97ec945f40cf65f87097ace5ea0476045", Spender: "0x1000008dd9001b968442c1000017eae6e0da00ba", Standard: "ERC1155"},
	{ID: "CtfNegRiskModuleIsApprovedForAll", Feature: "trading", Token: "0x4d97dcd97ec945f40cf65f87097ace5ea0476045", Spender: "0x200000900045e3b6259600682756002200028933", Standard: "ERC1155"},
}

// ApprovalContract is a row of /v2/approvals. Amount is omitted on ERC1155
// rows.
type ApprovalContract struct {
	ID       string  `json:"id"`
	Feature  string  `json:"feature"`
	Token    string  `json:"token"`
	Spender  string  `json:"spender"`
	Standard string  `json:"standard"`
	Amount   *string `json:"amount,omitempty"`
	Approved bool    `json:"approved"`
}

// Approvals is the /v2/approvals payload.
type Approvals struct {
	Address   string             `json:"address"`
	ChainID   int                `json:"chain_id"`
	CheckedAt string             `json:"checked_at"`
	Contracts []ApprovalContract `json:"contracts"`
}

// approvalsFor builds the catalog for a wallet. pmx has no chain to read, so
// approval state is inferred from the ledger (docs/decisions.md): a wallet
// that has traded has granted the trading and auto-redeem flows (allowance
// "max"); the perps and rewards flows stay ungranted ("0").
func approvalsFor(user string, traded bool, checkedAt string) Approvals {
	out := Approvals{Address: user, ChainID: 137, CheckedAt: checkedAt, Contracts: make([]ApprovalContract, len(approvalCatalog))}
	for i, a := range approvalCatalog {
		granted := traded && (a.Feature == "trading" || a.Feature == "auto-redeem")
		row := ApprovalContract{ID: a.ID, Feature: a.Feature, Token: a.Token, Spender: a.Spender, Standard: a.Standard, Approved: granted}
		if a.Standard == "ERC20" {
			amt := "0"
			if granted {
				amt = "max"
			}
			row.Amount = &amt
		}
		out.Contracts[i] = row
	}
	return out
}
