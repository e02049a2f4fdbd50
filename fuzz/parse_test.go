package fuzz

// The parser's fuzz target. Run it with
//
//	go test ./fuzz -run '^$' -fuzz '^FuzzParse$' -fuzztime 30s
//
// Crashers Go finds are written to testdata/fuzz/FuzzParse/ and stay there
// as regression cases that plain `go test ./fuzz` replays.

import (
	"testing"
	"unicode/utf8"

	"github.com/croql/croql/ast"
	"github.com/croql/croql/diag"
	"github.com/croql/croql/internal/corpus"
	"github.com/croql/croql/parser"
)

// FuzzParse: the parser never panics; every diagnostic span lies inside
// the input with Start <= End and a rule name; a query either parses with no
// error or has at least one error and no tree; and a parsed query prints to
// a form that parses back to the same tree and prints the same again.
func FuzzParse(f *testing.F) {
	cases, err := corpus.Load("../testdata/corpus")
	if err != nil {
		f.Fatal(err)
	}
	for _, c := range cases {
		f.Add(c.Query())
	}
	for _, s := range []string{"", "(", ")", "\"", "'", "@", "\\", "-", "not", "if", "a.b", "1.", "\xff", "≠≥≤", "@user:\"\\u00\""} {
		f.Add(s)
	}
	// Small limits so that the fuzzer also reaches the limit paths.
	small := parser.New(parser.Limits{MaxSource: 512, MaxDepth: 6, MaxNodes: 40})
	def := parser.New(parser.Limits{})
	f.Fuzz(func(t *testing.T, src string) {
		for _, p := range []*parser.Parser{def, small} {
			e, diags := p.Parse(src)
			checkDiags(t, src, diags)
			if diags.HasErrors() {
				if e != nil {
					t.Fatalf("%q: a tree and error diagnostics", src)
				}
				continue
			}
			if e == nil {
				t.Fatalf("%q: no tree and no diagnostic", src)
			}
			if n := ast.Count(e); n > p.Limits().MaxNodes {
				t.Fatalf("%q: %d nodes, over the limit %d", src, n, p.Limits().MaxNodes)
			}
			checkSpans(t, src, e)
			printed := ast.Print(e)
			back, d2 := def.Parse(printed)
			if d2.HasErrors() {
				t.Fatalf("%q printed as %q, which does not parse: %v", src, printed, d2)
			}
			if !ast.Equal(e, back) {
				t.Fatalf("%q printed as %q parses to another tree:\n%s\n%s", src, printed, ast.SExpr(e), ast.SExpr(back))
			}
			if again := ast.Print(back); again != printed {
				t.Fatalf("fmt is not idempotent: %q then %q", printed, again)
			}
		}
	})
}

func checkDiags(t *testing.T, src string, l diag.List) {
	t.Helper()
	source := diag.NewSource(src)
	for i, d := range l {
		if d.Span.Start < 0 || d.Span.Start > d.Span.End || d.Span.End > len(src) {
			t.Fatalf("%q: diagnostic %v has span %v outside [0, %d]", src, d, d.Span, len(src))
		}
		if d.Rule == "" || d.Code == "" || d.Message == "" {
			t.Fatalf("%q: diagnostic without rule, code or message: %#v", src, d)
		}
		if !utf8.ValidString(d.Message) && utf8.ValidString(src) {
			t.Fatalf("%q: message is not UTF-8: %q", src, d.Message)
		}
		if i > 0 && l[i-1].Span.Start > d.Span.Start {
			t.Fatalf("%q: diagnostics not sorted by position: %v", src, l)
		}
		_ = source.Format(d) // must not panic
	}
}

func checkSpans(t *testing.T, src string, root ast.Expr) {
	t.Helper()
	var walk func(e ast.Expr, lo, hi int)
	walk = func(e ast.Expr, lo, hi int) {
		sp := e.Span()
		if sp.Start < lo || sp.End > hi || sp.Start >= sp.End {
			t.Fatalf("%q: span %v of %s outside its parent [%d, %d)", src, sp, ast.SExpr(e), lo, hi)
		}
		for _, c := range ast.Children(e) {
			walk(c, sp.Start, sp.End)
		}
	}
	walk(root, 0, len(src))
}
