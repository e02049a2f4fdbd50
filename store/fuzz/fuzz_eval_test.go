package fuzz_test

import (
	"context"
	"math/rand"
	"slices"
	"testing"

	"github.com/leanovate/gopter"

	"github.com/croql/croql/internal/corpus"
	"github.com/croql/croql/schema"
	"github.com/croql/croql/store/fuzz"
)

// project generates the data of a fuzz input from its seed.
func project(seed int64) *schema.Project {
	params := gopter.DefaultGenParameters()
	params.Rng = rand.New(rand.NewSource(seed))
	v, _ := fuzz.GenProject()(params).Retrieve()
	return v.(fuzz.Data).P
}

// FuzzEval: a query that checks clean compiles for the evaluator, runs on
// generated data without panicking or hanging, and matches the same
// objects as the reference interpreter.
func FuzzEval(f *testing.F) {
	seedCorpus(f, func(c corpus.Case) {
		f.Add(c.Query(), ctxByte(c), c.Edition() == "enterprise", int64(len(c.Name)))
	})
	envs := newFuzzEnvs(f)
	f.Fuzz(func(t *testing.T, src string, ctx uint8, enterprise bool, seed int64) {
		q, diags := envs.env(ctx, enterprise).Check(src)
		if diags.HasErrors() || fuzz.MayOverflow(q.Root) {
			return // integer overflow is an open question of the language
		}
		p := project(seed)
		var got, want []int64
		var err error
		within(t, "eval", func() { got, err = evalIDs(q, p) })
		if err != nil {
			t.Fatalf("%q checks clean but does not evaluate: %v", src, err)
		}
		within(t, "refeval", func() { want, err = refIDs(q, p) })
		if err != nil {
			t.Fatalf("reference interpreter on %q: %v", src, err)
		}
		if !slices.Equal(got, want) {
			t.Fatalf("%q over project seed %d: eval %v, refeval %v\n%s", src, seed, got, want, fuzz.Data{P: p})
		}
	})
}

// sqlFuzzData adds the corpus to f's seeds, as FuzzSQL takes them, and
// loads n generated projects into engine, closed when f ends.
func sqlFuzzData(f *testing.F, engine string, n int) []*loaded {
	seedCorpus(f, func(c corpus.Case) {
		f.Add(c.Query(), ctxByte(c), c.Edition() == "enterprise", uint8(len(c.Name)))
	})
	var data []*loaded
	for i := range n {
		l, err := load(context.Background(), []string{engine}, project(int64(i)))
		if err != nil {
			f.Fatal(err)
		}
		f.Cleanup(func() { _ = l.Close() })
		data = append(data, l)
	}
	return data
}

// FuzzSQL: a query that checks clean compiles for every dialect with one
// placeholder per argument, and on embedded SQLite selects the objects
// the evaluator matches. The data is one of a few generated projects,
// loaded once per fuzzing process.
func FuzzSQL(f *testing.F) {
	const nData = 8
	data := sqlFuzzData(f, "sqlite", nData)
	envs := newFuzzEnvs(f)
	f.Fuzz(func(t *testing.T, src string, ctx uint8, enterprise bool, which uint8) {
		q, diags := envs.env(ctx, enterprise).Check(src)
		if diags.HasErrors() || fuzz.MayOverflow(q.Root) {
			return // integer overflow is an open question of the language
		}
		var err error
		within(t, "compile", func() { err = compileAll(q) })
		if err != nil {
			t.Fatalf("%q checks clean: %v", src, err)
		}
		l := data[int(which)%nData]
		var rs []result
		within(t, "eval and SQLite", func() { rs, err = l.run(context.Background(), q, false) })
		if err != nil {
			t.Fatalf("%q: %v", src, err)
		}
		if msg := agree(rs); msg != "" {
			t.Fatalf("%q over project %d: %s\n%s", src, int(which)%nData, msg, fuzz.Data{P: l.p})
		}
	})
}
