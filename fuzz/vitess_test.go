package fuzz_test

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/croql/croql/compile"
	"github.com/croql/croql/fuzz"
	"github.com/croql/croql/internal/testdb"
)

// FuzzSQLVitess is FuzzSQL on a 2-shard Vitess keyspace (CROQL_VITESS_DSN;
// .ci/vitess.sh): a query that checks clean either selects the objects
// the evaluator matches, or is refused with an error, by the compiler
// (compile.ErrSharded: a shape vtgate answers wrongly) or by vtgate (a
// shape its planner does not support). A wrong answer is a finding. Run
// it with -parallel 1: each fuzzing process loads its projects into
// scratch keyspaces of its own, and a cluster has eight.
func FuzzSQLVitess(f *testing.F) {
	testdb.Need(f, "vitess")
	const nData = 2
	data := sqlFuzzData(f, "vitess", nData)
	envs := newFuzzEnvs(f)
	f.Fuzz(func(t *testing.T, src string, ctx uint8, enterprise bool, which uint8) {
		q, diags := envs.env(ctx, enterprise).Check(src)
		if diags.HasErrors() || fuzz.MayOverflow(q.Root) {
			return // integer overflow is an open question of the language
		}
		l := data[int(which)%nData]
		if !fuzz.LowerFoldSafe(q, l.p) {
			return // lower() folds a few runes otherwise (docs/sql.md)
		}
		want, err := evalIDs(q, l.p)
		if err != nil {
			t.Fatalf("%q: eval: %v", src, err)
		}
		db := l.dbs[0]
		s, err := compile.Compile(q, db.Dialect, l.m)
		if errors.Is(err, compile.ErrUnrepresentable) || errors.Is(err, compile.ErrSharded) {
			return // a documented refusal
		}
		if err != nil {
			t.Fatalf("%q: compile for vitess: %v", src, err)
		}
		got, err := s.Run(context.Background(), db.SQL)
		if err != nil {
			return // refused by vtgate
		}
		if !slices.Equal(got, want) {
			t.Fatalf("%q over project %d: vitess %v, eval %v\n%s\nargs %v\n%s", src, int(which)%nData, got, want, s.Where, s.Args, fuzz.Data{P: l.p})
		}
	})
}
