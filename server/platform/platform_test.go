package platform_test

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"io"
	"log/slog"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/croql/croql/app/postimport"
	"github.com/croql/croql/internal/testdb"
	"github.com/croql/croql/locfile"
	"github.com/croql/croql/schema"
	"github.com/croql/croql/server"
	"github.com/croql/croql/server/platform"
)

const token = "test-token"

// adminToken is the admin token of startServe's servers (unless the
// Config names its own AdminTokens).
const adminToken = "test-admin-token"

// asAdmin are the headers of an admin request.
var asAdmin = map[string]string{"Authorization": "Bearer " + adminToken}

// startServe runs croql serve's handler (SQLite) with the platform side
// on a loopback listener.
func startServe(t testing.TB, cfg platform.Config) (*httptest.Server, *platform.Platform) {
	return startServeOn(t, "sqlite", cfg)
}

func startServeOn(t testing.TB, engine string, cfg platform.Config) (*httptest.Server, *platform.Platform) {
	t.Helper()
	hs, p, _ := startServeStorage(t, engine, cfg)
	return hs, p
}

// startServeStorage is startServeOn that also gives the project's
// storage (for tests that add what no endpoint writes: votes,
// approvals, comments).
func startServeStorage(t testing.TB, engine string, cfg platform.Config) (*httptest.Server, *platform.Platform, *server.Storage) {
	t.Helper()
	ctx := context.Background()
	data := &schema.Project{Name: "demo", SourceLanguage: "en", TargetLanguages: []string{"uk", "de"}}
	var st *server.Storage
	var err error
	switch engine {
	case "sqlite":
		st, err = server.LoadSQLite(ctx, t.TempDir(), data)
	case "postgres":
		st, err = server.LoadServer(ctx, engine, testdb.DSN("postgres"), data)
	case "mysql":
		st, err = server.LoadServer(ctx, engine, testdb.DSN("mysql"), data)
	}
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, st.Close()) })
	hs, p := serveStorage(t, st, cfg)
	return hs, p, st
}

// serveStorage runs croql serve's handler on st with the platform side
// on a loopback listener.
func serveStorage(t testing.TB, st *server.Storage, cfg platform.Config) (*httptest.Server, *platform.Platform) {
	t.Helper()
	ctx := context.Background()
	tokens := &server.Tokens{}
	require.NoError(t, tokens.Add(token))
	srv, err := server.New(server.Config{Storage: st, Tokens: tokens})
	require.NoError(t, err)
	if cfg.AdminTokens == nil {
		cfg.AdminTokens = &server.Tokens{}
		require.NoError(t, cfg.AdminTokens.Add(adminToken))
	}
	p, err := platform.New(ctx, cfg)
	require.NoError(t, err)
	p.Register(srv)
	hs := httptest.NewServer(srv)
	t.Cleanup(hs.Close)
	return hs, p
}

// startApp serves a descriptor with one post-import module handled by h.
func startApp(t *testing.T, id string, patterns *postimport.SignaturePatterns, h http.Handler) *httptest.Server {
	t.Helper()
	mux := http.NewServeMux()
	var hs *httptest.Server
	mux.HandleFunc("GET /manifest.json", func(w http.ResponseWriter, r *http.Request) {
		_ = json.NewEncoder(w).Encode(map[string]any{"identifier": id, "baseUrl": hs.URL,
			"modules": postimport.Modules{FilePostImport: []postimport.Module{{Key: "m", URL: "/post-import", SignaturePatterns: patterns}}}})
	})
	mux.Handle("/post-import", h)
	hs = httptest.NewServer(mux)
	t.Cleanup(hs.Close)
	return hs
}

func do(t testing.TB, method, url string, body io.Reader, hdr map[string]string) (int, []byte) {
	t.Helper()
	return doAs(t, token, method, url, body, hdr)
}

// doAs is do with another bearer token (another organization).
func doAs(t testing.TB, tok, method, url string, body io.Reader, hdr map[string]string) (int, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, url, body)
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+tok)
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, b
}

// uploadFile posts a file as multipart/form-data.
func uploadFile(t testing.TB, base, path, name, content string, fields map[string]string) (int, []byte) {
	t.Helper()
	return uploadFileAs(t, token, base, path, name, content, fields)
}

