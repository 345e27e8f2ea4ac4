// Package pgsql is the PostgreSQL connection every pmx store shares (data,
// catalog, CLOB keys). The stores are written against database/sql in SQL
// that SQLite and PostgreSQL agree on. Their PostgreSQL handle is a *sql.DB
// over a pgx pool (pgx's stdlib connector: pgx's own protocol and statement
// cache) whose connections translate every statement (translate.go), pass
// booleans as 0/1 (the schemas keep SQLite's integer flags) and wrap errors
// so the HTTP layers classify them (Error).
package pgsql

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"io"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/pgx/v5/stdlib"
)

// SQL returns a *sql.DB over pool that speaks the stores' SQL. Its size is
// the pool's; closing it leaves the pool open.
func SQL(pool *pgxpool.Pool) *sql.DB {
	db := sql.OpenDB(connector{stdlib.GetPoolConnector(pool)})
	n := int(pool.Config().MaxConns)
	db.SetMaxOpenConns(n)
	db.SetMaxIdleConns(n)
	return db
}

// Error is a database failure: the server's, the network's or a deadline.
// StoreFailure tells the data store it is not a rejected event; Timeout
// (statement_timeout, a cancelled or expired request, no pooled connection
// in time) is 503 request_timeout; Unavailable (cannot reach the server) is
// 503 dependency_unavailable.
type Error struct{ Err error }

func (e *Error) Error() string      { return "postgres: " + e.Err.Error() }
func (e *Error) Unwrap() error      { return e.Err }
func (e *Error) StoreFailure() bool { return true }

// Timeout reports statement_timeout (57014 query_canceled), lock_timeout
// (55P03) and expired contexts.
func (e *Error) Timeout() bool {
	var pe *pgconn.PgError
	if errors.As(e.Err, &pe) {
		return pe.Code == "57014" || pe.Code == "55P03"
	}
	return errors.Is(e.Err, context.DeadlineExceeded)
}

// Unavailable reports a server that cannot be reached or went away.
func (e *Error) Unavailable() bool {
	var ce *pgconn.ConnectError
	var pe *pgconn.PgError
	if errors.As(e.Err, &pe) {
		return pe.Code[:2] == "08" || pe.Code == "57P01" || pe.Code == "57P03"
	}
	return errors.As(e.Err, &ce) || errors.Is(e.Err, driver.ErrBadConn)
}

func wrap(err error) error {
	if err == nil || err == io.EOF || errors.Is(err, driver.ErrBadConn) || errors.Is(err, driver.ErrSkip) {
		return err
	}
	var e *Error
	if errors.As(err, &e) {
		return err
	}
	return &Error{err}
}

type connector struct{ c driver.Connector }

func (c connector) Connect(ctx context.Context) (driver.Conn, error) {
	cn, err := c.c.Connect(ctx)
	if err != nil {
		return nil, wrap(err)
	}
	return &conn{cn.(*stdlib.Conn)}, nil
}

func (c connector) Driver() driver.Driver { return c.c.Driver() }

type conn struct{ c *stdlib.Conn }

var (
	_ driver.QueryerContext     = (*conn)(nil)
	_ driver.ExecerContext      = (*conn)(nil)
	_ driver.ConnBeginTx        = (*conn)(nil)
	_ driver.ConnPrepareContext = (*conn)(nil)
	_ driver.NamedValueChecker  = (*conn)(nil)
	_ driver.SessionResetter    = (*conn)(nil)
	_ driver.Pinger             = (*conn)(nil)
)

func (c *conn) Prepare(q string) (driver.Stmt, error) {
	return c.PrepareContext(context.Background(), q)
}

func (c *conn) PrepareContext(ctx context.Context, q string) (driver.Stmt, error) {
	t, err := Translate(q)
	if err != nil {
		return nil, err
	}
	s, err := c.c.PrepareContext(ctx, t)
	if err != nil {
		return nil, wrap(err)
	}
	return &stmt{s.(*stdlib.Stmt)}, nil
}

func (c *conn) Close() error              { return c.c.Close() }
func (c *conn) Begin() (driver.Tx, error) { return c.BeginTx(context.Background(), driver.TxOptions{}) }

func (c *conn) BeginTx(ctx context.Context, o driver.TxOptions) (driver.Tx, error) {
	tx, err := c.c.BeginTx(ctx, o)
	if err != nil {
		return nil, wrap(err)
	}
	return txn{tx}, nil
}

func (c *conn) ExecContext(ctx context.Context, q string, args []driver.NamedValue) (driver.Result, error) {
	t, err := Translate(q)
	if err != nil {
		return nil, err
	}
	r, err := c.c.ExecContext(ctx, t, args)
	return r, wrap(err)
}

func (c *conn) QueryContext(ctx context.Context, q string, args []driver.NamedValue) (driver.Rows, error) {
	t, err := Translate(q)
	if err != nil {
		return nil, err
	}
	r, err := c.c.QueryContext(ctx, t, args)
	if err != nil {
		return nil, wrap(err)
	}
	return rows{r}, nil
}

// CheckNamedValue passes booleans as the integers the schema stores.
func (c *conn) CheckNamedValue(v *driver.NamedValue) error {
	if b, ok := v.Value.(bool); ok {
		v.Value = int64(0)
		if b {
			v.Value = int64(1)
		}
		return nil
	}
	if vr, ok := v.Value.(driver.Valuer); ok {
		x, err := vr.Value()
		if err != nil {
			return err
		}
		v.Value = x
		return c.CheckNamedValue(v)
	}
	return c.c.CheckNamedValue(v)
}

func (c *conn) ResetSession(ctx context.Context) error { return c.c.ResetSession(ctx) }
func (c *conn) Ping(ctx context.Context) error         { return c.c.Ping(ctx) }

// Raw is the pgx connection under c (for COPY).
func (c *conn) Raw() *stdlib.Conn { return c.c }

type stmt struct{ s *stdlib.Stmt }

func (s *stmt) Close() error  { return s.s.Close() }
func (s *stmt) NumInput() int { return s.s.NumInput() }
func (s *stmt) Exec(args []driver.Value) (driver.Result, error) {
	r, err := s.s.Exec(args)
	return r, wrap(err)
}
func (s *stmt) Query(args []driver.Value) (driver.Rows, error) {
	r, err := s.s.Query(args)
	if err != nil {
		return nil, wrap(err)
	}
	return rows{r}, nil
}
func (s *stmt) ExecContext(ctx context.Context, args []driver.NamedValue) (driver.Result, error) {
	r, err := s.s.ExecContext(ctx, args)
	return r, wrap(err)
}
func (s *stmt) QueryContext(ctx context.Context, args []driver.NamedValue) (driver.Rows, error) {
	r, err := s.s.QueryContext(ctx, args)
	if err != nil {
		return nil, wrap(err)
	}
	return rows{r}, nil
}

type rows struct{ driver.Rows }

func (r rows) Next(dest []driver.Value) error { return wrap(r.Rows.Next(dest)) }

type txn struct{ t driver.Tx }

func (t txn) Commit() error   { return wrap(t.t.Commit()) }
func (t txn) Rollback() error { return wrap(t.t.Rollback()) }
