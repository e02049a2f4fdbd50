package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/go-sql-driver/mysql"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/croql/croql/compile"
	"github.com/croql/croql/mapping"
	"github.com/croql/croql/schema"
)

// TestVitessClassify: vttablet's row limit and vtgate's timeout share
// MySQL's error 1317; the limit is an engine limit that names its setting.
func TestVitessClassify(t *testing.T) {
	class, msg := Classify(fmt.Errorf("store: reading ids: %w", &mysql.MySQLError{Number: 1317,
		Message: "target: croql.-80.primary: vttablet: rpc error: code = Aborted desc = Row count exceeded 10000 (CallerID: userData1)"}))
	assert.Equal(t, Limit, class)
	assert.Contains(t, msg, "--queryserver-config-max-result-size")
	assert.Contains(t, msg, "Row count exceeded 10000")
	class, _ = Classify(&mysql.MySQLError{Number: 1317, Message: "vtgate: context deadline exceeded"})
	assert.Equal(t, Timeout, class)
}

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
// with none of its scratch tables or their VSchema entries; the retry
// loads, every table placed by its shard key, also where the VSchema had
// an entry with another vindex column for one of its tables (left by an
// earlier table of that name), and commits its rows as it goes (vttablet
// ends a transaction that lives past its timeout); a second load is
// refused whole without touching the first.
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
	// A VSchema entry for a table of the load, by another column.
	_, err = ks.SQL.ExecContext(ctx, "ALTER VSCHEMA ON glossary_terms ADD VINDEX `hash`(concept_id) USING `hash`")
	require.NoError(t, err)
	// A vindex named as a lookup vindex of the load, of another type.
	_, err = ks.SQL.ExecContext(ctx, "ALTER VSCHEMA CREATE VINDEX `"+ks.Schema+"`.`strings_id_lookup` USING `hash`")
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
	// vschema is the keyspace's VSchema entries: the tables vtgate routes
	// by a vindex (SHOW VSCHEMA TABLES lists too, for a while, tables its
	// schema tracking saw).
	vschema := func() []string {
		out, err := listNames(ctx, ks.SQL, "SHOW VSCHEMA TABLES")
		require.NoError(t, err)
		return slices.DeleteFunc(out, func(s string) bool {
			has, err := hasVindex(ctx, ks.SQL, s)
			require.NoError(t, err)
			return !has
		})
	}
	// committed is the most rows of the load's scratch translations table
	// another connection saw during the load.
	committed := 0
	load := func(file string) error {
		db, err := OpenTarget(ctx, "vitess", dsn, ks.Schema)
		require.NoError(t, err)
		f, err := os.Open(file)
		require.NoError(t, err)
		defer f.Close()
		_, err = LoadFile(ctx, db, f, schema.ReadOptions{}, func(LoadStats) {
			var n int
			if ks.SQL.QueryRowContext(ctx, "SELECT count(*) FROM "+db.prefix+"translations").Scan(&n) == nil {
				committed = max(committed, n)
			}
		})
		return errors.Join(err, db.Close())
	}
	require.ErrorContains(t, load(projectFile(t, 300, true)), "line ")
	assert.Equal(t, []string{"mine"}, tables(), "the keyspace is as it was")
	assert.ElementsMatch(t, []string{"mine", "glossary_terms"}, vschema(), "no scratch VSchema entry")
	vindexes := func() []string {
		out, err := listVindexes(ctx, ks.SQL, "")
		require.NoError(t, err)
		return out
	}
	assert.ElementsMatch(t, []string{"hash", "strings_id_lookup"}, vindexes(), "no scratch lookup vindex")

	good := projectFile(t, 300, false)
	committed = 0
	require.NoError(t, load(good))
	assert.Positive(t, committed, "rows committed during the load")
	require.NoError(t, CheckLoaded(ctx, ks.SQL, ks.Dialect))
	count := func(table string) int {
		var n int
		require.NoError(t, ks.SQL.QueryRowContext(ctx, "SELECT count(*) FROM "+table).Scan(&n))
		return n
	}
	assert.Equal(t, 300, count("strings"))
	assert.Equal(t, 3, count("mine"))
	want := append(mapping.Default(schema.New()).TableNames(), mapping.LoadMarker, mapping.ProjectTable, "mine")
	for _, lk := range vitessLookups(mapping.Default(schema.New())) {
		want = append(want, lk.name)
	}
	assert.ElementsMatch(t, want, tables(), "the load's tables, no scratch table left")
	assert.ElementsMatch(t, want, vschema(), "the load's VSchema entries, no scratch entry left")
	assert.ElementsMatch(t, []string{"hash", "strings_id_lookup", "translations_id_lookup"}, vindexes(), "the load's vindexes, no scratch vindex left")
	on, err := listVindexes(ctx, ks.SQL, "strings")
	require.NoError(t, err)
	assert.ElementsMatch(t, []string{"shard_key hash hash", "id strings_id_lookup lookup_unique"}, on, "the vindexes of strings")
	// A string is found by its id through its lookup vindex, on its
	// shard alone.
	var plan string
	require.NoError(t, ks.SQL.QueryRowContext(ctx, "VEXPLAIN PLAN SELECT id FROM strings WHERE id = 5").Scan(&plan))
	assert.Contains(t, plan, `"Vindex": "strings_id_lookup"`)
	// vtgate finds every row by its vindex: the conflicting entry was
	// replaced (by it, vtgate looked for a term on the shard of its
	// concept, where the term is not).
	rows, err := ks.SQL.QueryContext(ctx, "SHOW VSCHEMA VINDEXES ON glossary_terms")
	require.NoError(t, err)
	var vindexCols []string
	for rows.Next() {
		var c, n, typ, params, owner sql.NullString
		require.NoError(t, rows.Scan(&c, &n, &typ, &params, &owner))
		vindexCols = append(vindexCols, c.String)
	}
	require.NoError(t, rows.Close())
	assert.Equal(t, []string{"id"}, vindexCols)
	concepts, err := listNames(ctx, ks.SQL, "SELECT concept_id FROM glossary_terms")
	require.NoError(t, err)
	var n int
	require.NoError(t, ks.SQL.QueryRowContext(ctx, "SELECT count(*) FROM glossary_terms WHERE concept_id IN ("+strings.Join(concepts, ", ")+")").Scan(&n))
	assert.Equal(t, len(concepts), n, "glossary terms found by concept")
	for _, table := range []string{"glossary_terms", "strings", "translations"} {
		ids, err := listNames(ctx, ks.SQL, "SELECT id FROM "+table)
		require.NoError(t, err)
		require.NotEmpty(t, ids, table)
		var n int
		require.NoError(t, ks.SQL.QueryRowContext(ctx, "SELECT count(*) FROM "+table+" WHERE id IN ("+strings.Join(ids, ", ")+")").Scan(&n))
		assert.Equal(t, len(ids), n, "%s found by id", table)
	}
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

	require.ErrorContains(t, load(good), "has a table", "the tables exist")
	assert.Equal(t, 300, count("strings"), "the first load is untouched")
	require.NoError(t, CheckLoaded(ctx, ks.SQL, ks.Dialect))
}
