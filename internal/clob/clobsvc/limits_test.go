package clobsvc

import "testing"

// TestTierFor: the tier follows the 30-day volume thresholds of the
// contract's table.
func TestTierFor(t *testing.T) {
	for _, tc := range []struct {
		usd  int64
		want string
	}{
		{0, "Standard"}, {29_999, "Standard"}, {30_000, "Copper"}, {50_000, "Bronze"}, {100_000, "Silver"},
		{499_999, "Silver"}, {500_000, "Gold"}, {2_500_000, "Platinum"}, {5_000_000, "Diamond"}, {10_000_000, "Elite"},
		{1 << 40, "Elite"},
	} {
		if got := Tiers[TierFor(tc.usd*1_000_000)].Name; got != tc.want {
			t.Errorf("%d USD: %s, want %s", tc.usd, got, tc.want)
		}
	}
}
