package playground_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/croql/croql"
	"github.com/croql/croql/schema"
	"github.com/croql/croql/web/playground"
)

// TestWhy: the playground's Why is Query.Why on the object of that id, for
// matches and others alike, in the context a directive sets; an unknown
// id and a query with an error are errors.
func TestWhy(t *testing.T) {
	pg := playground.Demo()
	src := `count of translations where (is pre translated) > 0 and not is hidden`
	ev := pg.Evaluate(src, playground.Options{}, 3)
	require.NotEmpty(t, ev.Matches)
	require.NotEmpty(t, ev.Others)
	assert.LessOrEqual(t, len(ev.Others), playground.OthersLimit)
	env, err := pg.Env(playground.Options{})
	require.NoError(t, err)
	q, diags := env.Compile(src)
	require.False(t, diags.HasErrors())
	objs := pg.Project().Objects(env.Context())
	byID := map[int64]any{}
	for _, o := range objs {
		id, _ := schema.ObjectID(o)
		byID[id] = o
	}
	for _, m := range append(ev.Matches, ev.Others[:3]...) {
		got := pg.Why(src, playground.Options{}, m.ID)
		require.Empty(t, got.Error)
		want, err := q.Why(byID[m.ID])
		require.NoError(t, err)
		assert.Equal(t, want.String(), got.Text)
		assert.Equal(t, mustMatch(t, q, byID[m.ID]), got.Explanation.Match)
	}
	assert.True(t, pg.Why(src, playground.Options{}, ev.Matches[0].ID).Explanation.Match)
	assert.False(t, pg.Why(src, playground.Options{}, ev.Others[0].ID).Explanation.Match)

	trEnv, err := pg.Env(playground.Options{Context: croql.Translations})
	require.NoError(t, err)
	trID, _ := schema.ObjectID(pg.Project().Objects(trEnv.Context())[0])
	tr := pg.Why("# croql: context=translations\nis pre translated", playground.Options{}, trID)
	require.Empty(t, tr.Error)
	assert.Contains(t, tr.Text, "`is pre translated` is")
	assert.Contains(t, pg.Why(src, playground.Options{}, 999999).Error, "no object with id 999999")
	assert.Contains(t, pg.Why("is hiden", playground.Options{}, 1).Error, "is not a field")
}

// TestDiff: the playground's Diff has croql.Diff's counts and the first
// objects of each side.
func TestDiff(t *testing.T) {
	pg := playground.Demo()
	old, new := "count of translations > 2", "count of translations > 3 or is hidden"
	got := pg.Diff(old, new, playground.Options{}, 5)
	require.Empty(t, got.Error)
	env, err := pg.Env(playground.Options{})
	require.NoError(t, err)
	oq, _ := env.Compile(old)
	nq, _ := env.Compile(new)
	objs := pg.Project().Objects(env.Context())
	want, err := croql.Diff(context.Background(), oq, nq, objs)
	require.NoError(t, err)
	assert.Equal(t, len(want.OnlyOld), got.RemovedCount)
	assert.Equal(t, len(want.OnlyNew), got.AddedCount)
	assert.Equal(t, want.Both, got.Both)
	assert.Equal(t, want.Both+len(want.OnlyOld), got.CountOld)
	assert.Equal(t, want.Both+len(want.OnlyNew), got.CountNew)
	assert.Equal(t, len(objs), got.Total)
	assert.Len(t, got.OnlyOld, min(5, len(want.OnlyOld)))
	for i, m := range got.OnlyOld {
		id, _ := schema.ObjectID(want.OnlyOld[i])
		assert.Equal(t, id, m.ID)
	}
	assert.NotZero(t, got.RemovedCount)
	assert.NotZero(t, got.AddedCount)
	assert.Contains(t, pg.Diff("is hiden", new, playground.Options{}, 0).Error, "old query")
	assert.Contains(t, pg.Diff(old, "is hiden", playground.Options{}, 0).Error, "new query")
}

// mustMatch is q.Match with a misuse failing the test.
func mustMatch(t *testing.T, q *croql.Query, obj any) bool {
	t.Helper()
	ok, err := q.Match(obj)
	require.NoError(t, err)
	return ok
}
