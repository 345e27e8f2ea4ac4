package dataapi

import (
	"archive/zip"
	"bytes"
	"encoding/csv"
	"net/http"
	"strconv"
	"strings"
	"time"

	"pmx/internal/data/store"
)

// /v1/accounting/snapshot (not retired): a ZIP of positions.csv and
// equity.csv for one wallet, built from the store. Columns are documented in
// docs/markets.md; amounts are exact decimals (6 places at most), times RFC
// 3339 UTC, and a wallet the store never saw gets both files with headers only.

var positionsCSVHeader = []string{"condition_id", "token_id", "outcome_index", "outcome", "title", "slug", "event_id",
	"status", "size", "avg_price", "entry_cost_usdc", "entry_fees_usdc", "current_price", "current_value_usdc",
	"realized_pnl_usdc", "unrealized_pnl_usdc", "total_pnl_usdc", "redeemable", "mergeable", "first_entry_at",
	"last_event_at"}

var equityCSVHeader = []string{"date", "timestamp", "block", "deposits_usdc", "withdrawals_usdc",
	"net_deposits_usdc", "realized_pnl_usdc", "unrealized_pnl_usdc", "income_usdc", "fees_usdc", "total_pnl_usdc",
	"equity_usdc", "volume", "volume_usdc", "trade_count"}

func (s *Service) accountingSnapshot(w http.ResponseWriter, r *http.Request) error {
	_, user, err := parseUser(r, true)
	if err != nil {
		return err
	}
	snap, _, err := s.store.AccountingSnapshot(r.Context(), user)
	if err != nil {
		return err
	}
	body, err := accountingZip(snap, s.clock.Now())
	if err != nil {
		return Internal(err)
	}
	h := w.Header()
	h.Set("Content-Type", "application/zip")
	h.Set("Content-Disposition", `attachment; filename="accounting-`+user+`.zip"`)
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(body)
	return nil
}

func rfcOrEmpty(ts int64) string {
	if ts == 0 {
		return ""
	}
	return time.Unix(ts, 0).UTC().Format(time.RFC3339)
}

// cell guards free text against spreadsheet formula injection: a leading
// = + - @ (or tab/CR) gets a leading apostrophe.
func cell(s string) string {
	if s != "" && strings.ContainsRune("=+-@\t\r", rune(s[0])) {
		return "'" + s
	}
	return s
}

func accountingZip(snap store.AccountingSnapshot, now time.Time) ([]byte, error) {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	write := func(name string, header []string, rows [][]string) error {
		f, err := zw.CreateHeader(&zip.FileHeader{Name: name, Method: zip.Deflate, Modified: now.UTC()})
		if err != nil {
			return err
		}
		c := csv.NewWriter(f)
		if err := c.Write(header); err != nil {
			return err
		}
		if err := c.WriteAll(rows); err != nil {
			return err
		}
		return c.Error()
	}
	var pos [][]string
	for _, p := range snap.Positions {
		pos = append(pos, []string{p.ConditionID, p.TokenID, strconv.Itoa(p.OutcomeIndex), cell(p.Outcome),
			cell(p.Title), cell(p.Slug), p.EventID, p.Status, p.CurrentSize.String(), p.AvgPrice.String(),
			p.EntryCostUSDC.String(), p.EntryFeesUSDC.String(), p.CurrentPrice.String(), p.CurrentValue.String(),
			p.RealizedPnL.String(), p.UnrealizedPnL.String(), p.TotalPnL.String(), strconv.FormatBool(p.Redeemable),
			strconv.FormatBool(p.Mergeable), rfcOrEmpty(p.FirstEntryAt), rfcOrEmpty(p.LastEventAt)})
	}
	var eq [][]string
	for _, e := range snap.Equity {
		net := e.Deposits - e.Withdrawals
		total := e.RealizedPnL + e.UnrealizedPnL + e.Income
		eq = append(eq, []string{time.Unix(e.Day, 0).UTC().Format(time.DateOnly), rfcOrEmpty(e.Timestamp),
			strconv.FormatInt(e.Block, 10), e.Deposits.String(), e.Withdrawals.String(), net.String(),
			e.RealizedPnL.String(), e.UnrealizedPnL.String(), e.Income.String(), e.Fees.String(), total.String(),
			(net + total).String(), e.Volume.String(), e.VolumeUSDC.String(), strconv.FormatInt(e.TradeCount, 10)})
	}
	if err := write("positions.csv", positionsCSVHeader, pos); err != nil {
		return nil, err
	}
	if err := write("equity.csv", equityCSVHeader, eq); err != nil {
		return nil, err
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
