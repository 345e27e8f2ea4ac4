package sqlite

import (
	"context"
	"errors"

	drv "modernc.org/sqlite"
)

// isStoreFailure tells the store's own failures (the database engine, a
// cancelled context) from an event refused on its merits.
func isStoreFailure(err error) bool {
	var se *drv.Error
	var sf interface{ StoreFailure() bool } // a database server's errors (Dialect)
	return errors.As(err, &se) || (errors.As(err, &sf) && sf.StoreFailure()) || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
}
