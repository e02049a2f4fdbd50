package parser_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/croql/croql/ast"
	"github.com/croql/croql/parser"
)

// TestTolerantCorpus: on every corpus query the tolerant parse reports
// exactly what Parse reports, gives Parse's tree when it parses, and on
// every prefix of the query (text being typed) neither panics nor returns
// a span outside the text.
func TestTolerantCorpus(t *testing.T) {
	p := parser.New(parser.Limits{})
	for _, c := range loadCorpus(t) {
		src := c.Query()
		e, diags := p.Parse(src)
		part := p.ParseTolerant(src)
		assert.Equal(t, diags, part.Diags, "%s: %q", c.Where(), src)
		if e != nil {
			require.NotNil(t, part.Tree, "%s: %q", c.Where(), src)
			assert.True(t, ast.Equal(e, part.Tree), "%s: %q: tolerant tree %s, want %s", c.Where(), src, ast.SExpr(part.Tree), ast.SExpr(e))
			assert.False(t, part.Repaired)
		}
		for i := 0; i <= len(src); i++ {
			pre := src[:i]
			part := p.ParseTolerant(pre)
			for _, tok := range part.Tokens {
				assert.True(t, 0 <= tok.Span.Start && tok.Span.Start <= tok.Span.End && tok.Span.End <= len(pre), "%q: token %+v", pre, tok)
			}
			for _, s := range part.Scopes {
				assert.True(t, 0 <= s.Body.Start && s.Body.Start <= s.Body.End && s.Body.End <= len(pre), "%q: scope %+v", pre, s.Body)
			}
		}
	}
}

// TestTolerantRecovers lists what the repairs recover from, as trees.
func TestTolerantRecovers(t *testing.T) {
	cases := []struct{ src, tree string }{
		{`is hiden and`, `(and |is hiden| )`},
		{`count of translations where (`, `(of count (where translations ))`},
		{`count of translations where (is `, `(of count (where translations is))`},
		{`count of translations where (votes where (is up) and`, `(of count (where translations (and (where votes |is up|) )))`},
		{`if is hidden`, `(if |is hidden|  )`},
		{`if a then b`, `(if a b )`},
		{`not`, `(not )`},
		{`is hidden and ()`, `(and |is hidden| )`},
		{`is hidden == true`, `|is hidden|`},
		{`provider = "go`, `(= provider )`},
		{`text contains "a" or`, `(or (contains text "a") )`},
		{`(is hidden or ) and is icu`, `(and (or |is hidden| ) |is icu|)`},
		{`count of translations where (votes where (`, `(of count (where translations (where votes )))`},
	}
	p := parser.New(parser.Limits{})
	for _, c := range cases {
		part := p.ParseTolerant(c.src)
		require.NotNil(t, part.Tree, "%q", c.src)
		assert.Equal(t, c.tree, ast.SExpr(part.Tree), "%q", c.src)
		assert.True(t, part.Repaired, "%q", c.src)
		assert.NotEmpty(t, part.Diags, "%q: the strict diagnostics are kept", c.src)
	}
}

// TestTolerantScopes: the body of each filter, outer first.
func TestTolerantScopes(t *testing.T) {
	src := `count of translations where (votes with (is up) and `
	part := parser.New(parser.Limits{}).ParseTolerant(src)
	require.Len(t, part.Scopes, 2)
	assert.Equal(t, strings.Index(src, "(votes")+1, part.Scopes[0].Body.Start)
	assert.Equal(t, len(src), part.Scopes[0].Body.End)
	assert.Equal(t, "is up", src[part.Scopes[1].Body.Start:part.Scopes[1].Body.End])
	assert.Equal(t, ast.With, part.Scopes[1].Filter.Kind)
}

// The hole of an empty nested filter is inside its parentheses.
func TestTolerantNestedOpen(t *testing.T) {
	src := `count of translations where (votes where (`
	part := parser.New(parser.Limits{}).ParseTolerant(src)
	require.Len(t, part.Scopes, 2)
	assert.Equal(t, len(src), part.Scopes[1].Body.Start)
	assert.Equal(t, len(src), part.Scopes[1].Body.End)
}

