package server_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/croql/croql/server"
)

// benchQuery is the croql of BenchmarkListRequest: a condition on the
// string's own fields and one on its translations.
const benchQuery = `identifier contains "button" or count of languages summary where (language = @language:"de" and is translated) > 0`

// BenchmarkListRequest is one strings list request with its total through
// the server's handler (no network), on the demo project in SQLite: sql
// answers it from the database, resident from the resident snapshot.
func BenchmarkListRequest(b *testing.B) {
	ctx := context.Background()
	st, toks := benchStorage(b)
	target := "/api/v2/projects/1/strings?" + url.Values{"croql": {benchQuery}, "limit": {"25"}, "withTotal": {"true"}}.Encode()
	for _, c := range []struct {
		name     string
		resident int64
	}{{"sql", 0}, {"resident", 1 << 30}} {
		b.Run(c.name, func(b *testing.B) {
			srv, err := server.New(server.Config{Storage: st, Tokens: toks, Now: clock, ResidentMaxBytes: c.resident})
			require.NoError(b, err)
			if c.resident > 0 {
				n, err := srv.BuildResident(ctx)
				require.NoError(b, err)
				require.Equal(b, 1, n)
			}
			serve := func() *httptest.ResponseRecorder {
				req := httptest.NewRequest(http.MethodGet, target, nil)
				req.Header.Set("Authorization", "Bearer "+token)
				w := httptest.NewRecorder()
				srv.ServeHTTP(w, req)
				return w
			}
			w := serve()
			require.Equal(b, http.StatusOK, w.Code, w.Body.String())
			served := server.ResidentServed(srv)
			b.ReportAllocs()
			for b.Loop() {
				if w := serve(); w.Code != http.StatusOK {
					b.Fatalf("status %d: %s", w.Code, w.Body)
				}
			}
			if c.resident > 0 {
				require.Greater(b, server.ResidentServed(srv), served, "the snapshot answers")
			} else {
				require.Zero(b, server.ResidentServed(srv))
			}
		})
	}
}

// BenchmarkListPage is one strings list page of 25, without its total,
// of a query a row's kept count answers, through the server's handler on
// the demo project in SQLite without the snapshot: what a request costs
// beyond its query (the transaction, the page's labels, the JSON). Its
// instructions per request (docs/performance.md):
//
//	go test -c -o /tmp/server.test ./server && cd server && \
//	GODEBUG=asyncpreemptoff=1,cpu.rdtscp=off valgrind --tool=callgrind --toggle-collect='*listRoute.func1' \
//	  /tmp/server.test -test.run XXX -test.bench BenchmarkListPage -test.benchtime 300x
//
// Its TM case is a page of 25 TM segments with their records, whose
// objects are most of what it allocates.
func BenchmarkListPage(b *testing.B) {
	st, toks := benchStorage(b)
	srv, err := server.New(server.Config{Storage: st, Tokens: toks, Now: clock, ResidentMaxBytes: 0})
	require.NoError(b, err)
	for _, c := range []struct{ name, target string }{
		{"strings", "/api/v2/projects/1/strings?" + url.Values{"croql": {"count of comments > 0"}, "limit": {"25"}}.Encode()},
		{"tm", "/api/v2/tms/1/segments?" + url.Values{"croql": {"count of records > 0"}, "limit": {"25"}}.Encode()},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				req := httptest.NewRequest(http.MethodGet, c.target, nil)
				req.Header.Set("Authorization", "Bearer "+token)
				w := httptest.NewRecorder()
				srv.ServeHTTP(w, req)
				if w.Code != http.StatusOK {
					b.Fatalf("status %d: %s", w.Code, w.Body)
				}
			}
		})
	}
	require.Zero(b, server.ResidentServed(srv))
}

// benchStorage is the demo project in SQLite and the tokens that the
// benchmarks' requests carry.
func benchStorage(b *testing.B) (*server.Storage, *server.Tokens) {
	st, err := server.LoadSQLite(context.Background(), b.TempDir(), demo(b))
	require.NoError(b, err)
	b.Cleanup(func() { require.NoError(b, st.Close()) })
	toks := &server.Tokens{}
	require.NoError(b, toks.Add(token))
	return st, toks
}
