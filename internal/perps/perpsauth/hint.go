package perpsauth

// Hint is a connection's signer hint, and it carries nothing: every signer
// is recovered.
//
// It used to hold a precomputed table of the connection's repeat signer's
// key, checked in about half the time of decred's pure-Go recovery. With
// libsecp256k1 recovery (the default build, docs/signing.md) recovering is
// faster than that check was (docs/perf/secp.md: ~55 µs against ~85 µs of
// CPU in the same run), so the table was removed, and with it the per-key
// memory and the "who signs here" state. The type and VerifyOpHint remain
// so that perpshttp's per-connection plumbing compiles unchanged until it is
// dropped; a nil or zero Hint behaves the same.
type Hint struct{}
