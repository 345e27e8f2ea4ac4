package dataapi

import (
	"math/big"
	"strconv"
	"strings"

	"pmx/internal/hexid"
)

// hexID checks "0x" + n hex digits and returns it lower-cased.
func hexID(s string, n int) (string, bool) { return hexid.Canonical(s, n) }

// ConditionID validates a market condition id: 0x + 64 hex, lower-cased.
func ConditionID(s string) (string, bool) { return hexID(s, 64) }

// ComboConditionID validates a combo condition id: 0x + 62 hex starting 03.
func ComboConditionID(s string) (string, bool) {
	id, ok := hexID(s, 62)
	return id, ok && id[2:4] == "03"
}

// Address validates an EVM address: 0x + 40 hex, lower-cased.
func Address(s string) (string, bool) { return hexID(s, 40) }

// EventID validates a catalog event id: a positive integer.
func EventID(s string) (int64, bool) {
	if s == "" || s[0] == '+' {
		return 0, false
	}
	n, err := strconv.ParseInt(s, 10, 64)
	return n, err == nil && n > 0
}

var maxUint256 = new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 256), big.NewInt(1))

// TokenID validates a CLOB token id: an unsigned decimal below 2^256,
// returned without leading zeros.
func TokenID(s string) (string, bool) {
	if s == "" || len(s) > 100 {
		return "", false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return "", false
		}
	}
	t := strings.TrimLeft(s, "0")
	if t == "" {
		return "0", true
	}
	if len(t) > 78 {
		return "", false
	}
	if len(t) == 78 {
		n, _ := new(big.Int).SetString(t, 10)
		if n.Cmp(maxUint256) > 0 {
			return "", false
		}
	}
	return t, true
}

// typedList validates and canonicalises a list parameter, dedupes after
// canonicalising (0xAB… and 0xab… are one id), and enforces the cap.
func typedList[T comparable](q *Query, name, what string, max int, valid func(string) (T, bool)) ([]T, error) {
	raw := q.List(name)
	out := make([]T, 0, len(raw))
	seen := make(map[T]bool, len(raw))
	for _, s := range raw {
		v, ok := valid(s)
		if !ok {
			return nil, Invalidf(name, "invalid %s: %s", what, clip(s))
		}
		if !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	if len(out) > max {
		return nil, Invalidf(name, "at most %d distinct values are allowed in '%s' (got %d)", max, name, len(out))
	}
	if len(out) == 0 {
		return nil, nil
	}
	return out, nil
}

// Conditions parses `condition` (aliases condition_id, conditionId): market
// condition ids, at most MaxListValues distinct.
func (q *Query) Conditions() ([]string, error) {
	return typedList(q, "condition", "condition id", MaxListValues, ConditionID)
}

// ComboConditions parses `condition` as combo condition ids.
func (q *Query) ComboConditions() ([]string, error) {
	return typedList(q, "condition", "condition id", MaxListValues, ComboConditionID)
}

// EventIDs parses `event_id`: positive integers, at most MaxListValues.
func (q *Query) EventIDs() ([]int64, error) {
	return typedList(q, "event_id", "event id", MaxListValues, EventID)
}

// TokenIDs parses `token_id` (decimal token ids) with the route's cap.
func (q *Query) TokenIDs(max int) ([]string, error) {
	return typedList(q, "token_id", "token id", max, TokenID)
}

// User parses the wallet parameter `user`: 0x + 40 hex (any case, returned
// lower-case), not a known protocol contract. Missing is a 400 when required
// and "" otherwise.
func (q *Query) User(required bool) (string, error) {
	s, err := q.Get("user")
	if err != nil {
		return "", err
	}
	if s == "" {
		if required {
			return "", Required("user")
		}
		return "", nil
	}
	a, ok := Address(s)
	if !ok {
		return "", Invalidf("user", "invalid user address: %s", clip(s))
	}
	if name, bad := IsProtocolContract(a); bad {
		return "", Invalidf("user", "user %s is a known protocol contract address (%s), not a wallet", a, name)
	}
	return a, nil
}
