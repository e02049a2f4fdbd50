package server_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/croql/croql"
	"github.com/croql/croql/server"
)

// keysetIDs pages through a list endpoint with afterId (the last page's
// last id, none for the first page), by GET or by POST …/query, and
// returns the ids served; every page also asks withTotal, whose total must
// be the number of objects served over all pages.
func keysetIDs(t *testing.T, get func(url.Values) (int, map[string]any), ctx, query string, limit int) []int64 {
	t.Helper()
	ids := []int64{}
	objects := 0
	var totals []any
	cursor := "id"
	if ctx == croql.Translations {
		cursor = "stringId"
	}
	after := ""
	for pages := 0; ; pages++ {
		require.Less(t, pages, 10000, "afterId does not advance")
		q := url.Values{"croql": {query}, "limit": {strconv.Itoa(limit)}, "withTotal": {"true"}}
		if after != "" {
			q.Set("afterId", after)
		}
		status, body := get(q)
		require.Equal(t, http.StatusOK, status, "%q afterId %s: %v", query, after, body)
		pg := body["pagination"].(map[string]any)
		totals = append(totals, pg["total"])
		require.Equal(t, float64(0), pg["offset"])
		data := body["data"].([]any)
		objects += len(data)
		for _, d := range data {
			obj := d.(map[string]any)["data"].(map[string]any)
			after = strconv.FormatInt(int64(obj[cursor].(float64)), 10)
			if pl, ok := obj["plurals"].([]any); ok && ctx == croql.Translations {
				for _, x := range pl {
					ids = append(ids, int64(x.(map[string]any)["translationId"].(float64)))
				}
				continue
			}
			ids = append(ids, int64(obj[idKey(ctx)].(float64)))
		}
		if len(data) < limit {
			for _, n := range totals {
				require.Equal(t, float64(objects), n, "%q: a page's total is not the number of objects served", query)
			}
			if ctx == croql.Translations {
				slices.Sort(ids)
			}
			return ids
		}
	}
}

// TestAfterIDPagesEveryList: paging with afterId through every seed
// pattern's list gives exactly the evaluator's ids, by GET and by POST,
// with the total of every match on each page, on every engine.
func TestAfterIDPagesEveryList(t *testing.T) {
	p := demo(t)
	cases := seedCases(t)
	for _, eng := range engines(t) {
		t.Run(eng, func(t *testing.T) {
			hs := serve(t, eng, server.Config{}, p)
			for i, c := range cases {
				t.Run(c.name, func(t *testing.T) {
					limit := []int{7, 25, 97}[i%3]
					lang := ""
					if c.ctx == croql.Translations {
						lang = p.TargetLanguages[i%len(p.TargetLanguages)]
					}
					path := listPath(c.ctx, lang)
					want := evalIDs(t, p, c.ctx, lang, c.query)
					byGet := func(q url.Values) (int, map[string]any) { return get(t, hs, path, q) }
					assert.Equal(t, want, keysetIDs(t, byGet, c.ctx, c.query, limit), "GET %s", path)
					byPost := func(q url.Values) (int, map[string]any) {
						body := map[string]any{"croql": q.Get("croql"), "withTotal": true}
						for _, k := range []string{"limit", "afterId"} {
							if v := q.Get(k); v != "" {
								n, err := strconv.Atoi(v)
								require.NoError(t, err)
								body[k] = n
							}
						}
						b, err := json.Marshal(body)
						require.NoError(t, err)
						req, err := http.NewRequest(http.MethodPost, hs.URL+path+"/query", bytes.NewReader(b))
						require.NoError(t, err)
						req.Header.Set("Authorization", "Bearer "+token)
						req.Header.Set("Content-Type", "application/json")
						return do(t, hs, req)
					}
					assert.Equal(t, want, keysetIDs(t, byPost, c.ctx, c.query, limit), "POST %s/query", path)
				})
			}
		})
	}
}

// TestAfterIDRefusals: afterId with an offset, with an orderBy other than
// the list's id, not an integer, or on a list without ids, is a 400 under
// afterId; with orderBy of the id it pages; a list paged in memory
// (projects) takes it too.
func TestAfterIDRefusals(t *testing.T) {
	p := demo(t)
	hs := serve(t, "sqlite", server.Config{}, p)
	strs := "/api/v2/projects/1/strings"
	trs := "/api/v2/projects/1/languages/" + p.TargetLanguages[0] + "/translations"
	for _, c := range []struct {
		path  string
		q     url.Values
		code  string
		inMsg string
	}{
		{strs, url.Values{"afterId": {"10"}, "offset": {"5"}}, "notWithOffset", "offset"},
		{strs, url.Values{"afterId": {"10"}, "orderBy": {"identifier"}}, "notWithOrderBy", `"id"`},
		{strs, url.Values{"afterId": {"10"}, "orderBy": {"id desc"}}, "notWithOrderBy", `"id"`},
		{strs, url.Values{"afterId": {"10"}, "orderBy": {"id, identifier"}}, "notWithOrderBy", `"id"`},
		{strs, url.Values{"afterId": {"-1"}}, "notDigits", "integer"},
		{strs, url.Values{"afterId": {"x"}}, "notDigits", "integer"},
		{trs, url.Values{"afterId": {"10"}, "orderBy": {"text"}}, "notWithOrderBy", `"stringId"`},
		{"/api/v2/projects/1/languages/progress", url.Values{"afterId": {"1"}}, "notSupported", "afterId"},
	} {
		status, body := get(t, hs, c.path, c.q)
		require.Equal(t, http.StatusBadRequest, status, "%s %v: %v", c.path, c.q, body)
		key, errs := fieldErrors(t, body)
		assert.Equal(t, "afterId", key, "%s %v", c.path, c.q)
		assert.Equal(t, c.code, errs[0]["code"], "%s %v", c.path, c.q)
		assert.Contains(t, errs[0]["message"], c.inMsg, "%s %v", c.path, c.q)
	}

	// The POST body: afterId with an offset.
	req, err := http.NewRequest(http.MethodPost, hs.URL+strs+"/query", bytes.NewBufferString(`{"afterId": 10, "offset": 5}`))
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+token)
	status, body := do(t, hs, req)
	require.Equal(t, http.StatusBadRequest, status, "%v", body)
	key, errs := fieldErrors(t, body)
	assert.Equal(t, "afterId", key)
	assert.Equal(t, "notWithOffset", errs[0]["code"])

	// orderBy of the id (ascending) and offset 0 are the key order.
	want := evalIDs(t, p, croql.Strings, "", "")
	status, body = get(t, hs, strs, url.Values{"afterId": {strconv.FormatInt(want[4], 10)}, "orderBy": {"id asc"}, "offset": {"0"}, "limit": {"3"}})
	require.Equal(t, http.StatusOK, status, "%v", body)
	var got []int64
	for _, d := range body["data"].([]any) {
		got = append(got, int64(d.(map[string]any)["data"].(map[string]any)["id"].(float64)))
	}
	assert.Equal(t, want[5:8], got)

	// A list served from memory: the projects after the first.
	status, body = get(t, hs, "/api/v2/projects", url.Values{"afterId": {"0"}})
	require.Equal(t, http.StatusOK, status, "%v", body)
	require.Len(t, body["data"].([]any), 1)
	status, body = get(t, hs, "/api/v2/projects", url.Values{"afterId": {"1"}})
	require.Equal(t, http.StatusOK, status, "%v", body)
	assert.Empty(t, body["data"].([]any))
}
