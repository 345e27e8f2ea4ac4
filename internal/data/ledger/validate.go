package ledger

import (
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"pmx/internal/amount"
	"pmx/internal/hexid"
)

// Limits on free text, so one line cannot carry megabytes of question text.
const (
	maxText    = 4096
	maxOutcome = 64 // outcomes per market or combo
	maxLegs    = 32
	maxTokenID = 78 // decimal digits of a uint256
	maxAmount  = amount.Micro(1<<63 - 1)
)

// Combo activity types (combo_activity.type).
var comboTypes = map[string]bool{
	"SPLIT": true, "MERGE": true, "CONVERT": true, "COMPRESS": true, "WRAP": true, "UNWRAP": true, "REDEEM": true,
}

// Validate normalizes e in place (lower-cases addresses, hashes and ids,
// strips leading zeros of token ids) and checks it on its own: required
// fields, formats and ranges for its kind, and no fields of other kinds.
// Errors read "<kind>: <reason>".
func Validate(e *Event) error {
	if e.Kind == "" {
		return errors.New("missing kind")
	}
	mask, ok := allowed[e.Kind]
	if !ok {
		return fmt.Errorf("unknown kind %q", string(e.Kind))
	}
	if extra := present(e) &^ mask; extra != 0 {
		return fmt.Errorf("%s: field %q is not used by this kind", e.Kind, firstName(extra))
	}
	var err error
	if e.Kind.Onchain() {
		err = checkEnvelope(e)
	}
	if err == nil {
		err = checkKind(e)
	}
	if err != nil {
		return fmt.Errorf("%s: %w", e.Kind, err)
	}
	return nil
}

func checkEnvelope(e *Event) error {
	if err := hexID(&e.TxHash, "tx_hash", 64); err != nil {
		return err
	}
	switch {
	case e.LogIndex < 0:
		return errors.New("log_index must be >= 0")
	case e.BlockNumber <= 0:
		return errors.New("block_number must be > 0")
	case e.Timestamp <= 0:
		return errors.New("timestamp must be > 0")
	}
	return nil
}

func checkKind(e *Event) error {
	switch e.Kind {
	case KindMarket:
		return checkMarket(e)
	case KindTrade:
		if err := firstErr(address(&e.Maker, "maker"), address(&e.Taker, "taker")); err != nil {
			return err
		}
		return firstErr(
			check(e.Maker != e.Taker, "maker and taker must differ"),
			tokenID(&e.TokenID, "token_id"),
			side(e.Side),
			price(e.Price),
			positive(e.Size, "size"),
			nonNegative(e.FeeUSDC, "fee_usdc"),
			optionalBuilder(&e.BuilderCode))
	case KindSplit, KindMerge:
		return firstErr(
			address(&e.User, "user"),
			hexID(&e.ConditionID, "condition_id", 64),
			positive(e.Amount, "amount"))
	case KindRedeem:
		return firstErr(address(&e.User, "user"), hexID(&e.ConditionID, "condition_id", 64))
	case KindConversion:
		return checkConversion(e)
	case KindMigration, KindReward, KindYield, KindMakerRebate, KindTakerRebate, KindReferralReward,
		KindDeposit, KindWithdrawal:
		return firstErr(address(&e.User, "user"), positive(e.AmountUSDC, "amount_usdc"))
	case KindTip:
		if err := firstErr(address(&e.From, "from"), address(&e.To, "to")); err != nil {
			return err
		}
		return firstErr(
			check(e.From != e.To, "from and to must differ"),
			positive(e.AmountUSDC, "amount_usdc"))
	case KindResolution:
		return firstErr(
			hexID(&e.ConditionID, "condition_id", 64),
			payouts(e.Payouts),
			check(e.ResolvedAt > 0, "resolved_at must be > 0"))
	case KindProfile:
		return firstErr(
			address(&e.Address, "address"),
			text(e.Name, "name"), text(e.Pseudonym, "pseudonym"), text(e.Bio, "bio"),
			text(e.ProfileImage, "profile_image"),
			check(e.JoinedAt >= 0, "joined_at must be >= 0"),
			check(e.Views >= 0, "views must be >= 0"))
	case KindBuilder:
		return firstErr(
			builderCode(&e.Code, "code"),
			required(e.Name, "name"), text(e.Name, "name"),
			text(e.ProfileImage, "profile_image"))
	case KindComboMarket:
		return checkComboMarket(e)
	case KindComboTrade:
		return firstErr(
			address(&e.User, "user"),
			hexID(&e.ComboConditionID, "combo_condition_id", 62, "03"),
			outcomeIndex(e.OutcomeIndex),
			side(e.Side),
			price(e.Price),
			positive(e.Size, "size"),
			nonNegative(e.FeeUSDC, "fee_usdc"),
			optionalBuilder(&e.BuilderCode))
	case KindComboActivity:
		return firstErr(
			address(&e.User, "user"),
			hexID(&e.ComboConditionID, "combo_condition_id", 62, "03"),
			outcomeIndex(e.OutcomeIndex),
			check(comboTypes[e.Type], "type must be one of SPLIT, MERGE, CONVERT, COMPRESS, WRAP, UNWRAP, REDEEM"),
			positive(e.Size, "size"),
			nonNegative(e.AmountUSDC, "amount_usdc"),
			nonNegative(e.PayoutUSDC, "payout_usdc"),
			check(e.PayoutUSDC == 0 || e.Type == "REDEEM", "payout_usdc is only for REDEEM"))
	}
	return nil
}

