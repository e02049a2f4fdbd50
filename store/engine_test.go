package store

import (
	"context"
	"database/sql"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/croql/croql/compile"
	"github.com/croql/croql/demo"
	"github.com/croql/croql/internal/testdb"
	"github.com/croql/croql/mapping"
	"github.com/croql/croql/schema"
)

// serverDSN returns the DSN of engine ("postgres" or "mysql"); without it
// the test is skipped, or fails when CROQL_REQUIRE_DB lists the store.
func serverDSN(t *testing.T, engine string) string {
	t.Helper()
	return testdb.Need(t, engine)
}

func TestScratchNames(t *testing.T) {
	now := time.Unix(1_764_000_000, 0)
	name, err := scratchName(now)
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(name, "croql_1764000000_"), name)
	got, _, ok := scratchTime(name)
	require.True(t, ok)
	assert.Equal(t, now, got)
	for _, other := range []string{"croql_a1b2c3d4e5f6", "public", "croql_12_x", "croql_1764000000_a1b2c3d4e5fz", "croql__a1b2c3d4e5f6"} {
		_, _, ok := scratchTime(other)
		assert.False(t, ok, other)
	}
}

// stats returns reltuples of every table of schema.
func stats(t *testing.T, admin *sql.DB, schemaName string) map[string]float64 {
	t.Helper()
	rows, err := admin.Query(`SELECT c.relname, c.reltuples FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
		WHERE n.nspname = $1 AND c.relkind = 'r'`, schemaName)
	require.NoError(t, err)
	defer rows.Close()
	out := map[string]float64{}
	for rows.Next() {
		var name string
		var n float64
		require.NoError(t, rows.Scan(&name, &n))
		out[name] = n
	}
	require.NoError(t, rows.Err())
	return out
}

// TestPostgresRunsIsolated: two loads running at once on one server each
// see only their own data, and the statistics one refreshes are its own
// tables' only (a whole-database VACUUM ANALYZE would refresh the other's
// too, and wait on its locks).
func TestPostgresRunsIsolated(t *testing.T) {
	dsn := serverDSN(t, "postgres")
	ctx := context.Background()
	m := mapping.Default(schema.New())
	projects := []*schema.Project{demo.Generate(demo.Options{Strings: 300, Seed: 11}), demo.Generate(demo.Options{Strings: 200, Seed: 12})}
	dbs := make([]*DB, 2)
	for i := range dbs {
		db, err := Open(ctx, "postgres", dsn)
		require.NoError(t, err)
		t.Cleanup(func() { assert.NoError(t, db.Close()) })
		dbs[i] = db
	}
	require.NotEqual(t, dbs[0].Schema, dbs[1].Schema)
	var wg sync.WaitGroup
	errs := make([]error, 2)
	for i := range dbs {
		wg.Go(func() { errs[i] = Load(ctx, dbs[i], m, projects[i]) })
	}
	wg.Wait()
	require.NoError(t, errs[0])
	require.NoError(t, errs[1])
	for i, db := range dbs {
		var n int
		require.NoError(t, db.SQL.QueryRow(`SELECT count(*) FROM strings`).Scan(&n))
		assert.Equal(t, len(projects[i].Strings), n, "run %d sees its own strings only", i)
	}

	admin, err := sql.Open("pgx", dsn)
	require.NoError(t, err)
	t.Cleanup(func() { admin.Close() }) // after the cleanups below, which use it
	// Grow run 0's table behind the planner's back: a statistics refresh
	// of it would change reltuples.
	_, err = dbs[0].SQL.Exec(`INSERT INTO screenshots (id, name, string_id, ordinal) SELECT g, 'x', 1, 1000 + g FROM generate_series(1, 5000) g`)
	require.NoError(t, err)
	before := stats(t, admin, dbs[0].Schema)
	require.NotEmpty(t, before)
	third, err := Open(ctx, "postgres", dsn)
	require.NoError(t, err)
	defer third.Close()
	require.NoError(t, Load(ctx, third, m, projects[1]))
	assert.Equal(t, before, stats(t, admin, dbs[0].Schema), "loading another run refreshed this run's statistics")
	assert.NotZero(t, stats(t, admin, third.Schema)["strings"], "the load refreshes its own statistics")
}

