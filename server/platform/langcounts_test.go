package platform_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/croql/croql/internal/testdb"
	"github.com/croql/croql/server/platform"
)

// TestLanguageCountsTotalAfterWrites: the strings list's total of "no
// translation in a language is voted or approved" and of "some
// translation is in a language", counted from a string's counts of
// translations by language (kept in a table of their own), is the number
// of strings the whole list answers after translation uploads, votes and
// approvals, a write that shares a string's translations with another, a
// source update that removes a string's translations, and one that
// removes a string.
func TestLanguageCountsTotalAfterWrites(t *testing.T) {
	for _, engine := range testdb.Engines(t) {
		t.Run(engine, func(t *testing.T) { testLanguageCountsTotalAfterWrites(t, engine) })
	}
}

func testLanguageCountsTotalAfterWrites(t *testing.T, engine string) {
	const (
		none = `count of translations where (language = @language:"uk" and (count of approvals > 0 or count of votes > 0)) = 0`
		some = `translations with (language = @language:"uk")`
	)
	base, _, st := startServeStorage(t, engine, platform.Config{})
	status, body := uploadFile(t, base.URL, "/api/v2/projects/1/files", "app.json", `{"a":"A","b":"B","c":"C","d":"D"}`, nil)
	require.Equal(t, http.StatusCreated, status, string(body))
	status, body = uploadFile(t, base.URL, "/api/v2/projects/1/translations", "app.json", `{"a":"А","b":"Б"}`, map[string]string{"languageId": "uk"})
	require.Equal(t, http.StatusCreated, status, string(body))
	status, body = uploadFile(t, base.URL, "/api/v2/projects/1/translations", "app.json", `{"c":"C-de"}`, map[string]string{"languageId": "de"})
	require.Equal(t, http.StatusCreated, status, string(body))
	ids := listIDs(t, base.URL, "")
	require.Equal(t, []int64{ids["a"], ids["b"], ids["c"], ids["d"]}, stringsTotal(t, base.URL, none))
	require.Equal(t, []int64{ids["a"], ids["b"]}, stringsTotal(t, base.URL, some))

	// A vote and an approval on every translation.
	review(t, engine, st)
	require.Equal(t, []int64{ids["c"], ids["d"]}, stringsTotal(t, base.URL, none))

	// d lists c's translation too, and a's: d has a voted uk one now.
	share(t, engine, st, ids["a"], ids["d"])
	require.Equal(t, []int64{ids["c"]}, stringsTotal(t, base.URL, none))
	require.Equal(t, []int64{ids["a"], ids["b"], ids["d"]}, stringsTotal(t, base.URL, some))

	// b's text changes: its translation goes.
	status, body = uploadFile(t, base.URL, "/api/v2/projects/1/files", "app.json", `{"a":"A","b":"B2","c":"C","d":"D"}`, nil)
	require.Equal(t, http.StatusCreated, status, string(body))
	require.Equal(t, []int64{ids["b"], ids["c"]}, stringsTotal(t, base.URL, none))

	// a goes (and the translation d shared with it); b is translated
	// again, without votes.
	status, body = uploadFile(t, base.URL, "/api/v2/projects/1/files", "app.json", `{"b":"B2","c":"C","d":"D"}`, nil)
	require.Equal(t, http.StatusCreated, status, string(body))
	status, body = uploadFile(t, base.URL, "/api/v2/projects/1/translations", "app.json", `{"b":"Б2"}`, map[string]string{"languageId": "uk"})
	require.Equal(t, http.StatusCreated, status, string(body))
	require.Equal(t, []int64{ids["b"], ids["c"], ids["d"]}, stringsTotal(t, base.URL, none))
	require.Equal(t, []int64{ids["b"]}, stringsTotal(t, base.URL, some))
}

// stringsTotal reads the whole strings list of query (its ids, in
// order) and requires its withTotal total to be their number.
func stringsTotal(t *testing.T, base, query string) []int64 {
	t.Helper()
	status, body := do(t, http.MethodGet, base+"/api/v2/projects/1/strings?limit=500&withTotal=true&croql="+url.QueryEscape(query), nil, nil)
	require.Equal(t, http.StatusOK, status, string(body))
	var r struct {
		Data []struct {
			Data struct {
				ID int64 `json:"id"`
			} `json:"data"`
		} `json:"data"`
		Pagination struct {
			Total *int64 `json:"total"`
		} `json:"pagination"`
	}
	require.NoError(t, json.Unmarshal(body, &r), string(body))
	ids := []int64{}
	for _, d := range r.Data {
		ids = append(ids, d.Data.ID)
	}
	require.True(t, slices.IsSorted(ids), string(body))
	require.NotNil(t, r.Pagination.Total, string(body))
	require.Equal(t, int64(len(ids)), *r.Pagination.Total, string(body))
	return ids
}

// TestTrigramTotalAfterWrites: the strings list's total of a contains of
// three characters or more, narrowed by the index of the texts' trigrams
// (kept by triggers on SQLite, by the engine on PostgreSQL), is the
// number of strings the whole list answers after uploads that add,
// change and remove strings and translations.
func TestTrigramTotalAfterWrites(t *testing.T) {
	for _, engine := range testdb.Engines(t) {
		t.Run(engine, func(t *testing.T) { testTrigramTotalAfterWrites(t, engine) })
	}
}

func testTrigramTotalAfterWrites(t *testing.T, engine string) {
	const query = `text contains "Welcome" and (count of translations where (text contains "Welcome") = 0)`
	base, _, _ := startServeStorage(t, engine, platform.Config{})
	status, body := uploadFile(t, base.URL, "/api/v2/projects/1/files", "app.json", `{"a":"Welcome home","b":"Goodbye","c":"Welcome, \"friend\" 100%_"}`, nil)
	require.Equal(t, http.StatusCreated, status, string(body))
	ids := listIDs(t, base.URL, "")
	require.Equal(t, []int64{ids["a"], ids["c"]}, stringsTotal(t, base.URL, query))
	require.Equal(t, []int64{ids["c"]}, stringsTotal(t, base.URL, `text contains "\"friend\" 100%_"`))
	status, body = uploadFile(t, base.URL, "/api/v2/projects/1/translations", "app.json", `{"a":"Welcome дома"}`, map[string]string{"languageId": "uk"})
	require.Equal(t, http.StatusCreated, status, string(body))
	require.Equal(t, []int64{ids["c"]}, stringsTotal(t, base.URL, query))

	// b's text says it now, a's does not (and its translation goes), c
	// goes.
	status, body = uploadFile(t, base.URL, "/api/v2/projects/1/files", "app.json", `{"a":"Hello home","b":"Welcome back"}`, nil)
	require.Equal(t, http.StatusCreated, status, string(body))
	require.Equal(t, []int64{ids["b"]}, stringsTotal(t, base.URL, query))
	require.Equal(t, []int64{}, stringsTotal(t, base.URL, `text contains "friend"`))
	require.Equal(t, []int64{ids["a"]}, stringsTotal(t, base.URL, `text contains "Hello"`))
	status, body = uploadFile(t, base.URL, "/api/v2/projects/1/translations", "app.json", `{"b":"Welcome назад"}`, map[string]string{"languageId": "uk"})
	require.Equal(t, http.StatusCreated, status, string(body))
	require.Equal(t, []int64{}, stringsTotal(t, base.URL, query))
	require.Equal(t, []int64{ids["b"]}, stringsTotal(t, base.URL, `count of translations where (text contains "назад") > 0`))
}
