package compile_test

// The operator × back-end matrix: every operator of ast.Syntax, on operands
// of every type the checker accepts for it, some of them absent, on the
// evaluator (optimised and plain), SQLite, PostgreSQL and MariaDB, each
// against the reference interpreter (internal/refeval). Nothing here lists
// the operators: a new row of ast.Syntax is in the matrix as soon as it
// exists, and fails it until the checker, the evaluator, the reference
// interpreter and the SQL compiler all handle it.
//
// The operands, the queries and the reference's answers are
// internal/opmatrix's, which runs the same matrix without a database.

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/croql/croql"
	"github.com/croql/croql/ast"
	"github.com/croql/croql/compile"
	"github.com/croql/croql/internal/opmatrix"
	"github.com/croql/croql/internal/testdb"
	"github.com/croql/croql/mapping"
	"github.com/croql/croql/schema"
	"github.com/croql/croql/store"
)

// TestOperatorMatrix runs every operator of ast.Syntax, with absent
// operands, on the evaluator, SQLite, PostgreSQL and MariaDB, and requires
// each to give the reference interpreter's answer on every string.
func TestOperatorMatrix(t *testing.T) {
	p, err := schema.ReadProject(strings.NewReader(opmatrix.Fixture))
	require.NoError(t, err)
	env, err := croql.NewEnv(croql.Strings, croql.WithClock(opmatrix.Clock))
	require.NoError(t, err)
	cases, cov, err := opmatrix.Queries(func(src string) bool { _, diags := env.Check(src); return !diags.HasErrors() })
	require.NoError(t, err)
	opmatrix.CheckCoverage(t, cov)
	t.Logf("%d operators, %d queries", len(ast.Ops()), len(cases))

	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	type backEnd struct {
		name string
		db   *store.DB
	}
	var dbs []backEnd
	for _, e := range testdb.Engines(t) {
		db, err := store.Open(ctx, e, testdb.DSN(e))
		require.NoError(t, err, "open %s", e)
		t.Cleanup(func() { assert.NoError(t, db.Close()) })
		require.NoError(t, store.Load(ctx, db, mapping.Default(schema.New()), p), "load %s", e)
		dbs = append(dbs, backEnd{e, db})
	}

	m := mapping.Default(schema.New())
	objs := p.Objects(env.Context())
	fails := &opmatrix.Failures{}
	for _, c := range cases {
		q, diags := env.Check(c.Src)
		require.False(t, diags.HasErrors(), "%q: %v", c.Src, diags)

		// Without the reference's answer, the back ends are still run:
		// each one that lacks the operator says so.
		want, err := opmatrix.Reference(q, objs)
		if err != nil {
			fails.Add(c, "the reference interpreter has no evaluation for it", err.Error())
		}
		opmatrix.Evaluate(fails, c, q, objs, want)
		for _, b := range dbs {
			for _, purpose := range purposes {
				name := b.name + " (" + purpose.String() + ")"
				s, err := compile.CompileFor(q, b.db.Dialect, m, purpose)
				if err != nil {
					fails.Add(c, "no "+name+" SQL for it", err.Error())
					continue
				}
				got, err := runPurpose(ctx, b.db, s, purpose)
				if err != nil {
					fails.Add(c, "its "+name+" SQL fails", fmt.Sprintf("%v\nWHERE %s\nargs %v", err, s.Where, s.Args))
					continue
				}
				if got == nil {
					got = []int64{}
				}
				slices.Sort(got)
				if want != nil && !slices.Equal(want, got) {
					fails.Add(c, name+" disagrees with the reference interpreter", fmt.Sprintf("ids %v, want %v\nWHERE %s\nargs %v", got, want, s.Where, s.Args))
				}
			}
		}
	}
	fails.Report(t)
}