// TestLeftoversDropped: a scratch schema older than LeftoverAge is
// dropped by the next Open; a young one and one of another name stay.
func TestLeftoversDropped(t *testing.T) {
	dsn := serverDSN(t, "postgres")
	admin, err := sql.Open("pgx", dsn)
	require.NoError(t, err)
	t.Cleanup(func() { admin.Close() }) // after the cleanups below, which use it
	now := time.Now()
	old, err := scratchName(now.Add(-LeftoverAge - time.Hour))
	require.NoError(t, err)
	young, err := scratchName(now.Add(-time.Minute))
	require.NoError(t, err)
	other := "croqlx_keep_" + strings.TrimPrefix(young, ScratchPrefix)
	d := compile.Postgres{}
	for _, n := range []string{old, young, other} {
		_, err := admin.Exec("CREATE SCHEMA " + d.Quote(n))
		require.NoError(t, err)
	}
	t.Cleanup(func() {
		for _, n := range []string{old, young, other} {
			_, _ = admin.Exec("DROP SCHEMA IF EXISTS " + d.Quote(n) + " CASCADE")
		}
	})
	db, err := Open(context.Background(), "postgres", dsn)
	require.NoError(t, err)
	require.NoError(t, db.Close())
	exists := func(n string) bool {
		var ok bool
		require.NoError(t, admin.QueryRow(`SELECT EXISTS (SELECT 1 FROM pg_namespace WHERE nspname = $1)`, n).Scan(&ok))
		return ok
	}
	assert.False(t, exists(old), "the old leftover is dropped")
	assert.True(t, exists(young), "a young scratch schema may be a run still going")
	assert.True(t, exists(other))
	assert.False(t, exists(db.Schema), "Close drops its own")
}

// TestLeftoversDroppedMySQL: the same on MariaDB, where scratch spaces
// are databases.
func TestLeftoversDroppedMySQL(t *testing.T) {
	dsn := serverDSN(t, "mysql")
	admin, err := sql.Open("mysql", dsn)
	require.NoError(t, err)
	t.Cleanup(func() { admin.Close() })
	now := time.Now()
	old, err := scratchName(now.Add(-LeftoverAge - time.Hour))
	require.NoError(t, err)
	young, err := scratchName(now.Add(-time.Minute))
	require.NoError(t, err)
	d := compile.MySQL{}
	for _, n := range []string{old, young} {
		_, err := admin.Exec("CREATE DATABASE " + d.Quote(n))
		require.NoError(t, err)
	}
	t.Cleanup(func() {
		for _, n := range []string{old, young} {
			_, _ = admin.Exec("DROP DATABASE IF EXISTS " + d.Quote(n))
		}
	})
	db, err := Open(context.Background(), "mysql", dsn)
	require.NoError(t, err)
	require.NoError(t, db.Close())
	exists := func(n string) bool {
		var c int
		require.NoError(t, admin.QueryRow(`SELECT count(*) FROM information_schema.schemata WHERE schema_name = ?`, n).Scan(&c))
		return c > 0
	}
	assert.False(t, exists(old), "the old leftover is dropped")
	assert.True(t, exists(young))
	assert.False(t, exists(db.Schema))
}

// TestSQLiteLoadRestoresSettings loads a project into a SQLite file on a
// single connection and checks that the PRAGMAs the load changes for
// speed (synchronous, cache_size, temp_store, analysis_limit) are back to
// their previous values afterwards, and that the rows and the statistics
// are there.
func TestSQLiteLoadRestoresSettings(t *testing.T) {
	ctx := context.Background()
	db, err := OpenTarget(ctx, "sqlite", "file:"+t.TempDir()+"/p.db", "")
	require.NoError(t, err)
	defer db.Close()
	db.SQL.SetMaxOpenConns(1) // the load's connection is the one read below
	pragmas := []string{"synchronous", "cache_size", "temp_store", "analysis_limit"}
	read := func() map[string]string {
		out := map[string]string{}
		for _, p := range pragmas {
			var v string
			require.NoError(t, db.SQL.QueryRowContext(ctx, "PRAGMA "+p).Scan(&v))
			out[p] = v
		}
		return out
	}
	before := read()
	p := demo.Generate(demo.Options{Strings: 50, Seed: 3})
	require.NoError(t, LoadSQL(ctx, db.SQL, db.Dialect, mapping.Default(schema.New()), p))
	assert.Equal(t, before, read())
	var n, stats int
	require.NoError(t, db.SQL.QueryRowContext(ctx, "SELECT count(*) FROM strings").Scan(&n))
	assert.Equal(t, len(p.Strings), n)
	require.NoError(t, db.SQL.QueryRowContext(ctx, "SELECT count(*) FROM sqlite_stat1").Scan(&stats))
	assert.Positive(t, stats)
}

