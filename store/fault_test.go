package store

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/croql/croql/compile"
	"github.com/croql/croql/demo"
	"github.com/croql/croql/mapping"
	"github.com/croql/croql/schema"
)

// The fault tests stop a database in the middle of a load. They never
// touch a shared server: PostgreSQL runs as a cluster of the test's own
// (pg_createcluster on a free loopback port, dropped at the end), SQLite
// in a subprocess with a file-size limit. They take about a minute and
// need root for pg_createcluster, so they run when CROQL_FAULT_TESTS is
// set (.ci/run's storage section sets it); then a missing
// pg_createcluster is a failure.
const envFault = "CROQL_FAULT_TESTS"

// pgCluster is a PostgreSQL cluster of the test's own.
type pgCluster struct {
	version, name string
	dsn           string
}

// wantFault skips the test unless CROQL_FAULT_TESTS is set.
func wantFault(t *testing.T) {
	t.Helper()
	if os.Getenv(envFault) == "" {
		t.Skipf("fault test not run: set %s=1 (.ci/run's storage section does)", envFault)
	}
}

func needFault(t *testing.T, what string) {
	t.Helper()
	t.Fatalf("the fault test needs what is missing (%s is set): %s", envFault, what)
}

// newCluster creates and starts a cluster on a free port, dropped when
// the test ends.
func newCluster(t *testing.T) *pgCluster {
	t.Helper()
	wantFault(t)
	if _, err := exec.LookPath("pg_createcluster"); err != nil {
		needFault(t, "pg_createcluster is not installed")
	}
	vs, _ := filepath.Glob("/usr/lib/postgresql/*/bin/postgres")
	if len(vs) == 0 {
		needFault(t, "no PostgreSQL server binaries under /usr/lib/postgresql")
	}
	version := filepath.Base(filepath.Dir(filepath.Dir(vs[len(vs)-1])))
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	port := ln.Addr().(*net.TCPAddr).Port
	require.NoError(t, ln.Close())
	c := &pgCluster{version: version, name: fmt.Sprintf("croqlfault%d_%d", os.Getpid(), time.Now().UnixNano()%1e6)}
	t.Cleanup(func() {
		out, err := exec.Command("pg_dropcluster", c.version, c.name, "--stop").CombinedOutput()
		assert.NoError(t, err, "pg_dropcluster: %s", out)
	})
	c.run(t, "pg_createcluster", c.version, c.name, "-p", fmt.Sprint(port), "--start",
		"-o", "listen_addresses=localhost", "-o", "fsync=off", "-o", "max_wal_size=4096",
		"--", "--auth=trust")
	c.dsn = fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable", port)
	return c
}

func (c *pgCluster) run(t *testing.T, name string, args ...string) {
	t.Helper()
	out, err := exec.Command(name, args...).CombinedOutput()
	require.NoError(t, err, "%s %s: %s", name, strings.Join(args, " "), out)
}

// stop stops the server at once, as a crash or a kill would.
func (c *pgCluster) stop(t *testing.T) {
	c.run(t, "pg_ctlcluster", c.version, c.name, "stop", "-m", "immediate")
}

func (c *pgCluster) start(t *testing.T) {
	c.run(t, "pg_ctlcluster", c.version, c.name, "start")
}

// tables lists the tables of the target schema (public) with their row
// counts: what "the target as it was" compares.
func (c *pgCluster) tables(t *testing.T) map[string]int64 {
	t.Helper()
	db, err := sql.Open("pgx", c.dsn)
	require.NoError(t, err)
	defer db.Close()
	var names []string
	rows, err := db.Query(`SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY 1`)
	require.NoError(t, err)
	for rows.Next() {
		var n string
		require.NoError(t, rows.Scan(&n))
		names = append(names, n)
	}
	require.NoError(t, rows.Err())
	rows.Close()
	out := map[string]int64{}
	for _, n := range names {
		var k int64
		require.NoError(t, db.QueryRow(`SELECT count(*) FROM public.`+compile.Postgres{}.Quote(n)).Scan(&k))
		out[n] = k
	}
	return out
}

// projectFile writes a project of n strings as NDJSON; bad adds a last
// line that repeats string 1 with other contents.
func projectFile(t *testing.T, n int, bad bool) string {
	t.Helper()
	p := demo.Generate(demo.Options{Strings: n, Seed: 21})
	var buf bytes.Buffer
	require.NoError(t, p.WriteNDJSON(&buf))
	if bad {
		fmt.Fprintf(&buf, `{"kind":"string","id":%d,"type":"plain","text":"other text","added":"2024-01-01"}`+"\n", p.Strings[0].ID)
	}
	f := filepath.Join(t.TempDir(), "p.ndjson")
	require.NoError(t, os.WriteFile(f, buf.Bytes(), 0o600))
	return f
}

