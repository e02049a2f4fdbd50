package main

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/croql/croql/demo"
	"github.com/croql/croql/internal/testdb"
	"github.com/croql/croql/schema"
	"github.com/croql/croql/store"
)

// postgresDSN returns CROQL_POSTGRES_DSN, or skips (fails when
// CROQL_REQUIRE_DB lists postgres).
func postgresDSN(t *testing.T) string {
	t.Helper()
	return testdb.Need(t, "postgres")
}

func writeProject(t *testing.T, strings int) (string, *schema.Project) {
	t.Helper()
	p := demo.Generate(demo.Options{Strings: strings, Seed: 4})
	var buf bytes.Buffer
	require.NoError(t, p.WriteNDJSON(&buf))
	f := filepath.Join(t.TempDir(), "p.ndjson")
	require.NoError(t, os.WriteFile(f, buf.Bytes(), 0o600))
	return f, p
}

func runLoad(t *testing.T, args ...string) (int, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := run(append([]string{"load"}, args...), strings.NewReader(""), &out, &errOut)
	assert.Empty(t, out.String())
	return code, errOut.String()
}

// TestLoadSQLite loads a project into a SQLite file: the tables hold
// every object, a second load into the same file fails (the tables
// exist), and bad usage is exit 2.
func TestLoadSQLite(t *testing.T) {
	f, p := writeProject(t, 300)
	dbFile := filepath.Join(t.TempDir(), "p.db")
	code, stderr := runLoad(t, "--dsn", dbFile, f)
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stderr, "into sqlite")
	db, err := store.OpenSQLite(dbFile)
	require.NoError(t, err)
	defer db.Close()
	var n int
	require.NoError(t, db.SQL.QueryRow(`SELECT count(*) FROM strings`).Scan(&n))
	assert.Equal(t, len(p.Strings), n)
	require.NoError(t, db.SQL.QueryRow(`SELECT count(*) FROM translations`).Scan(&n))
	assert.Equal(t, len(p.Translations()), n)
	require.NoError(t, db.SQL.QueryRow(`SELECT count(*) FROM sqlite_master WHERE type = 'index' AND name LIKE '%_idx'`).Scan(&n))
	assert.Positive(t, n, "indexes are built after the rows")

	code, stderr = runLoad(t, "--dsn", dbFile, f)
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, "creating tables")

	code, _ = runLoad(t, f)
	assert.Equal(t, 2, code, "--dsn is required")
}

// TestLoadBadData: a bad line stops the load with its line number and
// nothing is committed; --skip-bad loads the rest and says what it
// skipped.
func TestLoadBadData(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(dir, "bad.ndjson")
	src := `{"kind":"string","id":1,"type":"plain","text":"a","added":"2024-01-01"}` + "\n" +
		`{"kind":"string","id":1,"type":"plain","text":"b","added":"2024-01-01"}` + "\n" +
		`{"kind":"string","id":3,"type":"plain","text":"c","added":"2024-01-01"}` + "\n"
	require.NoError(t, os.WriteFile(f, []byte(src), 0o600))
	dbFile := filepath.Join(dir, "a.db")
	code, stderr := runLoad(t, "--dsn", dbFile, f)
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, "line 2: string 1: the id is taken")
	db, err := store.OpenSQLite(dbFile)
	require.NoError(t, err)
	var n int
	require.NoError(t, db.SQL.QueryRow(`SELECT count(*) FROM sqlite_master WHERE type = 'table'`).Scan(&n))
	assert.Zero(t, n, "nothing committed, not even the tables")
	db.Close()
	code, stderr = runLoad(t, "--dsn", dbFile, "--skip-bad", f)
	require.Equal(t, 0, code, "a retry into the same file works: %s", stderr)

	assert.Contains(t, stderr, "skipped line 2")
	assert.Contains(t, stderr, "2 objects")
	assert.Contains(t, stderr, "1 lines skipped")
}

