package store

import (
	"context"
	"database/sql"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/croql/croql/compile"
	"github.com/croql/croql/demo"
	"github.com/croql/croql/mapping"
	"github.com/croql/croql/schema"
)

// TestEveryTableHasAKey: the default mapping gives every table a primary
// key, on every dialect: its own id, or its owner plus OrdinalColumn.
func TestEveryTableHasAKey(t *testing.T) {
	m := mapping.Default(schema.New())
	for _, d := range []compile.Dialect{compile.Postgres{}, compile.SQLite{}, compile.MySQL{}} {
		for _, stmt := range DDL(d, m) {
			if strings.HasPrefix(stmt, "CREATE TABLE ") {
				assert.Contains(t, stmt, "PRIMARY KEY", "%s: %s", d.Name(), stmt)
			}
		}
	}
}

// TestPublicationUpdatesEveryTable: a PostgreSQL publication over a
// schema croql load filled, with UPDATE and DELETE published; an UPDATE
// and a DELETE on every table then succeed on the primary (a table
// without a replica identity refuses both: "does not have a replica
// identity and publishes updates").
func TestPublicationUpdatesEveryTable(t *testing.T) {
	dsn := serverDSN(t, "postgres")
	ctx := context.Background()
	name, err := scratchName(time.Now())
	require.NoError(t, err)
	pub := name + "_pub"
	d := compile.Postgres{}
	admin, err := sql.Open("pgx", dsn)
	require.NoError(t, err)
	t.Cleanup(func() {
		_, _ = admin.Exec("DROP PUBLICATION IF EXISTS " + d.Quote(pub))
		_, _ = admin.Exec("DROP SCHEMA IF EXISTS " + d.Quote(name) + " CASCADE")
		admin.Close()
	})

	db, err := OpenTarget(ctx, "postgres", dsn, name)
	require.NoError(t, err)
	m := mapping.Default(schema.New())
	require.NoError(t, Load(ctx, db, m, demo.Generate(demo.Options{Strings: 300, Seed: 9})))
	require.NoError(t, db.Close())

	tables := append(m.TableNames(), mapping.LoadMarker)
	q := make([]string, len(tables))
	for i, tb := range tables {
		q[i] = d.Quote(name) + "." + d.Quote(tb)
	}
	_, err = admin.ExecContext(ctx, "CREATE PUBLICATION "+d.Quote(pub)+" FOR TABLE "+strings.Join(q, ", ")+" WITH (publish = 'insert, update, delete')")
	require.NoError(t, err)
	for i, tb := range tables {
		var col string
		require.NoError(t, admin.QueryRowContext(ctx, `SELECT column_name FROM information_schema.columns
			WHERE table_schema = $1 AND table_name = $2 ORDER BY ordinal_position LIMIT 1`, name, tb).Scan(&col))
		var n int64
		require.NoError(t, admin.QueryRowContext(ctx, "SELECT count(*) FROM "+q[i]).Scan(&n))
		require.Positive(t, n, "%s has rows to update", tb)
		res, err := admin.ExecContext(ctx, "UPDATE "+q[i]+" SET "+d.Quote(col)+" = "+d.Quote(col))
		if assert.NoError(t, err, "UPDATE %s", tb) {
			got, _ := res.RowsAffected()
			assert.Equal(t, n, got, tb)
		}
		res, err = admin.ExecContext(ctx, "DELETE FROM "+q[i])
		if assert.NoError(t, err, "DELETE %s", tb) {
			got, _ := res.RowsAffected()
			assert.Equal(t, n, got, tb)
		}
	}
}
