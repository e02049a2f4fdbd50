package server_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/croql/croql"
	demodata "github.com/croql/croql/demo"
	"github.com/croql/croql/internal/corpus"
	"github.com/croql/croql/server"
)

// TestKeyWalkPagesAsThePlanner sends every seed pattern of the strings,
// TM and glossary lists, as first pages and keyset pages of several
// sizes, to a SQLite server whose first pages walk a few rows in key
// order before they ask the planner's plan, and to one that asks the
// plan at once, and compares the answers byte for byte. The walk is short
// (5, 40 or 333 rows), so that its pages end within it, past it and at
// the end of the table; the test fails when no page took the walk.
func TestKeyWalkPagesAsThePlanner(t *testing.T) {
	cases, err := corpus.LoadFile(filepath.Join(repoRoot(t), "testdata", "corpus", "seed_patterns.txt"))
	require.NoError(t, err)
	ctx := context.Background()
	st, err := server.LoadSQLite(ctx, t.TempDir(), demodata.Generate(demodata.Options{Strings: 1500, Seed: 7}))
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, st.Close()) })
	toks := &server.Tokens{}
	require.NoError(t, toks.Add(token))
	var walkers []*server.Server
	var ws []*httptest.Server
	for _, rows := range []int64{5, 40, 333} {
		walker, err := server.New(server.Config{Storage: st, Tokens: toks, Now: clock})
		require.NoError(t, err)
		server.SetKeyWalkRows(walker, rows)
		walkers, ws = append(walkers, walker), append(ws, httptestServer(t, walker))
	}
	planner, err := server.New(server.Config{Storage: st, Tokens: toks, Now: clock})
	require.NoError(t, err)
	server.SetKeyWalkRows(planner, -1)
	p := httptestServer(t, planner)
	srcs := []string{`count of translations = 3`, `added between '2024-01-01 00:00:00' and '2024-03-31 23:59:59'`}
	for _, c := range cases {
		if !c.Has("diag") && c.Edition() != "enterprise" {
			srcs = append(srcs, c.Query())
		}
	}
	n := 0
	for _, src := range srcs {
		for _, ctxName := range []string{croql.Strings, croql.TM, croql.Glossary} {
			for _, form := range []url.Values{
				{"limit": {"25"}}, {"limit": {"3"}}, {"limit": {"500"}, "withTotal": {"true"}},
				{"limit": {"10"}, "afterId": {"300"}}, {"limit": {"1"}}, {"limit": {"25"}, "afterId": {"1480"}},
			} {
				form.Set("croql", src)
				u := listPath(ctxName, "de") + "?" + form.Encode()
				ps, pb := raw(t, p, http.MethodGet, u, "")
				for _, w := range ws {
					gs, gb := raw(t, w, http.MethodGet, u, "")
					require.Equal(t, ps, gs, "%s", u)
					require.Equal(t, pb, gb, "%s", u)
				}
				if ps == http.StatusOK {
					n++
				}
			}
		}
	}
	require.Greater(t, n, 100)
	var walks int64
	for _, w := range walkers {
		require.Positive(t, server.KeyWalks(w), "no page took the key walk")
		walks += server.KeyWalks(w)
	}
	require.Zero(t, server.KeyWalks(planner))
	t.Log("pages compared: " + strconv.Itoa(n) + ", walked: " + strconv.FormatInt(walks, 10))
}
