package main

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/croql/croql/app/postimport"
)

// startApp runs the example app on an httptest server.
func startApp(t *testing.T, cfg config) *httptest.Server {
	t.Helper()
	var app http.Handler
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { app.ServeHTTP(w, r) }))
	t.Cleanup(srv.Close)
	cfg.publicURL = srv.URL
	cfg.allowPrivateFetch = true
	cfg.logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	var err error
	app, err = newApp(cfg)
	require.NoError(t, err)
	return srv
}

// platform plays the platform's part: it reads the manifest, picks the
// module for a file and posts jobs to it.
type platform struct {
	t       *testing.T
	app     *httptest.Server
	modules []postimport.Module
	storage *httptest.Server
	files   map[string]string
}

func newPlatform(t *testing.T, app *httptest.Server) *platform {
	p := &platform{t: t, app: app, files: map[string]string{}}
	resp, err := http.Get(app.URL + "/manifest.json")
	require.NoError(t, err)
	defer resp.Body.Close()
	var manifest struct {
		BaseURL string             `json:"baseUrl"`
		Modules postimport.Modules `json:"modules"`
	}
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&manifest))
	assert.Equal(t, app.URL, manifest.BaseURL)
	p.modules = manifest.Modules.FilePostImport
	for _, m := range p.modules {
		require.NoError(t, m.Validate())
	}
	p.storage = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, ok := p.files[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		_, _ = io.WriteString(w, body)
	}))
	t.Cleanup(p.storage.Close)
	return p
}

// host puts a file on the platform's storage and returns its URL.
func (p *platform) host(path, body string) string {
	p.files[path] = body
	return p.storage.URL + path + "?signature=abc"
}

// run posts a job for the file and returns the strings of the answer,
// downloading data.stringsUrl when the app answered with it.
func (p *platform) run(fileName string, content []byte, job map[string]any) ([]json.RawMessage, int, string) {
	t := p.t
	m, ok, err := postimport.Select(p.modules, fileName, content)
	require.NoError(t, err)
	require.True(t, ok, "a module handles %s", fileName)

	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	require.NoError(t, enc.Encode(job))
	resp, err := http.Post(p.app.URL+m.URL, "application/json", &buf)
	require.NoError(t, err)
	defer resp.Body.Close()
	var answer struct {
		Data struct {
			Strings    []json.RawMessage `json:"strings"`
			StringsURL string            `json:"stringsUrl"`
		} `json:"data"`
		Error *struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&answer))
	if answer.Error != nil {
		return nil, resp.StatusCode, answer.Error.Message
	}
	if answer.Data.StringsURL == "" {
		return answer.Data.Strings, resp.StatusCode, ""
	}
	dl, err := http.Get(answer.Data.StringsURL)
	require.NoError(t, err)
	defer dl.Body.Close()
	require.Equal(t, http.StatusOK, dl.StatusCode)
	var out []json.RawMessage
	sc := bufio.NewScanner(dl.Body)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		out = append(out, json.RawMessage(bytes.Clone(sc.Bytes())))
	}
	require.NoError(t, sc.Err())
	return out, resp.StatusCode, "stored"
}

var (
	en = map[string]any{"id": "en", "name": "English", "pluralCategoryNames": []string{"one", "other"}}
	de = map[string]any{"id": "de", "name": "German", "pluralCategoryNames": []string{"one", "other"}}
)

// sourceStrings are the platform's parsed strings, one per line.
var sourceStrings = []string{
	`{"uniqId":"f00d::1","identifier":"intro","context":"FAQ intro","labels":["faq"],"maxLength":500,"text":"First paragraph.\n\nSecond <em>paragraph</em>.","translations":{"de":{"text":"Erster Absatz.\n\nZweiter <em>Absatz</em>.","status":"approved","reviewedBy":"anna"}},"origin":{"line":3}}`,
	`{"uniqId":"f00d::2","identifier":"title","text":"One paragraph only","isHidden":null}`,
	`{"uniqId":"f00d::3","identifier":"count","hasPlurals":true,"text":{"one":"%d file\n\nx","other":"%d files\n\ny"}}`,
	`{"uniqId":"f00d::4","identifier":"mismatch","text":"A.\n\nB.","translations":{"de":{"text":"A und B."}}}`,
}

func job(m map[string]any) map[string]any {
	j := map[string]any{
		"jobType":         "file-post-import",
		"organization":    map[string]any{"id": 1, "domain": "acme"},
		"project":         map[string]any{"id": 2, "identifier": "docs", "name": "Docs"},
		"file":            map[string]any{"id": 3, "name": "faq.md", "content": base64.StdEncoding.EncodeToString([]byte("# FAQ"))},
		"sourceLanguage":  en,
		"targetLanguages": []any{de},
		"strings":         json.RawMessage("[" + strings.Join(sourceStrings, ",") + "]"),
	}
	for k, v := range m {
		j[k] = v
	}
	return j
}

func compact(t *testing.T, s string) string {
	var b bytes.Buffer
	require.NoError(t, json.Compact(&b, []byte(s)))
	return b.String()
}

func decode(t *testing.T, raw json.RawMessage) postimport.String {
	var s postimport.String
	require.NoError(t, json.Unmarshal(raw, &s))
	return s
}

