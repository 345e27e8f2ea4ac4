-- A counter bumped by every catalog write, in the writing transaction, so
-- readers can keep decoded objects in memory and know when to drop them.
CREATE TABLE catalog_meta (
    k TEXT PRIMARY KEY,
    v INTEGER NOT NULL
);
INSERT INTO catalog_meta (k, v) VALUES ('generation', 0);
