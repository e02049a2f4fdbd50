package server_test

import (
	"fmt"
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

// TestVitessServedByCoordinator: lists whose query vtgate refuses (its
// planner panics on one, refuses a correlated scalar subquery in others),
// that the compiler will not send to vtgate (an @user mention left to
// the users table), or whose statement joins across shards (which vtgate
// runs a query per row) are answered through the coordinator, as SQLite answers
// them, byte for byte: with paging, an order, a total, and as a POST
// …/query whose body is read again.
func TestVitessServedByCoordinator(t *testing.T) {
	testdb.Need(t, "vitess")
	p := demo(t)
	vt := serve(t, "vitess", server.Config{}, p)
	lite := serve(t, "sqlite", server.Config{}, p)
	type req struct {
		path string
		q    url.Values
	}
	var reqs []req
	order := map[string]string{croql.Strings: "id desc", croql.Translations: "translationId desc"}
	for _, c := range []struct{ ctx, query string }{
		{croql.Strings, `name of branch = "main" or count of comments > 0`},                                                // a planner panic
		{croql.Strings, `count of translations > count of languages summary`},                                              // VT12001
		{croql.Strings, `count of translations where (count of votes where (is up) > count of votes where (is down)) > 0`}, // VT12001
		{croql.Strings, `labels with (is system) or count of labels where (title contains "a") = 2`},                       // VT12001
		{croql.Translations, `count of votes where (is up) > count of votes where (is down) or text contains "a"`},
		{croql.Strings, `labels with (title != identifier)`}, // a join across shards: chosen
	} {
		langs := []string{""}
		if c.ctx == croql.Translations {
			langs = []string{"de", "fr"}
		}
		for _, lang := range langs {
			path := listPath(c.ctx, lang)
			reqs = append(reqs,
				req{path, url.Values{"croql": {c.query}}},
				req{path, url.Values{"croql": {c.query}, "limit": {"3"}, "offset": {"2"}, "withTotal": {"true"}}},
				req{path, url.Values{"croql": {c.query}, "orderBy": {order[c.ctx]}, "limit": {"4"}}},
			)
		}
	}
	for _, r := range reqs {
		vs, vb := get(t, vt, r.path, r.q)
		ls, lb := get(t, lite, r.path, r.q)
		require.Equal(t, http.StatusOK, ls, "%s %v: %v", r.path, r.q, lb)
		assert.Equal(t, ls, vs, "%s %v: %v", r.path, r.q, vb)
		assert.Equal(t, lb, vb, "%s %v", r.path, r.q)
	}
	// POST …/query: the body is read again for the coordinator's answer.
	body := map[string]any{"croql": `count of translations > count of languages summary`, "limit": 5}
	vs, vb := postQuery(t, http.DefaultClient, vt.URL, body)
	ls, lb := postQuery(t, http.DefaultClient, lite.URL, body)
	require.Equal(t, http.StatusOK, ls, string(lb))
	assert.Equal(t, ls, vs, string(vb))
	assert.JSONEq(t, string(lb), string(vb))
	// Each was answered through the coordinator (/metrics counts them).
	assert.Contains(t, metricsText(t, vt.URL), fmt.Sprintf("croql_coordinated_requests_total %d\n", len(reqs)+1))
	t.Logf("vitess: %d lists and a POST …/query answered through the coordinator as on SQLite", len(reqs))
}
