package perpsvc

import (
	"unicode"
	"unicode/utf8"

	"pmx/internal/perps/perps"
)

// Operator input is validated like user input: what the operator names is
// served publicly (instrument symbols on /v1/info/instruments).

// MaxSymbolLen bounds an instrument's symbol and base asset (bytes).
const MaxSymbolLen = 32

// validName: 1..MaxSymbolLen bytes of printable characters (no control or
// format characters such as NUL or U+202E, no spaces).
func validName(s string) bool {
	if s == "" || len(s) > MaxSymbolLen || !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if !unicode.IsPrint(r) || unicode.IsSpace(r) {
			return false
		}
	}
	return true
}

// CreateInstrument lists a new instrument and returns its id.
func (s *Service) CreateInstrument(spec perps.InstrumentSpec) (uint64, error) {
	if !validName(spec.Symbol) {
		return 0, E(CodeInvalidOperatorInput, "symbol: 1 to 32 printable characters without spaces")
	}
	if spec.Base != "" && !validName(spec.Base) {
		return 0, E(CodeInvalidOperatorInput, "base_asset: 1 to 32 printable characters without spaces")
	}
	var id uint64
	err := s.operator(&perps.Command{Kind: perps.KCreateInstrument, Instrument: &spec}, func(ev perps.Event) { id = ev.ID })
	return id, err
}

// Deposit credits collateral to an account (lower-case hex address) and
// returns the deposit id.
func (s *Service) Deposit(account, amount string) (uint64, error) {
	var id uint64
	c := &perps.Command{Kind: perps.KDeposit, Account: account, Amount: amount,
		Required: s.opt.Money.withDefaults().Chain.Confirmations, BlockTime: s.opt.Money.withDefaults().Chain.BlockTime}
	err := s.operator(c, func(ev perps.Event) { id = ev.ID })
	return id, err
}

// SetIndex sets an instrument's index price, which must lie on its price
// grid (below the instrument's max_price).
func (s *Service) SetIndex(iid uint32, price string) error {
	onGrid := true
	if err := s.View(func(m *perps.Machine) { onGrid = m.OnGrid(iid, price) }); err != nil {
		return unavailableNoRetry()
	}
	if !onGrid {
		return E(CodeInvalidOperatorInput, "price: above the instrument's max_price")
	}
	return s.operator(&perps.Command{Kind: perps.KIndex, IID: iid, Price: price}, nil)
}
