package fuzz_test

import (
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/croql/croql"
	"github.com/croql/croql/diag"
	"github.com/croql/croql/internal/corpus"
	"github.com/croql/croql/schema"
	"github.com/croql/croql/store/fuzz"
	"github.com/croql/croql/typecheck"
)

// The fuzz targets of the checker, the evaluator and the SQL compiler
// (FuzzParse is in parse_test.go). Each is seeded from every query of the
// conformance corpus (testdata/corpus, regressions.txt included) and
// checks, besides "no panic": no hang (each stage within fuzz.HangAfter),
// every diagnostic span inside the input, and its stage's own invariants.
//
//	go test ./fuzz -run '^$' -fuzz '^FuzzCheck$' -fuzztime 10m

// within runs f and fails t when it panics (through the caller) or does
// not return within fuzz.HangAfter.
func within(t *testing.T, what string, f func()) {
	t.Helper()
	if err := fuzz.Within(fuzz.HangAfter, f); err != nil {
		t.Fatalf("%s %v", what, err)
	}
}

// seedCorpus adds every corpus query to f, each with the case's context.
func seedCorpus(f *testing.F, add func(c corpus.Case)) {
	cases, err := corpus.Load(filepath.Join("..", "..", "testdata", "corpus"))
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

// ctxByte is the ctx input of a corpus case for fuzzEnvs.env: its
// context, and its `fold: true` key.
func ctxByte(c corpus.Case) uint8 {
	b := uint8(max(slices.Index(contexts(), c.Context()), 0))
	if c.Get("fold") == "true" {
		b += uint8(len(contexts()))
	}
	return b
}

// fuzzEnvs are the environments of the fuzz targets, with the generators'
// users and clock: one per context, edition, and case rule of contains.
// Pick one with env.
type fuzzEnvs [][2][2]*croql.Env

func newFuzzEnvs(t testing.TB) fuzzEnvs {
	users := map[string]int64{}
	for _, u := range fuzz.Users() {
		users[u.Login] = u.ID
	}
	now := fuzz.Now().Std()
	var out fuzzEnvs
	for _, name := range contexts() {
		var envs [2][2]*croql.Env
		for i, ed := range []schema.Edition{schema.Standard, schema.Enterprise} {
			for j, fold := range []bool{false, true} {
				e, err := croql.NewEnv(name, croql.WithEdition(ed), croql.WithUserIDs(users),
					croql.WithClock(func() time.Time { return now }), croql.WithFoldContains(fold))
				if err != nil {
					t.Fatal(err)
				}
				envs[i][j] = e
			}
		}
		out = append(out, envs)
	}
	return out
}

// env picks the environment of the input's ctx byte (the context is ctx
// modulo the number of contexts, and the next bit up makes contains
// case-insensitive) and edition.
func (es fuzzEnvs) env(ctx uint8, enterprise bool) *croql.Env {
	ed := 0
	if enterprise {
		ed = 1
	}
	n := len(es)
	return es[int(ctx)%n][ed][int(ctx)/n%2]
}

// FuzzCheck: in any context and edition, checking reports diagnostics
// inside the input, sorted by position; a query without errors has a
// checked root, formats to text that checks clean and formats the same
// again.
func FuzzCheck(f *testing.F) {
	seedCorpus(f, func(c corpus.Case) { f.Add(c.Query(), ctxByte(c), c.Edition() == "enterprise") })
	envs := newFuzzEnvs(f)
	f.Fuzz(func(t *testing.T, src string, ctx uint8, enterprise bool) {
		e := envs.env(ctx, enterprise)
		var q *typecheck.Query
		var diags diag.List
		within(t, "Check", func() { q, diags = e.Check(src) })
		if err := fuzz.DiagnosticsOK(src, diags); err != nil {
			t.Fatal(err)
		}
		if diags.HasErrors() {
			if q != nil {
				t.Fatalf("errors and a checked query for %q", src)
			}
			return
		}
		if q == nil || q.Root == nil {
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
