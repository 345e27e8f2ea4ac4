//go:build !cgo

package secp

import "testing"

// maxRecoverAllocs: decred allocates the key, its serialisation and
// intermediate values.
const maxRecoverAllocs = 20

// CGO_ENABLED=0 builds must recover with decred.
func TestBackendIsPureGoWithoutCgo(t *testing.T) {
	if Backend != "decred (pure Go)" {
		t.Fatalf("Backend = %q", Backend)
	}
}
