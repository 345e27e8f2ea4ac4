package clob

import "pmx/internal/amount"

// BookTop is what a CLOB market's book shows the catalog: the best bid (0
// when none), the best ask (1 when none) and the liquidity near the
// midpoint, in its first outcome's terms, and its tick size. Quoted is
// false for a market never quoted nor traded (the catalog's own book fields
// stand). The writer publishes them for PostgreSQL read nodes.
type BookTop struct {
	Cond      string
	BestBid   amount.Micro
	BestAsk   amount.Micro
	Liquidity amount.Micro
	Tick      amount.Micro
	Quoted    bool
}
