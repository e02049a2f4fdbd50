package server_test

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/stretchr/testify/require"

	"github.com/croql/croql/compile"
	"github.com/croql/croql/internal/testdb"
	"github.com/croql/croql/mapping"
	"github.com/croql/croql/schema"
	"github.com/croql/croql/server"
	"github.com/croql/croql/store"
)

// runServer starts server.Run in the background and returns its address,
// the server, and a stop function that cancels it and returns Run's error.
func runServer(t *testing.T, o server.RunOptions) (string, *server.Server, func() error) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	addrc := make(chan string, 1)
	var srv *server.Server
	setup := o.Setup
	o.Setup = func(s *server.Server) error {
		srv = s
		if setup != nil {
			return setup(s)
		}
		return nil
	}
	o.Listen = "127.0.0.1:0"
	o.Ready = func(a string) { addrc <- a }
	o.Config.Now = clock
	done := make(chan error, 1)
	go func() { done <- server.Run(ctx, o) }()
	select {
	case a := <-addrc:
		return a, srv, func() error { cancel(); return <-done }
	case err := <-done:
		cancel()
		t.Fatalf("Run: %v", err)
	case <-time.After(2 * time.Minute):
		cancel()
		t.Fatal("Run did not listen")
	}
	return "", nil, nil
}

func writeDemo(t *testing.T) string {
	t.Helper()
	name := filepath.Join(t.TempDir(), "project.json")
	f, err := os.Create(name)
	require.NoError(t, err)
	require.NoError(t, demo(t).WriteJSON(f))
	require.NoError(t, f.Close())
	return name
}

func TestRunGracefulShutdown(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "db")
	release := make(chan struct{})
	entered := make(chan struct{})
	addr, srv, stop := runServer(t, server.RunOptions{
		Data: []string{writeDemo(t)}, Dir: dir, Token: "tok",
		Setup: func(s *server.Server) error {
			// A request that stays in flight until the test releases it.
			s.Handle("GET /test/slow", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				close(entered)
				<-release
				p, _ := s.Storage().Project(1)
				var n int
				err := s.Storage().ReadTx(r.Context(), p, func(tx *sql.Tx) error {
					return tx.QueryRowContext(r.Context(), `SELECT COUNT(*) FROM "strings"`).Scan(&n)
				})
				if err != nil {
					http.Error(w, err.Error(), http.StatusInternalServerError)
					return
				}
				_, _ = io.WriteString(w, "strings "+itoa(n))
			}))
			return nil
		},
	})
	require.NotNil(t, srv)
	files, err := filepath.Glob(filepath.Join(dir, "*.db"))
	require.NoError(t, err)
	require.Len(t, files, 1)

	type answer struct {
		status int
		body   string
		err    error
	}
	got := make(chan answer, 1)
	go func() {
		req, _ := http.NewRequest(http.MethodGet, "http://"+addr+"/test/slow", nil)
		req.Header.Set("Authorization", "Bearer tok")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			got <- answer{err: err}
			return
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		got <- answer{resp.StatusCode, string(b), err}
	}()
	<-entered
	stopped := make(chan error, 1)
	go func() { stopped <- stop() }()
	// Shutdown has begun: new connections are refused while the request
	// in flight waits.
	require.Eventually(t, func() bool {
		_, err := http.Get("http://" + addr + "/healthz")
		return err != nil
	}, 10*time.Second, 20*time.Millisecond)
	close(release)
	a := <-got
	require.NoError(t, a.err)
	require.Equal(t, http.StatusOK, a.status)
	require.Equal(t, "strings "+itoa(len(demo(t).Strings)), a.body)
	require.NoError(t, <-stopped)
	// The SQLite files are removed.
	files, err = filepath.Glob(filepath.Join(dir, "*"))
	require.NoError(t, err)
	require.Empty(t, files)
}

