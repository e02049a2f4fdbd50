package store_test

import (
	"context"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	croql "github.com/croql/croql"
	"github.com/croql/croql/demo"
	"github.com/croql/croql/internal/testdb"
	"github.com/croql/croql/mapping"
	"github.com/croql/croql/store"
)

// TestVitessManyRows: a query whose answer holds more rows per shard
// than vttablet returns by default (10,000) answers with every row where
// the cluster's limit is raised (.ci/vitess.sh raises it, as
// docs/serve.md tells operators to), and fails with an engine limit that
// names the setting, not a timeout, where it is not.
func TestVitessManyRows(t *testing.T) {
	dsn := testdb.Need(t, "vitess")
	ctx := context.Background()
	db, err := store.Open(ctx, "vitess", dsn)
	require.NoError(t, err)
	defer func() { assert.NoError(t, db.Close()) }()
	// About 4 translations a string: over 10,000 on each of 2 shards.
	p := demo.Generate(demo.Options{Strings: 6500, Seed: 21})
	env, err := croql.NewEnv(croql.Translations)
	require.NoError(t, err)
	m := mapping.Default(env.Catalog())
	require.NoError(t, store.LoadSQL(ctx, db.SQL, db.Dialect, m, p, db.LoadOptions()...))

	var want []int64
	for _, tr := range p.Translations() {
		want = append(want, tr.ID)
	}
	slices.Sort(want)
	want = slices.Compact(want)
	require.Greater(t, len(want), 25_000)

	q, diags := env.Check(`text != "no such text"`)
	require.False(t, diags.HasErrors(), diags)
	got, err := store.Run(ctx, db.SQL, db.Dialect, m, q)
	if err != nil {
		class, msg := store.Classify(err)
		assert.Equal(t, store.Limit, class, err)
		assert.Contains(t, msg, "--queryserver-config-max-result-size")
		t.Logf("the cluster keeps vttablet's row limit: %s", msg)
		return
	}
	assert.Equal(t, want, got, "every translation")
}