// uploadFileAs is uploadFile with another bearer token.
func uploadFileAs(t testing.TB, tok, base, path, name, content string, fields map[string]string) (int, []byte) {
	t.Helper()
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	for k, v := range fields {
		require.NoError(t, mw.WriteField(k, v))
	}
	fw, err := mw.CreateFormFile("file", name)
	require.NoError(t, err)
	_, _ = io.WriteString(fw, content)
	require.NoError(t, mw.Close())
	return doAs(t, tok, http.MethodPost, base+path, &buf, map[string]string{"Content-Type": mw.FormDataContentType()})
}

// listed is a string as the strings endpoint lists it.
type listed struct {
	ID         int64           `json:"id"`
	Identifier string          `json:"identifier"`
	Text       json.RawMessage `json:"text"`
}

// listStringsData returns the strings a croql query selects, through the
// strings endpoint.
func listStringsData(t *testing.T, base, croql string) []listed {
	t.Helper()
	status, body := do(t, http.MethodGet, base+"/api/v2/projects/1/strings?limit=500&croql="+url.QueryEscape(croql), nil, nil)
	require.Equal(t, http.StatusOK, status, string(body))
	var r struct {
		Data []struct {
			Data listed `json:"data"`
		} `json:"data"`
	}
	require.NoError(t, json.Unmarshal(body, &r))
	out := make([]listed, len(r.Data))
	for i, d := range r.Data {
		out[i] = d.Data
	}
	return out
}

// listStrings returns "identifier=text" of the strings a croql query
// selects, sorted.
func listStrings(t *testing.T, base, croql string) []string {
	t.Helper()
	out := []string{}
	for _, d := range listStringsData(t, base, croql) {
		var text any
		require.NoError(t, json.Unmarshal(d.Text, &text))
		b, _ := json.Marshal(text)
		out = append(out, d.Identifier+"="+string(b))
	}
	sort.Strings(out)
	return out
}

func TestImportWithoutModuleStoresParsedStrings(t *testing.T) {
	for _, engine := range testdb.Engines(t) {
		t.Run(engine, func(t *testing.T) { testImportWithoutModule(t, engine) })
	}
}

func testImportWithoutModule(t *testing.T, engine string) {
	base, _ := startServeOn(t, engine, platform.Config{})
	status, body := uploadFile(t, base.URL, "/api/v2/projects/1/files", "app.json", `{"a":"Apple","nested":{"b":"Banana"},"items":{"one":"%d item","other":"%d items"}}`, nil)
	require.Equal(t, http.StatusCreated, status, string(body))
	require.JSONEq(t, `{"data":{"fileId":1,"name":"app.json","type":"json","strings":3}}`, string(body))
	// Every plural form is kept; CroQL's text of a plural is its "other" form.
	require.Equal(t, []string{`a="Apple"`, `items={"one":"%d item","other":"%d items"}`, `nested.b="Banana"`}, listStrings(t, base.URL, ""))
	require.Equal(t, []string{`items={"one":"%d item","other":"%d items"}`}, listStrings(t, base.URL, `type is plural and text = "%d items"`))

	xml := `<?xml version="1.0" encoding="utf-8"?><resources><string name="hi">Hi \'you\'</string><string name="skip" translatable="false">x</string>` +
		`<plurals name="files"><item quantity="one">One file</item><item quantity="other">%d files</item></plurals></resources>`
	status, body = do(t, http.MethodPost, base.URL+"/api/v2/projects/1/files", strings.NewReader(xml), map[string]string{"Crowdin-API-FileName": "strings.xml"})
	require.Equal(t, http.StatusCreated, status, string(body))
	require.Contains(t, string(body), `"type":"android"`)
	require.Equal(t, []string{`files={"one":"One file","other":"%d files"}`, `hi="Hi 'you'"`, `skip="x"`}, listStrings(t, base.URL, `name of file = "strings.xml"`))
	// translatable="false" is a hidden string, as the platform imports it.
	require.Equal(t, []string{"skip"}, keys(t, base.URL, `is hidden`))

	// A translation upload stores the translations of the file's keys.
	status, body = uploadFile(t, base.URL, "/api/v2/projects/1/translations", "app.json", `{"a":"Яблуко","items":{"one":"%d річ","few":"%d речі","many":"%d речей"}}`, map[string]string{"languageId": "uk"})
	require.Equal(t, http.StatusCreated, status, string(body))
	require.Contains(t, string(body), `"strings":2`)
	require.Equal(t, []string{`a="Apple"`, `items={"one":"%d item","other":"%d items"}`}, listStrings(t, base.URL, `count of languages summary where (language = @language:"uk" and is translated) > 0`))

	// ICU in a JSON file is an icu string; a plural's changed "one" form
	// is a changed source text.
	status, body = uploadFile(t, base.URL, "/api/v2/projects/1/files", "icu.json", `{"n":"{count, plural, one {# apple} other {# apples}}","p":"{ not icu }"}`, nil)
	require.Equal(t, http.StatusCreated, status, string(body))
	require.Equal(t, []string{"n"}, keys(t, base.URL, `type is icu`))
	require.Equal(t, []string{"p"}, keys(t, base.URL, `name of file = "icu.json" and type is plain`))
	status, body = uploadFile(t, base.URL, "/api/v2/projects/1/files", "app.json", `{"a":"Apple","nested":{"b":"Banana"},"items":{"one":"%d thing","other":"%d items"}}`, nil)
	require.Equal(t, http.StatusCreated, status, string(body))
	require.Contains(t, string(body), `"updated":1`)
	require.Contains(t, listStrings(t, base.URL, ""), `items={"one":"%d thing","other":"%d items"}`)

	// Refusals with the reason.
	status, body = uploadFile(t, base.URL, "/api/v2/projects/1/files", "notes.txt", "x", nil)
	require.Equal(t, http.StatusBadRequest, status)
	require.Contains(t, string(body), "no parser reads this file")
	status, body = uploadFile(t, base.URL, "/api/v2/projects/1/files", "bad.json", `{"a":1}`, nil)
	require.Equal(t, http.StatusBadRequest, status)
	require.Contains(t, string(body), `key \"a\"`)
	// The line and the column, and what a text must be.
	status, body = uploadFile(t, base.URL, "/api/v2/projects/1/files", "bad.json", `{"a":null}`, nil)
	require.Equal(t, http.StatusBadRequest, status)
	require.Contains(t, string(body), `The file bad.json could not be parsed: line 1, column 10: json: key \"a\": a text must be a string or an object, got null`)
	status, _ = uploadFile(t, base.URL, "/api/v2/projects/1/translations", "app.json", `{}`, map[string]string{"languageId": "fr"})
	require.Equal(t, http.StatusBadRequest, status)
	status, _ = uploadFile(t, base.URL, "/api/v2/projects/2/files", "app.json", `{}`, nil)
	require.Equal(t, http.StatusNotFound, status)
}

