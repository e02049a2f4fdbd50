package store

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"reflect"
)

// SQLiteStatementCache is how many prepared statements each SQLite
// connection of a pool keeps, by their text (the least recently used
// one goes first).
//
// A query's text is the same from request to request when only its
// values differ (they are parameters), and a served list runs the same
// few statements for every page: the page's, its labels' or records',
// the total's. SQLite parses and plans a statement when it is prepared;
// with sqlite_stat4 (ANALYZE) a statement whose parameters meet an
// indexed column is planned again, for its values, at its first step.
// A kept statement is parsed once, and planned once per run instead of
// twice; one whose plan does not depend on its values (a list of keys
// read by json_each) is not planned again at all.
const SQLiteStatementCache = 64

// sqliteConn is what a modernc.org/sqlite connection implements that
// database/sql uses.
type sqliteConn interface {
	driver.Conn
	driver.ConnBeginTx
	driver.ConnPrepareContext
	driver.QueryerContext
	driver.ExecerContext
	driver.Pinger
	driver.SessionResetter
	driver.Validator
}

// cachingConn is a SQLite connection that keeps the statements of its
// queries prepared (SQLiteStatementCache). Everything else goes to the
// connection itself: writes (ExecContext), transactions, and the
// statements the loader prepares through Raw (PrepareContext).
type cachingConn struct {
	sqliteConn
	max   int
	clock uint64
	stmts map[string]*cachedStmt
}

// cachedStmt is a kept statement: busy while rows of it are open (a
// statement runs once at a time; a query of the same text meanwhile is
// prepared apart), used the clock's value at its last use.
type cachedStmt struct {
	stmt interface {
		driver.Stmt
		driver.StmtQueryContext
	}
	busy bool
	used uint64
}

// newCachingConn wraps c, keeping up to max statements; c itself when it
// is not a connection of modernc.org/sqlite's kind or max is not
// positive.
func newCachingConn(c driver.Conn, max int) driver.Conn {
	sc, ok := c.(sqliteConn)
	if !ok || max <= 0 {
		return c
	}
	return &cachingConn{sqliteConn: sc, max: max, stmts: make(map[string]*cachedStmt, max)}
}

// QueryContext runs query through its kept statement, prepared and kept
// the first time (the least recently used one closed when the cache is
// full), or on the connection when that statement is busy.
func (c *cachingConn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	c.clock++
	cs := c.stmts[query]
	if cs == nil {
		st, err := c.sqliteConn.PrepareContext(ctx, query)
		if err != nil {
			return nil, err
		}
		sq, ok := st.(interface {
			driver.Stmt
			driver.StmtQueryContext
		})
		if !ok {
			_ = st.Close()
			return c.sqliteConn.QueryContext(ctx, query, args)
		}
		if len(c.stmts) >= c.max {
			c.evict()
		}
		cs = &cachedStmt{stmt: sq}
		c.stmts[query] = cs
	} else if cs.busy {
		return c.sqliteConn.QueryContext(ctx, query, args)
	}
	cs.used = c.clock
	rows, err := cs.stmt.QueryContext(ctx, args)
	if err != nil {
		return nil, err
	}
	cs.busy = true
	return &cachedRows{Rows: rows, stmt: cs}, nil
}

// evict closes the least recently used statement that is not busy.
func (c *cachingConn) evict() {
	var oldest string
	var at uint64
	for q, cs := range c.stmts {
		if !cs.busy && (oldest == "" || cs.used < at) {
			oldest, at = q, cs.used
		}
	}
	if oldest != "" {
		_ = c.stmts[oldest].stmt.Close()
		delete(c.stmts, oldest)
	}
}

// Close closes the kept statements, then the connection.
func (c *cachingConn) Close() error {
	var errs []error
	for q, cs := range c.stmts {
		if err := cs.stmt.Close(); err != nil {
			errs = append(errs, fmt.Errorf("store: closing a kept statement: %w", err))
		}
		delete(c.stmts, q)
	}
	return errors.Join(append(errs, c.sqliteConn.Close())...)
}

// cachedRows are the rows of a kept statement: closing them resets the
// statement (modernc.org/sqlite keeps a prepared statement's handle) and
// frees it for the next query of its text.
type cachedRows struct {
	driver.Rows
	stmt *cachedStmt
}

func (r *cachedRows) Close() error {
	err := r.Rows.Close()
	r.stmt.busy = false
	return err
}

// The column types of the rows, as the connection's own rows give them
// (database/sql's ColumnTypes).

func (r *cachedRows) ColumnTypeDatabaseTypeName(i int) string {
	if t, ok := r.Rows.(driver.RowsColumnTypeDatabaseTypeName); ok {
		return t.ColumnTypeDatabaseTypeName(i)
	}
	return ""
}

func (r *cachedRows) ColumnTypeLength(i int) (int64, bool) {
	if t, ok := r.Rows.(driver.RowsColumnTypeLength); ok {
		return t.ColumnTypeLength(i)
	}
	return 0, false
}

func (r *cachedRows) ColumnTypeNullable(i int) (bool, bool) {
	if t, ok := r.Rows.(driver.RowsColumnTypeNullable); ok {
		return t.ColumnTypeNullable(i)
	}
	return false, false
}

func (r *cachedRows) ColumnTypePrecisionScale(i int) (int64, int64, bool) {
	if t, ok := r.Rows.(driver.RowsColumnTypePrecisionScale); ok {
		return t.ColumnTypePrecisionScale(i)
	}
	return 0, 0, false
}

func (r *cachedRows) ColumnTypeScanType(i int) reflect.Type {
	if t, ok := r.Rows.(driver.RowsColumnTypeScanType); ok {
		return t.ColumnTypeScanType(i)
	}
	return reflect.TypeFor[any]()
}
