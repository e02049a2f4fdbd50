package parser_test

import (
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/croql/croql/ast"
	"github.com/croql/croql/diag"
	"github.com/croql/croql/parser"
)

func rules(l diag.List) []string {
	out := make([]string, len(l))
	for i, d := range l {
		out[i] = d.Rule
	}
	return out
}

func TestLimitsDefaults(t *testing.T) {
	assert.Equal(t, parser.Limits{MaxSource: 64 << 10, MaxDepth: 128, MaxNodes: 10000}, parser.New(parser.Limits{}).Limits())
	assert.Equal(t, parser.Limits{MaxSource: 5, MaxDepth: 128, MaxNodes: 10000}, parser.New(parser.Limits{MaxSource: 5}).Limits())
}

func TestLimitSource(t *testing.T) {
	src := strings.Repeat("(", 100000) + "a" + strings.Repeat(")", 100000)
	e, diags := parser.Parse(src)
	assert.Nil(t, e)
	require.Equal(t, []string{"limit-source"}, rules(diags))
	assert.Equal(t, diag.Span{Start: 64 << 10, End: len(src)}, diags[0].Span)

	e, diags = parser.New(parser.Limits{MaxSource: 3}).Parse("a = 1")
	assert.Nil(t, e)
	assert.Equal(t, []string{"limit-source"}, rules(diags))
	e, diags = parser.New(parser.Limits{MaxSource: 5}).Parse("a = 1")
	assert.NotNil(t, e, "a source exactly at the limit is accepted")
	assert.Empty(t, diags)
}

func TestLimitDepthDeepParens(t *testing.T) {
	// 100,000 nested parentheses, with the source limit raised so that the
	// depth limit itself answers.
	src := strings.Repeat("(", 100000) + "a" + strings.Repeat(")", 100000)
	p := parser.New(parser.Limits{MaxSource: 1 << 20})
	e, diags := p.Parse(src)
	assert.Nil(t, e)
	require.Equal(t, []string{"limit-depth"}, rules(diags))
	assert.Equal(t, diag.Span{Start: 128, End: 129}, diags[0].Span, "the first ( beyond the limit")

	// Unclosed too: still one limit diagnostic, no flood of missing-paren.
	_, diags = p.Parse(strings.Repeat("(", 100000))
	assert.Equal(t, []string{"limit-depth"}, rules(diags))
}

func TestLimitDepthBoundary(t *testing.T) {
	p := parser.New(parser.Limits{MaxDepth: 3})
	_, diags := p.Parse("(((a)))")
	assert.Empty(t, diags)
	_, diags = p.Parse("((((a))))")
	assert.Equal(t, []string{"limit-depth"}, rules(diags))
	// Sequential groups do not add up.
	_, diags = p.Parse("(((a))) and (((b))) and (((c)))")
	assert.Empty(t, diags)

	// if nests like a parenthesis.
	p = parser.New(parser.Limits{MaxDepth: 1})
	_, diags = p.Parse("if a then b else c")
	assert.Empty(t, diags)
	_, diags = p.Parse("if a then b else if c then d else e")
	assert.Equal(t, []string{"limit-depth"}, rules(diags))
	_, diags = p.Parse("(if a then b else c)")
	assert.Equal(t, []string{"limit-depth"}, rules(diags))
	_, diags = p.Parse("(a) and (b)")
	assert.Empty(t, diags)
}

func TestLimitDepthIfChain(t *testing.T) {
	src := strings.Repeat("if a then b else ", 50000) + "c"
	_, diags := parser.New(parser.Limits{MaxSource: 1 << 20}).Parse(src)
	assert.Equal(t, []string{"limit-depth"}, rules(diags))
}

func TestLimitNodesLongChain(t *testing.T) {
	// 1 MiB of `a and a and ...`.
	src := strings.Repeat("a and ", (1<<20)/6) + "a"
	e, diags := parser.Parse(src)
	assert.Nil(t, e)
	assert.Equal(t, []string{"limit-source"}, rules(diags))

	e, diags = parser.New(parser.Limits{MaxSource: 2 << 20}).Parse(src)
	assert.Nil(t, e)
	require.Equal(t, []string{"limit-nodes"}, rules(diags))
	// Node 10001 is the 5001st "a" (nodes alternate a, and, a, ...).
	assert.Equal(t, diag.Span{Start: 5000 * 6, End: 5000*6 + 1}, diags[0].Span)
}

func TestLimitNodesBoundary(t *testing.T) {
	p := parser.New(parser.Limits{MaxNodes: 3})
	e, diags := p.Parse("a and b")
	require.Empty(t, diags)
	assert.Equal(t, 3, ast.Count(e))
	_, diags = p.Parse("a and b and c")
	assert.Equal(t, []string{"limit-nodes"}, rules(diags))

	// The "and" of a between makes no node: 4 nodes.
	p = parser.New(parser.Limits{MaxNodes: 4})
	e, diags = p.Parse("x between 1 and 2")
	require.Empty(t, diags)
	assert.Equal(t, 4, ast.Count(e))
	// A member name and its "of" are two nodes.
	e, diags = p.Parse("count of x")
	require.Empty(t, diags)
	assert.Equal(t, 3, ast.Count(e))
	// Parentheses make none, `if` makes one.
	e, diags = p.Parse("if ((a)) then b else c")
	require.Empty(t, diags)
	assert.Equal(t, 4, ast.Count(e))
}

func TestLongPrefixAndOfChainsDoNotRecurse(t *testing.T) {
	lim := parser.Limits{MaxSource: 4 << 20, MaxNodes: 1 << 21}
	p := parser.New(lim)
	for name, src := range map[string]string{
		"not":   strings.Repeat("not ", 50000) + "a",
		"minus": strings.Repeat("- ", 50000) + "a",
		"of":    strings.Repeat("a of ", 50000) + "a",
		"where": "a" + strings.Repeat(" where b", 50000),
		"and":   strings.Repeat("a and ", 50000) + "a",
	} {
		e, diags := p.Parse(src)
		require.Empty(t, diags, name)
		require.NotNil(t, e, name)
		assert.Equal(t, diag.Span{Start: 0, End: len(src)}, e.Span(), name)
	}
}

func TestConcurrentUse(t *testing.T) {
	cases := loadCorpus(t)
	p := parser.New(parser.Limits{})
	var wg sync.WaitGroup
	for w := 0; w < 8; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for _, c := range cases {
				e, diags := p.Parse(c.Query())
				if e != nil && c.Has("tree") && ast.SExpr(e) != c.Get("tree") {
					t.Errorf("%s: concurrent parse gave %s", c.Name, ast.SExpr(e))
				}
				if e == nil && len(diags) == 0 {
					t.Errorf("%s: neither a tree nor a diagnostic", c.Name)
				}
			}
		}()
	}
	wg.Wait()
}

func TestTooManyErrors(t *testing.T) {
	src := strings.Repeat("a == ", 1000) + "a"
	e, diags := parser.Parse(src)
	assert.Nil(t, e)
	require.Len(t, diags, parser.MaxErrors+1)
	last := diags[len(diags)-1]
	assert.Equal(t, "too-many-errors", last.Rule)
	assert.Equal(t, diag.Span{Start: parser.MaxErrors*5 + 2, End: len(src)}, last.Span, "from the first error not reported to the end")
	for _, d := range diags[:parser.MaxErrors] {
		assert.Equal(t, "double-equals", d.Rule)
	}
}
