package dataapi

import (
	"cmp"
	"net/http"
	"strings"

	"pmx/internal/store"
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

// boardWalk resolves the page of a board request: with a cursor, its page
// size and offset, after binding every pinned value in pins (given values,
// canonical, "" = omitted; adopted from the cursor when omitted); without,
// limit from the query and offset 0. pins' values are then defaulted by the
// caller.
func (s *Service) boardWalk(q *Query, kind string, pins map[string]*string) (limit, offset int32, err error) {
	c, err := q.Cursor()
	if err != nil {
		return 0, 0, err
	}
	if c == "" {
		limit, err = q.Limit(defaultLimit, maxLimit)
		return limit, 0, err
	}
	cur, err := s.cursors.DecodeCohort(kind, c, maxLimit)
	if err != nil {
		return 0, 0, err
	}
	for param, v := range pins {
		if *v, err = cur.Bind(param, *v); err != nil {
			return 0, 0, err
		}
	}
	return cur.Limit, cur.Offset, nil
}

// nextBoardCursor mints the next page's cursor, pinning the canonical
// cohort values (defaults included); "" on the last page.
func (s *Service) nextBoardCursor(kind string, more bool, limit, offset int32, rows int, pins map[string]string) (string, error) {
	if !more {
		return "", nil
	}
	c := Cohort{Limit: limit, Offset: offset + int32(rows)}
	for k, v := range pins {
		c.Pin(k, v)
	}
	tok, err := s.cursors.Encode(kind, c)
	if err != nil {
		return "", Internal(err)
	}
	return tok, nil
}

func (s *Service) leaderboard(w http.ResponseWriter, r *http.Request) error {
	q, err := ParseRequest(r)
	if err != nil {
		return err
	}
	user, err := q.User(false)
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
		if e == nil {
			WriteData(w, r, nil)
			return nil
		}
		WriteData(w, r, e)
		return nil
	}
	sortBy, err := q.Enum(EnumLeaderboardSortBy, "")
	if err != nil {
		return err
	}
	limit, offset, err := s.boardWalk(q, "leaderboard", map[string]*string{"time_period": &period, "sort_by": &sortBy, "category": &cat})
	if err != nil {
		return err
	}
	period, sortBy, cat = cmp.Or(period, store.PeriodDay), cmp.Or(sortBy, store.BoardSortPnL), cmp.Or(cat, store.CategoryOverall)
	pg, err := s.store.Leaderboard(r.Context(), store.LeaderboardParams{Period: period, SortBy: sortBy, Category: cat,
		Now: s.now(), Offset: int(offset), Limit: int(limit)})
	if err != nil {
		return err
	}
	next, err := s.nextBoardCursor("leaderboard", pg.HasMore, limit, offset, len(pg.Rows),
		map[string]string{"time_period": period, "sort_by": sortBy, "category": cat})
	if err != nil {
		return err
	}
	WritePage(w, r, pg.Rows, Pagination{Limit: limit, Offset: offset, NextCursor: next})
	return nil
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
	limit, offset, err := s.boardWalk(q, "biggest_winners", map[string]*string{"time_period": &period, "category": &cat})
	if err != nil {
		return err
	}
	period, cat = cmp.Or(period, store.PeriodDay), cmp.Or(cat, store.CategoryOverall)
	pg, err := s.store.BiggestWinners(r.Context(), store.BiggestWinnersParams{Period: period, Category: cat,
		Now: s.now(), Offset: int(offset), Limit: int(limit)})
	if err != nil {
		return err
	}
	next, err := s.nextBoardCursor("biggest_winners", pg.HasMore, limit, offset, len(pg.Rows),
		map[string]string{"time_period": period, "category": cat})
	if err != nil {
		return err
	}
	WritePage(w, r, pg.Rows, Pagination{Limit: limit, Offset: offset, NextCursor: next})
	return nil
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
	limit, offset, err := s.boardWalk(q, "builders_leaderboard", map[string]*string{"time_period": &period})
	if err != nil {
		return err
	}
	period = cmp.Or(period, store.PeriodDay)
	pg, err := s.store.BuildersLeaderboard(r.Context(), store.BuildersLeaderboardParams{Period: period, Now: s.now(),
		Offset: int(offset), Limit: int(limit)})
	if err != nil {
		return err
	}
	next, err := s.nextBoardCursor("builders_leaderboard", pg.HasMore, limit, offset, len(pg.Rows),
		map[string]string{"time_period": period})
	if err != nil {
		return err
	}
	WritePage(w, r, pg.Rows, Pagination{Limit: limit, Offset: offset, NextCursor: next})
	return nil
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
