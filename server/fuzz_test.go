package server_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/croql/croql/internal/corpus"
	"github.com/croql/croql/server"
)

// scratchDir holds the fuzz server's database; TestMain removes it (each
// fuzzing worker process runs TestMain too).
var scratchDir string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "croql-server-test-")
	if err != nil {
		panic(err)
	}
	scratchDir = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// fuzzServer is one server over the demo project in SQLite, per process.
var fuzzServer = sync.OnceValues(func() (http.Handler, error) {
	p, err := demoProject()
	if err != nil {
		return nil, err
	}
	st, err := server.LoadSQLite(context.Background(), filepath.Join(scratchDir, "fuzz"), p)
	if err != nil {
		return nil, err
	}
	toks := &server.Tokens{}
	if err := toks.Add(token); err != nil {
		return nil, err
	}
	// The storage lives as long as the fuzzing process.
	return server.New(server.Config{Storage: st, Tokens: toks, Now: clock})
})

// FuzzServe sends random croql, limit, offset, orderBy and path ids to the
// handler: no answer is a 500 or a panic, every answer is JSON, and only
// 200, 400 and 404 occur.
func FuzzServe(f *testing.F) {
	cases, err := corpus.Load(filepath.Join(repoRoot(f), "testdata", "corpus"))
	if err != nil {
		f.Fatal(err)
	}
	for i, c := range cases {
		f.Add(uint8(i), c.Query(), "25", "0", "1", "de", "")
	}
	f.Add(uint8(1), "user = @user:\"alice\"", "500", "3", "1", "fr", "text desc")
	f.Add(uint8(2), "count of records > 0", "0", "-1", "x", "", "id")
	f.Add(uint8(3), "status = \"preferred\"", "1", "99999999999999999999", "1", "", "nope")
	f.Add(uint8(4), "text contains \"\xff\"", "1e3", "", "01", "%", "")
	// Deeper than the engines' statement limits (a 400, not a 500).
	f.Add(uint8(0), strings.Repeat("maxLength + ", 1500)+"1 > 0", "25", "0", "1", "", "")
	f.Add(uint8(0), strings.Repeat("-", 1500)+"maxLength > 0", "25", "0", "1", "", "")
	f.Fuzz(func(t *testing.T, which uint8, croql, limit, offset, id, lang, orderBy string) {
		h, err := fuzzServer()
		if err != nil {
			t.Fatal(err)
		}
		paths := []string{
			"/api/v2/projects/" + url.PathEscape(id) + "/strings",
			"/api/v2/projects/" + url.PathEscape(id) + "/languages/" + url.PathEscape(lang) + "/translations",
			"/api/v2/tms/" + url.PathEscape(id) + "/segments",
			"/api/v2/glossaries/" + url.PathEscape(id) + "/terms",
			"/api/v2/projects/" + url.PathEscape(id),
		}
		q := url.Values{"croql": {croql}}
		for k, v := range map[string]string{"limit": limit, "offset": offset, "orderBy": orderBy} {
			if v != "" {
				q.Set(k, v)
			}
		}
		var req *http.Request
		path := paths[int(which)%len(paths)]
		if which >= 128 && int(which)%len(paths) < 4 {
			body, _ := json.Marshal(map[string]any{"croql": croql, "orderBy": orderBy})
			req = httptest.NewRequest(http.MethodPost, path+"/query", strings.NewReader(string(body)))
		} else {
			req = httptest.NewRequest(http.MethodGet, path+"?"+q.Encode(), nil)
		}
		answersJSON(t, h, req)
	})
}

// FuzzListParameters sends random values of the platform's documented
// list parameters (and random path ids) to every list and single-object
// endpoint: no answer is a 500 or a panic, every answer is JSON, and only
// 200, 400 and 404 occur.
func FuzzListParameters(f *testing.F) {
	names := []string{"fileId", "branchId", "labelIds", "filter", "scope", "denormalizePlaceholders", "directoryId",
		"taskId", "stringIds", "approvedOnly", "passedWorkflow", "minApprovalCount", "languageId", "userId",
		"conceptId", "translationOfTermId", "groupId", "type", "hasManagerAccess", "isSystem", "recursion",
		"languageIds", "orderBy", "withTotal"}
	for i := range names {
		f.Add(uint8(i), uint8(i), "1", "", "1")
	}
	f.Add(uint8(2), uint8(0), "3,1", "", "1")
	f.Add(uint8(3), uint8(0), "\"\\\xff\x00", "", "1")
	f.Add(uint8(4), uint8(0), "title,text", "", "1")
	f.Add(uint8(8), uint8(1), "1,2,99999999999999999999", "count of votes > 0", "1")
	f.Add(uint8(12), uint8(3), "de", "", "1")
	f.Add(uint8(22), uint8(1), "createdAt desc,text", "", "1")
	f.Fuzz(func(t *testing.T, name, which uint8, value, croql, id string) {
		h, err := fuzzServer()
		if err != nil {
			t.Fatal(err)
		}
		e := url.PathEscape(id)
		paths := []string{
			"/api/v2/projects/" + e + "/strings",
			"/api/v2/projects/" + e + "/languages/de/translations",
			"/api/v2/tms/" + e + "/segments",
			"/api/v2/glossaries/" + e + "/terms",
			"/api/v2/projects",
			"/api/v2/projects/1/files",
			"/api/v2/projects/1/labels",
			"/api/v2/tms",
			"/api/v2/glossaries",
			"/api/v2/projects/1/languages/progress",
			"/api/v2/projects/1/languages/" + e + "/progress",
			"/api/v2/projects/1/files/" + e + "/languages/progress",
			"/api/v2/projects/1/strings/" + e,
			"/api/v2/projects/1/files/" + e,
			"/api/v2/projects/1/labels/" + e,
			"/api/v2/tms/1/segments/" + e,
			"/api/v2/glossaries/1/terms/" + e,
			"/api/v2/tms/" + e,
			"/api/v2/glossaries/" + e,
		}
		q := url.Values{names[int(name)%len(names)]: {value}}
		if croql != "" {
			q.Set("croql", croql)
		}
		req := httptest.NewRequest(http.MethodGet, paths[int(which)%len(paths)]+"?"+q.Encode(), nil)
		answersJSON(t, h, req)
	})
}

// answersJSON serves req with a token and fails unless the answer is a
// 200, 400 or 404 with a JSON object.
func answersJSON(t *testing.T, h http.Handler, req *http.Request) {
	t.Helper()
	req.Header.Set("Authorization", "Bearer "+token)
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	switch rec.Code {
	case http.StatusOK, http.StatusBadRequest, http.StatusNotFound:
	default:
		t.Fatalf("%s %s: status %d: %s", req.Method, req.URL, rec.Code, rec.Body)
	}
	var v map[string]any
	if err := json.Unmarshal(rec.Body.Bytes(), &v); err != nil {
		t.Fatalf("%s: not JSON: %v: %s", req.URL, err, rec.Body)
	}
}
