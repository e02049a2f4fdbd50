package platform_test

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/croql/croql/demo"
	"github.com/croql/croql/internal/testdb"
	"github.com/croql/croql/mapping"
	"github.com/croql/croql/schema"
	"github.com/croql/croql/server"
	"github.com/croql/croql/server/platform"
	"github.com/croql/croql/store"
)

// TestReadOnlyDatabaseRefusesImports: croql serve on a database that
// refuses writes, as a PostgreSQL hot standby does (SQLSTATE 25006; here
// the session's default_transaction_read_only, which answers the same) or
// a MariaDB session with tx_read_only (error 1792), serves the lists, and
// an upload answers 503 saying that the database is read-only, not a 500;
// the engine's own error goes to the log.
func TestReadOnlyDatabaseRefusesImports(t *testing.T) {
	for _, eng := range testdb.Servers(t) {
		t.Run(eng, func(t *testing.T) {
			ctx := context.Background()
			dsn := testdb.DSN(eng)
			name := fmt.Sprintf("croqlro_%d", time.Now().UnixNano())
			db, err := store.OpenTarget(ctx, eng, dsn, name)
			require.NoError(t, err)
			t.Cleanup(func() { dropStore(t, eng, dsn, name) })
			require.NoError(t, store.Load(ctx, db, mapping.Default(schema.New()), demo.Generate(demo.Options{Strings: 20, Seed: 1})))
			require.NoError(t, db.Close())

			st, err := server.OpenExisting(ctx, eng, readOnlyDSN(t, eng, dsn, name), "demo")
			require.NoError(t, err)
			t.Cleanup(func() { assert.NoError(t, st.Close()) })
			var logged bytes.Buffer
			hs, _ := serveStorage(t, st, platform.Config{Logger: slog.New(slog.NewTextHandler(&logged, nil))})

			require.Len(t, listStrings(t, hs.URL, ""), 20, "the lists are served")
			status, body := uploadFile(t, hs.URL, "/api/v2/projects/1/files", "app.json", `{"a":"Apple"}`, nil)
			require.Equal(t, http.StatusServiceUnavailable, status, string(body))
			assert.JSONEq(t, `{"error":{"code":503,"message":"The database is read-only (a hot standby or a read replica): imports need croql serve on the primary; nothing was stored"}}`, string(body))
			assert.Contains(t, logged.String(), "read-only")
			assert.Len(t, listStrings(t, hs.URL, ""), 20, "nothing was stored")
		})
	}
}

// readOnlyDSN is dsn in the schema (database) name, in sessions that
// refuse writes.
func readOnlyDSN(t *testing.T, eng, dsn, name string) string {
	t.Helper()
	if eng == "mysql" {
		cfg, err := mysql.ParseDSN(dsn)
		require.NoError(t, err, "this test takes go-sql-driver's DSN form for MySQL")
		cfg.DBName = name
		cfg.Params = map[string]string{"tx_read_only": "1"}
		return cfg.FormatDSN()
	}
	if !strings.Contains(dsn, "://") {
		return dsn + " search_path=" + name + " default_transaction_read_only=on"
	}
	sep := "?"
	if strings.Contains(dsn, "?") {
		sep = "&"
	}
	return dsn + sep + "search_path=" + name + "&default_transaction_read_only=on"
}

// dropStore drops the schema (database) a test loaded.
func dropStore(t *testing.T, eng, dsn, name string) {
	db, err := store.OpenDSN(context.Background(), dsn)
	require.NoError(t, err)
	defer db.Close()
	stmt := "DROP SCHEMA IF EXISTS " + db.Dialect.Quote(name) + " CASCADE"
	if eng == "mysql" {
		stmt = "DROP DATABASE IF EXISTS " + db.Dialect.Quote(name)
	}
	_, err = db.SQL.Exec(stmt)
	assert.NoError(t, err)
}
