package store

import (
	"context"
	"database/sql"
	"fmt"
	"net"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestEngineOfDSN: the one DSN parser.
func TestEngineOfDSN(t *testing.T) {
	for dsn, want := range map[string]string{
		"postgres://postgres@127.0.0.1:5432/test?sslmode=disable": "postgres",
		"postgresql://u@h/db":                       "postgres",
		"host=127.0.0.1 dbname=test user=postgres":  "postgres",
		"mysql://root@127.0.0.1:3306/test":          "mysql",
		"mysql://root:pw@127.0.0.1/test":            "mysql",
		"mysql://root@tcp(127.0.0.1:3306)/test":     "mysql",
		"root@tcp(127.0.0.1:3306)/test":             "mysql",
		"root@unix(/run/mysqld/mysqld.sock)/test":   "mysql",
		"file:/tmp/p.db?_pragma=busy_timeout(5000)": "sqlite",
		"/tmp/p.db":  "sqlite",
		"project.db": "sqlite",
	} {
		assert.Equal(t, want, EngineOfDSN(dsn), dsn)
	}
}

// TestParseMySQL: the URL form and the native form give the driver the
// same user, address and database; a URL without a port gets 3306 (the
// driver's own parser read mysql://root@127.0.0.1/test as network
// "127.0.0.1" and failed).
func TestParseMySQL(t *testing.T) {
	for _, dsn := range []string{"mysql://root:pw@127.0.0.1:3306/test", "mysql://root:pw@127.0.0.1/test",
		"root:pw@tcp(127.0.0.1:3306)/test", "mysql://root:pw@tcp(127.0.0.1:3306)/test"} {
		cfg, err := parseMySQL(dsn)
		require.NoError(t, err, dsn)
		assert.Equal(t, "root", cfg.User, dsn)
		assert.Equal(t, "pw", cfg.Passwd, dsn)
		assert.Equal(t, "tcp", cfg.Net, dsn)
		assert.Equal(t, "127.0.0.1:3306", cfg.Addr, dsn)
		assert.Equal(t, "test", cfg.DBName, dsn)
	}
	cfg, err := parseMySQL("mysql://root@127.0.0.1:3307/test?timeout=5s&parseTime=true")
	require.NoError(t, err)
	assert.Equal(t, "127.0.0.1:3307", cfg.Addr)
	assert.True(t, cfg.ParseTime)
	assert.Equal(t, "5s", cfg.Timeout.String())
	_, err = parseMySQL("mysql:///test")
	assert.ErrorContains(t, err, "no host")
}

// TestUnreachableIsUnavailable: a server that refuses the connection is
// the class Unavailable on every engine with a server.
func TestUnreachableIsUnavailable(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	port := ln.Addr().(*net.TCPAddr).Port
	require.NoError(t, ln.Close()) // nothing listens there now
	for _, dsn := range []string{
		fmt.Sprintf("postgres://postgres@127.0.0.1:%d/test?sslmode=disable&connect_timeout=5", port),
		fmt.Sprintf("mysql://root@127.0.0.1:%d/test", port),
	} {
		_, err := OpenDSN(context.Background(), dsn)
		require.Error(t, err, dsn)
		c, _ := Classify(err)
		assert.Equal(t, Unavailable, c, "%s: %v", dsn, err)
	}
}

// TestPostgresPoolStaysWarm: a burst of 8 requests at once finds the
// backends of the previous burst (database/sql keeps 2 idle connections
// by default, and each burst forked 6 new backends).
func TestPostgresPoolStaysWarm(t *testing.T) {
	dsn := serverDSN(t, "postgres")
	ctx := context.Background()
	db, err := OpenDSN(ctx, dsn)
	require.NoError(t, err)
	defer db.Close()
	burst := func() map[int64]bool {
		conns := make([]*sql.Conn, 8)
		pids := map[int64]bool{}
		for i := range conns {
			c, err := db.SQL.Conn(ctx)
			require.NoError(t, err)
			conns[i] = c
			var pid int64
			require.NoError(t, c.QueryRowContext(ctx, "SELECT pg_backend_pid()").Scan(&pid))
			pids[pid] = true
		}
		for _, c := range conns {
			require.NoError(t, c.Close())
		}
		return pids
	}
	first := burst()
	require.Len(t, first, 8)
	assert.Equal(t, first, burst(), "the second burst runs on the first one's backends")
}

// TestDeadlockIsRetry: a deadlock, as the server reports it, is the class
// Retry on every engine with a server (PostgreSQL 40P01, MariaDB 1213):
// two transactions each lock a row, then ask for the other's.
func TestDeadlockIsRetry(t *testing.T) {
	for _, e := range []string{"postgres", "mysql"} {
		t.Run(e, func(t *testing.T) {
			dsn := serverDSN(t, e)
			ctx := context.Background()
			db, err := Open(ctx, e, dsn)
			require.NoError(t, err)
			defer func() { assert.NoError(t, db.Close()) }()
			_, err = db.SQL.ExecContext(ctx, "CREATE TABLE locks (id INT PRIMARY KEY, n INT)")
			require.NoError(t, err)
			_, err = db.SQL.ExecContext(ctx, "INSERT INTO locks (id, n) VALUES (1, 0), (2, 0)")
			require.NoError(t, err)
			update := "UPDATE locks SET n = n + 1 WHERE id = " + db.Dialect.Placeholder(1)
			tx1, err := db.SQL.BeginTx(ctx, nil)
			require.NoError(t, err)
			defer func() { _ = tx1.Rollback() }()
			tx2, err := db.SQL.BeginTx(ctx, nil)
			require.NoError(t, err)
			defer func() { _ = tx2.Rollback() }()
			_, err = tx1.ExecContext(ctx, update, 1)
			require.NoError(t, err)
			_, err = tx2.ExecContext(ctx, update, 2)
			require.NoError(t, err)
			second := make(chan error, 1)
			go func() {
				_, err := tx1.ExecContext(ctx, update, 2) // waits for tx2
				second <- err
			}()
			_, err1 := tx2.ExecContext(ctx, update, 1) // the cycle: one of the two is chosen
			err2 := <-second
			failed := err1
			if failed == nil {
				failed = err2
			}
			require.Error(t, failed, "no deadlock reported")
			c, msg := Classify(failed)
			assert.Equal(t, Retry, c, "%v", failed)
			assert.Contains(t, msg, "eadlock")
		})
	}
}
