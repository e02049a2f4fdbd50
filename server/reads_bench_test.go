package server_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/require"

	generate "github.com/croql/croql/demo"
	"github.com/croql/croql/server"
)

// BenchmarkReadLists is the first page (25) of each list of the project's
// other data through the server's handler (no network), on a generated
// project of 20,000 strings in SQLite: these lists read every row their
// parameters select, then order and page them.
func BenchmarkReadLists(b *testing.B) {
	ctx := context.Background()
	p := generate.Generate(generate.Options{Strings: 20000, Seed: 1})
	st, err := server.LoadSQLite(ctx, b.TempDir(), p)
	require.NoError(b, err)
	b.Cleanup(func() { require.NoError(b, st.Close()) })
	toks := &server.Tokens{}
	require.NoError(b, toks.Add(token))
	srv, err := server.New(server.Config{Storage: st, Tokens: toks, Now: clock})
	require.NoError(b, err)
	for _, path := range []string{"approvals", "votes", "comments", "members", "branches", "approvals?languageId=de", "votes?stringId=1&languageId=de"} {
		b.Run(path, func(b *testing.B) {
			serve := func() *httptest.ResponseRecorder {
				req := httptest.NewRequest(http.MethodGet, "/api/v2/projects/1/"+path, nil)
				req.Header.Set("Authorization", "Bearer "+token)
				w := httptest.NewRecorder()
				srv.ServeHTTP(w, req)
				return w
			}
			require.Equal(b, http.StatusOK, serve().Code)
			b.ReportAllocs()
			for b.Loop() {
				if w := serve(); w.Code != http.StatusOK {
					b.Fatalf("status %d: %s", w.Code, w.Body)
				}
			}
		})
	}
}
