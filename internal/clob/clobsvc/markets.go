package clobsvc

import (
	"context"
	"strings"

	"pmx/internal/amount"
	"pmx/internal/catalog/catalog"
	"pmx/internal/clob/clob"
	"pmx/internal/clob/clobengine"
	"pmx/internal/crypto/eip712"
)

// marketIndex is a read-only copy of the registered markets for the HTTP
// layer's stateless checks (which exchange an order was signed for).
type marketIndex struct {
	byToken map[string]TokenInfo
}

// TokenInfo is what the HTTP layer needs of a token.
type TokenInfo struct {
	Cond    string
	NegRisk bool
	Ticks   int64
	Outcome uint8
}

func (s *Service) refreshIndex() {
	idx := &marketIndex{byToken: map[string]TokenInfo{}}
	_ = s.View(func(m *clobengine.Machine) {
		for _, mk := range m.Markets() {
			for i, t := range mk.Tokens {
				idx.byToken[t.ID] = TokenInfo{Cond: mk.ConditionID, NegRisk: mk.NegRisk, Ticks: mk.Ticks, Outcome: uint8(i)}
			}
		}
	})
	s.markets.Store(idx)
}

// Token looks a token up in the market index.
func (s *Service) Token(id string) (TokenInfo, bool) {
	t, ok := s.markets.Load().byToken[id]
	return t, ok
}

// CanonicalToken is the canonical decimal spelling of a token id, or "".
func CanonicalToken(s string) string {
	if _, err := eip712.ParseUint256(s); err != nil {
		return ""
	}
	return s
}

// SyncMarkets registers new catalog markets and updates changed ones.
func (s *Service) SyncMarkets(ctx context.Context) error {
	ms, err := s.opt.Markets(ctx)
	if err != nil {
		return err
	}
	have := map[string]clob.Market{}
	if err := s.View(func(m *clobengine.Machine) {
		for _, mk := range m.Markets() {
			have[mk.ConditionID] = mk.Market
		}
	}); err != nil {
		return err
	}
	for i := range ms {
		if old, ok := have[ms[i].ConditionID]; ok {
			// Tokens, grid and exchange never change once registered;
			// compare only what an update can change.
			cur := ms[i]
			cur.Tokens, cur.Ticks, cur.NegRisk = old.Tokens, old.Ticks, old.NegRisk
			if cur == old {
				continue
			}
		}
		if _, err := s.Submit(&clobengine.Command{Op: clobengine.OpMarket, Market: &ms[i]}); err != nil {
			return err
		}
	}
	return nil
}

// CatalogMarkets adapts a catalog store: every market with an order book,
// a condition id and two token ids is a CLOB market.
func CatalogMarkets(st catalog.Store) MarketSource {
	return func(ctx context.Context) ([]clob.Market, error) {
		ms, err := st.ListMarkets(ctx, catalog.MarketFilter{})
		if err != nil {
			return nil, err
		}
		var out []clob.Market
		for i := range ms {
			if m, ok := FromCatalog(&ms[i]); ok {
				out = append(out, m)
			}
		}
		return out, nil
	}
}

func str(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

func num(p *catalog.Num) (amount.Micro, bool) {
	if p == nil {
		return 0, false
	}
	v, err := amount.Parse(string(*p))
	return v, err == nil
}

// FromCatalog maps a catalog market to a CLOB market.
func FromCatalog(cm *catalog.Market) (clob.Market, bool) {
	if !cm.EnableOrderBook || cm.ConditionID == nil || cm.ClobTokenIds == nil {
		return clob.Market{}, false
	}
	cond := strings.ToLower(*cm.ConditionID)
	if !validCond(cond) { // the engine would refuse it, and every sync would journal it again
		return clob.Market{}, false
	}
	toks, err := catalog.DecodeStringList(cm.ClobTokenIds)
	if err != nil || len(toks) != 2 || CanonicalToken(toks[0]) == "" || CanonicalToken(toks[1]) == "" {
		return clob.Market{}, false
	}
	outs := []string{"Yes", "No"}
	if cm.Outcomes != nil {
		if o, err := catalog.DecodeStringList(cm.Outcomes); err == nil && len(o) == 2 {
			outs = o
		}
	}
	ticks := int64(100)
	if t, ok := num(cm.OrderPriceMinTickSize); ok {
		if n, err := clob.TicksOf(t); err == nil {
			ticks = n
		}
	}
	minSize, ok := num(cm.OrderMinSize)
	if !ok || minSize < 0 {
		minSize = 0
	}
	m := clob.Market{ConditionID: cond, QuestionID: str(cm.QuestionID), Question: str(cm.Question),
		Description: str(cm.Description), Slug: str(cm.Slug), Icon: str(cm.Icon), Image: str(cm.Image), EndDateISO: str(cm.EndDateIso),
		Tokens: [2]clob.Token{{ID: toks[0], Outcome: outs[0]}, {ID: toks[1], Outcome: outs[1]}}, Ticks: ticks, MinSize: minSize,
		NegRisk: cm.NegRisk, NegRiskID: str(cm.NegRiskMarketID), Active: cm.Active, Closed: cm.Closed, Archived: cm.Archived,
		Accepting: cm.AcceptingOrders}
	if d, ok := num(cm.SecondsDelay); ok && d > 0 {
		m.SecondsDelay = int64(d / amount.One)
	}
	return m, true
}

// validCond: 0x and 64 hex digits.
func validCond(c string) bool {
	if len(c) != 66 || c[:2] != "0x" {
		return false
	}
	for _, ch := range c[2:] {
		if !('0' <= ch && ch <= '9' || 'a' <= ch && ch <= 'f') {
			return false
		}
	}
	return true
}
