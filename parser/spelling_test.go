package parser_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/croql/croql/ast"
	"github.com/croql/croql/diag"
	"github.com/croql/croql/parser"
)

func ruleSpans(l diag.List) []string {
	out := make([]string, len(l))
	for i, d := range l {
		out[i] = fmt.Sprintf("%s %d-%d", d.Rule, d.Span.Start, d.Span.End)
	}
	return out
}

// TestSpellingsAllReported: the spellings the grammar rejects (in-lists,
// null tests) are found by the parse, after the lexical errors, and every
// one is reported, however many there are, as when the scanner looked for
// them.
func TestSpellingsAllReported(t *testing.T) {
	for src, want := range map[string][]string{
		`text == "a" && id in (1, 2) or max length is null`: {"double-equals 5-7", "double-ampersand 12-14", "in-list 18-27", "null-test 42-49"},
		`id in (1, 2) and b in ("x") or c not in (3) and d is not null and e is empty`: {
			"in-list 3-12", "in-list 19-27", "in-list 33-43", "null-test 50-61", "null-test 68-76"},
		// What is inside a list is not read, but its strings.
		`x == 1 and id in ("a\q", 2)`:   {"double-equals 2-4", "in-list 14-27", "bad-escape 20-22"},
		`count of x where (id in (1, 2`: {"missing-paren 17-18", "in-list 21-29"},
		`a, b in (1, 2)`:                {"unexpected-char 1-2", "in-list 5-14"},
		// A spelling takes the place of the grammar's other errors.
		`a in (1, 2) and x = = 1`:                           {"in-list 2-11"},
		`max length is not null or identifier is not empty`: {"null-test 11-22", "null-test 37-49"},
	} {
		e, diags := parser.Parse(src)
		assert.Nil(t, e, src)
		assert.Equal(t, want, ruleSpans(diags), src)
	}
}

// TestSpellingsCapped: past MaxErrors spellings, one too-many-errors, as
// for the lexical errors.
func TestSpellingsCapped(t *testing.T) {
	src := strings.Repeat("a in (1) and ", 60) + "a"
	_, diags := parser.Parse(src)
	require.Len(t, diags, parser.MaxErrors+1)
	for _, d := range diags[:parser.MaxErrors] {
		assert.Equal(t, "in-list", d.Rule)
	}
	assert.Equal(t, "too-many-errors", diags[parser.MaxErrors].Rule)
	assert.Equal(t, diag.Span{Start: parser.MaxErrors*13 + 2, End: len(src)}, diags[parser.MaxErrors].Span)
}

// TestSyntaxTableParses: every binary operator of ast.Syntax parses to its
// Op, at its precedence, and prints as its canonical spelling.
func TestSyntaxTableParses(t *testing.T) {
	n := 0
	for _, s := range ast.Syntax {
		if s.Role != ast.RoleInfix {
			continue
		}
		n++
		for _, text := range []string{s.Text, strings.ToUpper(s.Text)} {
			src := "a " + text + " b"
			e, diags := parser.Parse(src)
			require.Empty(t, diags, src)
			b, ok := e.(*ast.Binary)
			require.True(t, ok, src)
			assert.Equal(t, s.Op, b.Op, src)
			assert.Equal(t, s.Prec, b.Op.Precedence(), src)
			assert.Equal(t, diag.Span{Start: 2, End: 2 + len(text)}, b.OpSpan, src)
			assert.Equal(t, "a "+s.Op.String()+" b", ast.Print(e), src)
			if !s.Keyword {
				break
			}
		}
	}
	assert.Greater(t, n, 10)
	for _, s := range ast.Syntax {
		if s.Keyword {
			assert.True(t, parser.IsKeyword(strings.ToUpper(s.Text)), s.Text)
		}
	}
}
