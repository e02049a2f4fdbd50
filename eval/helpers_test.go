package eval_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/croql/croql/eval"
	"github.com/croql/croql/parser"
	"github.com/croql/croql/schema"
	"github.com/croql/croql/typecheck"
)

// The user directory of the tests: the demo project's first users.
var testLogins = map[string]int64{"alice": 11, "bob": 12, "carol": 13, "dave": 14}

func idToLogin(m map[string]int64) map[int64]string {
	out := make(map[int64]string, len(m))
	for l, id := range m {
		out[id] = l
	}
	return out
}

type checkOpts struct {
	users   map[string]int64 // nil: mentions stay unresolved
	fold    bool
	edition schema.Edition
}

// check parses and checks src in the named context, failing the test on
// any error.
func check(t testing.TB, cat *schema.Catalog, context, src string, o checkOpts) *typecheck.Query {
	t.Helper()
	ctx, ok := cat.Context(context)
	require.True(t, ok, "context %q", context)
	tree, pd := parser.Parse(src)
	require.False(t, pd.HasErrors(), "%s: %v", src, pd)
	q := typecheck.Check(typecheck.Config{
		Catalog: cat, Context: ctx, Edition: o.edition, Users: o.users, FoldContains: o.fold,
		Now: func() time.Time { return time.Date(2024, 6, 15, 12, 0, 0, 0, time.UTC) },
	}, src, tree)
	require.False(t, q.Diags.HasErrors(), "%s: %v", src, q.Diags)
	return q
}

// compile checks src with the test user directory and compiles it with
// the matching id to login map.
func compile(t testing.TB, cat *schema.Catalog, context, src string) *eval.Program {
	t.Helper()
	q := check(t, cat, context, src, checkOpts{users: testLogins, edition: schema.Enterprise})
	p, err := eval.Compile(q, eval.WithUsers(idToLogin(testLogins)))
	require.NoError(t, err, src)
	return p
}

func ptr[T any](v T) *T { return &v }
