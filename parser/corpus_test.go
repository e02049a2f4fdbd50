package parser_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/croql/croql/ast"
	"github.com/croql/croql/diag"
	"github.com/croql/croql/internal/corpus"
	"github.com/croql/croql/parser"
)

const corpusDir = "../testdata/corpus"

// treeRequired lists the corpus files about syntax, whose good cases must
// state their tree. Files of later stages may leave it out.
var treeRequired = map[string]bool{
	"seed_patterns.txt": true, "precedence.txt": true, "operators.txt": true, "lexical.txt": true,
}

func loadCorpus(t testing.TB) []corpus.Case {
	t.Helper()
	cases, err := corpus.Load(corpusDir)
	require.NoError(t, err)
	return cases
}

// TestCorpus parses every corpus case: good cases must give the tree of
// their `tree:` key and print as their `fmt:` key (or as the query itself);
// bad cases must give exactly their `diag:` keys, in order.
func TestCorpus(t *testing.T) {
	for _, c := range loadCorpus(t) {
		t.Run(c.Name, func(t *testing.T) {
			src := c.Query()
			e, diags := parser.Parse(src)
			want, err := c.Diags()
			require.NoError(t, err)
			var wantSyntax []corpus.Diag
			for _, d := range want {
				if d.Code == diag.ClassSyntax {
					wantSyntax = append(wantSyntax, d)
				}
			}
			if len(wantSyntax) > 0 {
				assert.Nil(t, e, "%s: a query with syntax errors has no tree", c.Where())
				got := make([]corpus.Diag, len(diags))
				for i, d := range diags {
					got[i] = corpus.Diag{Code: d.Code, Rule: d.Rule, Span: d.Span}
				}
				assert.Equal(t, wantSyntax, got, "%s: diagnostics of %q; messages: %v", c.Where(), src, diags)
				for _, d := range diags {
					assert.NotEmpty(t, d.Message)
					assert.Equal(t, diag.Error, d.Severity)
				}
				return
			}
			require.Empty(t, diags, "%s: %q", c.Where(), src)
			require.NotNil(t, e)
			if tree := c.Get("tree"); tree != "" {
				assert.Equal(t, tree, ast.SExpr(e), "%s: tree of %q", c.Where(), src)
			} else if treeRequired[c.File] {
				t.Errorf("%s: good case without a tree: key", c.Where())
			}
			wantFmt := src
			if c.Has("fmt") {
				wantFmt = c.Get("fmt")
			}
			assert.Equal(t, wantFmt, ast.Print(e), "%s: canonical form", c.Where())
			checkSpans(t, src, e)
			checkRoundTrip(t, e)
		})
	}
}

// checkRoundTrip asserts that the printed and the fully grouped forms parse
// back to the same tree, and that formatting is idempotent.
func checkRoundTrip(t *testing.T, e ast.Expr) {
	t.Helper()
	printed := ast.Print(e)
	back, diags := parser.Parse(printed)
	require.Empty(t, diags, "printed form %q does not parse", printed)
	assert.True(t, ast.Equal(e, back), "print-then-parse changed the tree:\n%s\n%s", ast.SExpr(e), ast.SExpr(back))
	assert.Equal(t, printed, ast.Print(back), "fmt is not idempotent")

	grouped := ast.Grouped(e)
	back, diags = parser.Parse(grouped)
	require.Empty(t, diags, "grouped form %q does not parse", grouped)
	assert.True(t, ast.Equal(e, back), "grouped form %q changed the tree", grouped)
}

