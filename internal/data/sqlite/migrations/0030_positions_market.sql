-- Schema 30: the market-anchored /v2/positions scan reads thousands of
-- holders; covering the columns it filters and sorts on (the primary key
-- columns wid, tid come with every index entry) saves a lookup per holder.
DROP INDEX IF EXISTS positions_mid;
CREATE INDEX positions_mid ON positions(mid, size, cost, realized, last_at);
