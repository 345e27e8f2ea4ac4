package perps

// PublicPosition is one position of a public portfolio (the contract's
// shape: no margin detail).
type PublicPosition struct {
	ID             uint32 `json:"instrument_id"`
	Symbol         string `json:"symbol"`
	Size           string `json:"size"`
	EntryPrice     string `json:"entry_price"`
	UnrealizedPnL  string `json:"unrealized_pnl"`
	ReturnOnEquity string `json:"return_on_equity"`
}

// PublicPortfolio is GET /v1/info/portfolio: anyone may read any address's
// positions and equity (= total account value); an unknown address has
// none and equity "0".
type PublicPortfolio struct {
	Positions []PublicPosition `json:"positions"`
	Equity    string           `json:"equity"`
	Timestamp int64            `json:"timestamp"`
}

// PublicPortfolioOf is addr's public portfolio at nowMs, the private one's
// values in the public shape.
func (m *Machine) PublicPortfolioOf(addr string, nowMs int64) PublicPortfolio {
	p := m.PortfolioOf(addr, nowMs)
	out := PublicPortfolio{Positions: make([]PublicPosition, len(p.Positions)), Equity: p.Margin.TotalAccountValue,
		Timestamp: p.Timestamp}
	for i, q := range p.Positions {
		out.Positions[i] = PublicPosition{ID: q.ID, Symbol: q.Symbol, Size: q.Size, EntryPrice: q.EntryPrice,
			UnrealizedPnL: q.UnrealizedPnL, ReturnOnEquity: q.ReturnOnEquity}
	}
	return out
}
