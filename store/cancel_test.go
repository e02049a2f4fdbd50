package store

import (
	"context"
	"database/sql"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestEndedStatementStopsOnTheServer: a statement that cannot finish
// (10^10 rows on PostgreSQL, a 60 s sleep on MariaDB) in TimedTx, whose context ends, cancelled or at its
// deadline: within a second of that the database server runs it no
// more (pg_stat_activity, information_schema.processlist). A cancelled
// context sets no statement timeout, so only the cancellation reaching
// the server stops it: PostgreSQL's cancel request, MariaDB's KILL
// QUERY. Before, pgx closed its socket and the backend slept on, and so
// did MariaDB's.
func TestEndedStatementStopsOnTheServer(t *testing.T) {
	for _, eng := range []string{"postgres", "mysql"} {
		for _, how := range []string{"cancel", "deadline"} {
			t.Run(eng+"/"+how, func(t *testing.T) {
				dsn := serverDSN(t, eng)
				db, err := Open(context.Background(), eng, dsn)
				require.NoError(t, err)
				defer func() { assert.NoError(t, db.Close()) }()
				marker := "croql_stop_" + strconv.FormatInt(time.Now().UnixNano(), 36)
				// PostgreSQL: work that cannot finish (10^10 rows), with no
				// wait in which the backend would notice a closed socket.
				q := "SELECT count(*), '" + marker + "' FROM generate_series(1, 100000) a, generate_series(1, 100000) b"
				running := `SELECT count(*) FROM pg_stat_activity WHERE state = 'active' AND query LIKE '%' || $1 || '%' AND pid <> pg_backend_pid()`
				if eng == "mysql" {
					q = "SELECT SLEEP(60), '" + marker + "'"
					running = `SELECT count(*) FROM information_schema.processlist WHERE info LIKE CONCAT('%', ?, '%') AND id <> CONNECTION_ID()`
				}
				count := func() int {
					var n int
					require.NoError(t, db.SQL.QueryRow(running, marker).Scan(&n))
					return n
				}
				ctx, cancel := context.WithCancel(context.Background())
				if how == "deadline" {
					ctx, cancel = context.WithTimeout(context.Background(), 2*time.Second)
				}
				defer cancel()
				errc := make(chan error, 1)
				go func() {
					errc <- TimedTx(ctx, db.SQL, db.Dialect, true, func(tx *sql.Tx) error {
						rows, err := tx.QueryContext(ctx, q)
						if err != nil {
							return err
						}
						defer rows.Close()
						for rows.Next() {
						}
						return errors.Join(rows.Err(), ctx.Err())
					})
				}()
				// The statement runs: wait for it (a condition, not a time).
				for start := time.Now(); count() == 0; time.Sleep(10 * time.Millisecond) {
					require.Less(t, time.Since(start), 30*time.Second, "the statement never showed up")
				}
				if how == "cancel" {
					cancel()
				}
				<-ctx.Done()
				ended := time.Now()
				require.Error(t, <-errc)
				for count() > 0 {
					require.Less(t, time.Since(ended), time.Second, "the statement still runs on the server more than 1 s after its context ended")
					time.Sleep(10 * time.Millisecond)
				}
			})
		}
	}
}

// TestReadTxReadsOneSnapshot: the statements of a read-only TimedTx read
// the data as it was at the first of them, on every engine, although a
// row is added and committed between them (a page and its total agree).
// On PostgreSQL the transaction is at REPEATABLE READ for it.
func TestReadTxReadsOneSnapshot(t *testing.T) {
	for _, eng := range []string{"sqlite", "postgres", "mysql"} {
		t.Run(eng, func(t *testing.T) {
			ctx := context.Background()
			var db *DB
			var err error
			table := "croql_snap_" + strconv.FormatInt(time.Now().UnixNano(), 36)
			if eng == "sqlite" {
				// As croql serve opens its files: readers beside a writer.
				db, err = OpenSQLite("file:" + t.TempDir() + "/s.db?_pragma=journal_mode(wal)&_pragma=busy_timeout(5000)")
			} else {
				db, err = Open(ctx, eng, serverDSN(t, eng))
			}
			require.NoError(t, err)
			defer func() { assert.NoError(t, db.Close()) }()
			_, err = db.SQL.ExecContext(ctx, "CREATE TABLE "+table+" (n INTEGER)")
			require.NoError(t, err)
			defer func() { _, _ = db.SQL.ExecContext(ctx, "DROP TABLE "+table) }()
			_, err = db.SQL.ExecContext(ctx, "INSERT INTO "+table+" VALUES (1)")
			require.NoError(t, err)
			count := func(q interface {
				QueryRowContext(context.Context, string, ...any) *sql.Row
			}) int {
				var n int
				require.NoError(t, q.QueryRowContext(ctx, "SELECT COUNT(*) FROM "+table).Scan(&n))
				return n
			}
			tctx, cancel := context.WithTimeout(ctx, time.Minute)
			defer cancel()
			var first, second int
			err = TimedTx(tctx, db.SQL, db.Dialect, true, func(tx *sql.Tx) error {
				first = count(tx)
				if eng == "postgres" {
					var iso string
					require.NoError(t, tx.QueryRowContext(ctx, "SHOW transaction_isolation").Scan(&iso))
					require.Equal(t, "repeatable read", iso)
				}
				// Another connection adds a row and commits.
				if _, err := db.SQL.ExecContext(ctx, "INSERT INTO "+table+" VALUES (2)"); err != nil {
					return err
				}
				second = count(tx)
				return nil
			})
			require.NoError(t, err)
			require.Equal(t, 1, first)
			require.Equal(t, first, second, "the second statement reads the first one's snapshot")
			require.Equal(t, 2, count(db.SQL), "the row was committed")
		})
	}
}

// TestPostgresBeginSetsTimeout: a TimedTx with a deadline on PostgreSQL
// begins with its options and the statement timeout in one query
// (pgConn): inside, the transaction is read-only at REPEATABLE READ (or
// read-write) and statement_timeout is what is left of the deadline;
// after it, the same connection has no timeout, so untimed statements
// of the pool are not stopped.
func TestPostgresBeginSetsTimeout(t *testing.T) {
	ctx := context.Background()
	db, err := Open(ctx, "postgres", serverDSN(t, "postgres"))
	require.NoError(t, err)
	defer func() { assert.NoError(t, db.Close()) }()
	db.SQL.SetMaxOpenConns(1)
	conn, err := db.SQL.Conn(ctx)
	require.NoError(t, err)
	require.True(t, beginsTimed(conn), "croql's PostgreSQL pools begin timed transactions in one query")
	require.NoError(t, conn.Close())
	show := func(q interface {
		QueryRowContext(context.Context, string, ...any) *sql.Row
	}, setting string) string {
		var v string
		require.NoError(t, q.QueryRowContext(ctx, "SELECT current_setting($1)", setting).Scan(&v))
		return v
	}
	for _, readOnly := range []bool{true, false} {
		tctx, cancel := context.WithTimeout(ctx, 90*time.Second)
		err := TimedTx(tctx, db.SQL, db.Dialect, readOnly, func(tx *sql.Tx) error {
			ms, err := strconv.ParseInt(strings.TrimSuffix(show(tx, "statement_timeout"), "ms"), 10, 64)
			require.NoError(t, err, "statement_timeout in milliseconds")
			assert.Greater(t, ms, int64(0))
			assert.LessOrEqual(t, ms, int64(90_000))
			if readOnly {
				assert.Equal(t, "on", show(tx, "transaction_read_only"))
				assert.Equal(t, "repeatable read", show(tx, "transaction_isolation"))
			} else {
				assert.Equal(t, "off", show(tx, "transaction_read_only"))
			}
			return nil
		})
		cancel()
		require.NoError(t, err)
		assert.Equal(t, "0", show(db.SQL, "statement_timeout"), "the timeout ends with the transaction")
	}
	// Without a deadline, pgx's own BEGIN: no timeout inside either.
	err = TimedTx(ctx, db.SQL, db.Dialect, true, func(tx *sql.Tx) error {
		assert.Equal(t, "0", show(tx, "statement_timeout"))
		assert.Equal(t, "repeatable read", show(tx, "transaction_isolation"))
		return nil
	})
	require.NoError(t, err)
}
