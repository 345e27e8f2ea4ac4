-- Schema 1: markets and tokens (small, cached in memory by the store), wallets
-- with profiles and cumulative counters, derived positions, the activity feed
-- (one row per participant, rowid = sequence id), combo state, daily PnL
-- observations and the ingest watermark. Amounts are INTEGER millionths.

CREATE TABLE markets (
	mid          INTEGER PRIMARY KEY,
	condition_id TEXT    NOT NULL UNIQUE,
	market_id    INTEGER NOT NULL,
	question     TEXT    NOT NULL,
	slug         TEXT    NOT NULL,
	event_id     INTEGER NOT NULL,
	event_slug   TEXT    NOT NULL,
	event_title  TEXT    NOT NULL,
	category     TEXT    NOT NULL,
	neg_risk     INTEGER NOT NULL,
	end_date     TEXT    NOT NULL,
	icon         TEXT    NOT NULL,
	active       INTEGER NOT NULL,
	closed       INTEGER NOT NULL,
	archived     INTEGER NOT NULL,
	outcomes     TEXT    NOT NULL, -- JSON array of labels
	is_combo     INTEGER NOT NULL,
	legs         TEXT    NOT NULL, -- JSON array of ledger.ComboLeg (combos)
	resolved     INTEGER NOT NULL,
	payouts      TEXT    NOT NULL, -- JSON array of micros
	resolved_at  INTEGER NOT NULL,
	volume       INTEGER NOT NULL, -- taker-side shares
	volume_usdc  INTEGER NOT NULL,
	last_trade_at INTEGER NOT NULL
);
CREATE INDEX markets_event ON markets(event_id);

CREATE TABLE tokens (
	tid      INTEGER PRIMARY KEY,
	token_id TEXT    NOT NULL UNIQUE,
	mid      INTEGER NOT NULL, -- 0 while the market is unknown
	idx      INTEGER NOT NULL, -- outcome index, 999 while unknown
	outcome  TEXT    NOT NULL,
	price    INTEGER NOT NULL, -- mark: last trade in the market (see docs/store.md)
	priced   INTEGER NOT NULL  -- 1 once a mark exists
);
CREATE INDEX tokens_mid ON tokens(mid);

CREATE TABLE wallets (
	wid            INTEGER PRIMARY KEY,
	address        TEXT    NOT NULL UNIQUE,
	name           TEXT    NOT NULL,
	pseudonym      TEXT    NOT NULL,
	bio            TEXT    NOT NULL,
	profile_image  TEXT    NOT NULL,
	verified       INTEGER NOT NULL,
	joined_at      INTEGER NOT NULL,
	views          INTEGER NOT NULL,
	first_seen     INTEGER NOT NULL, -- first on-chain timestamp (0 = profile only)
	last_block     INTEGER NOT NULL,
	markets_traded INTEGER NOT NULL,
	biggest_win    INTEGER NOT NULL,
	-- cumulative counters, copied into pnl_obs at each observation
	realized_market INTEGER NOT NULL,
	realized_combo  INTEGER NOT NULL,
	maker_rebate    INTEGER NOT NULL,
	taker_rebate    INTEGER NOT NULL,
	reward          INTEGER NOT NULL,
	yield           INTEGER NOT NULL,
	referral        INTEGER NOT NULL,
	deposits        INTEGER NOT NULL,
	withdrawals     INTEGER NOT NULL,
	fees            INTEGER NOT NULL, -- fees charged (positive)
	volume          INTEGER NOT NULL,
	volume_usdc     INTEGER NOT NULL,
	trade_count     INTEGER NOT NULL
);

CREATE TABLE positions (
	wid        INTEGER NOT NULL,
	tid        INTEGER NOT NULL,
	mid        INTEGER NOT NULL,
	size       INTEGER NOT NULL,
	cost       INTEGER NOT NULL, -- fee-exclusive basis of size
	fees       INTEGER NOT NULL, -- lifetime BUY fees
	avg        INTEGER NOT NULL, -- last average entry price
	bought     INTEGER NOT NULL, -- lifetime acquired shares
	realized   INTEGER NOT NULL,
	first_at   INTEGER NOT NULL,
	last_at    INTEGER NOT NULL,
	traded     INTEGER NOT NULL, -- 1 once a fill touched it
	PRIMARY KEY (wid, tid)
) WITHOUT ROWID;
CREATE INDEX positions_mid ON positions(mid);

