package server

import (
	"context"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/croql/croql"
	"github.com/croql/croql/compile"
	"github.com/croql/croql/mapping"
)

// The goroutines of one request share one check of a query, and one
// compiled program; the SQL they compile from it is what SQLFor compiles
// from the source, and a diagnostic they rewrite leaves the check's list
// as it was.
func TestCheckQueryShared(t *testing.T) {
	env, err := croql.NewEnv(croql.Strings)
	require.NoError(t, err)
	other, err := croql.NewEnv(croql.Strings)
	require.NoError(t, err)
	const src = `text contains 'a' and count of translations > 0` // a warning
	ctx := withQueries(context.Background())
	require.Same(t, queriesOf(ctx), queriesOf(withQueries(ctx)))
	m := mapping.Default(env.Catalog())
	want, wantDiags := env.SQLFor(src, compile.SQLite{}, m, compile.Page)
	require.NotNil(t, want)
	require.NotEmpty(t, wantDiags)

	const n = 8
	got := make([]*checkedQuery, n)
	progs := make([]*croql.Query, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			c := checkQuery(ctx, env, src)
			s, diags := c.sql(compile.SQLite{}, m, compile.Page)
			assert.Equal(t, want, s)
			assert.Equal(t, wantDiags, diags)
			got[i] = c
			progs[i], _ = c.program()
		})
	}
	wg.Wait()
	for i := range n {
		assert.Same(t, got[0], got[i])
		assert.Same(t, progs[0], progs[i])
	}
	require.NotNil(t, progs[0])
	assert.Len(t, queriesOf(ctx).checked, 1)

	// Another environment (another project, or new statistics) checks
	// again; a context that keeps no queries checks each time.
	assert.NotSame(t, got[0], checkQuery(ctx, other, src))
	assert.Len(t, queriesOf(ctx).checked, 2)
	bare := context.Background()
	assert.NotSame(t, checkQuery(bare, env, src), checkQuery(bare, env, src))

	// An error: no SQL, no program, the check's diagnostics.
	bad := checkQuery(ctx, env, `text contains`)
	s, diags := bad.sql(compile.SQLite{}, m, compile.Page)
	assert.Nil(t, s)
	assert.True(t, diags.HasErrors())
	q, pdiags := bad.program()
	assert.Nil(t, q)
	assert.Equal(t, diags, pdiags)
}