// loadFile is croql load: OpenTarget, LoadFile, Close.
func loadFile(ctx context.Context, engineName, dsn, file string) error {
	db, err := OpenTarget(ctx, engineName, dsn, "")
	if err != nil {
		return err
	}
	f, err := os.Open(file)
	if err != nil {
		return errors.Join(err, db.Close())
	}
	defer f.Close()
	_, err = LoadFile(ctx, db, f, schema.ReadOptions{}, nil)
	// Close drops the scratch schema; with the server stopped it fails,
	// and the scratch is left to the next Open's cleaning.
	return errors.Join(err, db.Close())
}

// seedTarget puts a table of the user's own into the target, which every
// fault must leave as it was.
func seedTarget(t *testing.T, dsn string) {
	t.Helper()
	db, err := sql.Open("pgx", dsn)
	require.NoError(t, err)
	defer db.Close()
	_, err = db.Exec(`CREATE TABLE public.mine (id bigint PRIMARY KEY); INSERT INTO public.mine VALUES (1), (2)`)
	require.NoError(t, err)
}

// checkLoaded asserts a complete load of n strings in the target.
func checkLoaded(t *testing.T, engineName, dsn string, n int64) {
	t.Helper()
	db, err := OpenDSN(context.Background(), dsn)
	require.NoError(t, err)
	defer db.Close()
	require.Equal(t, engineName, db.Dialect.Name())
	require.NoError(t, CheckLoaded(context.Background(), db.SQL, db.Dialect))
	var got int64
	require.NoError(t, db.SQL.QueryRow(`SELECT count(*) FROM strings`).Scan(&got))
	assert.Equal(t, n, got)
}

// TestFaultPostgres: a load that fails at its last line, one whose server
// stops in the COPY phase and one whose server stops while it builds the
// indexes each leave the target as it was, and the retry then succeeds.
func TestFaultPostgres(t *testing.T) {
	c := newCluster(t)
	seedTarget(t, c.dsn)
	before := c.tables(t)
	require.Equal(t, map[string]int64{"mine": 2}, before)
	ctx := context.Background()
	big := projectFile(t, 20000, false)

	t.Run("last line", func(t *testing.T) {
		err := loadFile(ctx, "postgres", c.dsn, projectFile(t, 2000, true))
		require.ErrorContains(t, err, "line ")
		assert.Equal(t, before, c.tables(t), "the target is as it was")
	})

	// stopIn starts a load of the big file, stops the server when phase
	// shows in pg_stat_activity, and checks the target after a restart.
	stopIn := func(t *testing.T, phase string) {
		admin, err := sql.Open("pgx", c.dsn)
		require.NoError(t, err)
		defer admin.Close()
		done := make(chan error, 1)
		go func() { done <- loadFile(ctx, "postgres", c.dsn, big) }()
		deadline := time.After(2 * time.Minute)
		for seen := false; !seen; {
			select {
			case err := <-done:
				t.Fatalf("the load ended (%v) before its %q phase was seen", err, phase)
			case <-deadline:
				t.Fatalf("no %q phase in two minutes", phase)
			case <-time.After(5 * time.Millisecond):
			}
			var n int
			require.NoError(t, admin.QueryRow(`SELECT count(*) FROM pg_stat_activity WHERE state = 'active' AND query LIKE $1`, phase+"%").Scan(&n))
			seen = n > 0
		}
		admin.Close()
		c.stop(t)
		err = <-done
		require.Error(t, err, "the load fails with its server stopped")
		c.start(t)
		assert.Equal(t, before, c.tables(t), "the target is as it was")
	}
	t.Run("stopped in COPY", func(t *testing.T) { stopIn(t, "COPY ") })
	t.Run("stopped in the index phase", func(t *testing.T) { stopIn(t, "CREATE INDEX ") })

	t.Run("retry", func(t *testing.T) {
		require.NoError(t, loadFile(ctx, "postgres", c.dsn, big))
		checkLoaded(t, "postgres", c.dsn, 20000)
		after := c.tables(t)
		assert.Equal(t, int64(2), after["mine"])
		assert.Len(t, after, len(mapping.Default(schema.New()).TablesWithCounts())+3, "the mapping's tables with its counts' tables, croql_load, croql_project and mine")
	})
}

