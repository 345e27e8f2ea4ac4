package clobhttp_test

// Test helpers. The L1 signer and the L2 HMAC here share no code with the
// verifier (only the Keccak primitive and decred's signing), so a bug in
// clobauth's hashing cannot cancel out.

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"database/sql"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/decred/dcrd/dcrec/secp256k1/v4"
	"github.com/decred/dcrd/dcrec/secp256k1/v4/ecdsa"
	"golang.org/x/crypto/sha3"

	"pmx/internal/clob/clob"
	"pmx/internal/clob/clobhttp"
	"pmx/internal/clob/clobsql"

	"pmx/internal/data/sqlite"
	"pmx/internal/pgsql/pgtest"
)

func kec(parts ...[]byte) []byte {
	h := sha3.NewLegacyKeccak256()
	for _, p := range parts {
		h.Write(p)
	}
	return h.Sum(nil)
}

func word(v uint64) []byte {
	var w [32]byte
	binary.BigEndian.PutUint64(w[24:], v)
	return w[:]
}

type wallet struct {
	priv *secp256k1.PrivateKey
	addr string // lower-case 0x hex
	raw  []byte
}

func newWallet(t testing.TB, privHex string) wallet {
	b, err := hex.DecodeString(privHex)
	if err != nil {
		t.Fatal(err)
	}
	k := secp256k1.PrivKeyFromBytes(b)
	pub := k.PubKey().SerializeUncompressed()
	a := kec(pub[1:])[12:]
	return wallet{priv: k, addr: "0x" + hex.EncodeToString(a), raw: a}
}

// Hardhat/Anvil accounts #0 and #1.
const (
	priv0 = "ac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80"
	priv1 = "59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d"
	priv2 = "5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a"
)

// clobAuthDigest is the ClobAuth EIP-712 digest (domain ClobAuthDomain, v1).
func clobAuthDigest(chain uint64, addr []byte, ts string, nonce uint64) []byte {
	dom := kec(kec([]byte("EIP712Domain(string name,string version,uint256 chainId)")),
		kec([]byte("ClobAuthDomain")), kec([]byte("1")), word(chain))
	sh := kec(kec([]byte("ClobAuth(address address,string timestamp,uint256 nonce,string message)")),
		append(make([]byte, 12), addr...), kec([]byte(ts)), word(nonce),
		kec([]byte("This message attests that I control the given wallet")))
	return kec([]byte{0x19, 0x01}, dom, sh)
}

// l1 returns L1 headers signed by w for (ts, nonce) on chain 137.
func (w wallet) l1(ts int64, nonce uint64) http.Header {
	tss := strconv.FormatInt(ts, 10)
	c := ecdsa.SignCompact(w.priv, clobAuthDigest(137, w.raw, tss, nonce), false)
	sig := "0x" + hex.EncodeToString(append(append([]byte{}, c[1:]...), c[0]))
	h := http.Header{}
	h.Set("POLY_ADDRESS", w.addr)
	h.Set("POLY_SIGNATURE", sig)
	h.Set("POLY_TIMESTAMP", tss)
	h.Set("POLY_NONCE", strconv.FormatUint(nonce, 10))
	return h
}

type creds struct {
	APIKey     string `json:"apiKey"`
	Secret     string `json:"secret"`
	Passphrase string `json:"passphrase"`
}

// l2 returns L2 headers as the official client builds them: URL-safe
// base64 (padded) HMAC-SHA256 of ts+METHOD+path+body under the decoded secret.
func l2(addr string, c creds, ts int64, method, path, body string) http.Header {
	return l2ts(addr, c, strconv.FormatInt(ts, 10), method, path, body, nil)
}

// l2ts is l2 with the timestamp as a raw header string; into, if not nil,
// receives the headers.
func l2ts(addr string, c creds, tss, method, path, body string, into http.Header) http.Header {
	key, err := base64.URLEncoding.DecodeString(c.Secret)
	if err != nil {
		panic(err)
	}
	m := hmac.New(sha256.New, key)
	io.WriteString(m, tss+method+path+body)
	h := into
	if h == nil {
		h = http.Header{}
	}
	h.Set("POLY_ADDRESS", addr)
	h.Set("POLY_SIGNATURE", base64.URLEncoding.EncodeToString(m.Sum(nil)))
	h.Set("POLY_TIMESTAMP", tss)
	h.Set("POLY_API_KEY", c.APIKey)
	h.Set("POLY_PASSPHRASE", c.Passphrase)
	return h
}

// fixedClock is a settable clock.
type fixedClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fixedClock) Now() time.Time  { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *fixedClock) set(t time.Time) { c.mu.Lock(); c.t = t; c.mu.Unlock() }

const now0 = 1_800_000_000 // the tests' wall clock, Unix seconds

type env struct {
	srv   *httptest.Server
	clock *fixedClock
	h     *clobhttp.Handler
}

func openDB(t testing.TB) *sql.DB {
	t.Helper()
	// The pool pmx serve opens (cmd/pmx openStores), so tests run the
	// production connection settings.
	if pgtest.Store() == "postgres" { // the same suite on PostgreSQL (scripts/test.sh)
		return pgtest.SQL(t, 4)
	}
	db, err := sqlite.OpenPool(filepath.Join(t.TempDir(), "pmx.db"), 4)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func newEnv(t testing.TB) *env {
	t.Helper()
	return newEnvWith(t, newStore(t))
}

func newStore(t testing.TB) *clobsql.Store {
	t.Helper()
	st, err := clobsql.New(context.Background(), openDB(t))
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// newEnvWith serves a handler over st.
func newEnvWith(t testing.TB, st clob.Store) *env {
	t.Helper()
	clk := &fixedClock{t: time.Unix(now0, 0)}
	h, err := clobhttp.New(clobhttp.Options{Store: st, MasterKey: []byte(strings.Repeat("k", 32)), Clock: clk})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return &env{srv: srv, clock: clk, h: h}
}

type reply struct {
	status int
	body   []byte
	header http.Header
}

func (e *env) do(t testing.TB, method, path string, h http.Header, body string) reply {
	t.Helper()
	req, err := http.NewRequest(method, e.srv.URL+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range h {
		req.Header[k] = v
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return reply{status: res.StatusCode, body: b, header: res.Header}
}

// wantError asserts the CLOB error body {"error": msg} with status.
func (r reply) wantError(t testing.TB, status int, msg string) {
	t.Helper()
	var got map[string]any
	if err := json.Unmarshal(r.body, &got); err != nil {
		t.Fatalf("status %d body %q: %v", r.status, r.body, err)
	}
	if r.status != status || len(got) != 1 || got["error"] != msg {
		t.Fatalf("got %d %s, want %d {\"error\":%q}", r.status, r.body, status, msg)
	}
}

func (r reply) creds(t testing.TB) creds {
	t.Helper()
	if r.status != http.StatusOK {
		t.Fatalf("status %d: %s", r.status, r.body)
	}
	var c creds
	dec := json.NewDecoder(strings.NewReader(string(r.body)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&c); err != nil {
		t.Fatalf("%s: %v", r.body, err)
	}
	return c
}

func msg(c clob.Code) string { return clob.Catalogue[c].Msg }
