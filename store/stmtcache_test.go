package store

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// kept runs fn with the caching connection of conn.
func kept(t *testing.T, conn *sql.Conn, fn func(*cachingConn)) {
	t.Helper()
	require.NoError(t, conn.Raw(func(dc any) error {
		c, ok := dc.(*cachingConn)
		require.True(t, ok, "a SQLite connection keeps its statements: %T", dc)
		fn(c)
		return nil
	}))
}

// ints reads rows of one integer column to the end and closes them.
func ints(t *testing.T, rows *sql.Rows) []int64 {
	t.Helper()
	var out []int64
	for rows.Next() {
		var n int64
		require.NoError(t, rows.Scan(&n))
		out = append(out, n)
	}
	require.NoError(t, rows.Err())
	require.NoError(t, rows.Close())
	return out
}

// TestStatementCache: a query's statement is prepared once per
// connection and reused for every run of its text with other values; a
// query of a text whose statement is still reading runs apart; the
// least recently used statement goes when the cache is full; a kept
// statement sees a table changed after it was prepared.
func TestStatementCache(t *testing.T) {
	ctx := context.Background()
	db, err := openSQLitePool(filepath.Join(t.TempDir(), "c.db"))
	require.NoError(t, err)
	defer db.Close()
	db.SetMaxOpenConns(1)
	_, err = db.ExecContext(ctx, "CREATE TABLE t (n INTEGER PRIMARY KEY)")
	require.NoError(t, err)
	for i := 1; i <= 10; i++ {
		_, err = db.ExecContext(ctx, "INSERT INTO t VALUES (?)", i)
		require.NoError(t, err)
	}
	conn, err := db.Conn(ctx)
	require.NoError(t, err)
	defer conn.Close()

	const q = "SELECT n FROM t WHERE n > ? ORDER BY n LIMIT 3"
	rows, err := conn.QueryContext(ctx, q, 2)
	require.NoError(t, err)
	require.Equal(t, []int64{3, 4, 5}, ints(t, rows))
	var first *cachedStmt
	kept(t, conn, func(c *cachingConn) {
		require.Len(t, c.stmts, 1)
		first = c.stmts[q]
		require.NotNil(t, first)
		require.False(t, first.busy, "closed rows free their statement")
	})
	rows, err = conn.QueryContext(ctx, q, 7)
	require.NoError(t, err)
	require.Equal(t, []int64{8, 9, 10}, ints(t, rows), "the kept statement with other values")
	kept(t, conn, func(c *cachingConn) {
		require.Len(t, c.stmts, 1)
		require.Same(t, first, c.stmts[q], "the same statement again")
	})

	// The same text while its statement's rows are open: run apart,
	// both read to the end.
	outer, err := conn.QueryContext(ctx, q, 0)
	require.NoError(t, err)
	kept(t, conn, func(c *cachingConn) { require.True(t, c.stmts[q].busy) })
	require.True(t, outer.Next())
	inner, err := conn.QueryContext(ctx, q, 5)
	require.NoError(t, err)
	require.Equal(t, []int64{6, 7, 8}, ints(t, inner))
	var n int64
	require.NoError(t, outer.Scan(&n))
	require.Equal(t, int64(1), n)
	require.Equal(t, []int64{2, 3}, ints(t, outer))
	kept(t, conn, func(c *cachingConn) {
		require.Len(t, c.stmts, 1, "the busy text's second run was not kept")
		require.False(t, c.stmts[q].busy)
	})

	// A table changed after its statement was kept: SQLite prepares it
	// again on its own.
	_, err = conn.ExecContext(ctx, "ALTER TABLE t ADD COLUMN m INTEGER")
	require.NoError(t, err)
	_, err = conn.ExecContext(ctx, "DELETE FROM t WHERE n = 4")
	require.NoError(t, err)
	rows, err = conn.QueryContext(ctx, q, 2)
	require.NoError(t, err)
	require.Equal(t, []int64{3, 5, 6}, ints(t, rows))

	// Full: the least recently used goes, the others stay.
	for i := range SQLiteStatementCache {
		rows, err := conn.QueryContext(ctx, fmt.Sprintf("SELECT n FROM t WHERE n = ? + %d", i), 0)
		require.NoError(t, err)
		got := ints(t, rows)
		if i >= 1 && i <= 10 && i != 4 {
			require.Equal(t, []int64{int64(i)}, got)
		}
	}
	kept(t, conn, func(c *cachingConn) {
		require.Len(t, c.stmts, SQLiteStatementCache)
		require.NotContains(t, c.stmts, q, "the least recently used went first")
		require.Contains(t, c.stmts, fmt.Sprintf("SELECT n FROM t WHERE n = ? + %d", SQLiteStatementCache-1))
	})

	// An error preparing is the query's, and nothing is kept of it.
	_, err = conn.QueryContext(ctx, "SELECT nope FROM t")
	require.ErrorContains(t, err, "no such column")
	kept(t, conn, func(c *cachingConn) { require.NotContains(t, c.stmts, "SELECT nope FROM t") })
}
