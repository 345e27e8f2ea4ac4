-- Schema 10: builder profiles for the builders boards (the ledger's builder
-- event carries an image and a badge besides the name).
ALTER TABLE builders ADD COLUMN profile_image TEXT NOT NULL DEFAULT '';
ALTER TABLE builders ADD COLUMN verified INTEGER NOT NULL DEFAULT 0;