// TestSQLiteLoadSamplesRanges: a SQLite load writes sqlite_stat4's
// samples, so a page of a range that holds no row (updated after every
// string's) searches the index on updated instead of reading the strings
// in key order to the end.
func TestSQLiteLoadSamplesRanges(t *testing.T) {
	ctx := context.Background()
	db, err := OpenTarget(ctx, "sqlite", "file:"+t.TempDir()+"/p.db", "")
	require.NoError(t, err)
	defer db.Close()
	p := demo.Generate(demo.Options{Strings: 2000, Seed: 3})
	require.NoError(t, LoadSQL(ctx, db.SQL, db.Dialect, mapping.Default(schema.New()), p))
	var samples int
	require.NoError(t, db.SQL.QueryRowContext(ctx, "SELECT count(*) FROM sqlite_stat4").Scan(&samples))
	assert.Positive(t, samples)
	rows, err := db.SQL.QueryContext(ctx, `EXPLAIN QUERY PLAN SELECT t0."id" FROM "strings" AS t0 WHERE (t0."updated" > ?) ORDER BY t0."id" LIMIT 25`,
		time.Now().Add(1000*24*time.Hour).Unix())
	require.NoError(t, err)
	defer rows.Close()
	var plan []string
	for rows.Next() {
		var id, parent, unused int
		var detail string
		require.NoError(t, rows.Scan(&id, &parent, &unused, &detail))
		plan = append(plan, detail)
	}
	require.NoError(t, rows.Err())
	assert.Contains(t, strings.Join(plan, "\n"), "INDEX strings_updated_idx", plan)
}

// sqliteCounts returns the number of rows of every table of the default
// mapping in db.
func sqliteCounts(t *testing.T, db *DB) map[string]int {
	t.Helper()
	out := map[string]int{}
	for _, name := range mapping.Default(schema.New()).TableNames() {
		var n int
		require.NoError(t, db.SQL.QueryRow("SELECT count(*) FROM "+db.Dialect.Quote(name)).Scan(&n))
		out[name] = n
	}
	return out
}

// TestSQLiteLoaderAbort: a load whose INSERTs already ran for many
// batches and that then meets a bad object is rolled back whole: Add or Finish reports the error, Abort
// leaves every table empty and the connection's settings as they were.
func TestSQLiteLoaderAbort(t *testing.T) {
	ctx := context.Background()
	db, err := OpenTarget(ctx, "sqlite", "file:"+t.TempDir()+"/p.db", "")
	require.NoError(t, err)
	defer db.Close()
	db.SQL.SetMaxOpenConns(1)
	var sync0 string
	require.NoError(t, db.SQL.QueryRow("PRAGMA synchronous").Scan(&sync0))
	p := demo.Generate(demo.Options{Strings: 3000, Seed: 5})
	m := mapping.Default(schema.New())
	l, err := NewLoader(ctx, db, m)
	require.NoError(t, err)
	require.NoError(t, l.Head(p))
	for i := range p.Strings {
		require.NoError(t, l.Add(&p.Strings[i]))
	}
	bad := p.Strings[10] // the same id with other contents
	bad.Text += " changed"
	err = l.Add(&bad)
	require.ErrorContains(t, err, "appears twice with different contents")
	l.Abort()
	l.Abort() // twice is harmless
	require.Error(t, l.Finish())
	assert.Empty(t, sqliteTables(t, db), "the load's tables are rolled back with it")
	var sync1 string
	require.NoError(t, db.SQL.QueryRow("PRAGMA synchronous").Scan(&sync1))
	assert.Equal(t, sync0, sync1)

	// The file is as it was, so a new load into it works.
	require.NoError(t, Load(ctx, db, m, p))
	assert.Equal(t, len(p.Strings), sqliteCounts(t, db)["strings"])
}

// sqliteTables lists the tables of a SQLite database.
func sqliteTables(t *testing.T, db *DB) []string {
	t.Helper()
	rows, err := db.SQL.Query("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
	require.NoError(t, err)
	defer rows.Close()
	var out []string
	for rows.Next() {
		var n string
		require.NoError(t, rows.Scan(&n))
		out = append(out, n)
	}
	require.NoError(t, rows.Err())
	return out
}

// TestSQLiteLoaderCancel: cancelling the context stops a load in its
// INSERTs; the error says so and nothing is committed.
func TestSQLiteLoaderCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	db, err := OpenTarget(ctx, "sqlite", "file:"+t.TempDir()+"/p.db", "")
	require.NoError(t, err)
	defer db.Close()
	p := demo.Generate(demo.Options{Strings: 2000, Seed: 6})
	l, err := NewLoader(ctx, db, mapping.Default(schema.New()))
	require.NoError(t, err)
	require.NoError(t, l.Head(p))
	for i := range 1000 {
		require.NoError(t, l.Add(&p.Strings[i]))
	}
	cancel()
	for i := 1000; i < len(p.Strings) && err == nil; i++ {
		err = l.Add(&p.Strings[i])
	}
	if err == nil {
		err = l.Finish()
	} else {
		l.Abort()
	}
	require.ErrorIs(t, err, context.Canceled)
	assert.Empty(t, sqliteTables(t, db), "nothing is committed")
}

