package parser

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/croql/croql/ast"
	"github.com/croql/croql/internal/corpus"
)

// TestScanCountIsNodeCount: the token count the scanner bounds by
// MaxNodes before parsing (countToken) is exactly ast.Count of the tree of
// every query that parses.
func TestScanCountIsNodeCount(t *testing.T) {
	cases, err := corpus.Load("../testdata/corpus")
	require.NoError(t, err)
	n := 0
	for _, c := range cases {
		e, diags := Parse(c.Query())
		if diags.HasErrors() {
			continue
		}
		n++
		sr := scan(c.Query(), New(Limits{}).lim)
		assert.Equal(t, ast.Count(e), sr.counted, "%s: %q", c.Where(), c.Query())
	}
	assert.Greater(t, n, 100)
}

func TestKeyword(t *testing.T) {
	for _, w := range []string{"and", "AND", "Or", "xOr", "NOT", "where", "With", "of", "BETWEEN", "contains", "If", "then", "ELSE"} {
		assert.NotEmpty(t, keyword(w), w)
	}
	for _, w := range []string{"count", "an", "andd", "is", "in", "null", "", "a", "betweenx", "K"} {
		assert.Empty(t, keyword(w), w)
	}
}

// TestDefinition checks the lexer.Definition participle is built with.
func TestDefinition(t *testing.T) {
	lx, err := definition{}.LexString("", `a = "x"`)
	require.NoError(t, err)
	var types []string
	names := map[int]string{}
	for k, v := range (definition{}).Symbols() {
		names[int(v)] = k
	}
	for {
		tok, err := lx.Next()
		require.NoError(t, err)
		types = append(types, names[int(tok.Type)])
		if tok.EOF() {
			break
		}
	}
	assert.Equal(t, []string{"Leaf", "Op", "Leaf", "EOF"}, types)
	_, err = definition{}.LexString("", `a == b`)
	assert.Error(t, err)
}
