package fuzz

// The parser's fuzz target. Run it with
//
//	go test ./fuzz -run '^$' -fuzz '^FuzzParse$' -fuzztime 30s
//
// Crashers Go finds are written to testdata/fuzz/FuzzParse/ and stay there
// as regression cases that plain `go test ./fuzz` replays.

import (
	"testing"

	"github.com/croql/croql/ast"
	"github.com/croql/croql/diag"
	"github.com/croql/croql/internal/corpus"
	"github.com/croql/croql/parser"
)

// FuzzParse: the parser never panics or hangs; every diagnostic span lies inside
// the input with Start <= End and a rule name; a query either parses with no
// error or has at least one error and no tree; and a parsed query prints to
// a form that parses back to the same tree and prints the same again.
func FuzzParse(f *testing.F) {
	cases, err := corpus.Load("../../testdata/corpus")
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
			var (
				e     ast.Expr
				diags diag.List
			)
			if err := Within(HangAfter, func() { e, diags = p.Parse(src) }); err != nil {
				t.Fatalf("%q: Parse %v", src, err)
			}
			if err := DiagnosticsOK(src, diags); err != nil {
				t.Fatal(err)
			}
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
			if err := SpansOK(src, e); err != nil {
				t.Fatal(err)
			}
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
