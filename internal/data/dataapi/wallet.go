package dataapi

import (
	"cmp"
	"net/http"
	"strconv"
	"strings"
	"time"

	"pmx/internal/data/store"
)

// Page-size rules shared by the paged routes.
const (
	defaultLimit int32 = 100
	maxLimit     int32 = 1000
	maxTitleLen        = 200
	// syncLag caps the upper watermark of combo-position sync (seconds).
	syncLag = 90
)

// sortedCursor is the cursor of a sort-key walk (positions, combo
// positions): page size, display offset, the last row's sort tuple, and the
// cohort the walk was minted under.
type sortedCursor[K any] struct {
	Limit  int32             `json:"l"`
	Offset int32             `json:"d"`
	After  K                 `json:"a"`
	Pins   map[string]string `json:"p"`
}

// sortedWalk returns the page size, display offset and seek key of a
// sort-key walk: from the cursor, after binding the request's values to its
// pins, or else from limit (offset 0, no key).
func sortedWalk[K any](s *Service, q *Query, kind string, pins map[string]*string) (limit, offset int32, after *K, err error) {
	c, err := q.Cursor()
	if err != nil {
		return 0, 0, nil, err
	}
	if c == "" {
		limit, err = q.Limit(defaultLimit, maxLimit)
		return limit, 0, nil, err
	}
	var cur sortedCursor[K]
	if err := s.cursors.Decode(kind, c, &cur); err != nil {
		return 0, 0, nil, err
	}
	if !pageInRange(cur.Limit, cur.Offset, maxLimit) {
		return 0, 0, nil, errInvalidCursor()
	}
	if err := bindPins(cur.Pins, pins); err != nil {
		return 0, 0, nil, err
	}
	return cur.Limit, cur.Offset, &cur.After, nil
}

// nextSorted mints the next page's cursor from the last row's sort key,
// pinning the walk's cohort; "" on the last page.
func nextSorted[R, K any](s *Service, kind string, page store.Page[R, K], limit, offset int32, pins map[string]string) (string, error) {
	if !page.HasMore || page.Next == nil {
		return "", nil
	}
	next, err := s.cursors.Encode(kind, sortedCursor[K]{
		Limit: limit, Offset: offset + int32(len(page.Rows)), After: *page.Next, Pins: pins})
	if err != nil {
		return "", Internal(err)
	}
	return next, nil
}

// bind reconciles each (param, value) the request gave with the cursor's
// pins (see Cohort.Bind) and returns the values to use.
func bindPins(pins map[string]string, given map[string]*string) error {
	c := Cohort{Pins: pins}
	for param, v := range given {
		got, err := c.Bind(param, *v)
		if err != nil {
			return err
		}
		*v = got
	}
	return nil
}

