package dataapi

import (
	"cmp"
	"net/http"
	"strings"

	"pmx/internal/data/store"
)

// The boards (/v2/leaderboard, /v2/biggest-winners, /v2/builders/leaderboard)
// are offset walks behind a signed Cohort cursor that pins the board's
// cohort (window, sort, category): resuming with the cursor alone is fine,
// restating a pinned value is fine, contradicting one is a 400. The board is
// recomputed when data changes, so a walk across a data refresh can skip or
// repeat rows. /v2/builders/volume is not paged.

const (
	defaultBuildersBuckets int32 = 30
	maxBuildersBuckets     int32 = 90
	// maxCategoryLen bounds the free-text category (production accepts any
	// string; an unknown one is an empty board).
	maxCategoryLen = 100
)

// registerBoards adds the board routes (light: not in production's
// heavy-query family).
func (s *Service) registerBoards(route func(string, HandlerFunc)) {
	route("/v2/leaderboard", s.leaderboard)
	route("/v2/biggest-winners", s.biggestWinners)
	route("/v2/builders/leaderboard", s.buildersLeaderboard)
	route("/v2/builders/volume", s.buildersVolume)
}

// category parses the free-text category: trimmed, lower-cased; "" when
// absent (the handler defaults it after binding the cursor).
func category(q *Query) (string, error) {
	c, err := q.Get("category")
	if err != nil {
		return "", err
	}
	if len(c) > maxCategoryLen {
		return "", Invalidf("category", "category must be at most %d characters", maxCategoryLen)
	}
	return strings.ToLower(c), nil
}

// cohortWalk resolves the page of an offset walk (boards, holders): with a
// cursor, its page size and offset, after binding every pinned value in pins
// (given values, canonical, "" = omitted; adopted from the cursor when
// omitted), and resumed is true; without, limit from the query (pageDefault,
// pageMax) and offset 0. pins' values are then defaulted by the caller.
func (s *Service) cohortWalk(q *Query, kind string, pageDefault, pageMax int32,
	pins map[string]*string) (limit, offset int32, resumed bool, err error) {
	c, err := q.Cursor()
	if err != nil {
		return 0, 0, false, err
	}
	if c == "" {
		limit, err = q.Limit(pageDefault, pageMax)
		return limit, 0, false, err
	}
	cur, err := s.cursors.DecodeCohort(kind, c, pageMax)
	if err != nil {
		return 0, 0, false, err
	}
	if err := bindPins(cur.Pins, pins); err != nil {
		return 0, 0, false, err
	}
	return cur.Limit, cur.Offset, true, nil
}

// nextCohort mints the cursor of the page at offset next, pinning the
// canonical cohort values (defaults included); "" on the last page.
func (s *Service) nextCohort(kind string, more bool, limit, next int32, pins map[string]string) (string, error) {
	if !more {
		return "", nil
	}
	tok, err := s.cursors.Encode(kind, Cohort{Limit: limit, Offset: next, Pins: pins})
	if err != nil {
		return "", Internal(err)
	}
	return tok, nil
}

// writeBoard answers one page of a board with the cursor of the next.
func writeBoard[R any](s *Service, w http.ResponseWriter, r *http.Request, kind string, pg store.OffsetPage[R],
	limit, offset int32, pins map[string]string) error {
	next, err := s.nextCohort(kind, pg.HasMore, limit, offset+int32(len(pg.Rows)), pins)
	if err != nil {
		return err
	}
	WritePage(w, r, pg.Rows, Pagination{Limit: limit, Offset: offset, NextCursor: next})
	return nil
}

