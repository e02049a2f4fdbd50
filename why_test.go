package croql_test

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
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

// TestWhySeedPatternsOnDemo: for every seed pattern, on five objects of
// the demo project (matches and non-matches), Why's result is the
// evaluator's and the reference interpreter's, and the value printed for
// every clause is the reference interpreter's.
func TestWhySeedPatternsOnDemo(t *testing.T) {
	cases, err := corpus.LoadFile(filepath.Join("testdata", "corpus", "seed_patterns.txt"))
	require.NoError(t, err)
	require.NotEmpty(t, cases)
	p := demo.Default()
	users := p.UserLogins()
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			env := demoEnv(t, p, c.Context())
			q, diags := env.Compile(c.Query())
			require.False(t, diags.HasErrors(), "%v", diags)
			objs, err := whytest.Five(q, p.Objects(env.Context()))
			require.NoError(t, err)
			require.Len(t, objs, 5)
			for _, o := range objs {
				e, err := q.Why(o)
				require.NoError(t, err)
				assert.Equal(t, mustMatch(t, q, o), e.Match)
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

func ExampleQuery_Why() {
	env, err := croql.NewEnv(croql.Strings)
	if err != nil {
		panic(err)
	}
	q, diags := env.Compile(`text contains "Welcome" and (max length < 20 or count of translations where (is pre translated) = 0)`)
	if diags.HasErrors() {
		panic(diags.Err())
	}
	str := &schema.SourceString{ID: 7, Text: "Welcome back", Translations: []schema.Translation{
		{ID: 1, Text: "Willkommen zurück"},
	}}
	e, err := q.Why(str)
	if err != nil {
		panic(err)
	}
	fmt.Print(e)
	// Output:
	// 7: match
	// `text contains "Welcome" and (max length < 20 or count of translations where (is pre translated) = 0)` is true
	//   `text` = "Welcome back"; `contains "Welcome"` is true  (decides)
	//   `max length < 20 or count of translations where (is pre translated) = 0` is true  (decides)
	//     `max length` is absent; `< 20` is false
	//     `count of translations where (is pre translated)` = 0 (0 of 1 `translations`); `= 0` is true  (decides)
}

func ExampleDiff() {
	env, err := croql.NewEnv(croql.Strings)
	if err != nil {
		panic(err)
	}
	old, _ := env.Compile(`text contains "Pay"`)
	new, _ := env.Compile(`text contains "Pay" and not is hidden`)
	objs := []any{
		&schema.SourceString{ID: 1, Text: "Pay now"},
		&schema.SourceString{ID: 2, Text: "Pay later", IsHidden: true},
		&schema.SourceString{ID: 3, Text: "Cancel"},
	}
	d, err := croql.Diff(context.Background(), old, new, objs)
	if err != nil {
		panic(err)
	}
	for _, o := range d.OnlyOld {
		fmt.Println("removed:", o.(*schema.SourceString).ID)
	}
	fmt.Println("added:", len(d.OnlyNew), "kept:", d.Both)
	// Output:
	// removed: 2
	// added: 0 kept: 1
}

// TestDiffIsSetDifference: on every context of the demo project, for
// pairs of seed patterns, Diff's two sides are the set differences of the
// objects each query matches, in the data's order.
func TestDiffIsSetDifference(t *testing.T) {
	cases, err := corpus.LoadFile(filepath.Join("testdata", "corpus", "seed_patterns.txt"))
	require.NoError(t, err)
	p := demo.Default()
	byCtx := map[string][]string{}
	for _, c := range cases {
		byCtx[c.Context()] = append(byCtx[c.Context()], c.Query())
	}
	for ctxName, srcs := range byCtx {
		env := demoEnv(t, p, ctxName)
		objs := p.Objects(env.Context())
		for i, a := range srcs {
			b := srcs[(i+1)%len(srcs)]
			old, diags := env.Compile(a)
			require.False(t, diags.HasErrors())
			new, diags := env.Compile(b)
			require.False(t, diags.HasErrors())
			d, err := croql.Diff(context.Background(), old, new, objs)
			require.NoError(t, err)
			var onlyOld, onlyNew []any
			both := 0
			for _, o := range objs {
				x, err := old.Match(o)
				require.NoError(t, err)
				y, err := new.Match(o)
				require.NoError(t, err)
				switch {
				case x && y:
					both++
				case x:
					onlyOld = append(onlyOld, o)
				case y:
					onlyNew = append(onlyNew, o)
				}
			}
			assert.Equal(t, onlyOld, d.OnlyOld, "%s\n%s", a, b)
			assert.Equal(t, onlyNew, d.OnlyNew, "%s\n%s", a, b)
			assert.Equal(t, both, d.Both)
		}
	}
}

// TestDiffErrors: queries of two contexts, a value of the wrong type and a
// context that is done are errors.
func TestDiffErrors(t *testing.T) {
	s, err := croql.NewEnv(croql.Strings)
	require.NoError(t, err)
	tm, err := croql.NewEnv(croql.Translations)
	require.NoError(t, err)
	a, _ := s.Compile(`is hidden`)
	b, _ := tm.Compile(`provider = "deepl"`)
	_, err = croql.Diff(context.Background(), a, b, nil)
	assert.ErrorContains(t, err, "different contexts")
	_, err = croql.Diff(context.Background(), a, a, []any{schema.SourceString{}})
	assert.ErrorIs(t, err, croql.ErrMisuse)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = croql.Diff(ctx, a, a, []any{&schema.SourceString{}})
	assert.ErrorIs(t, err, context.Canceled)
}

// TestWhyErrors: Why reports a value it cannot evaluate as misuse.
func TestWhyErrors(t *testing.T) {
	env, err := croql.NewEnv(croql.Strings)
	require.NoError(t, err)
	q, _ := env.Compile(`is hidden`)
	_, err = q.Why(schema.SourceString{})
	assert.ErrorIs(t, err, croql.ErrMisuse)
	_, err = q.Why(nil)
	assert.ErrorIs(t, err, croql.ErrMisuse)
}

// TestWhyTextOneLinePerClause: a query written over several lines is
// explained one clause a line, and a value past the text form's length is
// cut there (JSON keeps it whole).
func TestWhyTextOneLinePerClause(t *testing.T) {
	env, err := croql.NewEnv(croql.Strings)
	require.NoError(t, err)
	q, diags := env.Compile("is hidden\n\tor text contains \"x\"")
	require.False(t, diags.HasErrors())
	long := strings.Repeat("y", 200)
	e, err := q.Why(&schema.SourceString{ID: 2, Text: long})
	require.NoError(t, err)
	assert.Equal(t, "2: no match\n"+
		"`is hidden  or text contains \"x\"` is false\n"+
		"  `is hidden` is false  (decides)\n"+
		"  `text` = \""+strings.Repeat("y", 78)+"…; `contains \"x\"` is false  (decides)\n", e.String())
	assert.Equal(t, long, e.Clause.Clauses[1].Clauses[0].Value)
}

// TestWhyBounded: a chain of one operator is one level however long, and
// nesting deeper than MaxWhyClauses clauses is cut there, so the
// explanation of a large query stays small.
func TestWhyBounded(t *testing.T) {
	env, err := croql.NewEnv(croql.Strings)
	require.NoError(t, err)
	str := &schema.SourceString{ID: 1, IsHidden: true}
	for _, c := range []struct {
		src      string
		clauses  int // at most
		cut      bool
		maxBytes int
	}{
		{strings.Repeat("is hidden xor ", 1999) + "is hidden", 2001, false, 200_000},
		{strings.Repeat("not ", 1000) + "is hidden", croql.MaxWhyClauses, true, 1_200_000},
		{strings.Repeat("(is duplicate or not is duplicate and ", 120) + "is hidden" + strings.Repeat(")", 120), croql.MaxWhyClauses * 2, true, 3_000_000},
	} {
		q, diags := env.Compile(c.src)
		require.False(t, diags.HasErrors(), "%v", diags)
		e, err := q.Why(str)
		require.NoError(t, err)
		ok, err := q.Match(str)
		require.NoError(t, err)
		assert.Equal(t, ok, e.Match)
		n, cut := 0, false
		var walk func(k *croql.Clause)
		walk = func(k *croql.Clause) {
			n++
			cut = cut || k.Cut
			for _, x := range k.Clauses {
				walk(x)
			}
		}
		walk(e.Clause)
		assert.LessOrEqual(t, n, c.clauses)
		assert.Equal(t, c.cut, cut)
		assert.Less(t, len(e.String()), c.maxBytes)
		if c.cut {
			assert.Contains(t, e.String(), "(parts left out)")
		}
	}
}
