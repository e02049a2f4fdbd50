package server_test

import (
	"net/http"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/croql/croql"
	"github.com/croql/croql/internal/corpus"
	"github.com/croql/croql/server"
)

// extraQueries cover the glossary (no seed pattern reads it) and the
// other contexts beyond the seed's patterns.
var extraQueries = []struct{ ctx, query string }{
	{croql.Glossary, `language = @language:"de"`},
	{croql.Glossary, `status = "preferred" or partOfSpeech = "noun"`},
	{croql.Glossary, `text contains "a" and not (description = "")`},
	{croql.TM, `count of records > 1`},
	{croql.Translations, `count of approvals > 0`},
	{croql.Translations, `provider = "deepl" or is pre translated`},
	{croql.Strings, ``},
	{croql.Strings, `   `},
}

// seedCases are the good cases of the corpus's seed_patterns.txt.
func seedCases(t testing.TB) []struct{ name, ctx, query string } {
	t.Helper()
	cases, err := corpus.LoadFile(filepath.Join(repoRoot(t), "testdata", "corpus", "seed_patterns.txt"))
	require.NoError(t, err)
	var out []struct{ name, ctx, query string }
	for _, c := range cases {
		if c.Has("diag") || c.Get("stage") == "parse" || c.Edition() == "enterprise" {
			continue
		}
		out = append(out, struct{ name, ctx, query string }{c.Name, c.Context(), c.Query()})
	}
	require.NotEmpty(t, out)
	for _, e := range extraQueries {
		out = append(out, struct{ name, ctx, query string }{"extra " + e.query, e.ctx, e.query})
	}
	return out
}

// TestSeedPatternsServed: for every seed pattern, the ids served (every
// page) equal the evaluator's on the same data, on every engine.
func TestSeedPatternsServed(t *testing.T) {
	p := demo(t)
	cases := seedCases(t)
	for _, eng := range engines(t) {
		t.Run(eng, func(t *testing.T) {
			hs := serve(t, eng, server.Config{}, p)
			for i, c := range cases {
				t.Run(c.name, func(t *testing.T) {
					limit := []int{7, 25, 500}[i%3]
					langs := []string{""}
					if c.ctx == croql.Translations {
						langs = p.TargetLanguages
					}
					for _, lang := range langs {
						got := allIDs(t, hs, listPath(c.ctx, lang), c.ctx, c.query, limit)
						require.Equal(t, evalIDs(t, p, c.ctx, lang, c.query), got, "%s %s", lang, c.query)
					}
				})
			}
		})
	}
}

func TestProjects(t *testing.T) {
	p := demo(t)
	hs := serve(t, "sqlite", server.Config{}, p, p)
	status, body := get(t, hs, "/api/v2/projects", nil)
	require.Equal(t, http.StatusOK, status)
	data := body["data"].([]any)
	require.Len(t, data, 2)
	first := data[0].(map[string]any)["data"].(map[string]any)
	require.Equal(t, float64(1), first["id"])
	require.Equal(t, p.SourceLanguage, first["sourceLanguageId"])
	status, body = get(t, hs, "/api/v2/projects/2", nil)
	require.Equal(t, http.StatusOK, status)
	require.Equal(t, float64(2), body["data"].(map[string]any)["id"])
}
