-- Schema 10: builder profiles for the builders boards (the ledger's builder
-- event carries an image and a badge besides the name).
ALTER TABLE builders ADD COLUMN profile_image TEXT NOT NULL DEFAULT '';
ALTER TABLE builders ADD COLUMN verified INTEGER NOT NULL DEFAULT 0;

-- The builders boards read every routed fill of a window, both parties' rows
-- (the builder code is on both): a covering partial index makes that an
-- index-only range scan instead of a walk over every taker row with two
-- table lookups each.
CREATE INDEX activity_builder_fills ON activity(ts, builder, taker, wid, size)
	WHERE type = 0 AND builder IS NOT NULL;
