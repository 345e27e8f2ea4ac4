-- Schema 20: indexes for the market routes (internal/sqlite/markets*.go).
-- Holders and open interest read a market's balances from the index alone.
CREATE INDEX positions_holders ON positions(mid, tid, size);
-- Prices history reads one token's fills (taker rows: one per fill) by time,
-- from the index alone (seq is the rowid).
CREATE INDEX trades_token ON activity(tid, ts, price) WHERE type = 0 AND taker = 1;
