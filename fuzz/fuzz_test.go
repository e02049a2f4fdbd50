package fuzz_test

import (
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/croql/croql"
	"github.com/croql/croql/ast"
	"github.com/croql/croql/diag"
	"github.com/croql/croql/fuzz"
	"github.com/croql/croql/internal/corpus"
	"github.com/croql/croql/parser"
	"github.com/croql/croql/schema"
	"github.com/croql/croql/typecheck"
)

// The native fuzz targets. Each is seeded from every query of the
// conformance corpus (testdata/corpus, regressions.txt included) and
// checks, besides "no panic": no hang (each input within hangAfter), every
// diagnostic span inside the input, and its stage's own invariants.
//
//	go test ./fuzz -run '^$' -fuzz '^FuzzParse$' -fuzztime 10m

// hangAfter is how long one input may take before it counts as a hang.
// Parsing and checking take microseconds; the limit is generous for a
// loaded machine.
const hangAfter = 5 * time.Second

// within runs f and fails t when it does not return within hangAfter.
func within(t *testing.T, what string, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		f()
	}()
	select {
	case <-done:
	case <-time.After(hangAfter):
		t.Fatalf("%s did not return within %v: a hang", what, hangAfter)
	}
}

// seedCorpus adds every corpus query to f, each with the case's context.
func seedCorpus(f *testing.F, add func(c corpus.Case)) {
	cases, err := corpus.Load(filepath.Join("..", "testdata", "corpus"))
	if err != nil {
		f.Fatal(err)
	}
	for _, c := range cases {
		if c.Query() != "" {
			add(c)
		}
	}
}

// contexts are the context names fuzz inputs pick from by index.
func contexts() []string {
	return []string{croql.Strings, croql.Translations, croql.TM, croql.Glossary, croql.Concepts}
}

func contextIndex(name string) uint8 {
	return uint8(max(slices.Index(contexts(), name), 0))
}

// spansInside fails t when a diagnostic's span (or a fix's) is not inside
// src.
func spansInside(t *testing.T, src string, ds diag.List) {
	t.Helper()
	inside := func(sp diag.Span) bool { return 0 <= sp.Start && sp.Start <= sp.End && sp.End <= len(src) }
	for _, d := range ds {
		if !inside(d.Span) {
			t.Fatalf("diagnostic %v: span outside the %d-byte input %q", d, len(src), src)
		}
		if d.Code == "" || d.Rule == "" || d.Message == "" {
			t.Fatalf("diagnostic without code, rule or message: %#v", d)
		}
		for _, fx := range d.Fixes {
			if !inside(fx.Span) {
				t.Fatalf("diagnostic %v: fix span %v outside the input %q", d, fx.Span, src)
			}
		}
	}
}

// FuzzParse: the parser returns a tree or errors, never both; spans of
// diagnostics and of every node are inside the input; a tree prints to
// text that parses back to the same tree and prints the same again.
func FuzzParse(f *testing.F) {
	seedCorpus(f, func(c corpus.Case) { f.Add(c.Query()) })
	f.Fuzz(func(t *testing.T, src string) {
		var (
			tree  ast.Expr
			diags diag.List
		)
		within(t, "Parse", func() { tree, diags = parser.Parse(src) })
		spansInside(t, src, diags)
		if diags.HasErrors() != (tree == nil) {
			t.Fatalf("tree %v with diagnostics %v", tree, diags)
		}
		if tree == nil {
			return
		}
		ast.Inspect(tree, func(e ast.Expr) bool {
			if sp := e.Span(); sp.Start < 0 || sp.Start > sp.End || sp.End > len(src) {
				t.Fatalf("node %s: span %v outside the input %q", ast.SExpr(e), sp, src)
			}
			return true
		})
		printed := ast.Print(tree)
		back, diags := parser.Parse(printed)
		if diags.HasErrors() {
			t.Fatalf("printed form %q of %q does not parse: %v", printed, src, diags.Err())
		}
		if !ast.Equal(tree, back) {
			t.Fatalf("printed form %q of %q parses to another tree:\n  %s\n  %s", printed, src, ast.SExpr(tree), ast.SExpr(back))
		}
		if again := ast.Print(back); again != printed {
			t.Fatalf("print is not stable: %q then %q", printed, again)
		}
	})
}

// fuzzEnv is the environment of the fuzz targets: the generators' users
// and clock, every context, both editions.
func fuzzEnv(t testing.TB, ctx uint8, enterprise bool) *croql.Env {
	names := contexts()
	users := map[string]int64{}
	for _, u := range fuzz.Users() {
		users[u.Login] = u.ID
	}
	ed := schema.Standard
	if enterprise {
		ed = schema.Enterprise
	}
	now := fuzz.Now().Std()
	e, err := croql.NewEnv(names[int(ctx)%len(names)], croql.WithEdition(ed), croql.WithUsers(users),
		croql.WithClock(func() time.Time { return now }))
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// FuzzCheck: in any context and edition, checking reports diagnostics
// inside the input, sorted by position; a query without errors has a
// checked root, formats to text that checks clean and formats the same
// again.
func FuzzCheck(f *testing.F) {
	seedCorpus(f, func(c corpus.Case) { f.Add(c.Query(), contextIndex(c.Context()), c.Edition() == "enterprise") })
	f.Fuzz(func(t *testing.T, src string, ctx uint8, enterprise bool) {
		e := fuzzEnv(t, ctx, enterprise)
		var q *typecheck.Query
		within(t, "Check", func() { q = e.Check(src) })
		spansInside(t, src, q.Diags)
		if !slices.IsSortedFunc(q.Diags, func(a, b diag.Diagnostic) int { return a.Span.Start - b.Span.Start }) {
			t.Fatalf("diagnostics not sorted by position: %v", q.Diags)
		}
		if q.Diags.HasErrors() {
			return
		}
		if q.Root == nil {
			t.Fatalf("no errors and no checked root for %q", src)
		}
		var f1, f2 string
		var d1, d2 diag.List
		within(t, "Format", func() { f1, d1 = e.Format(src) })
		if d1.HasErrors() {
			t.Fatalf("format of a clean query reports errors: %v", d1.Err())
		}
		within(t, "Format", func() { f2, d2 = e.Format(f1) })
		if d2.HasErrors() {
			t.Fatalf("formatted %q of %q does not check: %v", f1, src, d2.Err())
		}
		if f1 != f2 {
			t.Fatalf("fmt is not idempotent on %q:\n  once:  %q\n  twice: %q", src, f1, f2)
		}
	})
}
