-- CLOB API keys. No secret or passphrase is stored: both are derived from
-- (address, nonce, generation) with the server master key (clobauth).
CREATE TABLE clob_api_keys (
    api_key    TEXT PRIMARY KEY,
    address    BLOB NOT NULL,    -- 20 bytes
    nonce      BLOB NOT NULL,    -- 32 bytes, big-endian uint256
    generation INTEGER NOT NULL, -- 0, then +1 per re-create after a delete
    revoked    INTEGER NOT NULL DEFAULT 0,
    created_at INTEGER NOT NULL, -- Unix ms
    revoked_at INTEGER,          -- Unix ms
    UNIQUE (address, nonce, generation)
);
-- At most one active key per (address, nonce): the create race is decided here.
CREATE UNIQUE INDEX clob_api_keys_active ON clob_api_keys (address, nonce) WHERE revoked = 0;
CREATE INDEX clob_api_keys_address ON clob_api_keys (address, revoked, created_at);
