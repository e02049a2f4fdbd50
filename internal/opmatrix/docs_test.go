package opmatrix_test

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/croql/croql/ast"
	"github.com/croql/croql/internal/corpus"
	"github.com/croql/croql/internal/opmatrix"
	"github.com/croql/croql/parser"
)

// codeSpan is a span of inline code in a line of Markdown.
var codeSpan = regexp.MustCompile("`([^`]*)`")

// words returns the words of the inline code of line.
func words(line string) map[string]bool {
	out := map[string]bool{}
	for _, m := range codeSpan.FindAllStringSubmatch(line, -1) {
		for _, w := range strings.Fields(m[1]) {
			out[w] = true
		}
	}
	return out
}

// TestOperatorsDocumented requires every spelling of ast.Syntax in
// docs/language.md (the lexical table's keyword or operators row, and the
// precedence table's row of its level) and every operator in a case of
// the conformance corpus (testdata/corpus), whose golden SQL the compiler
// keeps.
func TestOperatorsDocumented(t *testing.T) {
	const doc = "docs/language.md"
	b, err := os.ReadFile(filepath.Join("..", "..", doc))
	require.NoError(t, err)
	var keywords, symbols map[string]bool
	levels := map[int]map[string]bool{}
	for _, line := range strings.Split(string(b), "\n") {
		switch {
		case strings.HasPrefix(line, "| keyword |"):
			keywords = words(line)
		case strings.HasPrefix(line, "| operators |"):
			symbols = words(line)
		default:
			var level int
			if _, err := fmt.Sscanf(line, "| %d |", &level); err == nil {
				cells := strings.Split(line, "|")
				levels[level] = words(cells[2])
			}
		}
	}
	require.NotNil(t, keywords, "%s: no `| keyword |` row", doc)
	require.NotNil(t, symbols, "%s: no `| operators |` row", doc)
	for _, s := range ast.Syntax {
		lexical, row := symbols, "operators"
		if s.Keyword {
			lexical, row = keywords, "keyword"
		}
		if !lexical[s.Text] {
			t.Errorf("`%s`: not in the %s row of %s's lexical table", s.Text, row, doc)
		}
		if !s.Alias && !levels[s.Prec][s.Text] {
			t.Errorf("`%s`: not in level %d of %s's precedence table", s.Text, s.Prec, doc)
		}
	}

	cases, err := corpus.Load(filepath.Join("..", "..", "testdata", "corpus"))
	require.NoError(t, err)
	used := map[ast.Op]bool{}
	for _, c := range corpus.Good(cases) {
		tree, diags := parser.Parse(c.Query())
		if diags.HasErrors() {
			continue
		}
		ast.Inspect(tree, func(e ast.Expr) bool {
			switch n := e.(type) {
			case *ast.Binary:
				used[n.Op] = true
			case *ast.Unary:
				used[n.Op] = true
			}
			return true
		})
	}
	for _, op := range ast.Ops() {
		if !used[op] {
			t.Errorf("operator %s: no case of testdata/corpus uses it: add one to testdata/corpus/operators.txt, then its golden SQL (go test ./compile -run TestGolden -update)", opmatrix.Name(op))
		}
	}
}
