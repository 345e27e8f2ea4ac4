package perps

import (
	"sort"

	"pmx/internal/perps/risk"
)

// Portfolio is the private portfolio snapshot (perps.md §5). The mark is the
// risk engine's (riskview.go), else the book mid, the index, the last trade
// or the entry price; maintenance margin and the liquidation price are the
// risk engine's (docs/perps-risk.md "Margin").
type Portfolio struct {
	Positions     []PortfolioPosition `json:"positions"`
	Margin        MarginSummary       `json:"margin"`
	Withdrawable  string              `json:"withdrawable"`
	InLiquidation bool                `json:"in_liquidation"`
	FeeTier       int                 `json:"fee_tier"`
	Timestamp     int64               `json:"timestamp"`
}

// MarginSummary is Portfolio.margin.
type MarginSummary struct {
	TotalAccountValue      string `json:"total_account_value"`
	AvailableOrderMargin   string `json:"available_order_margin"`
	TotalInitialMargin     string `json:"total_initial_margin"`
	TotalMaintenanceMargin string `json:"total_maintenance_margin"`
	TotalPositionValue     string `json:"total_position_value"`
}

// PortfolioPosition is one position of the private portfolio.
type PortfolioPosition struct {
	ID                uint32 `json:"instrument_id"`
	Symbol            string `json:"symbol"`
	Size              string `json:"size"`
	EntryPrice        string `json:"entry_price"`
	Leverage          int64  `json:"leverage"`
	Cross             bool   `json:"cross"`
	InitialMargin     string `json:"initial_margin"`
	MaintenanceMargin string `json:"maintenance_margin"`
	PositionValue     string `json:"position_value"`
	LiquidationPrice  string `json:"liquidation_price"`
	UnrealizedPnL     string `json:"unrealized_pnl"`
	ReturnOnEquity    string `json:"return_on_equity"`
	CumulativeFunding string `json:"cumulative_funding"`
	ADLIndex          int    `json:"adl_index"`
}

func (m *Machine) markTicks(in *Instrument, p *Position) int64 {
	b, _, okb := in.book.BestBid()
	a, _, oka := in.book.BestAsk()
	switch {
	case okb && oka:
		return (a + b) / 2
	case in.IndexTicks > 0 && in.IndexTicks < in.Ticks: // an index off the grid is no mark (nothing trades there)
		return in.IndexTicks
	case in.LastTicks > 0:
		return in.LastTicks
	case p != nil && p.Size != 0:
		return p.Cost / abs(p.Size)
	}
	return 0
}

// PortfolioOf computes the account's portfolio at nowMs.
func (m *Machine) PortfolioOf(addr string, nowMs int64) Portfolio {
	out := Portfolio{Positions: []PortfolioPosition{}, Timestamp: nowMs}
	a := m.accts[addr]
	out.InLiquidation = a != nil && a.Liquidating
	var bal, upnlSum, imSum, mmSum, valSum int64
	var marks, mms, upnls []int64 // per position, in out.Positions order
	if a != nil {
		bal = a.Balance
		ids := make([]uint32, 0, len(a.Positions))
		for id, p := range a.Positions {
			if p.Size != 0 {
				ids = append(ids, id)
			}
		}
		sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
		for _, id := range ids {
			p, in := a.Positions[id], m.inst[id]
			g := in.grid()
			lev := m.leverage(a, in)
			mark := m.mark(in)
			if mark <= 0 || mark >= in.Ticks { // an index off the grid is no mark
				mark = m.markTicks(in, p)
			}
			marks = append(marks, mark)
			// Within the account's exposure bound (exposure.go): every sum fits.
			val := must(valueMicro(in, mark, p.Size))
			cost := must(tickLotsToMicro(p.Cost, in.PriceDecimals, in.QtyDecimals))
			upnl := val - cost
			if p.Size < 0 {
				upnl = cost - val
			}
			im := val / lev
			mm := ceilDiv(val, 2*in.MaxLeverage) // MMR = 0.5 / max leverage
			mms, upnls = append(mms, mm), append(upnls, upnl)
			roe := "0"
			if im > 0 {
				roe = ratio(upnl, im, 0)
			}
			size := g.FormatQty(fixedQty(abs(p.Size)))
			if p.Size < 0 {
				size = "-" + size
			}
			out.Positions = append(out.Positions, PortfolioPosition{ID: id, Symbol: in.Symbol, Size: size,
				EntryPrice: ratio(p.Cost, abs(p.Size), in.PriceDecimals), Leverage: lev, Cross: a.Cross[id],
				InitialMargin: FormatMicro(im), MaintenanceMargin: FormatMicro(mm), PositionValue: FormatMicro(val),
				LiquidationPrice: "0", UnrealizedPnL: FormatMicro(upnl), ReturnOnEquity: roe, CumulativeFunding: "0", ADLIndex: m.adlIndex(a, id)})
			if p.Iso { // perps.md: isolated initial_margin is allocation + uPnL − settled funding (isolated.go)
				out.Positions[len(out.Positions)-1].InitialMargin = FormatMicro(must(add(p.Margin, upnl)))
			}
			upnlSum = must(add(upnlSum, upnl))
			imSum = must(add(imSum, im))
			mmSum = must(add(mmSum, mm))
			valSum = must(add(valSum, val))
		}
		for oid := range a.Open {
			o := m.orders[oid]
			if !o.Reduce && !o.Risk {
				in := m.inst[o.IID]
				imSum = must(add(imSum, must(valueMicro(in, o.Ticks, o.Lots-o.Filled))/m.leverage(a, in)))
			}
		}
	}
	tav := must(add(bal, upnlSum))
	crossEq, crossMM := tav, mmSum // the cross scope: without the isolated scopes (isolated.go)
	for i := range out.Positions {
		if p := a.Positions[out.Positions[i].ID]; p.Iso {
			crossEq = must(sub(crossEq, must(add(p.Margin, upnls[i]))))
			crossMM = must(sub(crossMM, mms[i]))
		}
	}
	for i := range out.Positions { // each position's price at which its scope reaches maintenance
		pp := &out.Positions[i]
		in, p := m.inst[pp.ID], a.Positions[pp.ID]
		mt := m.riskMarket(in)
		mt.Mark = marks[i]
		eq0, mmOthers := crossEq, crossMM-mms[i]
		if p.Iso {
			eq0, mmOthers = must(add(p.Margin, upnls[i])), 0
		}
		x, err := risk.LiquidationPrice(&risk.Position{IID: pp.ID, Size: p.Size, Cost: p.Cost}, mt, eq0, mmOthers)
		if err == nil && x > 0 {
			pp.LiquidationPrice = in.grid().FormatPrice(fixedPrice(x))
		}
	}
	avail := max(must(sub(tav, imSum)), 0)
	out.Margin = MarginSummary{TotalAccountValue: FormatMicro(tav), AvailableOrderMargin: FormatMicro(avail),
		TotalInitialMargin: FormatMicro(imSum), TotalMaintenanceMargin: FormatMicro(mmSum), TotalPositionValue: FormatMicro(valSum)}
	out.Withdrawable = FormatMicro(m.withdrawable(addr, nowMs)) // risk.Withdrawable
	return out
}

// ceilDiv is ⌈a/b⌉ for a ≥ 0, b > 0.
func ceilDiv(a, b int64) int64 { return (a + b - 1) / b }
