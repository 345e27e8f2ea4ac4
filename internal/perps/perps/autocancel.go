package perps

// Auto-cancel (dead man's switch, interface.md "Auto-cancel arming";
// perps.md §5): an account arms a deadline at least 5 s ahead; when the
// service's clock passes it, the service submits KAutoCancelFire, which
// cancels every open order of every due account with status auto_cancelled
// and disarms. Disarming (deadline 0) is always allowed. Each trigger counts
// against the account's limit per UTC day, which the arming command carries
// (so a replay applies the limit that was in force).
//
// The trigger is one command, so no trigger is ever "still cancelling" when
// the next arming is applied: auto_cancel_in_flight is never answered.
const (
	KAutoCancel     = "autoCancel"
	KAutoCancelFire = "autoCancelFire"

	tDeadline   = 41
	tDailyLimit = 42

	// AutoCancelMinAheadMs is the shortest deadline accepted.
	AutoCancelMinAheadMs = 5000
	// DefaultAutoCancelDaily is the triggers allowed per account per UTC day.
	DefaultAutoCancelDaily = 1000
)

const dayMs = 86_400_000

func (m *Machine) armAutoCancel(c *Command, ts int64, ev *Event) {
	if c.Account == "" || c.Deadline < 0 {
		ev.Err = "invalid_command"
		return
	}
	a := m.account(c.Account, ts)
	if c.Deadline == 0 {
		a.AutoCancel = 0
		return
	}
	if c.Deadline < ts+AutoCancelMinAheadMs {
		ev.Err = "auto_cancel_deadline_too_soon"
		return
	}
	limit := c.DailyLimit
	if limit <= 0 {
		limit = DefaultAutoCancelDaily
	}
	if a.ACDay == ts/dayMs && a.ACCount >= limit {
		ev.Err = "auto_cancel_daily_limit_reached"
		return
	}
	a.AutoCancel = c.Deadline
	ev.Deadline = c.Deadline
}

// NextAutoCancel is the earliest armed deadline (0: none).
func (m *Machine) NextAutoCancel() int64 {
	var next int64
	for _, a := range m.accts {
		if a.AutoCancel > 0 && (next == 0 || a.AutoCancel < next) {
			next = a.AutoCancel
		}
	}
	return next
}

func (m *Machine) fireAutoCancels(ts int64, ev *Event) {
	m.cancelSt = StAutoCancelled
	defer func() { m.cancelSt = "" }()
	for aid := uint64(1); aid < m.nextAcct; aid++ { // account id order: deterministic
		a := m.byID[aid]
		if a == nil || a.AutoCancel == 0 || a.AutoCancel > ts {
			continue
		}
		for _, oid := range m.sortedOpen(a) {
			m.cancelOne(a, oid, ts, ev)
		}
		a.AutoCancel = 0
		if day := ts / dayMs; a.ACDay != day {
			a.ACDay, a.ACCount = day, 0
		}
		a.ACCount++
	}
}
