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
// (CROQL_VITESS_DSN; .ci/vitess.sh). Every list endpoint, with paging,
// orders and the platform's filters, answers as on SQLite, byte for byte
// (the translations list chooses each translation's stringId in Go there:
// vitess.go); every seed pattern is served with the evaluator's ids
// (every page).
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
		"/api/v2/projects/1/languages/de/translations",
		"/api/v2/projects/1/languages/de/translations?limit=3&offset=2&withTotal=true",
		"/api/v2/projects/1/languages/de/translations?orderBy=stringId%20desc&limit=4",
		"/api/v2/projects/1/languages/de/translations?orderBy=text&limit=5",
		"/api/v2/projects/1/languages/fr/translations?stringIds=1,2,3",
		"/api/v2/projects/1/languages/de/translations?fileId=5",
		"/api/v2/projects/1/strings?afterId=5&limit=4",
		"/api/v2/projects/1/languages/de/translations?afterId=3&limit=3&withTotal=true",
		"/api/v2/projects/1/languages/fr/translations?afterId=2&stringIds=1,2,3,4",
	} {
		u, err := url.Parse(path)
		require.NoError(t, err)
		vs, vb := get(t, vt, u.Path, u.Query())
		ls, lb := get(t, lite, u.Path, u.Query())
		require.Equal(t, http.StatusOK, ls, path)
		assert.Equal(t, ls, vs, path)
		assert.Equal(t, lb, vb, path)
	}
	served := 0
	for i, c := range seedCases(t) {
		limit := []int{7, 25, 500}[i%3]
		langs := []string{""}
		if c.ctx == croql.Translations {
			langs = p.TargetLanguages
		}
		for _, lang := range langs {
			path := listPath(c.ctx, lang)
			// The first page is served; the ids are allIDs' (every page).
			status, body := get(t, vt, path, url.Values{"croql": {c.query}, "limit": {itoa(limit)}})
			if !assert.Equal(t, http.StatusOK, status, "%s %s: %q refused: %s", c.name, lang, c.query, body) {
				continue
			}
			served++
			got := allIDs(t, vt, path, c.ctx, c.query, limit)
			slices.Sort(got)
			assert.Equal(t, evalIDs(t, p, c.ctx, lang, c.query), got, "%s %s: %q", c.name, lang, c.query)
		}
	}
	t.Logf("vitess: %d seed pattern lists served with the evaluator's ids", served)
}