func TestRunDropsScratchSchemas(t *testing.T) {
	dsn := dsnOf("postgres")
	if dsn == "" {
		for _, e := range engines(t) {
			require.NotEqual(t, "postgres", e)
		}
		t.Skip("set " + testdb.EnvPostgres)
	}
	var schemas []string
	addr, srv, stop := runServer(t, server.RunOptions{Data: []string{writeDemo(t), writeDemo(t)}, DSN: dsn, Token: "tok"})
	for _, p := range srv.Storage().Projects() {
		schemas = append(schemas, p.Scratch)
	}
	require.Len(t, schemas, 2)
	req, _ := http.NewRequest(http.MethodGet, "http://"+addr+"/api/v2/projects/2/strings?croql=is+hidden", nil)
	req.Header.Set("Authorization", "Bearer tok")
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.NoError(t, stop())

	cfg, err := pgx.ParseConfig(dsn)
	require.NoError(t, err)
	db := stdlib.OpenDB(*cfg)
	defer db.Close()
	for _, s := range schemas {
		var n int
		require.NoError(t, db.QueryRow("SELECT COUNT(*) FROM information_schema.schemata WHERE schema_name = $1", s).Scan(&n))
		require.Zero(t, n, "schema %s left behind", s)
	}
}

func TestOpenExisting(t *testing.T) {
	// Data loaded by someone else (here: a SQLite file) is served as
	// project 1, with its users resolving mentions.
	p := demo(t)
	copyName := filepath.Join(t.TempDir(), "loaded.db")
	db, err := store.OpenSQLite("file:" + copyName)
	require.NoError(t, err)
	require.NoError(t, store.Load(context.Background(), db, mapping.Default(schema.New()), p))
	require.NoError(t, db.Close())

	eng, err := server.EngineOfDSN("file:" + copyName)
	require.NoError(t, err)
	require.Equal(t, "sqlite", eng)
	hs := serveExisting(t, context.Background(), eng, "file:"+copyName, "mirror")
	q := `count of comments where (user = @user:"alice") > 0`
	require.Equal(t, evalIDs(t, p, "strings", "", q), allIDs(t, hs, "/api/v2/projects/1/strings", "strings", q, 10))
	_, body := get(t, hs, "/api/v2/projects/1", nil)
	require.Equal(t, "mirror", body["data"].(map[string]any)["name"])
}

// TestOpenExistingServers: `croql serve --dsn` alone serves the data
// already in the reference schema at the DSN (here a scratch schema or
// database loaded beforehand, named in the DSN).
func TestOpenExistingServers(t *testing.T) {
	p := demo(t)
	for _, eng := range engines(t) {
		if eng == "sqlite" {
			continue
		}
		t.Run(eng, func(t *testing.T) {
			ctx := context.Background()
			db, err := store.Open(ctx, eng, dsnOf(eng))
			require.NoError(t, err)
			defer db.Close()
			require.NoError(t, store.Load(ctx, db, mapping.Default(schema.New()), p))
			var dsn string
			if eng == "postgres" {
				u, err := url.Parse(dsnOf(eng))
				require.NoError(t, err)
				q := u.Query()
				q.Set("search_path", db.Schema)
				u.RawQuery = q.Encode()
				dsn = u.String()
			} else {
				cfg, err := mysql.ParseDSN(dsnOf(eng))
				require.NoError(t, err)
				cfg.DBName = db.Schema
				dsn = cfg.FormatDSN()
			}
			got, err := server.EngineOfDSN(dsn)
			require.NoError(t, err)
			require.Equal(t, eng, got)
			hs := serveExisting(t, ctx, eng, dsn, "")
			q := `count of translations where (count of approvals where (user = @user:"alice") > 0) > 0`
			require.Equal(t, evalIDs(t, p, "strings", "", q), allIDs(t, hs, "/api/v2/projects/1/strings", "strings", q, 10))
			q = `count of votes > 0`
			require.Equal(t, evalIDs(t, p, "translations", "fr", q), allIDs(t, hs, "/api/v2/projects/1/languages/fr/translations", "translations", q, 10))
		})
	}
}