func (s *Service) leaderboard(w http.ResponseWriter, r *http.Request) error {
	q, user, err := parseUser(r, false)
	if err != nil {
		return err
	}
	period, err := q.Enum(EnumTimePeriod, "")
	if err != nil {
		return err
	}
	cat, err := category(q)
	if err != nil {
		return err
	}
	if user != "" {
		// The user arm ignores sort_by, limit and cursor.
		e, err := s.store.LeaderboardUser(r.Context(), store.LeaderboardParams{Period: cmp.Or(period, store.PeriodDay),
			Category: cmp.Or(cat, store.CategoryOverall), Now: s.now()}, user)
		if err != nil {
			return err
		}
		WriteData(w, r, e) // a nil entry (never seen) encodes as {"data":null}
		return nil
	}
	sortBy, err := q.Enum(EnumLeaderboardSortBy, "")
	if err != nil {
		return err
	}
	limit, offset, _, err := s.cohortWalk(q, "leaderboard", defaultLimit, maxLimit,
		map[string]*string{"time_period": &period, "sort_by": &sortBy, "category": &cat})
	if err != nil {
		return err
	}
	period, sortBy, cat = cmp.Or(period, store.PeriodDay), cmp.Or(sortBy, store.BoardSortPnL), cmp.Or(cat, store.CategoryOverall)
	pg, err := s.store.Leaderboard(r.Context(), store.LeaderboardParams{Period: period, SortBy: sortBy, Category: cat,
		Now: s.now(), Offset: int(offset), Limit: int(limit)})
	if err != nil {
		return err
	}
	return writeBoard(s, w, r, "leaderboard", pg, limit, offset,
		map[string]string{"time_period": period, "sort_by": sortBy, "category": cat})
}

func (s *Service) biggestWinners(w http.ResponseWriter, r *http.Request) error {
	q, err := ParseRequest(r)
	if err != nil {
		return err
	}
	period, err := q.Enum(EnumTimePeriod, "")
	if err != nil {
		return err
	}
	cat, err := category(q)
	if err != nil {
		return err
	}
	limit, offset, _, err := s.cohortWalk(q, "biggest_winners", defaultLimit, maxLimit,
		map[string]*string{"time_period": &period, "category": &cat})
	if err != nil {
		return err
	}
	period, cat = cmp.Or(period, store.PeriodDay), cmp.Or(cat, store.CategoryOverall)
	pg, err := s.store.BiggestWinners(r.Context(), store.BiggestWinnersParams{Period: period, Category: cat,
		Now: s.now(), Offset: int(offset), Limit: int(limit)})
	if err != nil {
		return err
	}
	return writeBoard(s, w, r, "biggest_winners", pg, limit, offset,
		map[string]string{"time_period": period, "category": cat})
}

func (s *Service) buildersLeaderboard(w http.ResponseWriter, r *http.Request) error {
	q, err := ParseRequest(r)
	if err != nil {
		return err
	}
	period, err := q.Enum(EnumTimePeriod, "")
	if err != nil {
		return err
	}
	limit, offset, _, err := s.cohortWalk(q, "builders_leaderboard", defaultLimit, maxLimit,
		map[string]*string{"time_period": &period})
	if err != nil {
		return err
	}
	period = cmp.Or(period, store.PeriodDay)
	pg, err := s.store.BuildersLeaderboard(r.Context(), store.BuildersLeaderboardParams{Period: period, Now: s.now(),
		Offset: int(offset), Limit: int(limit)})
	if err != nil {
		return err
	}
	return writeBoard(s, w, r, "builders_leaderboard", pg, limit, offset,
		map[string]string{"time_period": period})
}

func (s *Service) buildersVolume(w http.ResponseWriter, r *http.Request) error {
	q, err := ParseRequest(r)
	if err != nil {
		return err
	}
	interval, err := q.Enum(EnumBuildersInterval, store.PeriodDay)
	if err != nil {
		return err
	}
	n, err := q.Limit(defaultBuildersBuckets, maxBuildersBuckets)
	if err != nil {
		return err
	}
	rows, err := s.store.BuildersVolume(r.Context(), store.BuildersVolumeParams{Interval: interval, Buckets: int(n), Now: s.now()})
	if err != nil {
		return err
	}
	WriteList(w, r, rows)
	return nil
}