// TestStorageFailureIsNotShown: when storing an import fails in the
// database, the client gets a 500 with a generic message and the log the
// statement and the engine's error.
func TestStorageFailureIsNotShown(t *testing.T) {
	var logged bytes.Buffer
	base, _, st := startServeStorage(t, "sqlite", platform.Config{Logger: slog.New(slog.NewTextHandler(&logged, nil))})
	proj, ok := st.Project(1)
	require.True(t, ok)
	require.NoError(t, st.WriteTx(context.Background(), proj, func(tx *sql.Tx) error {
		_, err := tx.Exec(`DROP TABLE "strings"`)
		return err
	}))
	status, body := uploadFile(t, base.URL, "/api/v2/projects/1/files", "app.json", `{"a":"Apple"}`, nil)
	require.Equal(t, http.StatusInternalServerError, status, string(body))
	assert.JSONEq(t, `{"error":{"code":500,"message":"The import could not be stored (nothing was stored); the server's log has the details"}}`, string(body))
	assert.NotContains(t, string(body), "strings")
	assert.Contains(t, logged.String(), "import failed")
	assert.Contains(t, logged.String(), "strings", "the log names the failing statement's table")
}

// TestFailedJobsLeaveProjectUnchanged: a job that times out, answers 6
// MB, answers invalid strings or reports an error leaves the stored
// project as it was, and the upload's answer says why.
func TestFailedJobsLeaveProjectUnchanged(t *testing.T) {
	for _, engine := range testdb.Engines(t) {
		t.Run(engine, func(t *testing.T) { testFailedJobsLeaveProjectUnchanged(t, engine) })
	}
}

