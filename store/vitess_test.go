package store

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/croql/croql/compile"
	"github.com/croql/croql/mapping"
	"github.com/croql/croql/schema"
)

func TestVitessDSN(t *testing.T) {
	assert.Equal(t, "vitess", EngineOfDSN("vitess://root@127.0.0.1:15306/croql"))
	assert.Equal(t, "vitess", EngineOfDSN(" VITESS://u:p@h:1/ks"))
	assert.Equal(t, "mysql", EngineOfDSN("mysql://root@127.0.0.1:3306/croql"))
	d, err := compile.DialectByName("vitess")
	require.NoError(t, err)
	assert.Equal(t, "vitess", d.Name())
}

// TestVitessLoad: croql load into a keyspace of a 2-shard Vitess cluster
// (CROQL_VITESS_DSN, .ci/vitess.sh) in a scratch keyspace of the test's
// own. A load failing at its last line leaves the keyspace as it was,
// with none of its scratch tables; the retry loads, every table placed by
// its shard key; a second load is refused whole without touching the
// first.
func TestVitessLoad(t *testing.T) {
	dsn := serverDSN(t, "vitess")
	ctx := context.Background()
	// A keyspace of the test's own: a scratch keyspace, which Close
	// gives back.
	ks, err := Open(ctx, "vitess", dsn)
	require.NoError(t, err)
	defer func() { require.NoError(t, ks.Close()) }()
	_, err = ks.SQL.ExecContext(ctx, "CREATE TABLE mine (id BIGINT PRIMARY KEY)")
	require.NoError(t, err)
	_, err = ks.SQL.ExecContext(ctx, "ALTER VSCHEMA ON mine ADD VINDEX `hash`(id) USING `hash`")
	require.NoError(t, err)
	_, err = ks.SQL.ExecContext(ctx, "INSERT INTO mine (id) VALUES (1), (2), (3)")
	require.NoError(t, err)

	tables := func() []string {
		rows, err := ks.SQL.QueryContext(ctx, "SHOW TABLES")
		require.NoError(t, err)
		defer rows.Close()
		var out []string
		for rows.Next() {
			var s string
			require.NoError(t, rows.Scan(&s))
			out = append(out, s)
		}
		require.NoError(t, rows.Err())
		return out
	}
	load := func(file string) error {
		_, err := loadFileInto(t, "vitess", dsn, ks.Schema, file)
		return err
	}
	require.ErrorContains(t, load(projectFile(t, 300, true)), "line ")
	assert.Equal(t, []string{"mine"}, tables(), "the keyspace is as it was")

	good := projectFile(t, 300, false)
	require.NoError(t, load(good))
	require.NoError(t, CheckLoaded(ctx, ks.SQL, ks.Dialect))
	count := func(table string) int {
		var n int
		require.NoError(t, ks.SQL.QueryRowContext(ctx, "SELECT count(*) FROM "+table).Scan(&n))
		return n
	}
	assert.Equal(t, 300, count("strings"))
	assert.Equal(t, 3, count("mine"))
	want := append(mapping.Default(schema.New()).TableNames(), mapping.LoadMarker, mapping.ProjectTable, "mine")
	assert.ElementsMatch(t, want, tables(), "the load's tables, no scratch table left")
	// Rows are on both shards: each is placed by its key.
	conn, err := ks.SQL.Conn(ctx)
	require.NoError(t, err)
	defer conn.Close()
	total := 0
	for _, shard := range []string{"-80", "80-"} {
		var n int
		_, err := conn.ExecContext(ctx, "USE `"+ks.Schema+"/"+shard+"`")
		require.NoError(t, err)
		require.NoError(t, conn.QueryRowContext(ctx, "SELECT count(*) FROM strings").Scan(&n))
		assert.Positive(t, n, "strings on shard %s", shard)
		total += n
	}
	assert.Equal(t, 300, total)
	_, err = conn.ExecContext(ctx, "USE `"+ks.Schema+"`")
	require.NoError(t, err)

	require.Error(t, load(good), "the tables exist")
	assert.Equal(t, 300, count("strings"), "the first load is untouched")
	require.NoError(t, CheckLoaded(ctx, ks.SQL, ks.Dialect))
}
