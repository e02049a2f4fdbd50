package server_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/croql/croql"
	"github.com/croql/croql/diag"
	"github.com/croql/croql/internal/evaltest"
	"github.com/croql/croql/internal/testdb"
	"github.com/croql/croql/schema"
	"github.com/croql/croql/server"
)

// engines lists the engines a test runs on (internal/testdb): sqlite, then
// postgres and mysql when their DSN is set; CROQL_REQUIRE_DB makes a
// missing one a failure.
func engines(t testing.TB) []string {
	t.Helper()
	return testdb.Engines(t)
}

// dsnOf is engine's DSN from the environment ("" for sqlite).
func dsnOf(engine string) string { return testdb.DSN(engine) }

// clock is the fixed 'today' of the tests.
func clock() time.Time { return time.Date(2024, 6, 15, 12, 0, 0, 0, time.UTC) }

func repoRoot(t testing.TB) string {
	_, file, _, ok := runtime.Caller(0)
	require.True(t, ok)
	return filepath.Dir(filepath.Dir(file))
}

// demoProject is testdata/demo/project.json, what `croql query` reads
// without --data, read once and shared.
var demoProject = sync.OnceValues(readDemo)

// readDemo reads testdata/demo/project.json.
func readDemo() (*schema.Project, error) {
	_, file, _, _ := runtime.Caller(0)
	f, err := os.Open(filepath.Join(filepath.Dir(filepath.Dir(file)), "testdata", "demo", "project.json"))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return schema.ReadProject(f)
}

func demo(t testing.TB) *schema.Project {
	t.Helper()
	p, err := demoProject()
	require.NoError(t, err)
	return p
}

const token = "test-token"

// serve loads projects into engine and serves them over loopback.
func serve(t testing.TB, engine string, cfg server.Config, projects ...*schema.Project) *httptest.Server {
	t.Helper()
	ctx := context.Background()
	var st *server.Storage
	var err error
	if engine == "sqlite" {
		st, err = server.LoadSQLite(ctx, t.TempDir(), projects...)
	} else {
		st, err = server.LoadServer(ctx, engine, dsnOf(engine), projects...)
	}
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, st.Close()) })
	cfg.Storage = st
	if cfg.Tokens == nil {
		cfg.Tokens = &server.Tokens{}
		require.NoError(t, cfg.Tokens.Add(token))
	}
	if cfg.Now == nil {
		cfg.Now = clock
	}
	srv, err := server.New(cfg)
	require.NoError(t, err)
	hs := httptest.NewServer(srv)
	t.Cleanup(hs.Close)
	return hs
}

// get sends a GET with the test token and decodes the JSON answer.
func get(t testing.TB, hs *httptest.Server, path string, q url.Values) (int, map[string]any) {
	t.Helper()
	u := hs.URL + path
	if q != nil {
		u += "?" + q.Encode()
	}
	req, err := http.NewRequest(http.MethodGet, u, nil)
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+token)
	return do(t, hs, req)
}

func do(t testing.TB, hs *httptest.Server, req *http.Request) (int, map[string]any) {
	t.Helper()
	resp, err := hs.Client().Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	var body map[string]any
	require.NoError(t, json.Unmarshal(b, &body), "status %d body %s", resp.StatusCode, b)
	require.Equal(t, "application/json; charset=utf-8", resp.Header.Get("Content-Type"))
	return resp.StatusCode, body
}

// idKey is the id field of a context's objects.
func idKey(ctx string) string {
	if ctx == croql.Translations {
		return "translationId"
	}
	return "id"
}

// allIDs pages through a list endpoint and returns the ids served.
func allIDs(t testing.TB, hs *httptest.Server, path, ctx, query string, limit int) []int64 {
	t.Helper()
	ids := []int64{}
	for offset := 0; ; offset += limit {
		q := url.Values{"croql": {query}, "limit": {itoa(limit)}, "offset": {itoa(offset)}}
		status, body := get(t, hs, path, q)
		require.Equal(t, http.StatusOK, status, "%s %q: %v", path, query, body)
		data := body["data"].([]any)
		for _, d := range data {
			obj := d.(map[string]any)["data"].(map[string]any)
			if pl, ok := obj["plurals"].([]any); ok && ctx == croql.Translations {
				for _, x := range pl {
					ids = append(ids, int64(x.(map[string]any)["translationId"].(float64)))
				}
				continue
			}
			ids = append(ids, int64(obj[idKey(ctx)].(float64)))
		}
		pg := body["pagination"].(map[string]any)
		require.Equal(t, float64(offset), pg["offset"])
		require.Equal(t, float64(limit), pg["limit"])
		if len(data) < limit {
			if ctx == croql.Translations {
				// One object per string, in string order: compare the
				// translations as a set.
				slices.Sort(ids)
			}
			return ids
		}
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

// evalIDs runs src with the evaluator over p's objects of ctx (those of
// lang only, for translations, when lang is set), as `croql query --ids`.
func evalIDs(t testing.TB, p *schema.Project, ctx, lang, src string) []int64 {
	t.Helper()
	opts := []croql.Option{croql.WithUserIDs(p.UserIDs()), croql.WithClock(clock)}
	langs := []string{p.SourceLanguage}
	langs = append(langs, p.TargetLanguages...)
	for _, l := range p.Languages {
		langs = append(langs, l.ID)
	}
	opts = append(opts, croql.WithLanguages(langs...))
	env, err := croql.NewEnv(ctx, opts...)
	require.NoError(t, err)
	all := strings.TrimSpace(src) == "" // a blank croql lists everything
	var q *croql.Query
	if !all {
		var diags diag.List
		q, diags = env.Compile(src)
		require.False(t, diags.HasErrors(), "%q: %v", src, diags)
	}
	ids := []int64{}
	for _, o := range p.Objects(env.Context()) {
		if lang != "" {
			if tr, ok := o.(*schema.Translation); ok && tr.Language != lang {
				continue
			}
		}
		hit := all
		if !hit {
			var err error
			hit, err = q.Match(o)
			require.NoError(t, err)
		}
		if hit {
			id, ok := schema.ObjectID(o)
			require.True(t, ok)
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	if ctx == croql.Translations && lang != "" {
		return topTranslations(p, lang, ids)
	}
	return ids
}

// topTranslations is what the translations list answers for the
// matching translations ids (evaltest.TopTranslations).
func topTranslations(p *schema.Project, lang string, ids []int64) []int64 {
	return evaltest.TopTranslations(p, lang, ids)
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func httptestServer(t testing.TB, h http.Handler) *httptest.Server {
	hs := httptest.NewServer(h)
	t.Cleanup(hs.Close)
	return hs
}

// listPath is the list endpoint of context ctx in the demo project (lang:
// the translations list's language).
func listPath(ctx, lang string) string {
	switch ctx {
	case croql.Translations:
		return "/api/v2/projects/1/languages/" + lang + "/translations"
	case croql.TM:
		return "/api/v2/tms/1/segments"
	case croql.Glossary:
		return "/api/v2/glossaries/1/terms"
	default:
		return "/api/v2/projects/1/strings"
	}
}