// checkSpans asserts that every span is inside its parent's and inside the
// source, that leaves span exactly their text, and that operator spans
// cover the operator token.
func checkSpans(t *testing.T, src string, root ast.Expr) {
	t.Helper()
	var walk func(e ast.Expr, parent diag.Span)
	walk = func(e ast.Expr, parent diag.Span) {
		sp := e.Span()
		require.True(t, 0 <= sp.Start && sp.Start < sp.End && sp.End <= len(src), "span %v of %T outside %q", sp, e, src)
		require.True(t, parent.Start <= sp.Start && sp.End <= parent.End, "span %v of %T outside parent %v", sp, e, parent)
		text := src[sp.Start:sp.End]
		switch n := e.(type) {
		case *ast.Ident:
			assert.Equal(t, n.Name, strings.Join(strings.Fields(text), " "))
		case *ast.Int, *ast.Float, *ast.String, *ast.Datetime, *ast.Mention:
			assert.NotContains(t, " \t\n", text[:1])
		case *ast.Binary:
			op := src[n.OpSpan.Start:n.OpSpan.End]
			assert.True(t, n.Op.String() == strings.ToLower(op) || map[string]string{"≠": "!=", "≥": ">=", "≤": "<="}[op] == n.Op.String(),
				"operator %q at %v is not %s", op, n.OpSpan, n.Op)
			assert.True(t, n.X.Span().End <= n.OpSpan.Start && n.OpSpan.End <= n.Y.Span().Start)
		case *ast.Unary:
			if n.Op == ast.OpNot {
				assert.Equal(t, "not", strings.ToLower(text[:3]))
			} else {
				assert.Equal(t, "-", text[:1])
			}
		case *ast.If:
			assert.Equal(t, "if", strings.ToLower(text[:2]))
		}
		for _, c := range ast.Children(e) {
			walk(c, sp)
		}
	}
	walk(root, diag.Span{Start: 0, End: len(src)})
}

func TestSpansExact(t *testing.T) {
	src := `count of translations where (p) > 0`
	e, diags := parser.Parse(src)
	require.Empty(t, diags)
	cmp := e.(*ast.Binary)
	assert.Equal(t, diag.Span{Start: 0, End: 35}, cmp.Sp)
	assert.Equal(t, diag.Span{Start: 32, End: 33}, cmp.OpSpan)
	m := cmp.X.(*ast.Member)
	assert.Equal(t, diag.Span{Start: 0, End: 31}, m.Sp, "member span includes the predicate's closing paren")
	assert.Equal(t, diag.Span{Start: 0, End: 5}, m.Name.Sp)
	f := m.X.(*ast.Filter)
	assert.Equal(t, diag.Span{Start: 9, End: 31}, f.Sp)
	assert.Equal(t, diag.Span{Start: 29, End: 30}, f.Pred.Span(), "a parenthesised node's span excludes its parentheses")

	src = "( (is  hidden) )"
	e, diags = parser.Parse(src)
	require.Empty(t, diags)
	assert.Equal(t, diag.Span{Start: 3, End: 13}, e.Span())
	assert.Equal(t, "is hidden", e.(*ast.Ident).Name)

	src = `if a then b else (c)`
	e, diags = parser.Parse(src)
	require.Empty(t, diags)
	assert.Equal(t, diag.Span{Start: 0, End: 20}, e.Span(), "an if spans to the end of its else branch, parentheses included")

	src = `not - x`
	e, diags = parser.Parse(`not -x = 1`)
	require.Empty(t, diags, src)
	assert.Equal(t, diag.Span{Start: 0, End: 10}, e.Span())
	assert.Equal(t, diag.Span{Start: 4, End: 10}, e.(*ast.Unary).X.Span())
	assert.Equal(t, diag.Span{Start: 4, End: 6}, e.(*ast.Unary).X.(*ast.Binary).X.Span())
}

func TestAcceptanceGrouping(t *testing.T) {
	for src, want := range map[string]string{
		`count of translations where (p) > 0`:     `(count of (translations where (p))) > 0`,
		`id of file = 7`:                          `(id of file) = 7`,
		`not is duplicate and is hidden`:          `(not is duplicate) and is hidden`,
		`added between 'a' and 'b' and is hidden`: `(added between 'a' and 'b') and is hidden`,
		`a or b xor c and d`:                      `a or (b xor (c and d))`,
		`-count of translations + 1`:              `(-(count of translations)) + 1`,
	} {
		e, diags := parser.Parse(src)
		require.Empty(t, diags, src)
		assert.Equal(t, want, ast.Grouped(e), src)
	}
}