func testFailedJobsLeaveProjectUnchanged(t *testing.T, engine string) {
	var mode atomic.Value
	mode.Store("identity")
	identity, err := postimport.NewHandler(postimport.ProcessorFunc(func(ctx context.Context, job *postimport.Job) ([]postimport.String, error) {
		return job.Strings, nil
	}), postimport.Config{})
	require.NoError(t, err)
	t.Cleanup(func() { _ = identity.Close() })
	app := startApp(t, "checker", &postimport.SignaturePatterns{FileName: `\.json$`}, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch mode.Load().(string) {
		case "identity":
			identity.ServeHTTP(w, r)
		case "slow":
			_, _ = io.Copy(io.Discard, r.Body) // so the server notices the client leaving
			select {
			case <-r.Context().Done():
			case <-time.After(5 * time.Second):
			}
		case "huge":
			w.Header().Set("Content-Type", "application/json")
			_, _ = io.WriteString(w, `{"data":{"strings":[{"uniqId":"x::1","identifier":"x","text":"`+strings.Repeat("a", 6_000_000)+`"}]}}`)
		case "invalid":
			_, _ = io.WriteString(w, `{"data":{"strings":[{"uniqId":"x::1","identifier":"x","text":"a"},{"uniqId":"x::1","identifier":"y","hasPlurals":true,"text":"b"}]}}`)
		case "error":
			_, _ = io.WriteString(w, `{"error":{"message":"The file has no header row."}}`)
		}
	}))
	base, _ := startServeOn(t, engine, platform.Config{Apps: []string{app.URL}, JobTimeout: time.Second})
	status, body := uploadFile(t, base.URL, "/api/v2/projects/1/files", "app.json", `{"a":"Apple","b":"Banana"}`, nil)
	require.Equal(t, http.StatusCreated, status, string(body))
	require.Contains(t, string(body), `"module":"checker/m"`)
	before := listStrings(t, base.URL, "")
	require.Equal(t, []string{`a="Apple"`, `b="Banana"`}, before)

	for _, c := range []struct {
		mode   string
		status int
		msg    string
	}{
		{"slow", http.StatusGatewayTimeout, "did not answer within 1s"},
		{"huge", http.StatusBadGateway, "answered more than 5000000 bytes"},
		{"invalid", http.StatusUnprocessableEntity, "produced invalid strings"},
		{"error", http.StatusUnprocessableEntity, "The file has no header row."},
	} {
		t.Run(c.mode, func(t *testing.T) {
			mode.Store(c.mode)
			status, body := uploadFile(t, base.URL, "/api/v2/projects/1/files", "app.json", `{"a":"Avocado","c":"Cherry"}`, nil)
			require.Equal(t, c.status, status, string(body))
			require.Contains(t, string(body), c.msg)
			require.Equal(t, before, listStrings(t, base.URL, ""))
		})
	}
	// And the same upload through the identity module updates the file: b goes, c comes.
	mode.Store("identity")
	status, body = uploadFile(t, base.URL, "/api/v2/projects/1/files", "app.json", `{"a":"Avocado","c":"Cherry"}`, nil)
	require.Equal(t, http.StatusCreated, status, string(body))
	require.Equal(t, []string{`a="Avocado"`, `c="Cherry"`}, listStrings(t, base.URL, ""))
}

// TestLargeJobsGoByURL: above the inline limit the file goes as
// contentUrl and the strings as stringsUrl, which the app side fetches.
func TestLargeJobsGoByURL(t *testing.T) {
	var got atomic.Value
	h, err := postimport.NewHandler(postimport.ProcessorFunc(func(ctx context.Context, job *postimport.Job) ([]postimport.String, error) {
		got.Store(len(job.File.Data))
		return job.Strings, nil
	}), postimport.Config{HTTPClient: &http.Client{}})
	require.NoError(t, err)
	t.Cleanup(func() { _ = h.Close() })
	var raw atomic.Value
	app := startApp(t, "big", nil, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		raw.Store(string(b))
		r.Body = io.NopCloser(bytes.NewReader(b))
		h.ServeHTTP(w, r)
	}))
	base, _ := startServe(t, platform.Config{Apps: []string{app.URL}, MaxInlineJobBytes: 2000})
	var sb strings.Builder
	sb.WriteString("{")
	for i := range 100 {
		if i > 0 {
			sb.WriteString(",")
		}
		sb.WriteString(`"k` + strings.Repeat("x", 3) + string(rune('a'+i%26)) + string(rune('a'+i/26)) + `":"text number ` + strings.Repeat("y", 20) + `"`)
	}
	sb.WriteString("}")
	status, body := uploadFile(t, base.URL, "/api/v2/projects/1/files", "big.json", sb.String(), nil)
	require.Equal(t, http.StatusCreated, status, string(body))
	require.Contains(t, string(body), `"strings":100`)
	job := raw.Load().(string)
	require.Contains(t, job, `"contentUrl":"`+base.URL+`/_platform/blobs/`)
	require.Contains(t, job, `"stringsUrl":"`+base.URL+`/_platform/blobs/`)
	require.NotContains(t, job, `"content":`)
	require.Contains(t, job, `"targetLanguages":[]`)
	require.Equal(t, len(sb.String()), got.Load().(int))
	require.Len(t, listStrings(t, base.URL, ""), 100)
}

