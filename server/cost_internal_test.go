package server

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/croql/croql"
	"github.com/croql/croql/internal/corpus"
	"github.com/croql/croql/schema"
	"github.com/croql/croql/typecheck"
)

// scaledStats are the demo project's statistics (its text lengths) with
// its object counts scaled to the given number of strings, 20
// translations each.
func scaledStats(t *testing.T, strings int64) (*Server, *Project, *projectStats) {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	root := filepath.Dir(filepath.Dir(file))
	f, err := os.Open(filepath.Join(root, "testdata", "demo", "project.json"))
	require.NoError(t, err)
	data, err := schema.ReadProject(f)
	f.Close()
	require.NoError(t, err)
	st, err := LoadSQLite(context.Background(), t.TempDir(), data)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, st.Close()) })
	s, err := New(Config{Storage: st})
	require.NoError(t, err)
	p := st.Projects()[0]
	demo := s.stats(context.Background(), p)
	require.True(t, demo.known)
	require.Positive(t, demo.objects[croql.Strings])
	require.Positive(t, demo.text["text"], "the demo's texts have a length")
	scale := float64(strings) / float64(demo.objects[croql.Strings])
	out := &projectStats{known: true, text: demo.text, objects: map[string]int64{
		croql.Strings:      strings,
		croql.Translations: 20 * strings,
		croql.TM:           int64(float64(demo.objects[croql.TM]) * scale),
		croql.Glossary:     int64(float64(demo.objects[croql.Glossary]) * scale),
	}}
	return s, p, out
}

// TestRequestBudgetAcceptsSeedPatterns: the default request budget
// accepts every seed pattern of the corpus on a project of 1,000,000
// strings with 20 translations each (the demo's text lengths), and
// refuses a three-deep nested `where` there and at 100,000 strings (where
// it held a SQLite connection for the whole timeout).
func TestRequestBudgetAcceptsSeedPatterns(t *testing.T) {
	s, p, st := scaledStats(t, 1_000_000)
	_, file, _, _ := runtime.Caller(0)
	cases, err := corpus.LoadFile(filepath.Join(filepath.Dir(filepath.Dir(file)), "testdata", "corpus", "seed_patterns.txt"))
	require.NoError(t, err)
	var costs []float64
	dearest, which := 0.0, ""
	for _, c := range cases {
		if c.Has("diag") || c.Get("stage") == "parse" || c.Edition() == "enterprise" {
			continue
		}
		env, err := s.env(p, c.Context())
		require.NoError(t, err)
		perObject, diags := env.Cost(c.Query())
		require.False(t, diags.HasErrors(), "%s: %v", c.Where(), diags)
		cost, _ := requestCost(perObject, st, c.Context())
		costs = append(costs, cost)
		if cost > dearest {
			dearest, which = cost, c.Query()
		}
		assert.LessOrEqual(t, cost, DefaultMaxRequestCost, "%s: %s", c.Where(), c.Query())
	}
	require.Greater(t, len(costs), 30)
	slices.Sort(costs)
	t.Logf("%d seed patterns at 1M strings: median %s, dearest %s: %s", len(costs),
		typecheck.Approx(costs[len(costs)/2]), typecheck.Approx(dearest), which)
	env, err := s.env(p, croql.Strings)
	require.NoError(t, err)
	nested := `count of translations where (count of translations where (count of translations where (text = "x") > 0) > 0) > 0`
	perObject, diags := env.Cost(nested)
	require.False(t, diags.HasErrors(), "%v", diags)
	cost, _ := requestCost(perObject, st, croql.Strings)
	t.Logf("three-deep nested where: %s per object, %s per request", typecheck.Approx(perObject), typecheck.Approx(cost))
	assert.Greater(t, cost, DefaultMaxRequestCost, "a three-deep nested where is over the budget at 1M strings")
	// At 100,000 strings, the nested where is still over the budget, and
	// every seed pattern takes the cheap lane.
	_, _, st100k := scaledStats(t, 100_000)
	cost, _ = requestCost(perObject, st100k, croql.Strings)
	assert.Greater(t, cost, DefaultMaxRequestCost, "three-deep nested where at 100,000 strings")
	assert.LessOrEqual(t, dearest/10, float64(DefaultCheapCost), "the dearest seed pattern at 100,000 strings is cheap")
}

// TestStatsAfterWrite: the text lengths are read again after a write to
// the project, and the estimate of a `contains` follows them.
func TestStatsAfterWrite(t *testing.T) {
	s, p, _ := scaledStats(t, 1)
	ctx := context.Background()
	src := `text contains "abc"`
	before, ok := s.estimate(ctx, p, croql.Strings, src)
	require.True(t, ok)
	require.NoError(t, s.cfg.Storage.WriteTx(ctx, p, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `UPDATE "strings" SET "text" = ? WHERE "id" = (SELECT MIN("id") FROM "strings")`, strings.Repeat("x", 1<<20))
		return err
	}))
	// They are read again in the background.
	require.Eventually(t, func() bool {
		after, ok := s.estimate(ctx, p, croql.Strings, src)
		return ok && after.perObject > 100*before.perObject
	}, 10*time.Second, 5*time.Millisecond, "one 1 MiB text raises the average length of the project's texts")
}
