package platform_test

import (
	"context"
	"database/sql"
	"net/http"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/croql/croql/internal/testdb"
	"github.com/croql/croql/server"
	"github.com/croql/croql/server/platform"
	"github.com/croql/croql/store"
)

// TestRemovedTranslationLeavesNoLinks: a string of another file that
// lists a string's translation (a duplicate sharing its master's) loses
// it when the string is removed by an update of its file, as the
// database path's kept counts and the translations' rows both say, and a
// translation uploaded afterwards (which may take the removed one's id)
// is not listed under it.
func TestRemovedTranslationLeavesNoLinks(t *testing.T) {
	for _, engine := range testdb.Engines(t) {
		t.Run(engine, func(t *testing.T) {
			base, _, st := startServeStorage(t, engine, platform.Config{})
			for _, f := range [][2]string{{"app.json", `{"a":"A","b":"B"}`}, {"other.json", `{"x":"X"}`}} {
				status, body := uploadFile(t, base.URL, "/api/v2/projects/1/files", f[0], f[1], nil)
				require.Equal(t, http.StatusCreated, status, string(body))
			}
			status, body := uploadFile(t, base.URL, "/api/v2/projects/1/translations", "app.json", `{"a":"А"}`, map[string]string{"languageId": "uk"})
			require.Equal(t, http.StatusCreated, status, string(body))
			ids := listIDs(t, base.URL, "")
			link(t, st, ids["a"], ids["x"])
			require.Equal(t, []string{"a", "x"}, keys(t, base.URL, `count of translations > 0`))
			require.Equal(t, []string{"a", "x"}, keys(t, base.URL, `count of translations where (text = "А") > 0`))

			status, body = uploadFile(t, base.URL, "/api/v2/projects/1/files", "app.json", `{"b":"B"}`, nil)
			require.Equal(t, http.StatusCreated, status, string(body))
			require.Equal(t, []string{"b", "x"}, keys(t, base.URL, ""))
			require.Empty(t, keys(t, base.URL, `count of translations > 0`))
			require.Empty(t, keys(t, base.URL, `count of translations where (text = "А") > 0`))

			status, body = uploadFile(t, base.URL, "/api/v2/projects/1/translations", "app.json", `{"b":"Б"}`, map[string]string{"languageId": "uk"})
			require.Equal(t, http.StatusCreated, status, string(body))
			require.Equal(t, []string{"b"}, keys(t, base.URL, `count of translations > 0`))
			require.Equal(t, []string{"b"}, keys(t, base.URL, `count of translations where (text = "Б") > 0`))
			require.Equal(t, 1, countTranslations(t, base.URL, "uk"))
		})
	}
}

// link makes string to list the translations of string from too,
// refreshing what the rows keep as a writer does.
func link(t *testing.T, st *server.Storage, from, to int64) {
	t.Helper()
	p, ok := st.Project(1)
	require.True(t, ok)
	ctx := context.Background()
	require.NoError(t, st.WriteTx(ctx, p, func(tx *sql.Tx) error {
		q := "INSERT INTO string_translations (string_id, translation_id) SELECT " + strconv.FormatInt(to, 10) +
			", translation_id FROM string_translations WHERE string_id = " + strconv.FormatInt(from, 10)
		if _, err := tx.ExecContext(ctx, q); err != nil {
			return err
		}
		return store.RefreshCounts(ctx, tx, p.Dialect(), st.Mapping(), "", "")
	}))
}
