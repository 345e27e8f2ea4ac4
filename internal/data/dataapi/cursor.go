package dataapi

import (
	"bytes"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
)

// Cursor wire format (opaque to clients; close to the production shape):
//
//	base64url-nopad( {"data":{"type":KIND,"params":{...}},"sig":HEX32} )
//
// sig is HMAC-SHA256(secret, cursorDomain || raw bytes of "data"), truncated
// to 128 bits. Verification runs over the raw bytes as received, so no
// re-encoding ambiguity exists. KIND types a cursor to its route: a cursor
// of another route, a tampered one or one signed with another secret is a
// 400 invalid_request with parameter "cursor".

const (
	cursorDomain = "pmx-cursor-v1\n"
	sigBytes     = 16
	// maxCursorLen bounds the work an attacker can make the decoder do.
	maxCursorLen = 4096
	// MinSecretLen is the shortest accepted signing secret.
	MinSecretLen = 16
)

// Cursors signs and verifies cursors with one secret.
type Cursors struct {
	secret []byte
}

// NewCursors makes a codec; the secret must be at least MinSecretLen bytes.
func NewCursors(secret []byte) (*Cursors, error) {
	if len(secret) < MinSecretLen {
		return nil, fmt.Errorf("dataapi: cursor secret must be at least %d bytes", MinSecretLen)
	}
	return &Cursors{secret: bytes.Clone(secret)}, nil
}

// LoadSecret reads the cursor secret at path, creating it (32 random bytes,
// hex, mode 0600) when absent. Changing it invalidates outstanding cursors.
func LoadSecret(path string) ([]byte, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		var raw [32]byte
		if _, err := rand.Read(raw[:]); err != nil {
			return nil, err
		}
		b = []byte(hex.EncodeToString(raw[:]))
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if errors.Is(err, os.ErrExist) {
			return LoadSecret(path) // lost a creation race: read the winner's
		}
		if err != nil {
			return nil, err
		}
		if _, err := f.Write(append(b, '\n')); err != nil {
			f.Close()
			return nil, err
		}
		return b, f.Close()
	}
	if err != nil {
		return nil, err
	}
	b = bytes.TrimSpace(b)
	if len(b) < MinSecretLen {
		return nil, fmt.Errorf("dataapi: cursor secret %s is shorter than %d bytes", path, MinSecretLen)
	}
	return b, nil
}

func (c *Cursors) sign(data []byte) []byte {
	m := hmac.New(sha256.New, c.secret)
	m.Write([]byte(cursorDomain))
	m.Write(data)
	var sum [sha256.Size]byte
	var out [2 * sigBytes]byte
	hex.Encode(out[:], m.Sum(sum[:0])[:sigBytes])
	return out[:]
}

// The token is built, and parsed back, byte for byte in one canonical
// form: only exactly what Encode produces can verify, and decoding needs a
// single JSON pass (the params).
const (
	tokPrefix  = `{"data":`
	tokSigPart = `,"sig":"`
	tokSuffix  = `"}`
	dataType   = `{"type":`
	dataParams = `,"params":`
)

func dataHead(kind string) []byte {
	k, _ := json.Marshal(kind) // a string always marshals
	return append(append([]byte(dataType), k...), dataParams...)
}

// Encode mints a cursor of the given kind carrying params (any JSON-encodable
// value, usually Keyset or Cohort).
func (c *Cursors) Encode(kind string, params any) (string, error) {
	p, err := json.Marshal(params)
	if err != nil {
		return "", err
	}
	data := append(append(dataHead(kind), p...), '}')
	tok := make([]byte, 0, len(tokPrefix)+len(data)+len(tokSigPart)+2*sigBytes+len(tokSuffix))
	tok = append(tok, tokPrefix...)
	tok = append(tok, data...)
	tok = append(tok, tokSigPart...)
	tok = append(tok, c.sign(data)...)
	tok = append(tok, tokSuffix...)
	return base64.RawURLEncoding.EncodeToString(tok), nil
}

// errInvalidCursor is the 400 for any cursor that does not verify.
func errInvalidCursor() *Error { return Invalid("cursor", "invalid cursor") }

