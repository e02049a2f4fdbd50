package server_test

import (
	"net/http"
	"net/url"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/croql/croql"
	"github.com/croql/croql/internal/testdb"
	"github.com/croql/croql/server"
)

// TestVitessServed: croql serve on a 2-shard Vitess keyspace
// (CROQL_VITESS_DSN; .ci/vitess.sh). The strings, TM segments, glossary
// terms, progress and projects endpoints answer as on SQLite, byte for
// byte; each seed pattern on the strings, TM and glossary lists is served
// with the evaluator's ids (every page), or refused with an error status
// where vtgate refuses the compiled SQL, never answered wrongly. The
// translations list is not served on Vitess (docs/serve.md, "Vitess"):
// its stringId is a correlated scalar subquery, which vtgate refuses, and
// the test checks that it says so with 500 rather than answering.
func TestVitessServed(t *testing.T) {
	testdb.Need(t, "vitess")
	p := demo(t)
	vt := serve(t, "vitess", server.Config{}, p)
	lite := serve(t, "sqlite", server.Config{}, p)
	for _, path := range []string{
		"/api/v2/projects",
		"/api/v2/projects/1/strings",
		"/api/v2/projects/1/strings?offset=10&limit=5&orderBy=identifier%20desc",
		"/api/v2/projects/1/strings/3",
		"/api/v2/projects/1/languages/de/progress",
		"/api/v2/tms/1/segments",
		"/api/v2/glossaries/1/terms",
	} {
		u, err := url.Parse(path)
		require.NoError(t, err)
		vs, vb := get(t, vt, u.Path, u.Query())
		ls, lb := get(t, lite, u.Path, u.Query())
		require.Equal(t, http.StatusOK, ls, path)
		assert.Equal(t, ls, vs, path)
		assert.Equal(t, lb, vb, path)
	}
	status, _ := get(t, vt, "/api/v2/projects/1/languages/de/translations", nil)
	assert.Equal(t, http.StatusInternalServerError, status, "the translations list on vitess")

	lists := map[string]string{croql.Strings: "/api/v2/projects/1/strings", croql.TM: "/api/v2/tms/1/segments", croql.Glossary: "/api/v2/glossaries/1/terms"}
	served, refused := 0, 0
	for i, c := range seedCases(t) {
		path, ok := lists[c.ctx]
		if !ok {
			continue
		}
		limit := []int{7, 25, 500}[i%3]
		got, status := []int64{}, http.StatusOK
		for offset := 0; ; offset += limit {
			s, body := get(t, vt, path, url.Values{"croql": {c.query}, "limit": {itoa(limit)}, "offset": {itoa(offset)}})
			if s != http.StatusOK {
				status = s
				break
			}
			data := body["data"].([]any)
			for _, d := range data {
				got = append(got, int64(d.(map[string]any)["data"].(map[string]any)["id"].(float64)))
			}
			if len(data) < limit {
				break
			}
		}
		if status != http.StatusOK {
			refused++
			t.Logf("refused with %d: %s", status, c.name)
			continue
		}
		served++
		slices.Sort(got)
		assert.Equal(t, evalIDs(t, p, c.ctx, "", c.query), got, "%s: %q", c.name, c.query)
	}
	t.Logf("vitess: %d seed patterns served with the evaluator's ids, %d refused", served, refused)
}
