package main

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/decred/dcrd/dcrec/secp256k1/v4"
	"github.com/decred/dcrd/dcrec/secp256k1/v4/ecdsa"

	"pmx/internal/crypto/keccak"
)

// clobWallet signs CLOB requests as the official clients do (L1 ClobAuth,
// L2 HMAC, V1 orders), independently of the server's verifier.
type clobWallet struct {
	priv            *secp256k1.PrivateKey
	addr            string
	raw             []byte
	key, secret, pp string
	url             string
}

func kc(parts ...[]byte) []byte { h := keccak.Sum256(parts...); return h[:] }

func w32(v uint64) []byte {
	var w [32]byte
	binary.BigEndian.PutUint64(w[24:], v)
	return w[:]
}

func sigHex(priv *secp256k1.PrivateKey, digest []byte) string {
	c := ecdsa.SignCompact(priv, digest, false)
	return "0x" + hex.EncodeToString(append(append([]byte{}, c[1:]...), c[0]))
}

func newClobWallet(t *testing.T, privHex, url string) *clobWallet {
	b, _ := hex.DecodeString(privHex)
	k := secp256k1.PrivKeyFromBytes(b)
	pub := k.PubKey().SerializeUncompressed()
	a := kc(pub[1:])[12:]
	w := &clobWallet{priv: k, addr: "0x" + hex.EncodeToString(a), raw: a, url: url}
	ts := strconv.FormatInt(time.Now().Unix(), 10)
	dom := kc(kc([]byte("EIP712Domain(string name,string version,uint256 chainId)")), kc([]byte("ClobAuthDomain")), kc([]byte("1")), w32(137))
	sh := kc(kc([]byte("ClobAuth(address address,string timestamp,uint256 nonce,string message)")), append(make([]byte, 12), a...),
		kc([]byte(ts)), w32(0), kc([]byte("This message attests that I control the given wallet")))
	req, _ := http.NewRequest("POST", url+"/auth/api-key", nil)
	req.Header.Set("POLY_ADDRESS", w.addr)
	req.Header.Set("POLY_SIGNATURE", sigHex(k, kc([]byte{0x19, 0x01}, dom, sh)))
	req.Header.Set("POLY_TIMESTAMP", ts)
	req.Header.Set("POLY_NONCE", "0")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var c struct{ APIKey, Secret, Passphrase string }
	if err := json.NewDecoder(resp.Body).Decode(&c); err != nil || c.APIKey == "" {
		t.Fatalf("api key: %d %v", resp.StatusCode, err)
	}
	w.key, w.secret, w.pp = c.APIKey, c.Secret, c.Passphrase
	return w
}

// call sends an L2 request; the status is 0 when the server is gone.
func (w *clobWallet) call(method, path, body string) (int, []byte) {
	p, _, _ := strings.Cut(path, "?")
	ts := strconv.FormatInt(time.Now().Unix(), 10)
	secret, _ := base64.URLEncoding.DecodeString(w.secret)
	m := hmac.New(sha256.New, secret)
	io.WriteString(m, ts+method+p+body)
	req, _ := http.NewRequest(method, w.url+path, strings.NewReader(body))
	req.Header.Set("POLY_ADDRESS", w.addr)
	req.Header.Set("POLY_SIGNATURE", base64.URLEncoding.EncodeToString(m.Sum(nil)))
	req.Header.Set("POLY_TIMESTAMP", ts)
	req.Header.Set("POLY_API_KEY", w.key)
	req.Header.Set("POLY_PASSPHRASE", w.pp)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, nil
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b
}

var clobSalt atomic.Int64

