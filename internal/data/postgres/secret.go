package postgres

import (
	"context"
	"crypto/rand"
	"encoding/hex"
)

// Secret returns the deployment-wide secret name, creating it (32 random
// bytes, hex) on first use; concurrent first uses agree on one value.
func (db *DB) Secret(ctx context.Context, name string) (string, error) {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	if _, err := db.wsql.ExecContext(ctx, `INSERT INTO pmx_secrets (name, value) VALUES (?, ?) ON CONFLICT DO NOTHING`,
		name, hex.EncodeToString(b[:])); err != nil {
		return "", err
	}
	var v string
	err := db.wsql.QueryRowContext(ctx, `SELECT value FROM pmx_secrets WHERE name = ?`, name).Scan(&v)
	return v, err
}
