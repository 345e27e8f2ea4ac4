package chain

import (
	"math"
	"testing"
)

func TestHeight(t *testing.T) {
	p := Params{Genesis: 1000, BlockTime: 2000, Confirmations: 3}
	for _, c := range []struct {
		p    Params
		t    int64
		want int64
	}{
		{p, math.MinInt64, 0},
		{p, 999, 0},
		{p, 1000, 0},
		{p, 2999, 0},
		{p, 3000, 1},
		{p, 7000, 3},
		{p, math.MaxInt64, (math.MaxInt64 - 1000) / 2000},
		{Params{Genesis: math.MinInt64, BlockTime: 1}, math.MaxInt64, math.MaxInt64}, // a difference past int64 saturates
		{Params{}, 4000, 2}, // zero BlockTime: the 2 s default
	} {
		if got := c.p.Height(c.t); got != c.want {
			t.Errorf("%+v Height(%d) = %d, want %d", c.p, c.t, got, c.want)
		}
	}
}

func TestTime(t *testing.T) {
	for _, c := range []struct {
		p    Params
		h    int64
		want int64
	}{
		{Params{Genesis: 1000, BlockTime: 2000}, -5, 1000},
		{Params{Genesis: 1000, BlockTime: 2000}, 0, 1000},
		{Params{Genesis: 1000, BlockTime: 2000}, 3, 7000},
		{Params{Genesis: 1000, BlockTime: 2000}, math.MaxInt64, math.MaxInt64},
		{Params{Genesis: math.MaxInt64 - 10, BlockTime: 20}, 1, math.MaxInt64},
		{Params{Genesis: -100, BlockTime: 20}, 2, -60},
		{Params{Genesis: math.MinInt64, BlockTime: 1}, math.MaxInt64, -1},
		{Params{Genesis: -10, BlockTime: math.MaxInt64}, 1, math.MaxInt64 - 10},
		{Params{Genesis: -10, BlockTime: math.MaxInt64 / 2}, 3, math.MaxInt64},
	} {
		if got := c.p.Time(c.h); got != c.want {
			t.Errorf("%+v Time(%d) = %d, want %d", c.p, c.h, got, c.want)
		}
	}
}

func TestConfirmationsAndStatus(t *testing.T) {
	p := Params{BlockTime: 2000, Confirmations: 3}
	for _, c := range []struct {
		sent, now int64
		conf      int64
		st        Status
	}{
		{1000, 500, 0, Pending},    // a clock before the send counts nothing
		{1000, 1000, 0, Pending},   // just sent
		{1000, 1999, 0, Pending},   // the next block is at 2000
		{1000, 2000, 1, Mined},     // in block 1
		{2000, 2000, 0, Pending},   // sent at a block's instant: the next block
		{2000, 4000, 1, Mined},     // block 2 includes it
		{1000, 5999, 2, Mined},     // two deep
		{1000, 6000, 3, Confirmed}, // the third block confirms
		{1000, math.MaxInt64, math.MaxInt64 / 2000, Confirmed},
		{math.MinInt64, math.MaxInt64, math.MaxInt64 / 2000, Confirmed}, // before genesis counts from genesis
	} {
		if got := p.Depth(c.sent, c.now); got != c.conf {
			t.Errorf("Depth(%d, %d) = %d, want %d", c.sent, c.now, got, c.conf)
		}
		if got := p.Status(c.sent, c.now); got != c.st {
			t.Errorf("Status(%d, %d) = %v, want %v", c.sent, c.now, got, c.st)
		}
	}
}

func TestMinedAtConfirmedAt(t *testing.T) {
	for _, c := range []struct {
		p               Params
		sent            int64
		mined, confirmd int64
	}{
		{Params{BlockTime: 2000, Confirmations: 3}, 1000, 2000, 6000},
		{Params{BlockTime: 2000, Confirmations: 3}, 2000, 4000, 8000},
		{Params{BlockTime: 2000, Confirmations: 1}, 2000, 4000, 4000},
		{Params{}, 0, 2000, 6000}, // the defaults
		{Params{BlockTime: 1, Confirmations: 3}, math.MaxInt64 - 1, math.MaxInt64, math.MaxInt64},
		{Params{BlockTime: 1, Confirmations: math.MaxInt64}, 5, 6, math.MaxInt64},
	} {
		if got := c.p.MinedAt(c.sent); got != c.mined {
			t.Errorf("%+v MinedAt(%d) = %d, want %d", c.p, c.sent, got, c.mined)
		}
		if got := c.p.ConfirmedAt(c.sent); got != c.confirmd {
			t.Errorf("%+v ConfirmedAt(%d) = %d, want %d", c.p, c.sent, got, c.confirmd)
		}
		// The statuses agree with the instants.
		if c.mined < math.MaxInt64 && (c.p.Status(c.sent, c.mined-1) != Pending || c.p.Status(c.sent, c.mined) == Pending) {
			t.Errorf("%+v: status around MinedAt", c.p)
		}
		if c.confirmd < math.MaxInt64 && (c.p.Status(c.sent, c.confirmd-1) == Confirmed || c.p.Status(c.sent, c.confirmd) != Confirmed) {
			t.Errorf("%+v: status around ConfirmedAt", c.p)
		}
	}
}

func TestStatusString(t *testing.T) {
	for s, want := range map[Status]string{Pending: "pending", Mined: "mined", Confirmed: "confirmed"} {
		if s.String() != want {
			t.Errorf("%d: %q", s, s.String())
		}
	}
}