CREATE TABLE combo_positions (
	wid        INTEGER NOT NULL,
	tid        INTEGER NOT NULL, -- combo position token
	mid        INTEGER NOT NULL, -- combo market
	size       INTEGER NOT NULL,
	cost       INTEGER NOT NULL,
	fees       INTEGER NOT NULL,
	avg        INTEGER NOT NULL,
	payout     INTEGER NOT NULL, -- realized redemption payout
	realized   INTEGER NOT NULL,
	first_at   INTEGER NOT NULL,
	updated_at INTEGER NOT NULL,
	PRIMARY KEY (wid, tid)
) WITHOUT ROWID;

-- One row per participant; seq = store.SequenceID(block, log_index, participant).
CREATE TABLE activity (
	seq     INTEGER PRIMARY KEY,
	wid     INTEGER NOT NULL,
	ts      INTEGER NOT NULL,
	type    INTEGER NOT NULL, -- index into store.ActivityTypes (0 = TRADE)
	mid     INTEGER NOT NULL, -- 0 = none
	tid     INTEGER NOT NULL, -- 0 = none
	eid     INTEGER NOT NULL, -- market's event id, 0 = none
	side    INTEGER NOT NULL, -- 0 none, 1 BUY, 2 SELL, 3 IN, 4 OUT
	size    INTEGER NOT NULL,
	usdc    INTEGER NOT NULL,
	price   INTEGER NOT NULL,
	taker   INTEGER NOT NULL, -- trades: 1 on the taker row
	tx      TEXT    NOT NULL,
	builder TEXT
);
CREATE INDEX activity_wallet ON activity(wid, ts);
-- Trade feeds index taker rows only (the default taker_only=true reads them
-- directly); the market and global feeds find maker rows at seq + 1 (see
-- feeds.go); a wallet's maker rows come from activity_wallet.
CREATE INDEX trades_wallet ON activity(wid, ts) WHERE type = 0 AND taker = 1;
CREATE INDEX trades_market ON activity(mid, ts) WHERE type = 0 AND taker = 1;
CREATE INDEX trades_all ON activity(ts) WHERE type = 0 AND taker = 1;

CREATE TABLE combo_activity (
	seq    INTEGER PRIMARY KEY, -- store.SequenceID(block, log_index, 0)
	wid    INTEGER NOT NULL,
	ts     INTEGER NOT NULL,
	block  INTEGER NOT NULL,
	log    INTEGER NOT NULL,
	type   TEXT    NOT NULL,
	mid    INTEGER NOT NULL,
	tid    INTEGER NOT NULL,
	amount INTEGER, -- NULL = no cash leg
	payout INTEGER, -- REDEEM only
	tx     TEXT    NOT NULL
);
CREATE INDEX combo_activity_wallet ON combo_activity(wid, seq);

-- Cumulative wallet state at the end of each UTC day with activity.
CREATE TABLE pnl_obs (
	wid  INTEGER NOT NULL,
	day  INTEGER NOT NULL,
	ts   INTEGER NOT NULL,
	block INTEGER NOT NULL,
	realized_market INTEGER NOT NULL,
	realized_combo  INTEGER NOT NULL,
	unrealized      INTEGER NOT NULL,
	maker_rebate    INTEGER NOT NULL,
	taker_rebate    INTEGER NOT NULL,
	reward          INTEGER NOT NULL,
	yield           INTEGER NOT NULL,
	referral        INTEGER NOT NULL,
	deposits        INTEGER NOT NULL,
	withdrawals     INTEGER NOT NULL,
	fees            INTEGER NOT NULL,
	volume          INTEGER NOT NULL,
	volume_usdc     INTEGER NOT NULL,
	trade_count     INTEGER NOT NULL,
	PRIMARY KEY (wid, day)
) WITHOUT ROWID;

CREATE TABLE builders (
	code TEXT PRIMARY KEY,
	name TEXT NOT NULL
);

CREATE TABLE ingest (
	id         INTEGER PRIMARY KEY CHECK (id = 1),
	last_block INTEGER NOT NULL,
	last_ts    INTEGER NOT NULL,
	applied    INTEGER NOT NULL,
	applied_at INTEGER NOT NULL,
	max_seq    INTEGER NOT NULL
);
INSERT INTO ingest VALUES (1, 0, 0, 0, 0, 0);
