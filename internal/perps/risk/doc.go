// Package risk is the perpetuals risk engine as pure, deterministic
// functions: margin (equity, initial and maintenance margin, the states of
// perps.md §10), the pre-trade and at-fill margin checks, leverage and
// margin-mode rules, isolated margin adjustment, mark price and price bands,
// funding (premium samples, rate, per-position charges) and liquidation
// (triggers, liquidation orders and fees, insurance-fund backstop,
// auto-deleveraging).
//
// Nothing here owns state, reads a clock or starts a goroutine: the engine
// machine passes its accounts, marks and the time in and applies what comes
// back, so a replay reproduces every decision. Money is int64 micro-units of
// the collateral (6 decimals), prices int64 ticks and sizes int64 lots of
// their instrument; every product goes through the overflow-checked calc, and
// a result that does not fit is ErrOverflow, never a wrapped number.
// docs/perps-risk.md states every formula with a worked example.
package risk
