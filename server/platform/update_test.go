package platform_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/croql/croql/app/postimport"
	"github.com/croql/croql/internal/testdb"
	"github.com/croql/croql/server"
	"github.com/croql/croql/server/platform"
	"github.com/croql/croql/store"
)

// listIDs maps identifier to id of the strings a croql query selects.
func listIDs(t *testing.T, base, croql string) map[string]int64 {
	t.Helper()
	out := map[string]int64{}
	for _, d := range listStringsData(t, base, croql) {
		out[d.Identifier] = d.ID
	}
	return out
}

// keys are the identifiers a croql query selects, sorted.
func keys(t *testing.T, base, croql string) []string {
	t.Helper()
	out := []string{}
	for k := range listIDs(t, base, croql) {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// countTranslations counts the translations into lang through the
// translations endpoint.
func countTranslations(t *testing.T, base, lang string) int {
	t.Helper()
	status, body := do(t, http.MethodGet, base+"/api/v2/projects/1/languages/"+lang+"/translations?limit=500", nil, nil)
	require.Equal(t, http.StatusOK, status, string(body))
	var r struct {
		Data []json.RawMessage `json:"data"`
	}
	require.NoError(t, json.Unmarshal(body, &r))
	return len(r.Data)
}

// rows counts the rows of a table of the reference schema.
func rows(t *testing.T, st *server.Storage, table string) int {
	t.Helper()
	p, ok := st.Project(1)
	require.True(t, ok)
	var n int
	require.NoError(t, st.ReadTx(context.Background(), p, func(tx *sql.Tx) error {
		return tx.QueryRowContext(context.Background(), "SELECT COUNT(*) FROM "+table).Scan(&n)
	}))
	return n
}

// review adds what only people do on the platform: an up vote and an
// approval on every translation, a comment on every string, and the
// approved flag in every languages summary.
func review(t *testing.T, engine string, st *server.Storage) {
	t.Helper()
	p, ok := st.Project(1)
	require.True(t, ok)
	no, yes := "0", "1"
	if engine == "postgres" {
		no, yes = "FALSE", "TRUE"
	}
	ctx := context.Background()
	require.NoError(t, st.WriteTx(ctx, p, func(tx *sql.Tx) error {
		for _, q := range []string{
			"INSERT INTO votes (mark, user_id, added, translation_id, ordinal) SELECT DISTINCT 'up', 1, 0, translation_id, 1000 FROM string_translations",
			"INSERT INTO approvals (user_id, added, translation_id, ordinal) SELECT DISTINCT 1, 0, translation_id, 1000 FROM string_translations",
			"INSERT INTO comments (has_issue, has_unresolved_issue, user_id, string_id, ordinal) SELECT " + no + ", " + no + ", 1, id, 1000 FROM strings",
			"UPDATE languages_summary SET is_approved = " + yes + ", approvals_count = 1",
		} {
			if _, err := tx.ExecContext(ctx, q); err != nil {
				return err
			}
		}
		// A write of the elements keeps the counts on their owners' rows.
		return store.RefreshCounts(ctx, tx, p.Dialect(), st.Mapping(), "", "")
	}))
}

// TestSourceUpdateKeepsUnchangedStrings: re-uploading a source file is
// the platform's file update with its default updateOption
// (clear_translations_and_approvals): a string whose text is unchanged
// keeps its id, translations, votes, approvals, comments and summary; a
// changed one keeps its id and comments and loses its translations; a
// string no longer in the file is removed with all that hangs on it; a
// new one gets a new id. Attributes (labels, max length) follow the
// upload.
func TestSourceUpdateKeepsUnchangedStrings(t *testing.T) {
	for _, engine := range testdb.Engines(t) {
		t.Run(engine, func(t *testing.T) { testSourceUpdate(t, engine) })
	}
}

func testSourceUpdate(t *testing.T, engine string) {
	// A module labels every string with the upload's version and sets
	// its max length to the version number.
	var version atomic.Int64
	h, err := postimport.NewHandler(postimport.ProcessorFunc(func(ctx context.Context, job *postimport.Job) ([]postimport.String, error) {
		out := make([]postimport.String, len(job.Strings))
		v := int(version.Load())
		for i, s := range job.Strings {
			out[i] = s.Clone()
			if len(job.TargetLanguages) == 0 {
				out[i].Labels = []string{"v" + string(rune('0'+v))}
				out[i].MaxLength = &v
			}
		}
		return out, nil
	}), postimport.Config{})
	require.NoError(t, err)
	t.Cleanup(func() { _ = h.Close() })
	app := startApp(t, "labeller", &postimport.SignaturePatterns{FileName: `^app\.json$`}, h)
	base, _, st := startServeStorage(t, engine, platform.Config{Apps: []string{app.URL}})

	version.Store(1)
	status, body := uploadFile(t, base.URL, "/api/v2/projects/1/files", "app.json", `{"same":"Same","changed":"Old","gone":"Gone"}`, nil)
	require.Equal(t, http.StatusCreated, status, string(body))
	require.NotContains(t, string(body), `"update"`)
	// Translated twice: the second upload replaces the first translations.
	for range 2 {
		status, body = uploadFile(t, base.URL, "/api/v2/projects/1/translations", "app.json", `{"same":"Той самий","changed":"Старий","gone":"Зник"}`, map[string]string{"languageId": "uk"})
		require.Equal(t, http.StatusCreated, status, string(body))
	}
	status, body = uploadFile(t, base.URL, "/api/v2/projects/1/translations", "app.json", `{"same":"Derselbe","changed":"Alt"}`, map[string]string{"languageId": "de"})
	require.Equal(t, http.StatusCreated, status, string(body))
	require.Equal(t, 3, countTranslations(t, base.URL, "uk"), "a second translation upload leaves no translation behind")
	require.Equal(t, 2, countTranslations(t, base.URL, "de"))
	review(t, engine, st)
	before := listIDs(t, base.URL, "")
	require.Len(t, before, 3)
	require.Equal(t, []string{"changed", "gone", "same"}, keys(t, base.URL, `count of translations where (count of approvals > 0 and count of votes > 0) > 0`))

	version.Store(2)
	status, body = uploadFile(t, base.URL, "/api/v2/projects/1/files", "app.json", `{"same":"Same","changed":"New","fresh":"Fresh"}`, nil)
	require.Equal(t, http.StatusCreated, status, string(body))
	require.JSONEq(t, `{"data":{"fileId":1,"name":"app.json","type":"json","strings":3,"module":"labeller/m",
		"update":{"updateOption":"clear_translations_and_approvals","added":1,"updated":1,"unchanged":1,"deleted":1}}}`, string(body))

	after := listIDs(t, base.URL, "")
	require.Len(t, after, 3)
	require.Equal(t, before["same"], after["same"])
	require.Equal(t, before["changed"], after["changed"])
	require.NotContains(t, after, "gone")
	for _, id := range before {
		require.Greater(t, after["fresh"], id, "a new string takes a new id")
	}
	require.Equal(t, []string{"same"}, keys(t, base.URL, "count of translations > 0"))
	require.Equal(t, []string{"same"}, keys(t, base.URL, `count of translations where (language = @language:"uk") = 1 and count of translations where (language = @language:"de") = 1`))
	require.Equal(t, []string{"same"}, keys(t, base.URL, `count of translations where (count of approvals > 0 and count of votes > 0) > 0`))
	require.Equal(t, []string{"same"}, keys(t, base.URL, `count of languages summary where (is approved) = 2`))
	require.Equal(t, []string{"changed", "same"}, keys(t, base.URL, "count of comments > 0"))
	require.Equal(t, []string{"changed", "fresh", "same"}, keys(t, base.URL, `count of labels where (title = "v2") = 1 and count of labels = 1 and max length = 2`))
	require.Equal(t, []string{"changed"}, keys(t, base.URL, `text = "New" and updated >= '2000-01-01'`))
	require.Equal(t, []string{"same"}, keys(t, base.URL, `updated >= '2000-01-01' and text = "Same"`), "a label change updates the string")

	// Nothing of the removed string or of the changed string's translations is left.
	require.Equal(t, 1, countTranslations(t, base.URL, "uk"))
	require.Equal(t, 1, countTranslations(t, base.URL, "de"))
	for _, table := range []string{"translations", "string_translations", "votes", "approvals", "languages_summary"} {
		require.Equal(t, 2, rows(t, st, table), table)
	}
	require.Equal(t, 2, rows(t, st, "comments"))
	require.Equal(t, 3, rows(t, st, "string_labels"))

	// The same upload again changes nothing.
	status, body = uploadFile(t, base.URL, "/api/v2/projects/1/files", "app.json", `{"same":"Same","changed":"New","fresh":"Fresh"}`, nil)
	require.Equal(t, http.StatusCreated, status, string(body))
	require.Contains(t, string(body), `"update":{"updateOption":"clear_translations_and_approvals","added":0,"updated":0,"unchanged":3,"deleted":0}`)
	require.Equal(t, after, listIDs(t, base.URL, ""))
	require.Equal(t, []string{"same"}, keys(t, base.URL, `count of translations where (count of approvals > 0) > 0`))
}

// TestSourceUpdateOptions: keep_translations keeps a changed string's
// translations and votes without approvals; keep_translations_and_approvals
// keeps both; both mark the summary "source changed after translation".
// An unknown option, or one on a translation upload, is a 400.
func TestSourceUpdateOptions(t *testing.T) {
	for _, engine := range testdb.Engines(t) {
		t.Run(engine, func(t *testing.T) { testSourceUpdateOptions(t, engine) })
	}
}

func testSourceUpdateOptions(t *testing.T, engine string) {
	base, _, st := startServeStorage(t, engine, platform.Config{})
	status, body := uploadFile(t, base.URL, "/api/v2/projects/1/files", "app.json", `{"a":"A","b":"B","c":"C"}`, nil)
	require.Equal(t, http.StatusCreated, status, string(body))
	status, body = uploadFile(t, base.URL, "/api/v2/projects/1/translations", "app.json", `{"a":"А","b":"Б","c":"Ц"}`, map[string]string{"languageId": "uk"})
	require.Equal(t, http.StatusCreated, status, string(body))
	review(t, engine, st)
	ids := listIDs(t, base.URL, "")

	status, body = uploadFile(t, base.URL, "/api/v2/projects/1/files", "app.json", `{"a":"A2","b":"B","c":"C"}`, map[string]string{"updateOption": "keep_translations"})
	require.Equal(t, http.StatusCreated, status, string(body))
	require.Contains(t, string(body), `"update":{"updateOption":"keep_translations","added":0,"updated":1,"unchanged":2,"deleted":0}`)
	// The raw body with the option in the query.
	status, body = do(t, http.MethodPost, base.URL+"/api/v2/projects/1/files?updateOption=keep_translations_and_approvals", strings.NewReader(`{"a":"A2","b":"B2","c":"C"}`), map[string]string{"Crowdin-API-FileName": "app.json"})
	require.Equal(t, http.StatusCreated, status, string(body))
	require.Contains(t, string(body), `"update":{"updateOption":"keep_translations_and_approvals","added":0,"updated":1,"unchanged":2,"deleted":0}`)

	require.Equal(t, ids, listIDs(t, base.URL, ""))
	require.Equal(t, []string{"a", "b", "c"}, keys(t, base.URL, `count of translations where (language = @language:"uk" and count of votes > 0) = 1`))
	require.Equal(t, []string{"b", "c"}, keys(t, base.URL, `count of translations where (count of approvals > 0) = 1`))
	require.Equal(t, []string{"b", "c"}, keys(t, base.URL, `count of languages summary where (is approved) = 1`))
	require.Equal(t, []string{"a", "b"}, keys(t, base.URL, `count of languages summary where (is source changed after translation) = 1`))
	require.Equal(t, 3, countTranslations(t, base.URL, "uk"))

	for _, c := range []struct{ path, option, lang, msg string }{
		{"/api/v2/projects/1/files", "keep_everything", "", "none of clear_translations_and_approvals, keep_translations, keep_translations_and_approvals"},
		{"/api/v2/projects/1/translations", "keep_translations", "uk", "updateOption applies to source uploads"},
	} {
		fields := map[string]string{"updateOption": c.option}
		if c.lang != "" {
			fields["languageId"] = c.lang
		}
		status, body := uploadFile(t, base.URL, c.path, "app.json", `{"a":"X"}`, fields)
		require.Equal(t, http.StatusBadRequest, status, string(body))
		require.Contains(t, string(body), c.msg)
	}
	require.Equal(t, ids, listIDs(t, base.URL, ""))
}

// TestConcurrentUpdates: source and translation uploads of one file at
// once all succeed, one after the other (each write locks the file's row
// first): the file ends as one of the versions, each identifier once, the
// string all versions share keeps its id and has one translation.
func TestConcurrentUpdates(t *testing.T) {
	for _, engine := range testdb.Engines(t) {
		t.Run(engine, func(t *testing.T) { testConcurrentUpdates(t, engine) })
	}
}

func testConcurrentUpdates(t *testing.T, engine string) {
	base, _, _ := startServeStorage(t, engine, platform.Config{})
	status, body := uploadFile(t, base.URL, "/api/v2/projects/1/files", "app.json", `{"shared":"Shared"}`, nil)
	require.Equal(t, http.StatusCreated, status, string(body))
	status, body = uploadFile(t, base.URL, "/api/v2/projects/1/translations", "app.json", `{"shared":"Спільне"}`, map[string]string{"languageId": "uk"})
	require.Equal(t, http.StatusCreated, status, string(body))
	id := listIDs(t, base.URL, "")["shared"]
	const n = 6
	var wg sync.WaitGroup
	answers := make([]string, 2*n)
	for i := range n {
		wg.Add(2)
		go func() {
			defer wg.Done()
			k := string(rune('a' + i))
			status, body := uploadFile(t, base.URL, "/api/v2/projects/1/files", "app.json", `{"shared":"Shared","`+k+`":"`+k+`","common":"v`+k+`"}`, nil)
			answers[i] = strconv.Itoa(status) + " " + string(body)
		}()
		go func() {
			defer wg.Done()
			status, body := uploadFile(t, base.URL, "/api/v2/projects/1/translations", "app.json", `{"shared":"Спільне `+strconv.Itoa(i)+`"}`, map[string]string{"languageId": "uk"})
			answers[n+i] = strconv.Itoa(status) + " " + string(body)
		}()
	}
	wg.Wait()
	for _, a := range answers {
		require.True(t, strings.HasPrefix(a, "201 "), a)
	}
	got := listStrings(t, base.URL, "")
	require.Len(t, got, 3, "%v", got)
	ids := listIDs(t, base.URL, "")
	require.Equal(t, id, ids["shared"])
	require.Equal(t, []string{"shared"}, keys(t, base.URL, "count of translations = 1"))
	require.Equal(t, 1, countTranslations(t, base.URL, "uk"))
}

// benchFile is a JSON file of n strings whose texts start with v.
func benchFile(n int, v string) string {
	var sb strings.Builder
	sb.WriteString("{")
	for i := range n {
		if i > 0 {
			sb.WriteString(",")
		}
		sb.WriteString(`"k` + strconv.Itoa(i) + `":"` + v + " text " + strconv.Itoa(i) + `"`)
	}
	sb.WriteString("}")
	return sb.String()
}

// BenchmarkTranslationUpload: one translation upload that replaces the
// translations of all 2000 strings of a file (SQLite). Each string's
// statements search by the string, not by the language.
func BenchmarkTranslationUpload(b *testing.B) {
	base, _ := startServe(b, platform.Config{})
	status, body := uploadFile(b, base.URL, "/api/v2/projects/1/files", "app.json", benchFile(2000, "v1"), nil)
	require.Equal(b, http.StatusCreated, status, string(body))
	tr := benchFile(2000, "uk")
	b.ResetTimer()
	for range b.N {
		status, body := uploadFile(b, base.URL, "/api/v2/projects/1/translations", "app.json", tr, map[string]string{"languageId": "uk"})
		require.Equal(b, http.StatusCreated, status, string(body))
	}
}

// BenchmarkSourceUpdate: a source upload of a file of 2000 translated
// strings, alternately unchanged and all changed (SQLite).
func BenchmarkSourceUpdate(b *testing.B) {
	for _, c := range []struct{ name, v2 string }{{"unchanged", "v1"}, {"changed", "v2"}} {
		b.Run(c.name, func(b *testing.B) {
			base, _ := startServe(b, platform.Config{})
			for _, v := range []string{"v1", "uk"} {
				path, fields := "/api/v2/projects/1/files", map[string]string(nil)
				if v == "uk" {
					path, fields = "/api/v2/projects/1/translations", map[string]string{"languageId": "uk"}
				}
				status, body := uploadFile(b, base.URL, path, "app.json", benchFile(2000, v), fields)
				require.Equal(b, http.StatusCreated, status, string(body))
			}
			files := []string{benchFile(2000, c.v2), benchFile(2000, "v1")}
			b.ResetTimer()
			for i := range b.N {
				status, body := uploadFile(b, base.URL, "/api/v2/projects/1/files", "app.json", files[i%2], nil)
				require.Equal(b, http.StatusCreated, status, string(body))
			}
		})
	}
}

// BenchmarkUpload20k: uploads of a file of 20,000 strings, on SQLite and
// on the servers whose DSN is set: "translations" replaces the
// translations into uk of every string (the file was uploaded and
// translated before), "source" uploads the file as a new file (a new
// name each time).
func BenchmarkUpload20k(b *testing.B) {
	const n = 20000
	src, tr := benchFile(n, "v1"), benchFile(n, "uk")
	for _, engine := range testdb.Engines(b) {
		b.Run(engine, func(b *testing.B) {
			b.Run("translations", func(b *testing.B) {
				base, _, _ := startServeStorage(b, engine, platform.Config{})
				status, body := uploadFile(b, base.URL, "/api/v2/projects/1/files", "app.json", src, nil)
				require.Equal(b, http.StatusCreated, status, string(body))
				status, body = uploadFile(b, base.URL, "/api/v2/projects/1/translations", "app.json", tr, map[string]string{"languageId": "uk"})
				require.Equal(b, http.StatusCreated, status, string(body))
				b.ReportAllocs()
				b.ResetTimer()
				for range b.N {
					status, body := uploadFile(b, base.URL, "/api/v2/projects/1/translations", "app.json", tr, map[string]string{"languageId": "uk"})
					require.Equal(b, http.StatusCreated, status, string(body))
				}
			})
			b.Run("source", func(b *testing.B) {
				base, _, _ := startServeStorage(b, engine, platform.Config{})
				b.ReportAllocs()
				b.ResetTimer()
				for i := range b.N {
					status, body := uploadFile(b, base.URL, "/api/v2/projects/1/files", "app"+strconv.Itoa(i)+".json", src, nil)
					require.Equal(b, http.StatusCreated, status, string(body))
				}
			})
		})
	}
}

// BenchmarkTranslationUploadScale: the first translation upload into uk
// of a file of N strings, on SQLite and on the servers whose DSN is set
// (the project and its source upload are made outside the timer). The
// SQLite project's planner statistics are taken when it holds 50
// translated strings, as a project loaded small and grown by uploads has
// them. Linear would take N/20,000 times the time of the 20k case.
func BenchmarkTranslationUploadScale(b *testing.B) {
	for _, engine := range testdb.Engines(b) {
		for _, n := range []int{20000, 80000, 400000} {
			b.Run(engine+"/"+strconv.Itoa(n/1000)+"k", func(b *testing.B) {
				src, tr := benchFile(n, "v1"), benchFile(n, "uk")
				for range b.N {
					b.StopTimer()
					base := scaleProject(b, engine)
					status, body := uploadFile(b, base, "/api/v2/projects/1/files", "app.json", src, nil)
					require.Equal(b, http.StatusCreated, status, string(body))
					b.StartTimer()
					status, body = uploadFile(b, base, "/api/v2/projects/1/translations", "app.json", tr, map[string]string{"languageId": "uk"})
					require.Equal(b, http.StatusCreated, status, string(body))
				}
			})
		}
	}
}

// scaleProject serves a project on engine: on SQLite, smallAnalyzedProject.
func scaleProject(b *testing.B, engine string) string {
	if engine == "sqlite" {
		return smallAnalyzedProject(b)
	}
	base, _, _ := startServeStorage(b, engine, platform.Config{})
	return base.URL
}

// smallAnalyzedProject serves a SQLite project of 50 strings translated
// into uk whose planner statistics were taken then (ANALYZE).
func smallAnalyzedProject(b *testing.B) string {
	base, _, st := startServeStorage(b, "sqlite", platform.Config{})
	for _, up := range []struct{ path, v string }{{"/api/v2/projects/1/files", "v1"}, {"/api/v2/projects/1/translations", "uk"}} {
		var fields map[string]string
		if up.v == "uk" {
			fields = map[string]string{"languageId": "uk"}
		}
		status, body := uploadFile(b, base.URL, up.path, "seed.json", benchFile(50, up.v), fields)
		require.Equal(b, http.StatusCreated, status, string(body))
	}
	proj, ok := st.Project(1)
	require.True(b, ok)
	require.NoError(b, st.WriteTx(context.Background(), proj, func(tx *sql.Tx) error {
		_, err := tx.Exec("ANALYZE")
		return err
	}))
	return base.URL
}