// TestTolerantGarbage: arbitrary bytes give no panic, and a bounded number
// of repairs.
func TestTolerantGarbage(t *testing.T) {
	p := parser.New(parser.Limits{})
	for _, src := range []string{")))(((", "and and and or not not", "if if if then then", strings.Repeat("a = = ", 200), "@@@ \"", "' is", "x between", strings.Repeat("(", 300), strings.Repeat("a and ", 6000)} {
		part := p.ParseTolerant(src)
		assert.NotEmpty(t, part.Diags, "%q", src)
		for _, tok := range part.Tokens {
			assert.True(t, tok.Span.End <= len(src), "%q: %+v", src, tok)
		}
	}
}

// BenchmarkTolerantWorst is a text just under the default node limit
// (10,000) whose errors are at its end, so that each repair re-parses all of
// it: the most a broken query can cost an editor per keystroke.
//
//	go test -run '^$' -bench BenchmarkTolerant ./parser
func BenchmarkTolerantWorst(b *testing.B) {
	src := strings.Repeat("is hidden and ", 3300) + `is hidden "x" "y" "z" then else`
	p := parser.New(parser.Limits{})
	for b.Loop() {
		if p.ParseTolerant(src).Tree == nil {
			b.Fatal("no tree")
		}
	}
}

// BenchmarkTolerantTyping is a 200-byte query cut in the middle of a
// nested filter, as while typing.
func BenchmarkTolerantTyping(b *testing.B) {
	src := `is hidden = false and (text contains "Save" or max length between 10 and 80) and ` +
		`count of translations where (is pre translated and provider = "deepl" and count of votes where (is up`
	p := parser.New(parser.Limits{})
	for b.Loop() {
		if p.ParseTolerant(src).Tree == nil {
			b.Fatal("no tree")
		}
	}
}

func ExampleParser_ParseTolerant() {
	src := `count of translations where (is pre translated and `
	part := parser.New(parser.Limits{}).ParseTolerant(src)
	fmt.Println(part.Diags[0].Rule)
	fmt.Println(ast.SExpr(part.Tree))
	body := part.Scopes[0].Body
	fmt.Printf("filter body %d-%d of %d bytes\n", body.Start, body.End, len(src))
	// Output:
	// missing-paren
	// (of count (where translations (and |is pre translated| )))
	// filter body 29-51 of 51 bytes
}

// FuzzTolerant: on any text the tolerant parse does not panic, reports
// Parse's diagnostics, keeps its spans inside the text and, when Parse
// gives a tree, gives the same tree.
//
//	go test ./parser -run '^$' -fuzz FuzzTolerant -fuzztime 100000x
func FuzzTolerant(f *testing.F) {
	for _, c := range loadCorpus(f) {
		f.Add(c.Query())
	}
	for _, s := range []string{"count of translations where (votes where (", "if a then", "x between 1", `provider = "go`, "((", "@us"} {
		f.Add(s)
	}
	p := parser.New(parser.Limits{MaxSource: 4096})
	f.Fuzz(func(t *testing.T, src string) {
		e, diags := p.Parse(src)
		part := p.ParseTolerant(src)
		if len(diags) != len(part.Diags) {
			t.Fatalf("%q: %d diagnostics, Parse has %d", src, len(part.Diags), len(diags))
		}
		if e != nil && (part.Tree == nil || !ast.Equal(e, part.Tree)) {
			t.Fatalf("%q: tolerant tree differs from Parse's", src)
		}
		for _, tok := range part.Tokens {
			if tok.Span.Start < 0 || tok.Span.Start > tok.Span.End || tok.Span.End > len(src) {
				t.Fatalf("%q: token %+v", src, tok)
			}
		}
		for _, s := range part.Scopes {
			if s.Body.Start < 0 || s.Body.Start > s.Body.End || s.Body.End > len(src) {
				t.Fatalf("%q: scope %+v", src, s.Body)
			}
		}
	})
}
