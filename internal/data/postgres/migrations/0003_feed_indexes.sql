-- PostgreSQL only: SQLite's secondary indexes end with the rowid, which is
-- the activity's seq, so (wid, ts) there is (wid, ts, seq) and a feed page
-- ordered by (ts, seq) reads the index in order. Here seq is a column: the
-- feed indexes name it, or every page would sort all of a wallet's rows.
DROP INDEX activity_wallet;
CREATE INDEX activity_wallet ON activity(wid, ts, seq);
DROP INDEX trades_wallet;
CREATE INDEX trades_wallet ON activity(wid, ts, seq) WHERE type = 0 AND taker = 1;
DROP INDEX trades_market;
CREATE INDEX trades_market ON activity(mid, ts, seq) WHERE type = 0 AND taker = 1;
DROP INDEX trades_all;
CREATE INDEX trades_all ON activity(ts, seq) WHERE type = 0 AND taker = 1;
DROP INDEX trades_token;
CREATE INDEX trades_token ON activity(tid, ts, seq) INCLUDE (price) WHERE type = 0 AND taker = 1;

-- A market maker's wallet is common among all rows and rare among taker
-- rows: without joint statistics the planner takes the global trade index
-- for its feed and filters thousands of rows (measured: 40-70 ms instead of
-- a fraction of a millisecond).
CREATE STATISTICS activity_wallet_roles (mcv) ON wid, type, taker FROM activity;
-- Keep every (wallet, type, role) combination of a venue's active wallets in
-- the list: a combination missing from it is estimated as rare.
ALTER STATISTICS activity_wallet_roles SET STATISTICS 10000;
ALTER TABLE activity ALTER COLUMN wid SET STATISTICS 10000;
