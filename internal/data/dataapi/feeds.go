package dataapi

import (
	"net/http"
	"strconv"

	"pmx/internal/data/store"
)

// Feed cursors are keyset cursors (see Keyset): they carry the seek anchor,
// page size, display offset and (activity) direction, never the filters,
// which clients re-send on every page.

func (s *Service) decodeFeedCursor(q *Query, kind string) (ks *Keyset, err error) {
	c, err := q.Cursor()
	if err != nil || c == "" {
		return nil, err
	}
	k, err := s.cursors.DecodeKeyset(kind, c, maxLimit)
	if err != nil {
		return nil, err
	}
	if _, err := strconv.ParseInt(k.Seq, 10, 64); err != nil {
		return nil, errInvalidCursor()
	}
	return &k, nil
}

func feedKey(k *Keyset) *store.FeedKey {
	if k == nil {
		return nil
	}
	seq, _ := strconv.ParseInt(k.Seq, 10, 64)
	return &store.FeedKey{Timestamp: k.TS, Seq: seq}
}

func (s *Service) trades(w http.ResponseWriter, r *http.Request) error {
	q, user, err := parseUser(r, false)
	if err != nil {
		return err
	}
	conds, err := q.Conditions()
	if err != nil {
		return err
	}
	events, err := q.EventIDs()
	if err != nil {
		return err
	}
	takerOnly, err := q.Bool("taker_only", true)
	if err != nil {
		return err
	}
	filterType, err := q.Enum(EnumFilterType, store.FilterTokens)
	if err != nil {
		return err
	}
	filterAmount, _, err := q.Decimal("filter_amount")
	if err != nil {
		return err
	}
	side, err := q.Enum(EnumSide, "")
	if err != nil {
		return err
	}
	// start/end apply to the wallet shape only; the market and global
	// shapes serve their fixed windows (the store derives them from Now).
	var win store.Window
	if user != "" {
		if win, err = q.FeedWindow(s.clock.Now()); err != nil {
			return err
		}
	}
	ks, err := s.decodeFeedCursor(q, "trades")
	if err != nil {
		return err
	}
	limit, offset, err := feedPage(q, ks)
	if err != nil {
		return err
	}
	page, err := s.store.Trades(r.Context(), store.TradesParams{
		User: user, Conditions: conds, EventIDs: events, IncludeMaker: !takerOnly,
		FilterType: filterType, FilterAmount: filterAmount, Side: side, Window: win,
		Now: s.now(), Limit: int(limit), After: feedKey(ks),
	})
	if err != nil {
		return err
	}
	return writeFeed(s, w, r, "trades", page, limit, offset, "")
}

func (s *Service) activity(w http.ResponseWriter, r *http.Request) error {
	q, user, err := parseUser(r, true)
	if err != nil {
		return err
	}
	if err := q.Exclusive("condition", "event_id"); err != nil {
		return err
	}
	conds, err := q.Conditions()
	if err != nil {
		return err
	}
	events, err := q.EventIDs()
	if err != nil {
		return err
	}
	types, err := q.EnumList(EnumActivityType)
	if err != nil {
		return err
	}
	side, err := q.Enum(EnumSide, "")
	if err != nil {
		return err
	}
	if _, err := q.Enum(EnumActivitySortBy, "TIMESTAMP"); err != nil {
		return err
	}
	dir, err := q.Enum(EnumSortDirection, "")
	if err != nil {
		return err
	}
	excludeDW, err := q.Bool("exclude_deposits_withdrawals", true)
	if err != nil {
		return err
	}
	win, err := q.FeedWindow(s.clock.Now())
	if err != nil {
		return err
	}
	ks, err := s.decodeFeedCursor(q, "activity")
	if err != nil {
		return err
	}
	if ks != nil {
		// The cursor binds the direction it was minted under; resuming adopts it.
		dir = ks.Dir
	}
	if dir == "" {
		dir = "DESC"
	}
	limit, offset, err := feedPage(q, ks)
	if err != nil {
		return err
	}
	page, err := s.store.Activity(r.Context(), store.ActivityParams{
		User: user, Types: types, IncludeDepositsWithdrawals: !excludeDW, Conditions: conds, EventIDs: events,
		Side: side, Window: win, Ascending: dir == "ASC", Limit: int(limit), After: feedKey(ks),
	})
	if err != nil {
		return err
	}
	return writeFeed(s, w, r, "activity", page, limit, offset, dir)
}

func (s *Service) comboActivity(w http.ResponseWriter, r *http.Request) error {
	q, user, err := parseUser(r, true)
	if err != nil {
		return err
	}
	conds, err := q.ComboConditions()
	if err != nil {
		return err
	}
	ks, err := s.decodeFeedCursor(q, "combos_activity")
	if err != nil {
		return err
	}
	limit, offset, err := feedPage(q, ks)
	if err != nil {
		return err
	}
	var after *store.ComboActivityKey
	if ks != nil {
		li, _ := strconv.ParseInt(ks.Seq, 10, 64)
		after = &store.ComboActivityKey{BlockNumber: ks.TS, LogIndex: li}
	}
	page, err := s.store.ComboActivity(r.Context(), store.ComboActivityParams{User: user, Conditions: conds, Limit: int(limit), After: after})
	if err != nil {
		return err
	}
	next := ""
	if page.HasMore && page.Next != nil {
		next, err = s.cursors.Encode("combos_activity", Keyset{Limit: limit, Offset: offset + int32(len(page.Rows)),
			TS: page.Next.BlockNumber, Seq: strconv.FormatInt(page.Next.LogIndex, 10)})
		if err != nil {
			return Internal(err)
		}
	}
	WritePage(w, r, page.Rows, Pagination{Limit: limit, Offset: offset, NextCursor: next})
	return nil
}

// feedPage is the page size and display offset: the cursor's when resuming
// (its size wins over any limit sent), else the request's limit.
func feedPage(q *Query, ks *Keyset) (limit, offset int32, err error) {
	if ks != nil {
		return ks.Limit, ks.Offset, nil
	}
	limit, err = q.Limit(defaultLimit, maxLimit)
	return limit, 0, err
}

// writeFeed answers a keyset page, minting the next cursor from the last
// row's seek key.
func writeFeed[T any](s *Service, w http.ResponseWriter, r *http.Request, kind string, page store.Page[T, store.FeedKey], limit, offset int32, dir string) error {
	next := ""
	if page.HasMore && page.Next != nil {
		ks := Keyset{Limit: limit, Offset: offset + int32(len(page.Rows)), TS: page.Next.Timestamp,
			Seq: strconv.FormatInt(page.Next.Seq, 10), Dir: dir}
		var err error
		if next, err = s.cursors.Encode(kind, ks); err != nil {
			return Internal(err)
		}
	}
	writeFeedPage(w, r, page.Rows, Pagination{Limit: limit, Offset: offset, NextCursor: next})
	return nil
}
