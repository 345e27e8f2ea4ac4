package clobws

import (
	"encoding/json"
	"errors"
	"strings"

	"pmx/internal/clob/clobsvc"
)

// Message is one parsed client message: the first subscription (Type set,
// "market" or "user") or a later update (Op "subscribe" / "unsubscribe").
type Message struct {
	Type    string
	Op      string
	Assets  []string // market channel: token ids, canonical decimal
	Markets []string // user channel: condition ids, lower-case
	Auth    Auth     // user channel's first message
}

// Auth is the user channel's credentials (the API key's own, not an HMAC).
type Auth struct {
	APIKey     string `json:"apiKey"`
	Secret     string `json:"secret"`
	Passphrase string `json:"passphrase"`
}

// ErrInvalid is every refused message (answered "INVALID OPERATION").
var ErrInvalid = errors.New("invalid operation")

const maxCred = 256 // longest credential field accepted

type wireMessage struct {
	Type      *string   `json:"type"`
	Operation *string   `json:"operation"`
	Assets    *[]string `json:"assets_ids"`
	Markets   *[]string `json:"markets"`
	Auth      *Auth     `json:"auth"`
	// Accepted and ignored: pmx pushes the standard market events only.
	InitialDump   *bool `json:"initial_dump"`
	CustomFeature *bool `json:"custom_feature_enabled"`
	Level         *int  `json:"level"`
}

// Parse reads one text message of the market (user false) or user
// channel. It accepts production's shapes only:
//
//	market: {"assets_ids":[...],"type":"market"} then {"assets_ids":[...],"operation":"subscribe"|"unsubscribe"}
//	user:   {"auth":{"apiKey","secret","passphrase"},"type":"user","markets":[...]?} then {"markets":[...],"operation":...}
func Parse(b []byte, user bool) (Message, error) {
	var w wireMessage
	if len(b) == 0 || b[0] != '{' || json.Unmarshal(b, &w) != nil {
		return Message{}, ErrInvalid
	}
	var m Message
	switch {
	case w.Type != nil && w.Operation == nil:
		m.Type = strings.ToLower(*w.Type)
		if m.Type != channel(user) {
			return Message{}, ErrInvalid
		}
	case w.Type == nil && w.Operation != nil:
		m.Op = *w.Operation
		if m.Op != "subscribe" && m.Op != "unsubscribe" {
			return Message{}, ErrInvalid
		}
	default:
		return Message{}, ErrInvalid
	}
	if !user {
		if w.Assets == nil || w.Markets != nil || w.Auth != nil || (m.Op != "" && len(*w.Assets) == 0) ||
			len(*w.Assets) > clobsvc.MaxStreamAssets {
			return Message{}, ErrInvalid
		}
		for _, a := range *w.Assets {
			if !tokenID(a) {
				return Message{}, ErrInvalid
			}
		}
		m.Assets = *w.Assets
		return m, nil
	}
	if w.Assets != nil {
		return Message{}, ErrInvalid
	}
	if m.Type != "" {
		if w.Auth == nil || !cred(w.Auth.APIKey) || !cred(w.Auth.Secret) || !cred(w.Auth.Passphrase) {
			return Message{}, ErrInvalid
		}
		m.Auth = *w.Auth
	} else if w.Auth != nil || w.Markets == nil || len(*w.Markets) == 0 {
		return Message{}, ErrInvalid
	}
	if w.Markets != nil {
		if len(*w.Markets) > clobsvc.MaxStreamConds {
			return Message{}, ErrInvalid
		}
		for _, c := range *w.Markets {
			if !condID(c) {
				return Message{}, ErrInvalid
			}
			m.Markets = append(m.Markets, strings.ToLower(c))
		}
	}
	return m, nil
}

func channel(user bool) string {
	if user {
		return "user"
	}
	return "market"
}

// tokenID: canonical decimal (no sign, no leading zero), at most 78 digits
// (a uint256).
func tokenID(s string) bool {
	if s == "" || len(s) > 78 || (s[0] == '0' && len(s) > 1) {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// condID: 0x and 64 hex digits.
func condID(s string) bool {
	if len(s) != 66 || s[0] != '0' || (s[1] != 'x' && s[1] != 'X') {
		return false
	}
	for i := 2; i < len(s); i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			return false
		}
	}
	return true
}

func cred(s string) bool { return s != "" && len(s) <= maxCred }