// TestFaultSQLiteFull: a SQLite load that runs out of room (a file-size
// limit, RLIMIT_FSIZE, set in a subprocess) leaves the file as it was,
// and the retry with room succeeds.
func TestFaultSQLiteFull(t *testing.T) {
	if f := os.Getenv("CROQL_FAULT_SQLITE_FILE"); f != "" {
		// The subprocess: limited to 2 MiB of file.
		require.NoError(t, syscall.Setrlimit(syscall.RLIMIT_FSIZE, &syscall.Rlimit{Cur: 2 << 20, Max: 2 << 20}))
		err := loadFile(context.Background(), "sqlite", "file:"+f, os.Getenv("CROQL_FAULT_SQLITE_DATA"))
		require.Error(t, err)
		fmt.Println("LOAD FAILED:", err)
		return
	}
	wantFault(t)
	dir := t.TempDir()
	file := filepath.Join(dir, "p.db")
	db, err := OpenSQLite("file:" + file)
	require.NoError(t, err)
	_, err = db.SQL.Exec(`CREATE TABLE mine (id INTEGER PRIMARY KEY); INSERT INTO mine VALUES (1), (2)`)
	require.NoError(t, err)
	require.NoError(t, db.Close())
	data := projectFile(t, 5000, false)
	before, err := os.ReadFile(file)
	require.NoError(t, err)

	cmd := exec.Command(os.Args[0], "-test.run=^TestFaultSQLiteFull$", "-test.v")
	cmd.Env = append(os.Environ(), "CROQL_FAULT_SQLITE_FILE="+file, "CROQL_FAULT_SQLITE_DATA="+data)
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	require.Contains(t, string(out), "LOAD FAILED:", "%s", out)
	t.Logf("%s", bytes.TrimSpace(out[bytes.Index(out, []byte("LOAD FAILED:")):min(len(out), bytes.Index(out, []byte("LOAD FAILED:"))+300)]))
	after, err := os.ReadFile(file)
	require.NoError(t, err)
	assert.True(t, bytes.Equal(before, after), "the file is as it was (%d bytes before, %d after)", len(before), len(after))
	_, err = os.Stat(file + "-journal")
	assert.True(t, errors.Is(err, os.ErrNotExist), "no journal left behind: %v", err)

	require.NoError(t, loadFile(context.Background(), "sqlite", "file:"+file, data))
	checkLoaded(t, "sqlite", "file:"+file, 5000)
}

// TestAtomicLoadServers: on the shared servers, a load into a schema
// (database) of the test's own that fails at its last line leaves no
// trace, not even the schema, and no scratch schema of its own; the retry
// loads, and a second load into the same target is refused whole (the
// tables exist) without touching the first.
func TestAtomicLoadServers(t *testing.T) {
	for _, eng := range []string{"postgres", "mysql"} {
		t.Run(eng, func(t *testing.T) {
			dsn := serverDSN(t, eng)
			ctx := context.Background()
			b, err := backendByName(eng)
			require.NoError(t, err)
			admin, err := b.pool(dsn, "")
			require.NoError(t, err)
			// Closed after the drop below: cleanups run last first (a
			// deferred Close ran before them and left the schema behind).
			t.Cleanup(func() { admin.Close() })
			name, err := scratchName(time.Now())
			require.NoError(t, err)
			name = "croqltest_atomic_" + name[len(ScratchPrefix):]
			d := b.dialect()
			t.Cleanup(func() { _, _ = admin.Exec(fmt.Sprintf(b.scratch().drop, d.Quote(name))) })
			exists := func(schemaName string) bool {
				rows, err := admin.QueryContext(ctx, b.scratch().list, schemaName)
				require.NoError(t, err)
				defer rows.Close()
				return rows.Next()
			}
			var scratch []string // the scratch schemas of this test's loads
			load := func(file string) error {
				sch, err := loadFileInto(t, eng, dsn, name, file)
				require.NotEmpty(t, sch)
				scratch = append(scratch, sch)
				return err
			}
			require.ErrorContains(t, load(projectFile(t, 300, true)), "line ")
			assert.False(t, exists(name), "no target schema left behind")
			assert.False(t, exists(scratch[0]), "no scratch schema left behind")

			good := projectFile(t, 300, false)
			require.NoError(t, load(good))
			tdb, err := b.pool(dsn, name)
			require.NoError(t, err)
			defer tdb.Close()
			require.NoError(t, CheckLoaded(ctx, tdb, d))
			var n int
			require.NoError(t, tdb.QueryRowContext(ctx, "SELECT count(*) FROM strings").Scan(&n))
			assert.Equal(t, 300, n)

			require.Error(t, load(good), "the tables exist")
			require.NoError(t, tdb.QueryRowContext(ctx, "SELECT count(*) FROM strings").Scan(&n))
			assert.Equal(t, 300, n, "the first load is untouched")
			require.NoError(t, CheckLoaded(ctx, tdb, d))
			for _, s := range scratch {
				assert.False(t, exists(s), "scratch %s dropped", s)
			}
		})
	}
}

// loadFileInto loads file into target at dsn (OpenTarget, LoadFile) and
// returns the schema the load built in, and the load's error.
func loadFileInto(t *testing.T, eng, dsn, target, file string) (string, error) {
	t.Helper()
	db, err := OpenTarget(context.Background(), eng, dsn, target)
	require.NoError(t, err)
	f, err := os.Open(file)
	require.NoError(t, err)
	defer f.Close()
	_, err = LoadFile(context.Background(), db, f, schema.ReadOptions{}, nil)
	return db.Schema, errors.Join(err, db.Close())
}