// TestLoadPostgres loads into a schema of its own on PostgreSQL.
func TestLoadPostgres(t *testing.T) {
	dsn := postgresDSN(t)
	f, p := writeProject(t, 200)
	name := "croqltest_load_" + strings.ReplaceAll(time.Now().Format("150405.000000"), ".", "")
	admin, err := sql.Open("pgx", dsn)
	require.NoError(t, err)
	t.Cleanup(func() { admin.Close() }) // after the cleanups below, which use it
	t.Cleanup(func() { _, _ = admin.Exec(`DROP SCHEMA IF EXISTS "` + name + `" CASCADE`) })
	code, stderr := runLoad(t, "--dsn", dsn, "--schema", name, f)
	require.Equal(t, 0, code, stderr)
	var n int
	require.NoError(t, admin.QueryRow(`SELECT count(*) FROM "`+name+`".strings`).Scan(&n))
	assert.Equal(t, len(p.Strings), n)
	require.NoError(t, admin.QueryRow(`SELECT count(*) FROM "`+name+`".string_translations`).Scan(&n))
	assert.Positive(t, n)
}

// TestSIGTERMDropsScratchSchema builds croql, starts a query on
// PostgreSQL, sends SIGTERM while it loads, and checks that the scratch
// schema it created is gone when it exits.
func TestSIGTERMDropsScratchSchema(t *testing.T) {
	dsn := postgresDSN(t)
	if testing.Short() {
		t.Skip("builds the binary and loads 20,000 strings")
	}
	bin := filepath.Join(t.TempDir(), "croql")
	build := exec.Command("go", "build", "-o", bin, ".")
	out, err := build.CombinedOutput()
	require.NoError(t, err, "%s", out)
	data, _ := writeProject(t, 20000)

	admin, err := sql.Open("pgx", dsn)
	require.NoError(t, err)
	t.Cleanup(func() { admin.Close() })
	// Other test runs create scratch schemas on the same server at the
	// same time: this run's is the one its session locks tables in,
	// found by an application_name of its own.
	app := fmt.Sprintf("croql_sigterm_%d", time.Now().UnixNano())
	sep := "?"
	if strings.Contains(dsn, "?") {
		sep = "&"
	}
	appDSN := dsn + sep + "application_name=" + app
	locked := func() string {
		var n string
		err := admin.QueryRow(`SELECT n.nspname FROM pg_locks l
			JOIN pg_stat_activity a ON a.pid = l.pid
			JOIN pg_class c ON c.oid = l.relation
			JOIN pg_namespace n ON n.oid = c.relnamespace
			WHERE a.application_name = $1 AND n.nspname LIKE 'croql\_%' LIMIT 1`, app).Scan(&n)
		if errors.Is(err, sql.ErrNoRows) {
			return ""
		}
		require.NoError(t, err)
		return n
	}

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "query", "--engine", "postgres", "--dsn", appDSN, "--data", data, "--ids", `text = "x"`)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	require.NoError(t, cmd.Start())
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var mine string
	for mine == "" {
		select {
		case err := <-done:
			t.Fatalf("the query ended before it was seen loading (%v): %s", err, stderr.String())
		case <-ctx.Done():
			t.Fatal("the query never locked tables of a scratch schema")
		case <-time.After(20 * time.Millisecond):
		}
		mine = locked()
	}
	require.NoError(t, cmd.Process.Signal(syscall.SIGTERM)) // mid-load: it holds locks in its schema
	err = <-done
	var ee *exec.ExitError
	require.ErrorAs(t, err, &ee, "the query was stopped, not finished: %s", stderr.String())
	assert.Equal(t, 1, ee.ExitCode(), stderr.String())
	assert.NotContains(t, stderr.String(), "cleaning up")
	var exists bool
	require.NoError(t, admin.QueryRow(`SELECT EXISTS (SELECT 1 FROM pg_namespace WHERE nspname = $1)`, mine).Scan(&exists))
	assert.False(t, exists, "scratch schema %s left behind", mine)
}
