package secp

import (
	"encoding/binary"
	"unsafe"

	"github.com/decred/dcrd/dcrec/secp256k1/v4"
)

// Key is a known signer's public key with a table of its multiples, so that
// "did this key sign this digest?" costs about half of a recovery. Recovery
// multiplies a point never seen before (R, from the signature); here the
// variable point is the key itself, and its multiples are computed once.
//
// A Key only ever says yes when Recover would return its address (see
// Signed), so callers use it as a shortcut in front of Recover, never instead
// of it: a wrong table could only make the shortcut miss.
type Key struct {
	addr Address
	// tab[i][j] = (j+1) · 2^(keyWindow·i) · Q, affine. Signed digits of
	// keyWindow bits need multiples 1..keyDigits, negated for negative digits.
	tab [keyWindows][keyDigits]affine
}

const (
	keyWindow  = 6
	keyDigits  = 1 << (keyWindow - 1)          // 32: a digit is in [-31, 32]
	keyWindows = (256 + keyWindow) / keyWindow // 43: 256 bits and a final carry
)

// affine is a point with z = 1 (normalized field values).
type affine struct{ x, y secp256k1.FieldVal }

// KeyTableBytes is the memory one Key holds (for sizing caches).
const KeyTableBytes = keyWindows * keyDigits * int(unsafe.Sizeof(affine{}))

// NewKey builds the table for pub (about ten recoveries' worth of work).
func NewKey(pub *secp256k1.PublicKey) *Key {
	k := &Key{addr: PubkeyAddress(pub)}
	jac := make([]secp256k1.JacobianPoint, keyWindows*keyDigits)
	var base secp256k1.JacobianPoint
	pub.AsJacobian(&base)
	for i := range keyWindows {
		row := jac[i*keyDigits : (i+1)*keyDigits]
		row[0] = base
		for j := 1; j < keyDigits; j++ {
			secp256k1.AddNonConst(&row[j-1], &base, &row[j])
		}
		secp256k1.DoubleNonConst(&row[keyDigits-1], &base) // 2·32 = 64 = 2^keyWindow
	}
	// Montgomery's trick: one field inversion for all the z values. No
	// entry is infinity: (j+1)·2^(6i) is never a multiple of the prime n.
	prefix := make([]secp256k1.FieldVal, len(jac))
	var acc secp256k1.FieldVal
	acc.SetInt(1)
	for i := range jac {
		prefix[i] = acc
		acc.Mul(&jac[i].Z).Normalize()
	}
	acc.Inverse() // 1 / (z0·z1·…·zn-1)
	for i := len(jac) - 1; i >= 0; i-- {
		var zinv, zinv2 secp256k1.FieldVal
		zinv.Mul2(&acc, &prefix[i]).Normalize() // 1/zi
		acc.Mul(&jac[i].Z).Normalize()          // 1/(z0…zi-1)
		zinv2.SquareVal(&zinv)
		a := &k.tab[i/keyDigits][i%keyDigits]
		a.x.Mul2(&jac[i].X, &zinv2).Normalize()
		a.y.Mul2(&jac[i].Y, zinv2.Mul(&zinv)).Normalize()
	}
	return k
}

// Address is the key's Ethereum address.
func (k *Key) Address() Address { return k.addr }

// Signed reports whether sig over digest is this key's signature in the exact
// form Recover accepts: it is true only if Recover(digest, sig) returns
// k.Address(). False means "not shown here", not "invalid": the caller
// recovers.
//
// Why true implies Recover's answer: Recover takes R = the curve point with
// x = r and y of parity v, and returns r⁻¹(s·R − e·G). Here we compute
// R' = (e/s)·G + (r/s)·Q and require x(R') = r and parity(y(R')) = v, i.e.
// R' = R; then r⁻¹(s·R − e·G) = r⁻¹(e·G + r·Q − e·G) = Q.
func (k *Key) Signed(digest [32]byte, sig Signature) bool {
	if sig[64] > 1 {
		return false
	}
	var r, s, e, w, u1, u2 secp256k1.ModNScalar
	if r.SetByteSlice(sig[:32]) || r.IsZero() {
		return false
	}
	if s.SetByteSlice(sig[32:64]) || s.IsZero() || s.IsOverHalfOrder() {
		return false
	}
	e.SetByteSlice(digest[:])
	w.InverseValNonConst(&s)
	u1.Mul2(&e, &w)
	u2.Mul2(&r, &w)
	var p1, p2 secp256k1.JacobianPoint
	secp256k1.ScalarBaseMultNonConst(&u1, &p1)
	k.mul(&u2, &p2)
	secp256k1.AddNonConst(&p1, &p2, &p1)
	if p1.Z.IsZero() || (p1.X.IsZero() && p1.Y.IsZero()) {
		return false
	}
	p1.ToAffine()
	var rx secp256k1.FieldVal
	rx.SetByteSlice(sig[:32]) // r < n < p: no reduction
	return p1.X.Equals(&rx) && p1.Y.IsOdd() == (sig[64] == 1)
}

// mul sets result = u·Q from the table: one mixed addition per non-zero
// signed digit, no doublings.
func (k *Key) mul(u *secp256k1.ModNScalar, result *secp256k1.JacobianPoint) {
	var digits [keyWindows]int8
	recode(u.Bytes(), &digits)
	result.X.Zero()
	result.Y.Zero()
	result.Z.Zero()
	var pt secp256k1.JacobianPoint
	pt.Z.SetInt(1)
	for i, d := range digits {
		switch {
		case d > 0:
			a := &k.tab[i][d-1]
			pt.X, pt.Y = a.x, a.y
		case d < 0:
			a := &k.tab[i][-d-1]
			pt.X = a.x
			pt.Y.NegateVal(&a.y, 1).Normalize()
		default:
			continue
		}
		secp256k1.AddNonConst(result, &pt, result)
	}
}

// recode writes u (big-endian, < 2^256) as signed digits d[i] in [-31, 32]
// with u = Σ d[i]·2^(6i). A window above 32 borrows 64 from the next.
func recode(u [32]byte, d *[keyWindows]int8) {
	var limb [5]uint64 // little-endian, plus a zero limb for the last window
	for i := range 4 {
		limb[i] = binary.BigEndian.Uint64(u[24-8*i:])
	}
	carry := uint64(0)
	for i := range keyWindows {
		bit := uint(i * keyWindow)
		v := limb[bit/64] >> (bit % 64)
		if bit%64 > 64-keyWindow {
			v |= limb[bit/64+1] << (64 - bit%64)
		}
		v = v&(1<<keyWindow-1) + carry
		carry = 0
		if v > keyDigits {
			d[i] = int8(int(v) - 1<<keyWindow)
			carry = 1
		} else {
			d[i] = int8(v)
		}
	}
}
