package clobauth

import (
	"crypto/hmac"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"hash"
	"net/http"
	"net/textproto"
	"strconv"
	"strings"
	"time"

	"pmx/internal/crypto/secp"
)

// ErrL2 is the production text for any L2 failure (401).
var ErrL2 = errors.New("Unauthorized/Invalid api key")

// L2Headers are the raw header values of an L2 request.
type L2Headers struct {
	Address, Signature, Timestamp, APIKey, Passphrase string
}

// L2HeadersFrom reads the L2 headers of a request.
func L2HeadersFrom(h http.Header) L2Headers {
	return L2Headers{
		Address:    Header(h, canonAddress),
		Signature:  Header(h, canonSignature),
		Timestamp:  Header(h, canonTimestamp),
		APIKey:     Header(h, canonAPIKey),
		Passphrase: Header(h, canonPassphrase),
	}
}

// The L2 header names as net/http stores them: Header.Get would
// re-canonicalize each name (the underscore costs an allocation) on every
// request.
var (
	canonAddress    = textproto.CanonicalMIMEHeaderKey(HeaderAddress)
	canonSignature  = textproto.CanonicalMIMEHeaderKey(HeaderSignature)
	canonTimestamp  = textproto.CanonicalMIMEHeaderKey(HeaderTimestamp)
	canonAPIKey     = textproto.CanonicalMIMEHeaderKey(HeaderAPIKey)
	canonPassphrase = textproto.CanonicalMIMEHeaderKey(HeaderPassphrase)
)

// Header is h.Get(name) for a name already in canonical form (see
// textproto.CanonicalMIMEHeaderKey), without canonicalizing it again.
func Header(h http.Header, canonical string) string {
	if v := h[canonical]; len(v) > 0 {
		return v[0]
	}
	return ""
}

// DefaultL2Window bounds |now - POLY_TIMESTAMP| for L2 requests.
const DefaultL2Window = 5 * time.Minute

// VerifyL2 checks an L2 request against the credentials of h.APIKey (looked
// up by the caller; owner is the address the key belongs to): passphrase,
// address, timestamp window and HMAC. There is deliberately no replay check:
// the official client reuses one header set for every page of a paginated
// read. path is the request path without the query string; body is the raw
// request body (nil or empty when there is none). window <= 0 disables the
// timestamp check. Every failure is ErrL2.
func VerifyL2(h L2Headers, creds Creds, owner secp.Address, method, path string, body []byte, now time.Time, window time.Duration) error {
	key, ok := decodeB64(creds.Secret)
	if !ok {
		return ErrL2
	}
	return verifyL2(h, creds, func() *macState { return newMACState(key) }, nil, owner, method, path, body, now, window)
}

// VerifyL2Secret is VerifyL2 with credentials from a SecretCache; the
// HMAC state keyed with the secret is reused across requests.
func VerifyL2Secret(h L2Headers, s *Secret, owner secp.Address, method, path string, body []byte, now time.Time, window time.Duration) error {
	return verifyL2(h, s.Creds, s.mac, s.macs.Put, owner, method, path, body, now, window)
}