// TestSQLiteLoadContents: the load stores every row once, the same on a
// file as through Load in memory (the rows counted per table
// against what the project holds).
func TestSQLiteLoadContents(t *testing.T) {
	ctx := context.Background()
	p := demo.Generate(demo.Options{Strings: 1500, Seed: 7})
	m := mapping.Default(schema.New())
	file, err := OpenTarget(ctx, "sqlite", "file:"+t.TempDir()+"/p.db", "")
	require.NoError(t, err)
	defer file.Close()
	require.NoError(t, Load(ctx, file, m, p))
	mem, err := Open(ctx, "sqlite", "")
	require.NoError(t, err)
	defer mem.Close()
	require.NoError(t, Load(ctx, mem, m, p))
	got := sqliteCounts(t, file)
	assert.Equal(t, sqliteCounts(t, mem), got)
	assert.Equal(t, len(p.Strings), got["strings"])
	translations := 0
	for _, s := range p.Strings {
		translations += len(s.Translations)
	}
	assert.Equal(t, translations, got["string_translations"])
}

// TestSQLiteLoaderRepeats: a string that lists one label (or
// translation) twice is refused, in a short list and in a long one; a
// string given twice with the same contents is stored once.
func TestSQLiteLoaderRepeats(t *testing.T) {
	ctx := context.Background()
	m := mapping.Default(schema.New())
	base := demo.Generate(demo.Options{Strings: 20, Seed: 8})
	var label schema.Label
	withLabel := -1
	for i, s := range base.Strings {
		if len(s.Labels) > 0 {
			label, withLabel = s.Labels[0], i
			break
		}
	}
	require.GreaterOrEqual(t, withLabel, 0, "the demo project has labelled strings")
	long := make([]schema.Label, 40)
	for i := range long {
		long[i] = schema.Label{ID: int64(1000 + i), Title: "l" + strconv.Itoa(i)}
	}
	for name, tc := range map[string]struct {
		labels []schema.Label
		err    string
	}{
		"short repeat": {[]schema.Label{label, label}, "lists label"},
		"long":         {long, ""},
		"long repeat":  {append(slices.Clone(long), long[3]), "lists label 1003 twice"},
	} {
		t.Run(name, func(t *testing.T) {
			db, err := Open(ctx, "sqlite", "")
			require.NoError(t, err)
			defer db.Close()
			p := *base
			p.Strings = slices.Clone(base.Strings)
			p.Strings[withLabel].Labels = tc.labels
			p.Strings = append(p.Strings, p.Strings[0]) // the same string again: stored once
			err = Load(ctx, db, m, &p)
			if tc.err != "" {
				require.ErrorContains(t, err, tc.err)
				return
			}
			require.NoError(t, err)
			got := sqliteCounts(t, db)
			assert.Equal(t, len(base.Strings), got["strings"])
			var n int
			require.NoError(t, db.SQL.QueryRow("SELECT count(*) FROM string_labels WHERE string_id = ?", p.Strings[withLabel].ID).Scan(&n))
			assert.Equal(t, len(long), n)
		})
	}
}

// TestSQLiteCacheDSN: the DSN of a SQLiteCache sets the page cache and
// the memory map on every connection of the pool.
func TestSQLiteCacheDSN(t *testing.T) {
	file := "file:" + t.TempDir() + "/c.db"
	db, err := OpenSQLite(SQLiteCache{PageCacheBytes: 8 << 20, MmapBytes: 64 << 20}.DSN(file + "?_pragma=busy_timeout(5000)"))
	require.NoError(t, err)
	defer db.Close()
	db.SQL.SetMaxOpenConns(3)
	ctx := context.Background()
	var conns []*sql.Conn
	for range 3 {
		c, err := db.SQL.Conn(ctx)
		require.NoError(t, err)
		conns = append(conns, c)
		var cache, mmap int64
		require.NoError(t, c.QueryRowContext(ctx, "PRAGMA cache_size").Scan(&cache))
		require.NoError(t, c.QueryRowContext(ctx, "PRAGMA mmap_size").Scan(&mmap))
		assert.Equal(t, int64(-8192), cache)
		assert.Equal(t, int64(64<<20), mmap)
	}
	for _, c := range conns {
		require.NoError(t, c.Close())
	}
	assert.Equal(t, file, SQLiteCache{}.DSN(file))
}
