-- The book figures the CLOB writer publishes for PostgreSQL read nodes
-- (docs/postgres.md "Roles and read nodes"): one row per CLOB market, in
-- its first outcome's terms, micro-USDC. clob_book_meta's version moves with
-- every publish, so a read node polls one row to know when to reload.
CREATE TABLE clob_book_tops (
    condition_id TEXT PRIMARY KEY,
    best_bid     INTEGER NOT NULL,
    best_ask     INTEGER NOT NULL,
    liquidity    INTEGER NOT NULL,
    tick         INTEGER NOT NULL,
    quoted       INTEGER NOT NULL -- 0: never quoted nor traded (the catalog's own book fields stand)
);
CREATE TABLE clob_book_meta (
    id      INTEGER PRIMARY KEY,
    version INTEGER NOT NULL
);
INSERT INTO clob_book_meta (id, version) VALUES (1, 0);
