//go:build !perpsaudit

package perps

import (
	"pmx/internal/exchange/fixed"
	"pmx/internal/perps/risk"
)

// Without the perpsaudit build tag the audit hooks are empty (audit_on.go).

type auditState struct{}

func (m *Machine) audit()                                                  {}
func (m *Machine) auditCredit(*Account, int64)                             {}
func (m *Machine) auditRestored()                                          {}
func (m *Machine) auditView(*risk.Account, risk.Markets, *Account, uint32) {}
func (m *Machine) auditDecoded([]byte, *Command)                           {}
func (m *Machine) auditUncrossed(*Instrument, *Order, int64)               {}
func auditPlainPrice(fixed.Instrument, string, int64)                      {}
