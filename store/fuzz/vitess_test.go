package fuzz_test

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/croql/croql/compile"
	"github.com/croql/croql/internal/testdb"
	"github.com/croql/croql/store"
	"github.com/croql/croql/store/fuzz"
)

// FuzzSQLVitess is FuzzSQL on a 2-shard Vitess keyspace (CROQL_VITESS_DSN;
// .ci/vitess.sh): a query that checks clean selects the objects the
// evaluator matches, whether vtgate answers it or the coordinator does
// (store.Exec: a shape vtgate refuses, or that the compiler will not
// send because vtgate answers it wrongly). An error or a wrong answer is
// a finding. Run it with -parallel 1: each fuzzing process loads its
// projects into scratch keyspaces of its own, and a cluster has eight.
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
		got, coordinated, err := store.Exec(context.Background(), db.SQL, db.Dialect, l.m, q, compile.WholeSet, 0)
		if errors.Is(err, compile.ErrUnrepresentable) {
			return // a value the engine cannot hold (docs/sql.md)
		}
		if err != nil {
			t.Fatalf("%q on vitess: %v", src, err)
		}
		if !slices.Equal(got, want) {
			s, _ := compile.Compile(q, db.Dialect, l.m)
			where := "(the compiler refused it)"
			if s != nil {
				where = s.Where
			}
			t.Fatalf("%q over project %d: vitess %v (coordinator: %v), eval %v\n%s\n%s", src, int(which)%nData, got, coordinated, want, where, fuzz.Data{P: l.p})
		}
	})
}