// verifyL2 checks h; newMAC returns an HMAC-SHA256 keyed with the secret,
// done (if not nil) takes it back.
func verifyL2(h L2Headers, creds Creds, newMAC func() *macState, done func(any), owner secp.Address, method, path string, body []byte,
	now time.Time, window time.Duration) error {
	if h.APIKey == "" || h.APIKey != creds.APIKey {
		return ErrL2
	}
	if subtle.ConstantTimeCompare([]byte(h.Passphrase), []byte(creds.Passphrase)) != 1 {
		return ErrL2
	}
	addr, err := secp.ParseAddress(h.Address)
	if err != nil || addr != owner {
		return ErrL2
	}
	ts, err := strconv.ParseInt(h.Timestamp, 10, 64)
	if err != nil {
		return ErrL2
	}
	if d := now.Unix() - ts; window > 0 && (d > int64(window/time.Second) || -d > int64(window/time.Second)) {
		return ErrL2
	}
	m := newMAC()
	got, ok := decodeB64To(m.got[:], h.Signature)
	if !ok {
		return ErrL2
	}
	m.h.Reset()
	if n := len(h.Timestamp) + len(method) + len(path); n <= len(m.pre) {
		pre := append(append(append(m.pre[:0], h.Timestamp...), method...), path...)
		upper(pre[len(h.Timestamp) : len(h.Timestamp)+len(method)])
		m.h.Write(pre)
	} else {
		m.h.Write([]byte(h.Timestamp + strings.ToUpper(method) + path))
	}
	m.h.Write(body)
	equal := hmac.Equal(got, m.h.Sum(m.sum[:0]))
	if done != nil {
		done(m)
	}
	if !equal {
		return ErrL2
	}
	return nil
}

// upper is strings.ToUpper for ASCII, in place.
func upper(b []byte) {
	for i, c := range b {
		if c >= 'a' && c <= 'z' {
			b[i] = c - 'a' + 'A'
		}
	}
}

// Sign computes POLY_SIGNATURE for an L2 request, as the official client
// does: URL-safe base64 with padding of HMAC-SHA256(base64decode(secret),
// timestamp + METHOD + path + body).
func Sign(secret, timestamp, method, path string, body []byte) (string, error) {
	key, ok := decodeB64(secret)
	if !ok {
		return "", ErrL2
	}
	return base64.URLEncoding.EncodeToString(mac(key, timestamp, method, path, body)), nil
}

func mac(key []byte, timestamp, method, path string, body []byte) []byte {
	return writeMAC(hmac.New(sha256.New, key), timestamp, method, path, body)
}

// writeMAC resets m and returns its sum over timestamp + METHOD + path + body.
func writeMAC(m hash.Hash, timestamp, method, path string, body []byte) []byte {
	m.Reset()
	var pre [128]byte
	m.Write(append(append(append(pre[:0], timestamp...), strings.ToUpper(method)...), path...))
	m.Write(body)
	return m.Sum(nil)
}

// decodeB64 reads standard or URL-safe base64, padded or not, the way the
// client reads the secret (it maps -_ to +/ and drops other characters; here
// anything outside the alphabet is refused instead, since we issue the
// secrets and a stray character in a signature is an error).
func decodeB64(s string) ([]byte, bool) {
	s = strings.TrimRight(s, "=")
	if s == "" {
		return nil, false
	}
	buf := make([]byte, len(s))
	if !stdAlphabet(buf, s) {
		return nil, false
	}
	b, err := strictRaw.DecodeString(string(buf))
	return b, err == nil
}

var strictRaw = base64.RawStdEncoding.Strict()

// stdAlphabet writes s into dst (len(s) bytes) in the standard alphabet,
// URL-safe -_ mapped to +/; false on any other character (\r and \n
// included, which the decoder would skip).
func stdAlphabet(dst []byte, s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'A' && c <= 'Z', c >= 'a' && c <= 'z', c >= '0' && c <= '9', c == '+', c == '/':
		case c == '-':
			c = '+'
		case c == '_':
			c = '/'
		default:
			return false
		}
		dst[i] = c
	}
	return true
}

// decodeB64To is decodeB64 into dst when the text fits it (no
// allocation), else decodeB64.
func decodeB64To(dst []byte, s string) ([]byte, bool) {
	s = strings.TrimRight(s, "=")
	var buf [88]byte
	if s == "" || len(s) > len(buf) || strictRaw.DecodedLen(len(s)) > len(dst) {
		return decodeB64(s)
	}
	if !stdAlphabet(buf[:len(s)], s) {
		return nil, false
	}
	n, err := strictRaw.Decode(dst, buf[:len(s)])
	return dst[:n], err == nil
}
