package perps

import (
	"math/big"

	"pmx/internal/exchange/book"

	"pmx/internal/perps/risk"
)

// Funding (docs/perps-risk.md "Funding"): the service submits a premium
// sample every few seconds and a settlement every funding interval, each a
// journaled command whose time is the command's ts, so a replay charges the
// same amounts. A settlement charges every open position size·mark·rate
// (risk.Charge: the payer rounds up), records one row per position, adds the
// rounding dust to the insurance fund and starts a new premium window.
const (
	KFundingSample = "fundingSample" // sample every instrument's premium
	KFunding       = "funding"       // settle one funding round
)

// maxFundingRates bounds the public rate history kept per instrument.
const maxFundingRates = 10000

// FundingCharge is one position's charge of one settlement. Amount is the
// account's balance change (negative: it paid).
type FundingCharge struct {
	ID     uint64 `json:"id"`
	IID    uint32 `json:"iid"`
	Size   int64  `json:"sz"`   // lots, signed
	Rate   int64  `json:"rate"` // PPB
	Amount int64  `json:"amt"`  // micro
	TS     int64  `json:"ts"`
}

// FundingRate is one settlement's rate of one instrument.
type FundingRate struct {
	Rate int64 `json:"rate"` // PPB
	Mark int64 `json:"mark"` // ticks
	TS   int64 `json:"ts"`
}

var fundingParams = risk.DefaultFunding()

// fundingSample adds one premium sample to every instrument with an index.
func (m *Machine) fundingSample() {
	for _, id := range m.instIDs {
		in := m.inst[id]
		if in.IndexTicks <= 0 {
			continue
		}
		bids := in.book.Depth(book.Buy, 64, nil)
		asks := in.book.Depth(book.Sell, 64, nil)
		p, err := risk.Premium(risk.Grid{PriceDecimals: in.PriceDecimals, QtyDecimals: in.QtyDecimals},
			bids, asks, in.IndexTicks, fundingParams.ImpactMicro)
		if err == nil {
			_ = in.Premium.Add(p) // a window that no longer fits keeps its samples
		}
	}
}

// settleFunding charges every open position of every instrument with a mark.
func (m *Machine) settleFunding(ts int64, ev *Event) {
	for _, id := range m.instIDs {
		in := m.inst[id]
		mark := m.mark(in)
		rate, err := fundingParams.Rate(in.Premium.Average())
		in.Premium = risk.PremiumWindow{}
		if mark <= 0 || err != nil {
			continue
		}
		in.Funding = append(in.Funding, FundingRate{Rate: rate, Mark: mark, TS: ts})
		if n := len(in.Funding); n > maxFundingRates {
			in.Funding = append(in.Funding[:0], in.Funding[n-maxFundingRates:]...)
		}
		g := risk.Grid{PriceDecimals: in.PriceDecimals, QtyDecimals: in.QtyDecimals}
		for aid := uint64(1); aid < m.nextAcct; aid++ { // account id order: deterministic
			a := m.byID[aid]
			p := a.Positions[id]
			if p == nil || p.Size == 0 {
				continue
			}
			ch, err := risk.Charge(g, p.Size, mark, rate)
			if err != nil {
				continue
			}
			bal, ok := sub(a.Balance, ch)
			ins, ok2 := add(m.insurance, ch)
			if !ok || !ok2 {
				continue // an unrepresentable charge moves nothing
			}
			a.Balance, m.insurance = bal, ins
			if p.Iso { // an isolated position pays from its allocation
				p.Margin = must(sub(p.Margin, ch))
			}
			m.auditCredit(a, -ch)
			m.booked(a, ts, -ch)
			a.Funding = append(a.Funding, FundingCharge{ID: m.nextFund, IID: id, Size: p.Size, Rate: rate, Amount: -ch, TS: ts})
			ev.Funding = append(ev.Funding, AccountFunding{Account: a.Addr, Charge: m.fundingData(&a.Funding[len(a.Funding)-1])})
			m.nextFund++
			if n := len(a.Funding); n > maxHistory {
				a.Funding = append(a.Funding[:0], a.Funding[n-maxHistory:]...)
			}
		}
	}
}

// Insurance is the insurance fund's balance (micro).
func (m *Machine) Insurance() int64 { return m.insurance }

// FundingData is the contract's funding charge row (GET /v1/account/funding).
type FundingData struct {
	ID           uint64 `json:"id"`
	InstrumentID uint32 `json:"instrument_id"`
	Size         string `json:"size"`
	FundingRate  string `json:"funding_rate"`
	FundingAsset string `json:"funding_asset"`
	Funding      string `json:"funding"`
	Timestamp    int64  `json:"timestamp"`
}

// FundingOf lists addr's funding charges with start ≤ ts ≤ end, newest
// first, at most limit; more says whether older ones match too. iid 0 is
// every instrument.
func (m *Machine) FundingOf(addr string, iid uint32, start, end int64, limit int) ([]FundingData, bool) {
	out := []FundingData{}
	a := m.accts[addr]
	if a == nil {
		return out, false
	}
	for i := len(a.Funding) - 1; i >= 0; i-- {
		f := &a.Funding[i]
		if f.TS > end || (iid != 0 && f.IID != iid) {
			continue
		}
		if f.TS < start {
			break
		}
		if len(out) == limit {
			return out, true
		}
		out = append(out, m.fundingData(f))
	}
	return out, false
}

func (m *Machine) fundingData(f *FundingCharge) FundingData {
	size := m.inst[f.IID].grid().FormatQty(fixedQty(abs(f.Size)))
	if f.Size < 0 {
		size = "-" + size
	}
	return FundingData{ID: f.ID, InstrumentID: f.IID, Size: size, FundingRate: formatPPB(f.Rate),
		FundingAsset: Asset, Funding: FormatMicro(f.Amount), Timestamp: f.TS}
}

// RateData is one row of GET /v1/info/funding.
type RateData struct {
	FundingRate string `json:"funding_rate"`
	Timestamp   int64  `json:"timestamp"`
}

// FundingRatesOf lists iid's settled rates with start ≤ ts ≤ end, newest
// first, at most limit.
func (m *Machine) FundingRatesOf(iid uint32, start, end int64, limit int) ([]RateData, bool) {
	out := []RateData{}
	in := m.inst[iid]
	if in == nil {
		return out, false
	}
	for i := len(in.Funding) - 1; i >= 0; i-- {
		f := &in.Funding[i]
		if f.TS > end {
			continue
		}
		if f.TS < start {
			break
		}
		if len(out) == limit {
			return out, true
		}
		out = append(out, RateData{FundingRate: formatPPB(f.Rate), Timestamp: f.TS})
	}
	return out, false
}

// formatPPB renders a rate in parts per billion as a decimal fraction
// ("0.0000125" for 12,500).
func formatPPB(v int64) string {
	s := new(big.Rat).SetFrac64(v, risk.PPB).FloatString(9)
	for len(s) > 1 && s[len(s)-1] == '0' {
		s = s[:len(s)-1]
	}
	if s[len(s)-1] == '.' {
		s = s[:len(s)-1]
	}
	if s == "-0" {
		s = "0"
	}
	return s
}
