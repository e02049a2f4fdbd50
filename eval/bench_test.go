package eval_test

import (
	"context"
	"sync"
	"testing"

	"github.com/croql/croql/demo"
	"github.com/croql/croql/eval"
	"github.com/croql/croql/schema"
)

// benchPatterns are query patterns of the seed (section 4.4), placeholders
// filled with values of the demo project.
var benchPatterns = []struct {
	name, src string
	fold      bool
}{
	{name: "count-eq-3", src: `count of translations = 3`},
	{name: "key-and-file", src: `identifier = "checkout.title" and id of file = 1`},
	{name: "file-unresolved-issues", src: `id of file = 1 and count of comments where (has unresolved issue) > 0`},
	{name: "hidden-nondup-translated", src: `is hidden and not is duplicate and count of translations > 0`},
	{name: "at-least-one-approval", src: `count of languages summary where (approvalsCount >= 1) > 0`},
	{name: "commented-by-user", src: `count of comments where (user = @user:"alice") > 0`},
	{name: "only-translations-by-user", src: `count of translations > 0 and count of translations = count of translations where (user = @user:"alice")`},
	{name: "translation-not-by-user", src: `count of translations where (user != @user:"alice") > 0`},
	{name: "source-contains-no-translation-does", src: `text contains "Café" and count of translations where (text contains "Café") = 0`},
	{name: "no-approved-or-voted-de", src: `count of translations where (language = @language:"de" and (count of approvals > 0 or count of votes > 0)) = 0`},
	{name: "approved-by-user", src: `count of translations where (count of approvals where (user = @user:"erin") > 0) > 0`},
	{name: "translated-not-approved", src: `count of languages summary where (is translated and not is approved) > 0`},
	{name: "added-in-period", src: `added between '2024-01-01 00:00:00' and '2024-01-31 23:59:59'`},
	{name: "type-plain-or-icu", src: `type is plain or type is icu`},
	{name: "max-length-null", src: `not max length > 10`},
	{name: "contains-fold", src: `text contains "café" or count of translations where (text contains "kaffee") > 0`, fold: true},
	{name: "user-with-login", src: `count of translations where (user with (login = "alice")) > 0`},
}

// benchProject is the demo project the per-object benchmarks run on.
var benchProject = sync.OnceValue(func() *schema.Project {
	return demo.Generate(demo.Options{Strings: 2000, Seed: 1})
})

func benchProgram(b *testing.B, p *schema.Project, src string, fold bool) *eval.Program {
	b.Helper()
	q := check(b, schema.New(), schema.CtxStrings, src, checkOpts{users: p.UserIDs(), fold: fold})
	prog, err := eval.Compile(q, eval.WithUserRefs(p.Users...))
	if err != nil {
		b.Fatal(err)
	}
	return prog
}

// BenchmarkEval measures one evaluation per operation, cycling over the
// demo strings: ns/op is the time per object, allocs/op the allocations
// per object (zero).
func BenchmarkEval(b *testing.B) {
	p := benchProject()
	for _, pt := range benchPatterns {
		b.Run(pt.name, func(b *testing.B) {
			prog := benchProgram(b, p, pt.src, pt.fold)
			typed, err := eval.Bind[schema.SourceString](prog)
			if err != nil {
				b.Fatal(err)
			}
			strs := p.Strings
			b.ReportAllocs()
			n, i := 0, 0
			for b.Loop() {
				if typed.Match(&strs[i]) {
					n++
				}
				if i++; i == len(strs) {
					i = 0
				}
			}
			_ = n
		})
	}
}

// BenchmarkMatchAny is BenchmarkEval's first patterns through Match(any),
// which adds the type test.
func BenchmarkMatchAny(b *testing.B) {
	p := benchProject()
	for _, pt := range benchPatterns[:4] {
		b.Run(pt.name, func(b *testing.B) {
			prog := benchProgram(b, p, pt.src, pt.fold)
			strs := p.Strings
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				prog.Match(&strs[i])
				if i++; i == len(strs) {
					i = 0
				}
			}
		})
	}
}

// million is 1,000,000 demo strings: a generated project of 20,000 strings
// repeated (copies of the string values share their collections), built
// once, outside every timer.
var million = sync.OnceValue(func() []schema.SourceString {
	base := demo.Generate(demo.Options{Strings: 20_000, Seed: 1}).Strings
	out := make([]schema.SourceString, 0, 1_000_000)
	for len(out) < cap(out) {
		out = append(out, base[:min(len(base), cap(out)-len(out))]...)
	}
	return out
})

// BenchmarkFilter1M filters 1,000,000 demo strings on one goroutine: ns/op
// is the time for the whole million.
func BenchmarkFilter1M(b *testing.B) {
	strs := million()
	p := benchProject() // same users
	for _, pt := range []int{3, 10, 6} {
		bp := benchPatterns[pt]
		b.Run(bp.name, func(b *testing.B) {
			prog := benchProgram(b, p, bp.src, bp.fold)
			b.ReportAllocs()
			for b.Loop() {
				out := eval.Filter(prog, strs)
				if len(out) == 0 || len(out) == len(strs) {
					b.Fatalf("%d of %d matched", len(out), len(strs))
				}
			}
		})
	}
}

// BenchmarkMatchContext is BenchmarkEval's patterns with loops through
// MatchContext under a live context: the cost of the guard.
func BenchmarkMatchContext(b *testing.B) {
	p := benchProject()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	for _, i := range []int{6, 9, 10} {
		pt := benchPatterns[i]
		b.Run(pt.name, func(b *testing.B) {
			prog := benchProgram(b, p, pt.src, pt.fold)
			strs := p.Strings
			b.ReportAllocs()
			n, i := 0, 0
			for b.Loop() {
				if ok, _ := prog.MatchContext(ctx, &strs[i]); ok {
					n++
				}
				if i++; i == len(strs) {
					i = 0
				}
			}
			_ = n
		})
	}
}

// BenchmarkEvalOperators measures the plain closures of the operators
// (arithmetic, comparisons of two values, the logical operators) without
// the optimising layer, one evaluation per operation as BenchmarkEval.
func BenchmarkEvalOperators(b *testing.B) {
	p := benchProject()
	for _, pt := range []struct{ name, src string }{
		{"arith-compare", `max length * 2 + 1 > count of translations - 3 or 10 / (max length + 1) <= 1.5`},
		{"logic-xor", `(is hidden xor count of comments > 1) and not (identifier = text)`},
	} {
		b.Run(pt.name, func(b *testing.B) {
			q := check(b, schema.New(), schema.CtxStrings, pt.src, checkOpts{users: p.UserIDs()})
			prog, err := eval.Compile(q, eval.WithUserRefs(p.Users...), eval.WithoutOptimizations())
			if err != nil {
				b.Fatal(err)
			}
			strs := p.Strings
			b.ReportAllocs()
			n, i := 0, 0
			for b.Loop() {
				if prog.Match(&strs[i]) {
					n++
				}
				if i++; i == len(strs) {
					i = 0
				}
			}
			_ = n
		})
	}
}
