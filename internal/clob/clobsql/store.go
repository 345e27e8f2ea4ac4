package clobsql

import (
	"context"
	"database/sql"
	"errors"
	"sync"
	"time"

	"pmx/internal/clob/clob"
	"pmx/internal/crypto/eip712"
	"pmx/internal/crypto/secp"
)

// Store implements clob.Store. Get, on the path of every L2 request, is
// served from a write-through cache of records by API key.
//
// Invariant: this Store is the only writer of clob_api_keys (one process
// owns the data dir), so the cache never holds a record older than the
// table. Insert and Revoke write the cache after the table; a Get that
// missed fills the cache only if the entry is still absent, and marks it
// revoked if a Revoke ran meanwhile.
type Store struct {
	db    *sql.DB
	mu    sync.RWMutex
	cache map[string]clob.Key
	// revoked holds every key revoked by this process, so a Get that read
	// the row just before a Revoke cannot cache it as active.
	revoked map[string]struct{}
}

var _ clob.Store = (*Store)(nil)

// New migrates db (creating the clob_ tables) and returns the store.
func New(ctx context.Context, db *sql.DB) (*Store, error) {
	if err := migrateDB(ctx, db); err != nil {
		return nil, err
	}
	return &Store{db: db, cache: map[string]clob.Key{}, revoked: map[string]struct{}{}}, nil
}

// Insert records k as active. The unique constraints (api_key; address,
// nonce, generation; one active key per address and nonce) decide races:
// a conflicting insert changes nothing and is clob.ErrKeyExists.
func (s *Store) Insert(ctx context.Context, k clob.Key) error {
	res, err := s.db.ExecContext(ctx,
		`INSERT INTO clob_api_keys (api_key, address, nonce, generation, created_at)
		 VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`,
		k.APIKey, k.Address[:], k.Nonce[:], int64(k.Generation), k.CreatedAt.UnixMilli())
	if err != nil {
		return err
	}
	n, err := res.RowsAffected()
	if err != nil {
		return err
	}
	if n == 0 {
		return clob.ErrKeyExists
	}
	k.Revoked = false
	k.CreatedAt = time.UnixMilli(k.CreatedAt.UnixMilli()) // as read back
	s.mu.Lock()
	s.cache[k.APIKey] = k
	s.mu.Unlock()
	return nil
}

const cols = `api_key, address, nonce, generation, revoked, created_at`

func scan(row interface{ Scan(...any) error }) (clob.Key, error) {
	var (
		k          clob.Key
		addr, nonc []byte
		gen, ms    int64
	)
	if err := row.Scan(&k.APIKey, &addr, &nonc, &gen, &k.Revoked, &ms); err != nil {
		return clob.Key{}, err
	}
	if len(addr) != len(k.Address) || len(nonc) != len(k.Nonce) || gen < 0 || gen > 1<<32-1 {
		return clob.Key{}, errors.New("clobsql: corrupt api key row")
	}
	copy(k.Address[:], addr)
	copy(k.Nonce[:], nonc)
	k.Generation = uint32(gen)
	k.CreatedAt = time.UnixMilli(ms)
	return k, nil
}

func one(row *sql.Row) (clob.Key, bool, error) {
	k, err := scan(row)
	if errors.Is(err, sql.ErrNoRows) {
		return clob.Key{}, false, nil
	}
	return k, err == nil, err
}

// Latest returns the highest generation of (addr, nonce).
func (s *Store) Latest(ctx context.Context, addr secp.Address, nonce eip712.Uint256) (clob.Key, bool, error) {
	return one(s.db.QueryRowContext(ctx,
		`SELECT `+cols+` FROM clob_api_keys WHERE address = ? AND nonce = ?
		 ORDER BY generation DESC LIMIT 1`, addr[:], nonce[:]))
}

// Get returns the record of apiKey. Unknown keys are not cached (an
// attacker could fill memory with them); they cost one indexed read.
func (s *Store) Get(ctx context.Context, apiKey string) (clob.Key, bool, error) {
	s.mu.RLock()
	k, ok := s.cache[apiKey]
	s.mu.RUnlock()
	if ok {
		return k, true, nil
	}
	k, ok, err := one(s.db.QueryRowContext(ctx, `SELECT `+cols+` FROM clob_api_keys WHERE api_key = ?`, apiKey))
	if !ok {
		return k, ok, err
	}
	s.mu.Lock()
	if c, hit := s.cache[apiKey]; hit {
		k = c
	} else {
		if _, r := s.revoked[apiKey]; r { // revoked after our read
			k.Revoked = true
		}
		s.cache[apiKey] = k
	}
	s.mu.Unlock()
	return k, true, nil
}

// Active lists addr's active keys, oldest first.
func (s *Store) Active(ctx context.Context, addr secp.Address) ([]clob.Key, error) {
	rows, err := s.db.QueryContext(ctx,
		`SELECT `+cols+` FROM clob_api_keys WHERE address = ? AND revoked = 0
		 ORDER BY created_at, api_key`, addr[:])
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []clob.Key
	for rows.Next() {
		k, err := scan(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, k)
	}
	return out, rows.Err()
}

// Revoke marks apiKey revoked if it is active.
func (s *Store) Revoke(ctx context.Context, apiKey string, at time.Time) (bool, error) {
	res, err := s.db.ExecContext(ctx,
		`UPDATE clob_api_keys SET revoked = 1, revoked_at = ? WHERE api_key = ? AND revoked = 0`,
		at.UnixMilli(), apiKey)
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	if err != nil || n != 1 {
		return false, err
	}
	s.mu.Lock()
	if c, ok := s.cache[apiKey]; ok {
		c.Revoked = true
		s.cache[apiKey] = c
	}
	s.revoked[apiKey] = struct{}{}
	s.mu.Unlock()
	return true, nil
}