func (s *Service) positions(w http.ResponseWriter, r *http.Request) error {
	q, user, err := parseUser(r, false)
	if err != nil {
		return err
	}
	conds, err := q.Conditions()
	if err != nil {
		return err
	}
	if user == "" && !q.Has("condition") {
		return Invalid("user", "required query param 'user' or 'condition' not provided")
	}
	if user == "" && len(conds) > 1 {
		return Invalid("condition", "exactly one condition is allowed without 'user'")
	}
	events, err := q.EventIDs()
	if err != nil {
		return err
	}
	status, err := q.Enum(EnumPositionStatus, "")
	if err != nil {
		return err
	}
	sortBy, err := q.Enum(EnumPositionSortBy, "")
	if err != nil {
		return err
	}
	dir, err := q.Enum(EnumSortDirection, "")
	if err != nil {
		return err
	}
	title, err := q.Get("title")
	if err != nil {
		return err
	}
	if len(title) > maxTitleLen {
		return Invalidf("title", "title must be at most %d characters", maxTitleLen)
	}
	filterType, err := q.Enum(EnumFilterType, store.FilterTokens)
	if err != nil {
		return err
	}
	// Invalid filter amounts fall back to the default (production rule).
	filterAmount, _, ferr := q.Decimal("filter_amount")
	if ferr != nil {
		filterAmount = 0
	}
	archived, err := q.Bool("include_archived", false)
	if err != nil {
		return err
	}
	start, end, err := bounds(q, "start", "end")
	if err != nil {
		return err
	}
	anchor := "u:" + user
	if user == "" {
		anchor = "c:" + conds[0]
	}

	limit, offset, after, err := sortedWalk[store.PositionKey](s, q, "positions",
		map[string]*string{"status": &status, "sort_by": &sortBy, "sort_direction": &dir, "anchor": &anchor})
	if err != nil {
		return err
	}
	if status == "" {
		status = store.StatusOpen
	}
	if sortBy == "" {
		sortBy = store.DefaultPositionSort(status)
	}
	if dir == "" {
		dir = "DESC"
	}
	if status == store.StatusRedeemableLost && user == "" {
		return Invalid("status", "status=REDEEMABLE_LOST requires 'user'")
	}
	if archived && status == store.StatusClosed {
		return Invalid("include_archived", "include_archived is not supported with status=CLOSED")
	}
	if user == "" {
		events = nil // event_id narrows the user anchor only
	}
	page, err := s.store.Positions(r.Context(), store.PositionsParams{
		User: user, Conditions: conds, EventIDs: events, Status: status, SortBy: sortBy,
		Ascending: dir == "ASC", Title: title, FilterType: filterType, FilterAmount: filterAmount,
		IncludeArchived: archived, Start: start, End: end, Limit: int(limit), After: after,
	})
	if err != nil {
		return err
	}
	next, err := nextSorted(s, "positions", page, limit, offset,
		map[string]string{"status": status, "sort_by": sortBy, "sort_direction": dir, "anchor": anchor})
	if err != nil {
		return err
	}
	writeFeedPage(w, r, page.Rows, Pagination{Limit: limit, Offset: offset, NextCursor: next})
	return nil
}

func (s *Service) comboPositions(w http.ResponseWriter, r *http.Request) error {
	q, user, err := parseUser(r, true)
	if err != nil {
		return err
	}
	conds, err := q.ComboConditions()
	if err != nil {
		return err
	}
	statuses, err := q.EnumList(EnumComboStatus)
	if err != nil {
		return err
	}
	for _, st := range statuses {
		if st == "REDEEMABLE" && len(statuses) > 1 {
			return Invalid("status", "status=REDEEMABLE cannot be combined with other statuses")
		}
	}
	sortBy, err := q.Enum(EnumComboSortBy, "")
	if err != nil {
		return err
	}
	if sortBy == "CURRENT_VALUE" {
		// An alias: pinned canonically, so restating either spelling agrees.
		sortBy = "ENTRY_COST"
	}
	dir, err := q.Enum(EnumSortDirection, "")
	if err != nil {
		return err
	}
	after, before, err := bounds(q, "updated_after", "updated_before")
	if err != nil {
		return err
	}
	if after > 0 && before > 0 && before < after {
		return Invalid("updated_before", "updated_before must be at or after updated_after")
	}
	statusPin := strings.Join(statuses, ",")
	condPin := strings.Join(conds, ",")
	afterPin, beforePin := itoaOrEmpty(after), itoaOrEmpty(before)

	userPin := user
	limit, offset, key, err := sortedWalk[store.ComboPositionKey](s, q, "combo_positions",
		map[string]*string{"user": &userPin, "status": &statusPin, "sort_by": &sortBy, "sort_direction": &dir,
			"condition": &condPin, "updated_after": &afterPin, "updated_before": &beforePin})
	if err != nil {
		return err
	}
	if key != nil { // the cursor's pins stand for the request's filters
		statuses = splitNonEmpty(statusPin)
		conds = splitNonEmpty(condPin)
		after, _ = strconv.ParseInt(cmp.Or(afterPin, "0"), 10, 64)
		before, _ = strconv.ParseInt(cmp.Or(beforePin, "0"), 10, 64)
	}
	if sortBy == "" {
		sortBy = "FIRST_ENTRY"
		if len(statuses) == 1 && statuses[0] == "REDEEMABLE" {
			sortBy = "ENTRY_COST"
		}
	}
	if dir == "" {
		dir = "DESC"
	}
	if after > 0 || before > 0 {
		// Incremental sync never reads the last 90 s, which may still be
		// settling (data-api-v2.md §2.2); the pins keep the raw values.
		if lim := s.now() - syncLag; before == 0 || before > lim {
			before = lim
		}
	}
	page, err := s.store.ComboPositions(r.Context(), store.ComboPositionsParams{
		User: user, Conditions: conds, Statuses: statuses, SortBy: sortBy, Ascending: dir == "ASC",
		UpdatedAfter: after, UpdatedBefore: before, Limit: int(limit), After: key,
	})
	if err != nil {
		return err
	}
	next, err := nextSorted(s, "combo_positions", page, limit, offset,
		map[string]string{"user": user, "status": statusPin, "sort_by": sortBy, "sort_direction": dir,
			"condition": condPin, "updated_after": afterPin, "updated_before": beforePin})
	if err != nil {
		return err
	}
	WritePage(w, r, page.Rows, Pagination{Limit: limit, Offset: offset, NextCursor: next})
	return nil
}