func checkMarket(e *Event) error {
	if err := firstErr(
		hexID(&e.ConditionID, "condition_id", 64),
		required(e.Question, "question"), text(e.Question, "question"),
		required(e.Slug, "slug"), text(e.Slug, "slug"),
		check(e.EventID > 0, "event_id must be > 0"),
		required(e.EventSlug, "event_slug"), text(e.EventSlug, "event_slug"),
		required(e.EventTitle, "event_title"), text(e.EventTitle, "event_title"),
		text(e.Category, "category"), text(e.Icon, "icon"),
		check(e.MarketID >= 0, "market_id must be >= 0"),
		outcomes(e.Outcomes, e.TokenIDs),
		check(!e.NegRisk || len(e.Outcomes) == 2, "a neg_risk market must have exactly 2 outcomes"),
	); err != nil {
		return err
	}
	if e.EndDate == "" {
		return errors.New("end_date is required")
	}
	if _, err := time.Parse(time.RFC3339, e.EndDate); err != nil {
		return fmt.Errorf("end_date must be RFC 3339, got %q", e.EndDate)
	}
	return nil
}

func checkConversion(e *Event) error {
	if err := address(&e.User, "user"); err != nil {
		return err
	}
	if len(e.ConditionIDs) == 0 || len(e.ConditionIDs) > maxOutcome {
		return fmt.Errorf("condition_ids must name 1 to %d markets", maxOutcome)
	}
	seen := make(map[string]bool, len(e.ConditionIDs))
	for i := range e.ConditionIDs {
		if err := hexID(&e.ConditionIDs[i], "condition_ids", 64); err != nil {
			return err
		}
		if seen[e.ConditionIDs[i]] {
			return fmt.Errorf("condition_ids repeats %s", e.ConditionIDs[i])
		}
		seen[e.ConditionIDs[i]] = true
	}
	if err := positive(e.Amount, "amount"); err != nil {
		return err
	}
	if e.Amount > maxAmount/maxOutcome {
		return errors.New("amount too large")
	}
	// Converting the NO of k markets frees (k-1) USDC per share.
	want := e.Amount * amount.Micro(len(e.ConditionIDs)-1)
	if e.AmountUSDC != want {
		return fmt.Errorf("amount_usdc must be (k-1) x amount = %s", want)
	}
	return nil
}

func checkComboMarket(e *Event) error {
	if err := firstErr(
		hexID(&e.ComboConditionID, "combo_condition_id", 62, "03"),
		text(e.Question, "question"),
		outcomes(e.Outcomes, e.TokenIDs),
		// Outcome 0 pays when every leg hits, outcome 1 pays the rest.
		check(len(e.Outcomes) == 2, "a combo has exactly 2 outcomes"),
	); err != nil {
		return err
	}
	if len(e.Legs) < 2 || len(e.Legs) > maxLegs {
		return fmt.Errorf("legs must have 2 to %d entries", maxLegs)
	}
	seen := make(map[string]bool, len(e.Legs))
	for i := range e.Legs {
		l := &e.Legs[i]
		if err := hexID(&l.ConditionID, "legs.condition_id", 64); err != nil {
			return err
		}
		if seen[l.ConditionID] {
			return fmt.Errorf("legs repeat condition %s", l.ConditionID)
		}
		seen[l.ConditionID] = true
		if l.OutcomeIndex < 0 || l.OutcomeIndex >= maxOutcome {
			return fmt.Errorf("legs.outcome_index must be in [0,%d)", maxOutcome)
		}
	}
	return nil
}