// TestTranslationUploadRunsTheModule: a translation upload sends the
// file's strings with the uploaded translations and one target language;
// the translations the module answers are stored.
func TestTranslationUploadRunsTheModule(t *testing.T) {
	for _, engine := range testdb.Engines(t) {
		t.Run(engine, func(t *testing.T) { testTranslationUploadRunsTheModule(t, engine) })
	}
}

func testTranslationUploadRunsTheModule(t *testing.T, engine string) {
	var jobs []*postimport.Job
	var mu sync.Mutex
	h, err := postimport.NewHandler(postimport.ProcessorFunc(func(ctx context.Context, job *postimport.Job) ([]postimport.String, error) {
		mu.Lock()
		jobs = append(jobs, job)
		mu.Unlock()
		out := make([]postimport.String, len(job.Strings))
		for i, s := range job.Strings {
			out[i] = s.Clone()
			for l, tr := range out[i].Translations {
				tr.Text = postimport.PlainText(strings.ToUpper(tr.Text.Plain))
				tr.Status = postimport.PlainStatus(postimport.StatusApproved)
				out[i].Translations[l] = tr
			}
		}
		return out, nil
	}), postimport.Config{})
	require.NoError(t, err)
	t.Cleanup(func() { _ = h.Close() })
	app := startApp(t, "upper", &postimport.SignaturePatterns{FileContent: `"greeting"`}, h)
	base, _ := startServeOn(t, engine, platform.Config{Apps: []string{app.URL}})

	status, body := uploadFile(t, base.URL, "/api/v2/projects/1/files", "app.json", `{"greeting":"Hello","bye":"Bye"}`, nil)
	require.Equal(t, http.StatusCreated, status, string(body))
	status, body = uploadFile(t, base.URL, "/api/v2/projects/1/translations", "app.json", `{"greeting":"Привіт"}`, map[string]string{"languageId": "uk"})
	require.Equal(t, http.StatusCreated, status, string(body))
	require.Contains(t, string(body), `"strings":1`)
	require.Contains(t, string(body), `"module":"upper/m"`)

	require.Len(t, jobs, 2)
	require.Empty(t, jobs[0].TargetLanguages)
	require.Len(t, jobs[1].TargetLanguages, 1)
	require.Equal(t, "uk", jobs[1].TargetLanguages[0].ID)
	require.Equal(t, []string{"one", "few", "many", "other"}, jobs[1].TargetLanguages[0].PluralCategoryNames)
	require.Equal(t, "Привіт", jobs[1].Strings[0].Translations["uk"].Text.Plain)
	require.Empty(t, jobs[1].Strings[1].Translations)

	require.Equal(t, []string{`greeting="Hello"`}, listStrings(t, base.URL, `count of translations where (text = "ПРИВІТ") > 0`))
	require.Equal(t, []string{`greeting="Hello"`}, listStrings(t, base.URL, `count of languages summary where (is approved) > 0`))
}

// TestParsers: uploads read Android XML and key-value JSON with package
// locfile's parsers; what they refuse is an error with its position.
func TestParsers(t *testing.T) {
	android, kv := platform.FileParser{P: locfile.Android{}}, platform.FileParser{P: locfile.JSON{}}
	got, err := android.Parse([]byte(`<resources>
	  <string name="a">Don\'t &amp; <b>bold</b>\nnext</string>
	  <string name="q">"  quoted  "</string>
	</resources>`))
	require.NoError(t, err)
	require.Equal(t, []platform.Parsed{{Identifier: "a", Text: "Don't & <b>bold</b>\nnext"}, {Identifier: "q", Text: "  quoted  "}}, got)
	for _, bad := range []string{`<resources><string>x</string></resources>`, `<resources><plurals name="p"><item quantity="lots">x</item></plurals></resources>`, `<resources`} {
		_, err := android.Parse([]byte(bad))
		require.ErrorContains(t, err, "line 1", bad)
	}
	for _, bad := range []string{`[]`, `{"a":[1]}`, `{"":"x"}`, `{"a":{" ":"x"}}`, `{"a":"x"} {}`, `{"a":`, `{"a":null}`} {
		_, err := kv.Parse([]byte(bad))
		require.ErrorContains(t, err, "line 1, column", bad)
	}
	require.True(t, android.Match("values/strings.xml", []byte(`<?xml?><resources>`)))
	require.False(t, android.Match("data.xml", []byte(`<root/>`)))
}
