package server_test

import (
	"context"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"testing"

	"github.com/go-sql-driver/mysql"
	"github.com/stretchr/testify/require"

	"github.com/croql/croql/schema"
	"github.com/croql/croql/server"
	"github.com/croql/croql/store"
)

// rawGet is the body of a GET with the test token, as it came.
func rawGet(t *testing.T, hs string, path string) []byte {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, hs+path, nil)
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, resp.StatusCode, string(b))
	return b
}

// serveStorage serves st with the test token until the test ends.
func serveStorage(t *testing.T, st *server.Storage) string {
	t.Helper()
	t.Cleanup(func() { _ = st.Close() })
	toks := &server.Tokens{}
	require.NoError(t, toks.Add(token))
	srv, err := server.New(server.Config{Storage: st, Tokens: toks, Now: clock})
	require.NoError(t, err)
	return httptestServer(t, srv).URL
}

// TestLoadedStoreKeepsTheProject: a data file loaded as croql load does
// (store.LoadFile into a target), then served from its DSN, answers GET
// /projects/1 byte for byte as the same file served with --data does:
// the load records the project's name, languages (with their language
// objects) and users.
func TestLoadedStoreKeepsTheProject(t *testing.T) {
	file := writeDemo(t)
	require.NotEmpty(t, demo(t).Languages, "the demo has language objects")
	for _, eng := range engines(t) {
		t.Run(eng, func(t *testing.T) {
			ctx := context.Background()
			var data *server.Storage
			var err error
			if eng == "sqlite" {
				data, err = server.LoadSQLiteFiles(ctx, t.TempDir(), file)
			} else {
				data, err = server.LoadServerFiles(ctx, eng, dsnOf(eng), file)
			}
			require.NoError(t, err)
			want := rawGet(t, serveStorage(t, data), "/api/v2/projects/1")

			dsn := loadLikeCLI(t, ctx, eng, file)
			existing, err := server.OpenExisting(ctx, eng, dsn, "")
			require.NoError(t, err)
			got := rawGet(t, serveStorage(t, existing), "/api/v2/projects/1")
			require.Equal(t, string(want), string(got))
			require.Contains(t, string(got), `"sourceLanguage":{`)

			p, err := store.ReadProject(ctx, existing.Projects()[0].DB(), existing.Projects()[0].Dialect())
			require.NoError(t, err)
			d := demo(t)
			require.Equal(t, store.ProjectRecord(d), p)
		})
	}
}

// loadLikeCLI loads file as croql load does (a target of OpenTarget,
// streamed) and returns the DSN the load is served from.
func loadLikeCLI(t *testing.T, ctx context.Context, eng, file string) string {
	t.Helper()
	f, err := os.Open(file)
	require.NoError(t, err)
	defer f.Close()
	var dsn, target string
	switch eng {
	case "sqlite":
		dsn = "file:" + filepath.Join(t.TempDir(), "loaded.db")
	case "postgres":
		target = "croql_record_test"
		u, err := url.Parse(dsnOf(eng))
		require.NoError(t, err)
		q := u.Query()
		q.Set("search_path", target)
		u.RawQuery = q.Encode()
		dsn = u.String()
	default:
		target = "croql_record_test"
		cfg, err := mysql.ParseDSN(dsnOf(eng))
		require.NoError(t, err)
		cfg.DBName = target
		dsn = cfg.FormatDSN()
	}
	src := dsn
	if target != "" {
		src = dsnOf(eng)
		dropTarget(t, eng, target)
		t.Cleanup(func() { dropTarget(t, eng, target) })
	}
	db, err := store.OpenTarget(ctx, eng, src, target)
	require.NoError(t, err)
	_, err = store.LoadFile(ctx, db, f, schema.ReadOptions{}, nil)
	require.NoError(t, err)
	require.NoError(t, db.Close())
	return dsn
}

// dropTarget drops the schema or database a test load published.
func dropTarget(t *testing.T, eng, name string) {
	t.Helper()
	db, err := store.Open(context.Background(), eng, dsnOf(eng))
	require.NoError(t, err)
	defer db.Close()
	stmt := "DROP DATABASE IF EXISTS " + name
	if eng == "postgres" {
		stmt = "DROP SCHEMA IF EXISTS " + name + " CASCADE"
	}
	_, err = db.SQL.ExecContext(context.Background(), stmt)
	require.NoError(t, err)
}
