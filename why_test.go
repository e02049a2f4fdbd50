package croql_test

import (
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/croql/croql"
	"github.com/croql/croql/demo"
	"github.com/croql/croql/internal/corpus"
	"github.com/croql/croql/internal/whytest"
	"github.com/croql/croql/schema"
)

// demoEnv is the environment of the demo project's context ctx.
func demoEnv(t testing.TB, p *schema.Project, ctx string) *croql.Env {
	t.Helper()
	env, err := croql.NewEnv(ctx, croql.WithUserIDs(p.UserIDs()), croql.WithLanguages(p.LanguageCodes()...))
	require.NoError(t, err)
	return env
}

// idToLogin is the user directory of p, id to login.
func idToLogin(p *schema.Project) map[int64]string {
	m := map[int64]string{}
	for login, id := range p.UserIDs() {
		m[id] = login
	}
	return m
}

// pickFive is up to five objects of objs: matches and non-matches of q,
// as many of each as there are, up to three.
func pickFive(q *croql.Query, objs []any) []any {
	var yes, no []any
	for _, o := range objs {
		if q.Match(o) {
			yes = append(yes, o)
		} else {
			no = append(no, o)
		}
	}
	out := append(yes[:min(len(yes), 3)], no[:min(len(no), 5-min(len(yes), 3))]...)
	if len(out) < 5 {
		out = append(out, yes[min(len(yes), 3):min(len(yes), 3+5-len(out))]...)
	}
	return out
}

// TestWhySeedPatternsOnDemo: for every seed pattern, on five objects of
// the demo project (matches and non-matches), Why's result is the
// evaluator's and the reference interpreter's, and the value printed for
// every clause is the reference interpreter's.
func TestWhySeedPatternsOnDemo(t *testing.T) {
	cases, err := corpus.LoadFile(filepath.Join("testdata", "corpus", "seed_patterns.txt"))
	require.NoError(t, err)
	require.NotEmpty(t, cases)
	p := demo.Default()
	users := idToLogin(p)
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			env := demoEnv(t, p, c.Context())
			q, diags := env.Compile(c.Query())
			require.False(t, diags.HasErrors(), "%v", diags)
			objs := pickFive(q, p.Objects(env.Context()))
			require.Len(t, objs, 5)
			for _, o := range objs {
				e, err := q.Why(o)
				require.NoError(t, err)
				assert.Equal(t, q.Match(o), e.Match)
				assert.NoError(t, whytest.Check(env, users, o, e), "%s", e)
				// The JSON form carries the same values.
				b, err := json.Marshal(e)
				require.NoError(t, err)
				var back croql.Explanation
				require.NoError(t, json.Unmarshal(b, &back))
				assert.NoError(t, whytest.Check(env, users, o, &back))
			}
		})
	}
}