func (s *Service) value(w http.ResponseWriter, r *http.Request) error {
	q, user, err := parseUser(r, true)
	if err != nil {
		return err
	}
	conds, err := q.Conditions()
	if err != nil {
		return err
	}
	v, err := s.store.Value(r.Context(), store.ValueParams{User: user, Conditions: conds})
	if err != nil {
		return err
	}
	WriteData(w, r, v)
	return nil
}

func (s *Service) approvals(w http.ResponseWriter, r *http.Request) error {
	_, user, err := parseUser(r, true)
	if err != nil {
		return err
	}
	stats, err := s.store.UserStats(r.Context(), user)
	if err != nil {
		return err
	}
	traded := stats != nil && stats.Trades > 0
	WriteData(w, r, approvalsFor(user, traded, s.clock.Now().UTC().Format(time.RFC3339)))
	return nil
}

func (s *Service) userPnL(w http.ResponseWriter, r *http.Request) error {
	q, user, err := parseUser(r, true)
	if err != nil {
		return err
	}
	interval, err := q.Enum(EnumUserPnlInterval, "1d")
	if err != nil {
		return err
	}
	fidelity, err := q.Enum(EnumUserPnlFidelity, "1h")
	if err != nil {
		return err
	}
	series, err := s.store.UserPnL(r.Context(), store.UserPnLParams{User: user, Interval: interval, Fidelity: fidelity, Now: s.now()})
	if err != nil {
		return err
	}
	WriteData(w, r, series)
	return nil
}

func (s *Service) userStats(w http.ResponseWriter, r *http.Request) error {
	_, user, err := parseUser(r, true)
	if err != nil {
		return err
	}
	st, err := s.store.UserStats(r.Context(), user)
	if err != nil {
		return err
	}
	if st == nil {
		WriteData(w, r, nil)
		return nil
	}
	WriteData(w, r, st)
	return nil
}

func (s *Service) userVolume(w http.ResponseWriter, r *http.Request) error {
	q, user, err := parseUser(r, true)
	if err != nil {
		return err
	}
	start, end, err := bounds(q, "start", "end")
	if err != nil {
		return err
	}
	v, err := s.store.UserVolume(r.Context(), store.UserVolumeParams{User: user, Start: start, End: end})
	if err != nil {
		return err
	}
	WriteData(w, r, v)
	return nil
}

// parseUser parses the request's query and its wallet parameter, the
// opening of every wallet-keyed route.
func parseUser(r *http.Request, required bool) (*Query, string, error) {
	q, err := ParseRequest(r)
	if err != nil {
		return nil, "", err
	}
	user, err := q.User(required)
	return q, user, err
}

func itoaOrEmpty(v int64) string {
	if v == 0 {
		return ""
	}
	return strconv.FormatInt(v, 10)
}

func splitNonEmpty(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, ",")
}