// outcomes checks labels and token ids of a market or combo.
func outcomes(labels, ids []string) error {
	if len(labels) < 2 || len(labels) > maxOutcome {
		return fmt.Errorf("outcomes must have 2 to %d labels", maxOutcome)
	}
	if len(ids) != len(labels) {
		return errors.New("token_ids must have one id per outcome")
	}
	for i, l := range labels {
		if err := firstErr(required(l, "outcomes"), text(l, "outcomes")); err != nil {
			return err
		}
		for _, o := range labels[:i] {
			if o == l {
				return fmt.Errorf("outcomes repeat %q", l)
			}
		}
	}
	for i := range ids {
		if err := tokenID(&ids[i], "token_ids"); err != nil {
			return err
		}
		for _, o := range ids[:i] {
			if o == ids[i] {
				return fmt.Errorf("token_ids repeat %s", o)
			}
		}
	}
	return nil
}

func payouts(p []amount.Micro) error {
	if len(p) < 2 || len(p) > maxOutcome {
		return fmt.Errorf("payouts must have 2 to %d entries", maxOutcome)
	}
	var sum amount.Micro // no overflow: at most 64 entries of at most One
	for _, v := range p {
		if v < 0 || v > amount.One {
			return errors.New("each payout must be in [0,1]")
		}
		sum += v
	}
	if sum != amount.One {
		return fmt.Errorf("payouts must sum to 1, got %s", sum)
	}
	return nil
}

// hexID checks "0x" + n hex digits (optionally starting with prefix after
// the 0x) and lower-cases *s.
func hexID(s *string, name string, n int, prefix ...string) error {
	if *s == "" {
		return fmt.Errorf("%s is required", name)
	}
	v, ok := hexid.Canonical(*s, n)
	if !ok {
		return fmt.Errorf("%s must be 0x + %d hex digits, got %q", name, n, clip(*s))
	}
	if len(prefix) > 0 && !strings.HasPrefix(v[2:], prefix[0]) {
		return fmt.Errorf("%s must start with 0x%s", name, prefix[0])
	}
	*s = v
	return nil
}

func address(s *string, name string) error { return hexID(s, name, 40) }

func builderCode(s *string, name string) error { return hexID(s, name, 64) }

func optionalBuilder(s *string) error {
	if *s == "" {
		return nil
	}
	return builderCode(s, "builder_code")
}

// tokenID checks a positive decimal of at most 78 digits and strips leading
// zeros, so one token has one spelling.
func tokenID(s *string, name string) error {
	v := *s
	if v == "" {
		return fmt.Errorf("%s is required", name)
	}
	for i := 0; i < len(v); i++ {
		if v[i] < '0' || v[i] > '9' {
			return fmt.Errorf("%s must be a decimal string, got %q", name, clip(v))
		}
	}
	v = strings.TrimLeft(v, "0")
	if v == "" {
		return fmt.Errorf("%s must be > 0", name)
	}
	if len(v) > maxTokenID {
		return fmt.Errorf("%s has more than %d digits", name, maxTokenID)
	}
	*s = v
	return nil
}

func side(s string) error { return check(s == "BUY" || s == "SELL", "side must be BUY or SELL") }

func price(p amount.Micro) error { return check(p > 0 && p < amount.One, "price must be in (0,1)") }

func outcomeIndex(i int) error {
	return check(i >= 0 && i < maxOutcome, fmt.Sprintf("outcome_index must be in [0,%d)", maxOutcome))
}

func positive(v amount.Micro, name string) error { return check(v > 0, name+" must be > 0") }

func nonNegative(v amount.Micro, name string) error { return check(v >= 0, name+" must be >= 0") }

func required(s, name string) error { return check(strings.TrimSpace(s) != "", name+" is required") }

func text(s, name string) error {
	if len(s) > maxText {
		return fmt.Errorf("%s longer than %d bytes", name, maxText)
	}
	return check(utf8.ValidString(s), name+" is not valid UTF-8")
}

func check(ok bool, reason string) error {
	if ok {
		return nil
	}
	return errors.New(reason)
}

// firstErr returns the first non-nil error. Every check has already run (Go
// evaluates arguments first), which is fine: they only normalize in place.
func firstErr(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// clip shortens a bad value quoted in an error message.
func clip(s string) string {
	if len(s) > 80 {
		return s[:80] + "..."
	}
	return s
}
