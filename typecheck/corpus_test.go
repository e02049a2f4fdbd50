package typecheck_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/croql/croql/diag"
	"github.com/croql/croql/internal/corpus"
	"github.com/croql/croql/parser"
	"github.com/croql/croql/schema"
	"github.com/croql/croql/typecheck"
)

func config(t testing.TB, cat *schema.Catalog, context, edition string) typecheck.Config {
	t.Helper()
	ctx, ok := cat.Context(context)
	require.True(t, ok, "context %q", context)
	cfg := typecheck.Config{Catalog: cat, Context: ctx,
		Now: func() time.Time { return time.Date(2024, 6, 15, 12, 0, 0, 0, time.UTC) }}
	if edition == "enterprise" {
		cfg.Edition = schema.Enterprise
	}
	return cfg
}

// TestCorpus checks every corpus case that parses: good cases check clean
// (no diagnostic at all), bad cases give exactly their expected logic
// diagnostics and warnings, with code, rule and span.
func TestCorpus(t *testing.T) {
	cases, err := corpus.Load("../testdata/corpus")
	require.NoError(t, err)
	cat := schema.New()
	checked := 0
	for _, c := range cases {
		if c.Get("stage") == "parse" {
			continue
		}
		tree, pd := parser.Parse(c.Query())
		if pd.HasErrors() {
			continue // the parser's corpus test owns these
		}
		t.Run(c.Name, func(t *testing.T) {
			want, err := c.Diags()
			require.NoError(t, err)
			q := typecheck.Check(config(t, cat, c.Context(), c.Edition()), c.Query(), tree)
			var got []string
			for _, d := range q.Diags {
				got = append(got, corpus.Diag{Code: d.Code, Rule: d.Rule, Span: d.Span}.String())
			}
			var exp []string
			for _, d := range want {
				exp = append(exp, d.String())
			}
			assert.Equal(t, exp, got, "%s: %s\n%v", c.Where(), c.Query(), q.Diags)
			if !q.Diags.HasErrors() {
				assert.NotNil(t, q.Root, "a query without errors has a checked tree")
				assert.Equal(t, schema.Bool, q.Root.Type().Kind)
			}
			for _, d := range q.Diags {
				assert.NotEmpty(t, d.Message)
				assert.True(t, d.Span.Start >= 0 && d.Span.Start <= d.Span.End && d.Span.End <= len(c.Query()), "span %v inside the query", d.Span)
			}
		})
		checked++
	}
	assert.Greater(t, checked, 60, "the corpus should hold many checkable cases")
}

// TestIRShape pins how the checker lowers the seed's characteristic forms.
func TestIRShape(t *testing.T) {
	cat := schema.New()
	for _, tc := range []struct{ ctx, src, want string }{
		{"strings", `count of translations where (user = @user:"alice") > 0`, `(> int (count (where@1 translations@0 (= int user@1 @user:alice))) 0)`},
		{"strings", `id of file = 7`, `(= int (member id file@0) 7)`},
		{"strings", `max length / 2 > 1`, `(> float (/ float max length@0 2) 1)`},
		{"strings", `count of translations where (text = identifier) > 0`, `(> int (count (where@1 translations@0 (= string text@1 identifier@0))) 0)`},
		{"strings", `count of languages summary where (translation updated) > 0`, `(> int (count (where@1 languages summary@0 (isset translation updated@1))) 0)`},
		{"translations", `user with (login = "crowdin")`, `(with@1 user@0 (= string login@1 "crowdin"))`},
	} {
		tree, pd := parser.Parse(tc.src)
		require.Empty(t, pd, tc.src)
		q := typecheck.Check(config(t, cat, tc.ctx, "standard"), tc.src, tree)
		require.Empty(t, q.Diags, tc.src)
		assert.Equal(t, tc.want, show(q.Root), tc.src)
	}
}

func show(n typecheck.Node) string {
	switch n := n.(type) {
	case *typecheck.Const:
		switch {
		case n.Unresolved:
			return "@user:" + n.S
		case n.T.Kind == schema.String:
			return fmt.Sprintf("%q", n.S)
		case n.T.Kind == schema.Float:
			return fmt.Sprint(n.F)
		default:
			return fmt.Sprint(n.I)
		}
	case *typecheck.Field:
		return fmt.Sprintf("%s@%d", n.F.Name, n.Scope)
	case *typecheck.Member:
		return fmt.Sprintf("(member %s %s)", n.F.Name, show(n.X))
	case *typecheck.Count:
		return fmt.Sprintf("(count %s)", show(n.X))
	case *typecheck.Filter:
		return fmt.Sprintf("(%s@%d %s %s)", n.Kind, n.Scope, show(n.X), show(n.Pred))
	case *typecheck.Compare:
		return fmt.Sprintf("(%s %s %s %s)", n.Op, n.Operand, show(n.X), show(n.Y))
	case *typecheck.Arith:
		return fmt.Sprintf("(%s %s %s %s)", n.Op, n.T, show(n.X), show(n.Y))
	case *typecheck.ToFloat:
		return show(n.X)
	case *typecheck.IsSet:
		return fmt.Sprintf("(isset %s)", show(n.X))
	case *typecheck.Exists:
		return fmt.Sprintf("(exists %s)", show(n.X))
	case *typecheck.Not:
		return fmt.Sprintf("(not %s)", show(n.X))
	case *typecheck.Logic:
		return fmt.Sprintf("(%s %s %s)", n.Op, show(n.X), show(n.Y))
	}
	return fmt.Sprintf("<%T>", n)
}

func TestDiagnosticCap(t *testing.T) {
	src := "a1"
	for i := 2; i <= 80; i++ {
		src += fmt.Sprintf(" and a%d", i)
	}
	tree, pd := parser.Parse(src)
	require.Empty(t, pd)
	cat := schema.New()
	cfg := config(t, cat, "strings", "standard")
	cfg.MaxDiagnostics = 10
	q := typecheck.Check(cfg, src, tree)
	require.Len(t, q.Diags, 11)
	assert.Equal(t, typecheck.RuleTooMany, q.Diags[len(q.Diags)-1].Rule)
	assert.Equal(t, diag.Error, q.Diags[0].Severity)
}

func TestInspectVisitsEveryNode(t *testing.T) {
	src := `count of translations where (text contains "a" and max length > 1 + 2) > 0`
	tree, pd := parser.Parse(src)
	require.Empty(t, pd)
	q := typecheck.Check(config(t, schema.New(), "strings", "standard"), src, tree)
	require.Empty(t, q.Diags)
	var kinds []string
	typecheck.Inspect(q.Root, func(n typecheck.Node) { kinds = append(kinds, fmt.Sprintf("%T", n)) })
	assert.Equal(t, []string{
		"*typecheck.Compare", "*typecheck.Count", "*typecheck.Filter", "*typecheck.Field",
		"*typecheck.Logic", "*typecheck.Contains", "*typecheck.Field", "*typecheck.Const",
		"*typecheck.Compare", "*typecheck.Field", "*typecheck.Arith", "*typecheck.Const", "*typecheck.Const",
		"*typecheck.Const",
	}, kinds)
}