func TestStringValues(t *testing.T) {
	for src, want := range map[string]string{
		`"a\"b"`:              `a"b`,
		`"\\"`:                `\`,
		`"\n\t\r"`:            "\n\t\r",
		`"\u00e9\u00E9"`:      "éé",
		`"plain"`:             "plain",
		`""`:                  "",
		"\"multi\nline\"":     "multi\nline",
		`"x\u0041\\\"y"`:      `xA\"y`,
		`"\ud7ff\ue000"`:      "\ud7ff\ue000",
		`"emoji 👋 kept"`:      "emoji 👋 kept",
		`"trailing \\"`:       `trailing \`,
		`"\\u0041 literally"`: `\u0041 literally`,
	} {
		e, diags := parser.Parse(src)
		require.Empty(t, diags, src)
		assert.Equal(t, want, e.(*ast.String).Value, src)
	}
}

func TestMessagesSayWhatToWrite(t *testing.T) {
	for src, wants := range map[string][]string{
		`text == "a"`:              {"`=`"},
		`text <> "a"`:              {"`!=`"},
		`a && b`:                   {"`and`"},
		`a || b`:                   {"`or`"},
		`!a`:                       {"`not`"},
		`id in (1, 2)`:             {"id = 1 or id = 2"},
		`id not in (1, 2)`:         {"id != 1 and id != 2"},
		`file id in ("a", "b")`:    {`file id = "a" or file id = "b"`},
		`translation.text = "a"`:   {"text of translation"},
		`a.b.c = 1`:                {"c of b of a"},
		`max length is null`:       {"not max length", `count of max length = 0`},
		`max length is not null`:   {"`max length`"},
		`text is empty`:            {`text = ""`},
		`(a`:                       {"`)`"},
		`a or if b then c else d`:  {"(if"},
		`a = 1 = 2`:                {"and"},
		`"\q"`:                     {`\\`},
		`@group:"x"`:               {`@user:"login"`, `@language:"code"`},
		`x = 99999999999999999999`: {"64 bits"},
		`a and`:                    {"end of input"},
		`a b "c"`:                  {"operator"},
		`x where not y`:            {"where (is up)"},
		"\"unterminated":           {"closing"},
		`(count) of x`:             {"field name"},
		`1.`:                       {"1.0"},
		`x # y`:                    {"unexpected character"},
		"x = 1" + strings.Repeat("0", 400) + ".5": {"range"},
	} {
		_, diags := parser.Parse(src)
		require.NotEmpty(t, diags, src)
		for _, w := range wants {
			assert.Contains(t, diags[0].Message, w, src)
		}
	}
}

func TestDotFix(t *testing.T) {
	_, diags := parser.Parse(`translation.text = "a"`)
	require.Len(t, diags, 1)
	require.Len(t, diags[0].Fixes, 1)
	assert.Equal(t, diag.Fix{Span: diag.Span{Start: 0, End: 16}, Text: "text of translation"}, diags[0].Fixes[0])
}

func TestFormatDiagnostic(t *testing.T) {
	src := "is hidden and\ntext == \"a\""
	_, diags := parser.Parse(src)
	require.Len(t, diags, 1)
	got := diag.NewSource(src).Format(diags[0])
	assert.Equal(t, "2:6: error: CroQL has no `==`: write `=` [croqlInvalidSyntax/double-equals]\n  text == \"a\"\n       ^^\n  did you mean: =\n", got)
}

// TestMisspeltOperatorFixes: the operators of other languages get a fix
// that writes CroQL's, a word with the spaces that separate it from its
// neighbours; the fixed text parses.
func TestMisspeltOperatorFixes(t *testing.T) {
	for src, want := range map[string]string{
		`text == "a"`:                 `text = "a"`,
		`text<>"a"`:                   `text!="a"`,
		`is hidden&&is duplicate`:     `is hidden and is duplicate`,
		`is hidden && is duplicate`:   `is hidden and is duplicate`,
		`is hidden||is duplicate`:     `is hidden or is duplicate`,
		`is hidden & is duplicate`:    `is hidden and is duplicate`,
		`!is hidden`:                  `not is hidden`,
		`!(is hidden)`:                `not (is hidden)`,
		`is hidden and !is duplicate`: `is hidden and not is duplicate`,
	} {
		_, diags := parser.Parse(src)
		require.Len(t, diags, 1, src)
		require.Len(t, diags[0].Fixes, 1, src)
		f := diags[0].Fixes[0]
		assert.Equal(t, diags[0].Span, f.Span, src)
		fixed := src[:f.Span.Start] + f.Text + src[f.Span.End:]
		assert.Equal(t, want, fixed, src)
		_, diags = parser.Parse(fixed)
		assert.Empty(t, diags, fixed)
	}
	// A comma has no one fix.
	_, diags := parser.Parse(`id of file = 1, 2`)
	require.NotEmpty(t, diags)
	assert.Empty(t, diags[0].Fixes)
}
