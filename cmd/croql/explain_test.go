package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestExplainAcceptance: the groupings the issue requires `croql explain`
// to show.
func TestExplainAcceptance(t *testing.T) {
	for in, want := range map[string]string{
		`count of translations where (p) > 0`:     `(count of (translations where (p))) > 0`,
		`id of file = 7`:                          `(id of file) = 7`,
		`not is duplicate and is hidden`:          `(not is duplicate) and is hidden`,
		`added between 'a' and 'b' and is hidden`: `(added between 'a' and 'b') and is hidden`,
		`a or b xor c and d`:                      `a or (b xor (c and d))`,
		`-count of translations + 1`:              `(-(count of translations)) + 1`,
	} {
		code, out, errOut := runCLI("", "explain", "--", in)
		require.Equal(t, 0, code, errOut)
		first, _, _ := strings.Cut(out, "\n")
		assert.Equal(t, want, first, in)
	}
}

func TestExplainTree(t *testing.T) {
	code, out, errOut := runCLI("", "explain", "id of file = 7")
	require.Equal(t, 0, code, errOut)
	assert.Equal(t, "(id of file) = 7\n"+
		"\n"+
		"=  [0:14]\n"+
		"  id of  [0:10]\n"+
		"    field \"file\"  [6:10]\n"+
		"  int 7  [13:14]\n", out)
}

func TestExplainSExpr(t *testing.T) {
	code, out, _ := runCLI("", "explain", "-sexpr", "count of languages summary where (is approved) > 0")
	require.Equal(t, 0, code)
	assert.Equal(t, "(> (of count (where |languages summary| |is approved|)) 0)\n", out)
}

func TestExplainStdinAndErrors(t *testing.T) {
	code, out, _ := runCLI("a or b and c", "explain", "-")
	assert.Equal(t, 0, code)
	assert.True(t, strings.HasPrefix(out, "a or (b and c)\n"))

	code, out, errOut := runCLI("", "explain", "(is hidden")
	assert.Equal(t, 1, code)
	assert.Empty(t, out)
	assert.Contains(t, errOut, "<arg>:1:1: error: missing `)`")
	assert.Contains(t, errOut, "[croqlInvalidSyntax/missing-paren]")

	code, _, _ = runCLI("", "explain", "-bad")
	assert.Equal(t, 2, code)
}
