package secp

import (
	"testing"

	"github.com/ethereum/go-ethereum/crypto"

	"pmx/internal/cpuclock"
	"pmx/internal/crypto/keccak"
)

// The recovery benchmarks share one signature so that a single run sets
// this build's Recover, the pure-Go backend and go-ethereum's
// crypto.Ecrecover side by side (docs/perf/secp.md). Under CGO_ENABLED=0
// Recover is the pure-Go backend and crypto.Ecrecover is go-ethereum's
// decred fallback.

func benchSig(b *testing.B) ([32]byte, Signature) {
	key := mustKey(b, keyAddrs[0].key)
	digest := keccak.Sum256([]byte("bench"))
	return digest, mustSig(b, key, digest)
}

// BenchmarkRecover is this build's Recover: checks, backend, address hash.
func BenchmarkRecover(b *testing.B) {
	digest, sig := benchSig(b)
	b.ReportAllocs()
	m := cpuclock.Start()
	for b.Loop() {
		if _, err := Recover(digest, sig); err != nil {
			b.Fatal(err)
		}
	}
	m.Report(b)
}

// BenchmarkRecoverPureGo is Recover with the pure-Go backend forced, in
// the same binary as BenchmarkRecover.
func BenchmarkRecoverPureGo(b *testing.B) {
	digest, sig := benchSig(b)
	b.ReportAllocs()
	m := cpuclock.Start()
	for b.Loop() {
		if err := check(&sig); err != nil {
			b.Fatal(err)
		}
		pub, ok := recoverGo(&digest, &sig)
		if !ok {
			b.Fatal("no key")
		}
		_ = rawAddress(pub)
	}
	m.Report(b)
}

// BenchmarkGethEcrecover is the reference: go-ethereum's crypto.Ecrecover
// (public key only, no address hash, no low-S check).
func BenchmarkGethEcrecover(b *testing.B) {
	digest, sig := benchSig(b)
	b.ReportAllocs()
	m := cpuclock.Start()
	for b.Loop() {
		if _, err := crypto.Ecrecover(digest[:], sig[:]); err != nil {
			b.Fatal(err)
		}
	}
	m.Report(b)
}

// BenchmarkGethEcrecoverAddress is the reference doing Recover's whole job:
// crypto.Ecrecover then crypto.Keccak256 of the key.
func BenchmarkGethEcrecoverAddress(b *testing.B) {
	digest, sig := benchSig(b)
	b.ReportAllocs()
	m := cpuclock.Start()
	for b.Loop() {
		pub, err := crypto.Ecrecover(digest[:], sig[:])
		if err != nil {
			b.Fatal(err)
		}
		_ = crypto.Keccak256(pub[1:])[12:]
	}
	m.Report(b)
}

// BenchmarkRecoverParallel is the machine-wide ceiling: recoveries on all
// GOMAXPROCS cores at once (ns/op is wall time per recovery across cores).
func BenchmarkRecoverParallel(b *testing.B) {
	digest, sig := benchSig(b)
	b.ReportAllocs()
	m := cpuclock.Start()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, err := Recover(digest, sig); err != nil {
				b.Error(err)
				return
			}
		}
	})
	m.Report(b)
}