// Decode verifies s as a cursor of the given kind and decodes its params into
// dst (unknown fields rejected). Every failure is the same 400, so the
// answer does not tell a forger which check failed.
func (c *Cursors) Decode(kind, s string, dst any) error {
	if len(s) == 0 || len(s) > maxCursorLen {
		return errInvalidCursor()
	}
	raw, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return errInvalidCursor()
	}
	tail := len(tokSigPart) + 2*sigBytes + len(tokSuffix)
	if len(raw) < len(tokPrefix)+tail || !bytes.HasPrefix(raw, []byte(tokPrefix)) || !bytes.HasSuffix(raw, []byte(tokSuffix)) {
		return errInvalidCursor()
	}
	data := raw[len(tokPrefix) : len(raw)-tail]
	sigPart := raw[len(raw)-tail:]
	if !bytes.HasPrefix(sigPart, []byte(tokSigPart)) {
		return errInvalidCursor()
	}
	sig := sigPart[len(tokSigPart) : len(tokSigPart)+2*sigBytes]
	if !hmac.Equal(sig, c.sign(data)) {
		return errInvalidCursor()
	}
	head := dataHead(kind)
	if !bytes.HasPrefix(data, head) || len(data) < len(head)+1 || data[len(data)-1] != '}' {
		return errInvalidCursor()
	}
	dec := json.NewDecoder(bytes.NewReader(data[len(head) : len(data)-1]))
	dec.DisallowUnknownFields()
	if dec.Decode(dst) != nil || dec.More() {
		return errInvalidCursor()
	}
	return nil
}

// Keyset is the cursor of a keyset feed (trades, activity, combo activity,
// prices-history): the seek anchor of the last row served, the page size, the
// display offset of the next page and, where the route has one, the sort
// direction. Filters are deliberately absent: clients re-send them.
type Keyset struct {
	Limit  int32  `json:"l"`
	Offset int32  `json:"d"`
	TS     int64  `json:"ts"`            // primary key of the last row (timestamp, block number)
	Seq    string `json:"sq"`            // tie-break of the last row (decimal; may exceed int64)
	Dir    string `json:"dir,omitempty"` // sort direction, when the route has one
}

// Cohort is the cursor of an offset walk or sort-key walk behind a token
// (positions, combo positions, boards, holders): page size, the next row
// offset (also the display offset), an optional sort-key anchor of the last
// row, and the pinned cohort values (status, sort, window, category, user...).
type Cohort struct {
	Limit  int32             `json:"l"`
	Offset int32             `json:"o"`
	Key    string            `json:"k,omitempty"` // sort-key value of the last row
	Tie    string            `json:"t,omitempty"` // tie-break of the last row
	Pins   map[string]string `json:"p,omitempty"` // parameter → canonical value
}

// Pin records a cohort value the walk was minted under.
func (c *Cohort) Pin(param, value string) {
	if c.Pins == nil {
		c.Pins = map[string]string{}
	}
	c.Pins[param] = value
}

// Bind reconciles a request's value of a pinned parameter with the cursor:
// omitted (given == "") adopts the pinned value; restating the same value is
// fine; a different value is a 400 naming the parameter. Values must be
// canonical (as the handler normalised them) on both sides. A parameter the
// cursor did not pin is taken as given.
func (c Cohort) Bind(param, given string) (string, error) {
	pinned, ok := c.Pins[param]
	switch {
	case !ok || given == pinned:
		return given, nil
	case given == "":
		return pinned, nil
	default:
		return "", Invalidf("cursor", "invalid cursor: %s=%s contradicts the cursor's %s=%s", param, given, param, pinned)
	}
}

// pageInRange is the check every paged cursor passes after decoding: a
// page size in 1..maxLimit and a non-negative offset.
func pageInRange(limit, offset, maxLimit int32) bool {
	return limit > 0 && limit <= maxLimit && offset >= 0
}

// DecodeKeyset decodes and range-checks a keyset cursor.
func (c *Cursors) DecodeKeyset(kind, s string, maxLimit int32) (Keyset, error) {
	var k Keyset
	if err := c.Decode(kind, s, &k); err != nil {
		return k, err
	}
	if !pageInRange(k.Limit, k.Offset, maxLimit) {
		return k, errInvalidCursor()
	}
	return k, nil
}

// DecodeCohort decodes and range-checks a cohort cursor.
func (c *Cursors) DecodeCohort(kind, s string, maxLimit int32) (Cohort, error) {
	var k Cohort
	if err := c.Decode(kind, s, &k); err != nil {
		return k, err
	}
	if !pageInRange(k.Limit, k.Offset, maxLimit) {
		return k, errInvalidCursor()
	}
	return k, nil
}
