-- Secrets every node of one deployment must share (the data service's cursor
-- key: a cursor issued by one read node is accepted by every other).
CREATE TABLE pmx_secrets (
	name  TEXT PRIMARY KEY,
	value TEXT NOT NULL
);
