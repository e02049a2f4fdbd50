package main

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/croql/croql"
	"github.com/croql/croql/demo"
	"github.com/croql/croql/internal/corpus"
	"github.com/croql/croql/schema"
	"github.com/croql/croql/server"
)

// pullGaps are the seed patterns whose data the platform's API does not
// carry, so a pulled project cannot answer them as the original does:
// screenshots (no screenshots list in croql serve) and a translation's
// update time (the API's translations carry createdAt only), from which
// the summary's translation updated is derived.
var pullGaps = map[string]string{
	"seed-with-screenshots":               "screenshots are not read",
	"seed-translations-updated-in-period": "translations carry no update time",
}

// once429 answers the request number at (counting those whose path holds
// match) with 429 Too Many Requests and Retry-After: 0, once.
type once429 struct {
	next  http.Handler
	match string
	at    int64
	n     atomic.Int64
	fired atomic.Int64
}

func (h *once429) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if strings.Contains(r.URL.Path, h.match) && h.n.Add(1) == h.at {
		h.fired.Add(1)
		w.Header().Set("Retry-After", "0")
		http.Error(w, `{"error":{"code":429,"message":"Too Many Requests"}}`, http.StatusTooManyRequests)
		return
	}
	h.next.ServeHTTP(w, r)
}

// servePlatform serves p as project 1 from SQLite over loopback, through
// wrap, and returns the base address.
func servePlatform(t *testing.T, p *schema.Project, wrap func(http.Handler) http.Handler) string {
	t.Helper()
	st, err := server.LoadSQLite(context.Background(), t.TempDir(), p)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, st.Close()) })
	toks := &server.Tokens{}
	require.NoError(t, toks.Add("pull-token"))
	srv, err := server.New(server.Config{Storage: st, Tokens: toks})
	require.NoError(t, err)
	hs := httptest.NewServer(wrap(srv))
	t.Cleanup(hs.Close)
	return hs.URL
}

// seedIDs are the ids each seed pattern selects in p.
func seedIDs(t *testing.T, p *schema.Project, seeds []corpus.Case) map[string][]int64 {
	t.Helper()
	var langs []string
	for _, l := range p.Languages {
		langs = append(langs, l.ID)
	}
	out := map[string][]int64{}
	for _, c := range seeds {
		env, err := croql.NewEnv(c.Context(), croql.WithUserIDs(p.UserIDs()), croql.WithLanguages(langs...))
		require.NoError(t, err)
		q, diags := env.Compile(c.Query())
		require.False(t, diags.HasErrors(), "%s: %v", c.Name, diags)
		ids := []int64{}
		for _, o := range p.Objects(env.Context()) {
			ok, err := q.Match(o)
			require.NoError(t, err)
			if ok {
				id, _ := schema.ObjectID(o)
				ids = append(ids, id)
			}
		}
		out[c.Name] = ids
	}
	return out
}

// roundTrip serves p, pulls it with croql pull (a 429 injected at the
// 40th string-translations request) and compares the ids of every seed
// pattern over p and over the pulled file.
func roundTrip(t *testing.T, p *schema.Project) {
	h := &once429{match: "/translations", at: 40}
	base := servePlatform(t, p, func(next http.Handler) http.Handler { h.next = next; return h })
	out := filepath.Join(t.TempDir(), "pulled.ndjson")
	t.Setenv(tokenEnv, "pull-token")
	code, _, stderr := runCLI("", "pull", "--url", base, "--project", "1", "-o", out)
	require.Equal(t, 0, code, stderr)
	require.Contains(t, stderr, "1 answers 429/503 waited out")
	require.EqualValues(t, 1, h.fired.Load())
	require.NoFileExists(t, out+".partial")

	f, err := os.Open(out)
	require.NoError(t, err)
	defer f.Close()
	got, err := schema.ReadProject(f)
	require.NoError(t, err)
	require.Len(t, got.Strings, len(p.Strings))
	require.Len(t, got.TMSegments, len(p.TMSegments))
	require.Len(t, got.GlossaryTerms, len(p.GlossaryTerms))
	require.Len(t, got.GlossaryConcepts, len(p.GlossaryConcepts))

	seeds, err := corpus.LoadFile(filepath.Join(corpusDir, "seed_patterns.txt"))
	require.NoError(t, err)
	want, have := seedIDs(t, p, seeds), seedIDs(t, got, seeds)
	same := 0
	for _, c := range seeds {
		if why, gap := pullGaps[c.Name]; gap {
			t.Logf("%s: not compared (%s): %d ids in the original, %d pulled", c.Name, why, len(want[c.Name]), len(have[c.Name]))
			continue
		}
		require.Equal(t, want[c.Name], have[c.Name], "%s: %s", c.Name, c.Query())
		same++
	}
	t.Logf("%d of %d seed patterns select the same ids", same, len(seeds))
}

// TestPullRoundTripDemo: the demo project, served by croql serve and
// pulled back, answers every seed pattern alike.
func TestPullRoundTripDemo(t *testing.T) {
	roundTrip(t, demo.Default())
}

// TestPullRoundTrip20k: the same for a generated project of 20,000
// strings. It sends about 100,000 string-translation requests (one per
// string and language, as the platform's API requires); croql serve on
// SQLite answers each in 11-17 ms at this size, about an hour in all on
// two busy cores: it runs when CROQL_PULL_20K=1 (its section of .ci/run).
func TestPullRoundTrip20k(t *testing.T) {
	if os.Getenv("CROQL_PULL_20K") != "1" {
		t.Skip("CROQL_PULL_20K=1 runs the round trip of 20,000 strings (about an hour)")
	}
	roundTrip(t, demo.Generate(demo.Options{Strings: 20000, Seed: 7}))
}

// TestPullUsage: the url, the project and a token are required.
func TestPullUsage(t *testing.T) {
	t.Setenv(tokenEnv, "")
	code, _, stderr := runCLI("", "pull", "--url", "http://127.0.0.1:1", "--project", "1")
	require.Equal(t, 2, code)
	require.Contains(t, stderr, tokenEnv)
	code, _, stderr = runCLI("", "pull", "--project", "1")
	require.Equal(t, 2, code)
	require.Contains(t, stderr, "--url is required")
	t.Setenv(tokenEnv, "x")
	code, _, stderr = runCLI("", "pull", "--url", "ftp://host", "--project", "1")
	require.Equal(t, 1, code)
	require.Contains(t, stderr, "not an http(s) address")
}
