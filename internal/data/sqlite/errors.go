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
	return errors.As(err, &se) || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
}
