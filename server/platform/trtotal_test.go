package platform_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/croql/croql/internal/testdb"
	"github.com/croql/croql/server"
	"github.com/croql/croql/server/platform"
	"github.com/croql/croql/store"
)

// TestTranslationsTotalAfterWrites: the translations list's total,
// counted from the string each translation is filed under (kept on its
// row), is the number of strings the whole list answers, with and without
// a query, after a translation upload, a write that files a shared
// translation under another string (kept by store.RefreshCounts, as every
// writer does), a source update that removes a string's translations, a
// translation upload that adds one again, a source update that removes a
// string, and the file's deletion. Without a query the total is the
// count the store keeps for the language (mapping.Table.FiledCounts).
func TestTranslationsTotalAfterWrites(t *testing.T) {
	for _, engine := range testdb.Engines(t) {
		t.Run(engine, func(t *testing.T) { testTranslationsTotalAfterWrites(t, engine) })
	}
}

func testTranslationsTotalAfterWrites(t *testing.T, engine string) {
	base, _, st := startServeStorage(t, engine, platform.Config{})
	status, body := uploadFile(t, base.URL, "/api/v2/projects/1/files", "app.json", `{"a":"A","b":"B","c":"C","d":"D"}`, nil)
	require.Equal(t, http.StatusCreated, status, string(body))
	status, body = uploadFile(t, base.URL, "/api/v2/projects/1/translations", "app.json", `{"a":"А","b":"Б","c":"Ц"}`, map[string]string{"languageId": "uk"})
	require.Equal(t, http.StatusCreated, status, string(body))
	ids := listIDs(t, base.URL, "")
	require.Equal(t, []int64{ids["a"], ids["b"], ids["c"]}, totalAsListed(t, base.URL, ""))

	// d lists c's translation too and c becomes d's duplicate: the
	// translation is filed under d now.
	share(t, engine, st, ids["c"], ids["d"])
	require.Equal(t, []int64{ids["a"], ids["b"], ids["d"]}, totalAsListed(t, base.URL, ""))
	require.Equal(t, []int64{ids["d"]}, totalAsListed(t, base.URL, `text = "Ц"`))

	// b's text changes: its translation goes.
	status, body = uploadFile(t, base.URL, "/api/v2/projects/1/files", "app.json", `{"a":"A","b":"B2","c":"C","d":"D"}`, nil)
	require.Equal(t, http.StatusCreated, status, string(body))
	require.Equal(t, []int64{ids["a"], ids["d"]}, totalAsListed(t, base.URL, ""))

	status, body = uploadFile(t, base.URL, "/api/v2/projects/1/translations", "app.json", `{"b":"Б2"}`, map[string]string{"languageId": "uk"})
	require.Equal(t, http.StatusCreated, status, string(body))
	require.Equal(t, []int64{ids["a"], ids["b"], ids["d"]}, totalAsListed(t, base.URL, ""))
	require.Equal(t, []int64{ids["b"]}, totalAsListed(t, base.URL, `text = "Б2"`))

	// a goes, and its translation.
	status, body = uploadFile(t, base.URL, "/api/v2/projects/1/files", "app.json", `{"b":"B2","c":"C","d":"D"}`, nil)
	require.Equal(t, http.StatusCreated, status, string(body))
	require.Equal(t, []int64{ids["b"], ids["d"]}, totalAsListed(t, base.URL, ""))

	// The file goes, with every string and translation.
	status, body = do(t, http.MethodGet, base.URL+"/api/v2/projects/1/files", nil, nil)
	require.Equal(t, http.StatusOK, status, string(body))
	var files struct {
		Data []struct {
			Data struct {
				ID int64 `json:"id"`
			} `json:"data"`
		} `json:"data"`
	}
	require.NoError(t, json.Unmarshal(body, &files), string(body))
	require.Len(t, files.Data, 1, string(body))
	status, body = do(t, http.MethodDelete, base.URL+"/api/v2/projects/1/files/"+strconv.FormatInt(files.Data[0].Data.ID, 10), nil, nil)
	require.Equal(t, http.StatusNoContent, status, string(body))
	require.Empty(t, totalAsListed(t, base.URL, ""))
}

// totalAsListed reads the whole uk translations list of query (its
// strings, in order) and requires its withTotal total, by offset pages
// and by keyset pages, to be their number.
func totalAsListed(t *testing.T, base, query string) []int64 {
	t.Helper()
	var strs []int64
	for _, extra := range []string{"", "&afterId=0"} {
		status, body := do(t, http.MethodGet, base+"/api/v2/projects/1/languages/uk/translations?limit=500&withTotal=true&croql="+url.QueryEscape(query)+extra, nil, nil)
		require.Equal(t, http.StatusOK, status, string(body))
		var r struct {
			Data []struct {
				Data struct {
					StringID int64 `json:"stringId"`
				} `json:"data"`
			} `json:"data"`
			Pagination struct {
				Total *int64 `json:"total"`
			} `json:"pagination"`
		}
		require.NoError(t, json.Unmarshal(body, &r), string(body))
		strs = strs[:0]
		for _, d := range r.Data {
			strs = append(strs, d.Data.StringID)
		}
		require.True(t, slices.IsSorted(strs), string(body))
		{
			require.NotNil(t, r.Pagination.Total, string(body))
			require.Equal(t, int64(len(strs)), *r.Pagination.Total, string(body))
		}
	}
	return strs
}

// share makes string dup list the translations of string master too,
// and marks master a duplicate (of dup), refreshing what the mapping
// keeps on the rows as a writer does.
func share(t *testing.T, engine string, st *server.Storage, master, dup int64) {
	t.Helper()
	p, ok := st.Project(1)
	require.True(t, ok)
	yes := "1"
	if engine == "postgres" {
		yes = "TRUE"
	}
	ctx := context.Background()
	require.NoError(t, st.WriteTx(ctx, p, func(tx *sql.Tx) error {
		for _, q := range []string{
			"INSERT INTO string_translations (string_id, translation_id) SELECT " + strconv.FormatInt(dup, 10) + ", translation_id FROM string_translations WHERE string_id = " + strconv.FormatInt(master, 10),
			"UPDATE strings SET is_duplicate = " + yes + " WHERE id = " + strconv.FormatInt(master, 10),
		} {
			if _, err := tx.ExecContext(ctx, q); err != nil {
				return err
			}
		}
		return store.RefreshCounts(ctx, tx, p.Dialect(), st.Mapping(), "", "")
	}))
}