// order is a signed V1 GTC order body: size micro-shares at price micro.
func (w *clobWallet) order(token, side string, price, size int64, negRisk bool) string {
	maker, taker := size*price/1_000_000, size
	s := uint64(0)
	if side == "SELL" {
		maker, taker, s = size, size*price/1_000_000, 1
	}
	salt := 1000 + clobSalt.Add(1)
	tok, _ := new(big.Int).SetString(token, 10)
	var tw [32]byte
	tok.FillBytes(tw[:])
	addrW := func(a []byte) []byte { return append(make([]byte, 12), a...) }
	ex := "4bFb41d5B3570DeFd03C39a9A4D8dE6Bd8B8982E"
	if negRisk {
		ex = "C5d563A36AE78145C45a50134d48A1215220f80a"
	}
	exB, _ := hex.DecodeString(ex)
	dom := kc(kc([]byte("EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)")),
		kc([]byte("Polymarket CTF Exchange")), kc([]byte("1")), w32(137), addrW(exB))
	sh := kc(kc([]byte("Order(uint256 salt,address maker,address signer,address taker,uint256 tokenId,uint256 makerAmount,uint256 takerAmount,uint256 expiration,uint256 nonce,uint256 feeRateBps,uint8 side,uint8 signatureType)")),
		w32(uint64(salt)), addrW(w.raw), addrW(w.raw), make([]byte, 32), tw[:], w32(uint64(maker)), w32(uint64(taker)),
		make([]byte, 32), make([]byte, 32), make([]byte, 32), w32(s), make([]byte, 32))
	o := map[string]any{"salt": salt, "maker": w.addr, "signer": w.addr, "taker": "0x0000000000000000000000000000000000000000",
		"tokenId": token, "makerAmount": strconv.FormatInt(maker, 10), "takerAmount": strconv.FormatInt(taker, 10), "side": side,
		"expiration": "0", "nonce": "0", "feeRateBps": "0", "signatureType": 0, "signature": sigHex(w.priv, kc([]byte{0x19, 0x01}, dom, sh))}
	b, _ := json.Marshal(map[string]any{"order": o, "owner": w.key, "orderType": "GTC"})
	return string(b)
}

// clobTxs is every transaction hash of the wallet's trades on the CLOB.
func (w *clobWallet) clobTxs(t *testing.T) map[string]bool {
	out := map[string]bool{}
	cursor := ""
	for cursor != "LTE=" {
		st, body := w.call("GET", "/data/trades?next_cursor="+cursor, "")
		var p struct {
			Data []struct {
				TX string `json:"transaction_hash"`
			} `json:"data"`
			Next string `json:"next_cursor"`
		}
		if st != 200 || json.Unmarshal(body, &p) != nil {
			t.Fatalf("CLOB trades: %d %s", st, body)
		}
		for _, d := range p.Data {
			out[d.TX] = true
		}
		cursor = p.Next
	}
	return out
}

// dataTxs is every transaction hash of the wallet's /v2/trades rows.
func dataTxs(t *testing.T, dataURL, user string) map[string]bool {
	out := map[string]bool{}
	cursor := ""
	for {
		url := dataURL + "/v2/trades?taker_only=false&limit=500&user=" + user
		if cursor != "" {
			url += "&cursor=" + cursor
		}
		st, body := get(t, url)
		var p struct {
			Data []struct {
				TX string `json:"transaction_hash"`
			} `json:"data"`
			Pagination struct {
				Next *string `json:"next_cursor"`
			} `json:"pagination"`
		}
		if st != 200 || json.Unmarshal([]byte(body), &p) != nil {
			t.Fatalf("data trades: %d %s", st, body)
		}
		for _, d := range p.Data {
			out[d.TX] = true
		}
		if p.Pagination.Next == nil || *p.Pagination.Next == "" {
			return out
		}
		cursor = *p.Pagination.Next
	}
}

