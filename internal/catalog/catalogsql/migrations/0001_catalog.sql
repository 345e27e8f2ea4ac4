-- Catalog objects in their wire form (doc, JSON) plus the key columns the
-- listings filter and order on. *_key columns are catalog.DateKey values
-- ('' when unknown) so they sort lexically in time order.
CREATE TABLE catalog_events (
    id          INTEGER PRIMARY KEY,
    slug        TEXT,
    title       TEXT NOT NULL DEFAULT '',
    active      INTEGER NOT NULL,
    closed      INTEGER NOT NULL,
    archived    INTEGER NOT NULL,
    featured    INTEGER NOT NULL,
    cyom        INTEGER NOT NULL,
    start_key   TEXT NOT NULL,
    end_key     TEXT NOT NULL,
    created_key TEXT NOT NULL,
    doc         BLOB NOT NULL -- the event without its markets
);
CREATE INDEX catalog_events_slug ON catalog_events (slug);
CREATE INDEX catalog_events_start ON catalog_events (start_key, id);
CREATE INDEX catalog_events_end ON catalog_events (end_key, id);
CREATE INDEX catalog_events_created ON catalog_events (created_key, id);

CREATE TABLE catalog_markets (
    id                   INTEGER PRIMARY KEY,
    event_id             INTEGER NOT NULL,
    pos                  INTEGER NOT NULL, -- order within the event
    condition_id         TEXT,
    slug                 TEXT,
    question_id          TEXT,
    market_maker_address TEXT NOT NULL,
    active               INTEGER NOT NULL,
    closed               INTEGER NOT NULL,
    start_key            TEXT NOT NULL,
    end_key              TEXT NOT NULL,
    created_key          TEXT NOT NULL,
    doc                  BLOB NOT NULL
);
CREATE INDEX catalog_markets_event ON catalog_markets (event_id, pos);
CREATE INDEX catalog_markets_condition ON catalog_markets (condition_id);
CREATE INDEX catalog_markets_slug ON catalog_markets (slug);
CREATE INDEX catalog_markets_start ON catalog_markets (start_key, id);
CREATE INDEX catalog_markets_end ON catalog_markets (end_key, id);
CREATE INDEX catalog_markets_created ON catalog_markets (created_key, id);

CREATE TABLE catalog_market_tokens (
    token_id  TEXT PRIMARY KEY,
    market_id INTEGER NOT NULL
);
CREATE INDEX catalog_market_tokens_market ON catalog_market_tokens (market_id);

CREATE TABLE catalog_tags (
    id          INTEGER PRIMARY KEY,
    slug        TEXT,
    is_carousel INTEGER NOT NULL,
    doc         BLOB NOT NULL
);
CREATE INDEX catalog_tags_slug ON catalog_tags (slug);

CREATE TABLE catalog_event_tags (
    event_id INTEGER NOT NULL,
    tag_id   INTEGER NOT NULL,
    PRIMARY KEY (event_id, tag_id)
) WITHOUT ROWID;
CREATE INDEX catalog_event_tags_tag ON catalog_event_tags (tag_id, event_id);

CREATE TABLE catalog_market_tags (
    market_id INTEGER NOT NULL,
    tag_id    INTEGER NOT NULL,
    PRIMARY KEY (market_id, tag_id)
) WITHOUT ROWID;
CREATE INDEX catalog_market_tags_tag ON catalog_market_tags (tag_id, market_id);

CREATE TABLE catalog_series (
    id     INTEGER PRIMARY KEY,
    slug   TEXT,
    closed INTEGER NOT NULL,
    doc    BLOB NOT NULL -- events are filled in at read time
);
CREATE INDEX catalog_series_slug ON catalog_series (slug);

CREATE TABLE catalog_event_series (
    event_id  INTEGER NOT NULL,
    series_id INTEGER NOT NULL,
    PRIMARY KEY (event_id, series_id)
) WITHOUT ROWID;
CREATE INDEX catalog_event_series_series ON catalog_event_series (series_id, event_id);
