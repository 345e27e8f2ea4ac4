package config

import (
	"flag"
	"fmt"
	"strings"
)

// Roles of `pmx serve` (docs/postgres.md).
const (
	RoleAll    = "all"    // every listener, today's single process
	RoleData   = "data"   // the data and catalog listeners only, read-only against the database
	RoleWriter = "writer" // the exchanges, the journal and ingest (CLOB, perps, admin)
)

// bindStore registers --store and --role.
func (c *Serve) bindStore(fs *flag.FlagSet, env func(string) string) {
	StringVar(fs, env, &c.Store, "store", "", "data and catalog store: empty = the embedded file in the data dir, or a postgres://... URL")
	StringVar(fs, env, &c.Role, "role", RoleAll, "what this process serves: all, data (a stateless read node; needs --store postgres://...) or writer")
}

// checkStore validates --store and --role together.
func (c *Serve) checkStore() error {
	pg := strings.HasPrefix(c.Store, "postgres://") || strings.HasPrefix(c.Store, "postgresql://")
	if c.Store != "" && !pg {
		return fmt.Errorf("--store %q: want empty (the embedded file) or a postgres:// URL", c.Store)
	}
	switch c.Role {
	case RoleAll:
	case RoleData, RoleWriter:
		if !pg {
			return fmt.Errorf("--role %s needs --store postgres://... (the embedded file has one process)", c.Role)
		}
	default:
		return fmt.Errorf("--role %q: want all, data or writer", c.Role)
	}
	return nil
}