// TestCLOBAndDataStoreAgreeAfterSIGKILL: pmx serve is SIGKILLed while two
// wallets trade on the CLOB (four writers); after a restart the data
// service's trades of each wallet are exactly the CLOB's (by transaction
// hash: no trade in one and not the other), and every trade the CLOB
// acknowledged before the kill is in both.
func TestCLOBAndDataStoreAgreeAfterSIGKILL(t *testing.T) {
	dir := t.TempDir()
	args := []string{"--data-dir", dir, "--demo-scale", "0.02", "--demo-market-makers=false", "--ip-limits=false", "--clob-rate-limits=off"}
	urls, cmd := startServe(t, args...)
	var market struct {
		Cond    string `json:"condition_id"`
		NegRisk bool   `json:"neg_risk"`
		Tokens  []struct {
			ID string `json:"token_id"`
		} `json:"tokens"`
		Min json.Number `json:"minimum_order_size"`
	}
	var page struct {
		Data []json.RawMessage `json:"data"`
	}
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		_, body := get(t, urls["clob"]+"/sampling-markets")
		if json.Unmarshal([]byte(body), &page) == nil && len(page.Data) > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no accepting CLOB market: %s", body)
		}
	}
	if err := json.Unmarshal(page.Data[0], &market); err != nil || len(market.Tokens) != 2 {
		t.Fatalf("market: %v %s", err, page.Data[0])
	}
	minSize, _ := strconv.ParseFloat(string(market.Min), 64)
	size := int64(minSize+1) * 1_000_000
	ws := []*clobWallet{
		newClobWallet(t, "ac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80", urls["clob"]),
		newClobWallet(t, "59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d", urls["clob"]),
	}
	for _, w := range ws {
		for _, a := range [][]string{{"clob", "deposit", "--address", w.addr, "--amount", "1000000"},
			{"clob", "split", "--address", w.addr, "--market", market.Cond, "--amount", "100000"}} {
			if out, err := pmxAdmin(urls["admin"], dir, a...); err != nil {
				t.Fatalf("pmx admin %v: %v %s", a, err, out)
			}
		}
	}

	// Four writers: wallet 0 buys and wallet 1 sells the first outcome at
	// 0.50, so most orders trade; the server is killed at the 60th
	// acknowledgement, the writers stop when it is gone.
	var mu sync.Mutex
	acked := map[string]bool{} // transaction hashes in order answers
	var n atomic.Int64
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w, side := ws[g%2], []string{"BUY", "SELL"}[g%2]
			for {
				st, body := w.call("POST", "/order", w.order(market.Tokens[0].ID, side, 500_000, size, market.NegRisk))
				if st == 0 || st >= 500 {
					return
				}
				var o struct {
					TX []string `json:"transactionsHashes"`
				}
				if st == 200 && json.Unmarshal(body, &o) == nil {
					mu.Lock()
					for _, tx := range o.TX {
						acked[tx] = true
					}
					mu.Unlock()
					if n.Add(1) == 60 {
						_ = cmd.Process.Signal(syscall.SIGKILL)
					}
				}
			}
		}()
	}
	wg.Wait()
	_ = cmd.Wait()
	if len(acked) == 0 {
		t.Fatal("no trade acknowledged before the kill")
	}

	urls, _ = startServe(t, args...)
	for _, w := range ws {
		w.url = urls["clob"]
		clobSet := w.clobTxs(t)
		for tx := range acked {
			if !clobSet[tx] {
				t.Fatalf("acknowledged trade %s missing from the CLOB after the restart", tx)
			}
		}
		var diff string
		for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
			dataSet := dataTxs(t, urls["data"], w.addr)
			diff = ""
			for tx := range clobSet {
				if !dataSet[tx] {
					diff += fmt.Sprintf(" CLOB-only %s", tx)
				}
			}
			for tx := range dataSet {
				if !clobSet[tx] {
					diff += fmt.Sprintf(" data-only %s", tx)
				}
			}
			if diff == "" {
				break
			}
		}
		if diff != "" {
			t.Fatalf("%s: %d CLOB trades; differences:%s", w.addr, len(clobSet), diff)
		}
		t.Logf("%s: %d trades agree (%d acknowledged before the kill)", w.addr, len(clobSet), len(acked))
	}
}