// TestServeRefusesIncomplete: a store whose load did not complete (here
// the reference tables, as a failed load of an older croql left them:
// created, empty, no croql_load row) is refused with a clear message,
// never served as an empty project; once a load completes it is served.
func TestServeRefusesIncomplete(t *testing.T) {
	ctx := context.Background()
	file := filepath.Join(t.TempDir(), "leftover.db")
	db, err := store.OpenSQLite("file:" + file)
	require.NoError(t, err)
	m := mapping.Default(schema.New())
	for _, stmt := range store.DDL(compile.SQLite{}, m) {
		_, err := db.SQL.Exec(stmt)
		require.NoError(t, err)
	}
	require.NoError(t, db.Close())
	st, err := server.OpenExisting(ctx, "", "file:"+file, "")
	require.ErrorIs(t, err, store.ErrIncomplete)
	require.Nil(t, st)
	require.Contains(t, err.Error(), "load the data again")

	// server.Run, as croql serve --dsn runs it, refuses it before it
	// listens.
	listened := false
	err = server.Run(ctx, server.RunOptions{DSN: "file:" + file, Token: token, Listen: "127.0.0.1:0",
		Ready: func(string) { listened = true }})
	require.ErrorIs(t, err, store.ErrIncomplete)
	require.False(t, listened)

	// The same file after a complete load is served.
	require.NoError(t, os.Remove(file))
	db, err = store.OpenTarget(ctx, "sqlite", "file:"+file, "")
	require.NoError(t, err)
	require.NoError(t, store.Load(ctx, db, m, demo(t)))
	require.NoError(t, db.Close())
	st, err = server.OpenExisting(ctx, "", "file:"+file, "")
	require.NoError(t, err)
	require.NoError(t, st.Close())
}

// TestUnreachableDatabaseIs503: a request whose database cannot be
// reached is a 503 saying so, not a bare 500.
func TestUnreachableDatabaseIs503(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	port := ln.Addr().(*net.TCPAddr).Port
	require.NoError(t, ln.Close()) // nothing listens there now
	cfg, err := pgx.ParseConfig(fmt.Sprintf("postgres://postgres@127.0.0.1:%d/test?sslmode=disable&connect_timeout=5", port))
	require.NoError(t, err)
	db := stdlib.OpenDB(*cfg)
	st := &server.Storage{}
	require.NoError(t, st.Add(&server.Project{ID: 1, Name: "p", Users: map[string]int64{}, Logins: map[int64]string{}}, db, compile.Postgres{}, db.Close))
	defer st.Close()
	toks := &server.Tokens{}
	require.NoError(t, toks.Add(token))
	srv, err := server.New(server.Config{Storage: st, Tokens: toks, Now: clock})
	require.NoError(t, err)
	hs := httptestServer(t, srv)
	code, body := get(t, hs, "/api/v2/projects/1/strings", url.Values{"croql": {"is hidden"}})
	require.Equal(t, http.StatusServiceUnavailable, code, "%v", body)
	require.Contains(t, fmt.Sprint(body), "the database is unavailable")
}

// TestRunStoppedMessage: on shutdown croql serve says it removes the
// scratch data only when it made some; data it was given at --dsn stays.
func TestRunStoppedMessage(t *testing.T) {
	name := filepath.Join(t.TempDir(), "loaded.db")
	db, err := store.OpenSQLite("file:" + name)
	require.NoError(t, err)
	require.NoError(t, store.Load(context.Background(), db, mapping.Default(schema.New()), demo(t)))
	require.NoError(t, db.Close())
	for _, c := range []struct {
		o    server.RunOptions
		want string
	}{
		{server.RunOptions{DSN: "file:" + name}, "croql serve: stopped; the data at the DSN is left as it was\n"},
		{server.RunOptions{Data: []string{writeDemo(t)}, Dir: t.TempDir()}, "croql serve: stopped; removing the scratch data\n"},
	} {
		var log syncBuffer
		c.o.Token, c.o.Log = token, &log
		_, _, stop := runServer(t, c.o)
		require.NoError(t, stop())
		require.True(t, strings.HasSuffix(log.String(), c.want), "the log ends %q:\n%s", c.want, log.String())
		_, err := os.Stat(name)
		require.NoError(t, err, "the SQLite file at the DSN is still there")
	}
}

// serveExisting serves the store a load left at dsn (server.OpenExisting)
// with the test token, until the test ends.
func serveExisting(t *testing.T, ctx context.Context, eng, dsn, name string) *httptest.Server {
	t.Helper()
	st, err := server.OpenExisting(ctx, eng, dsn, name)
	require.NoError(t, err)
	t.Cleanup(func() { _ = st.Close() })
	toks := &server.Tokens{}
	require.NoError(t, toks.Add(token))
	srv, err := server.New(server.Config{Storage: st, Tokens: toks, Now: clock})
	require.NoError(t, err)
	return httptestServer(t, srv)
}