func checkSplitAnswer(t *testing.T, got []json.RawMessage) {
	require.Len(t, got, 5)

	a, b := decode(t, got[0]), decode(t, got[1])
	assert.Equal(t, "f00d-p1::1", a.UniqID)
	assert.Equal(t, "f00d-p2::1", b.UniqID)
	assert.Equal(t, "intro.1", a.Identifier)
	assert.Equal(t, "intro.2", b.Identifier)
	assert.Equal(t, "First paragraph.", a.Text.Plain)
	assert.Equal(t, "Second <em>paragraph</em>.", b.Text.Plain)
	assert.Equal(t, "Erster Absatz.", a.Translations["de"].Text.Plain)
	assert.Equal(t, "Zweiter <em>Absatz</em>.", b.Translations["de"].Text.Plain)
	for _, part := range []postimport.String{a, b} {
		assert.Equal(t, "FAQ intro", part.Context)
		assert.Equal(t, []string{"faq"}, part.Labels)
		require.NotNil(t, part.MaxLength)
		assert.Equal(t, 500, *part.MaxLength)
		assert.Equal(t, "approved", part.Translations["de"].Status.Plain)
		assert.JSONEq(t, `"anna"`, string(part.Translations["de"].Extra["reviewedBy"]))
		assert.JSONEq(t, `{"line":3}`, string(part.Extra["origin"]))
	}
	assert.Equal(t,
		`{"uniqId":"f00d-p2::1","identifier":"intro.2","context":"FAQ intro","labels":["faq"],"maxLength":500,"text":"Second <em>paragraph</em>.","translations":{"de":{"text":"Zweiter <em>Absatz</em>.","status":"approved","reviewedBy":"anna"}},"origin":{"line":3}}`,
		string(got[1]), "only the split members are re-encoded")

	// Single-paragraph, plural, and unsplittable strings come back exactly.
	assert.Equal(t, compact(t, sourceStrings[1]), string(got[2]))
	assert.Equal(t, compact(t, sourceStrings[2]), string(got[3]))
	assert.Equal(t, compact(t, sourceStrings[3]), string(got[4]))
}

func TestSplitterInline(t *testing.T) {
	p := newPlatform(t, startApp(t, config{}))
	got, status, msg := p.run("faq.md", []byte("# FAQ"), job(nil))
	require.Equal(t, http.StatusOK, status, msg)
	assert.Empty(t, msg)
	checkSplitAnswer(t, got)
}

func TestSplitterWithURLsAndStoredAnswer(t *testing.T) {
	p := newPlatform(t, startApp(t, config{maxInline: 512}))
	stringsURL := p.host("/strings.ndjson", strings.Join(sourceStrings, "\n")+"\n")
	fileURL := p.host("/faq.md", "# FAQ\n\nlong file")
	got, status, how := p.run("faq.md", nil, job(map[string]any{
		"strings":    nil,
		"stringsUrl": stringsURL,
		"file":       map[string]any{"id": 3, "name": "faq.md", "contentUrl": fileURL},
	}))
	require.Equal(t, http.StatusOK, status, how)
	assert.Equal(t, "stored", how, "the answer exceeded the inline limit")
	checkSplitAnswer(t, got)
}

func TestSplitterReportsErrorsToTheUser(t *testing.T) {
	p := newPlatform(t, startApp(t, config{}))
	_, status, msg := p.run("faq.md", nil, job(map[string]any{
		"file": map[string]any{"name": "faq.md", "contentUrl": p.storage.URL + "/missing?signature=abc"},
	}))
	assert.Equal(t, http.StatusOK, status, "errors are answered 200 with error.message, as the platform's SDK does")
	assert.Equal(t, "The file could not be downloaded.", msg)
}

func TestSplitterNewIDsAvoidCollisions(t *testing.T) {
	used := map[string]bool{"h-p1::1": true}
	s := postimport.String{UniqID: "h::1", Identifier: "x", Text: postimport.PlainText("a\n\nb")}
	parts := splitString(s, used)
	require.Len(t, parts, 2)
	assert.Equal(t, "h-p1-2::1", parts[0].UniqID)
	assert.Equal(t, "h-p2::1", parts[1].UniqID)
}

func TestSplitterHonoursTheDeadline(t *testing.T) {
	p := newPlatform(t, startApp(t, config{deadline: time.Nanosecond}))
	_, status, msg := p.run("faq.md", nil, job(nil))
	assert.Equal(t, http.StatusOK, status, msg)
	assert.NotEmpty(t, msg, "the job fails with a message")
}

func TestManyStrings(t *testing.T) {
	p := newPlatform(t, startApp(t, config{}))
	lines := make([]string, 3000)
	for i := range lines {
		lines[i] = fmt.Sprintf(`{"uniqId":"m::%d","identifier":"k%d","text":"p1\n\np2"}`, i, i)
	}
	got, status, msg := p.run("big.json", nil, job(map[string]any{"strings": json.RawMessage("[" + strings.Join(lines, ",") + "]")}))
	require.Equal(t, http.StatusOK, status, msg)
	assert.Len(t, got, 6000)
}
