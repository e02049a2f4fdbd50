package eval_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/croql/croql/demo"
	"github.com/croql/croql/eval"
	"github.com/croql/croql/schema"
	"github.com/croql/croql/typecheck"
)

// TestVisitsWithinCost: the elements the evaluator's guarded loops visit
// on an object never exceed the cost estimate under sizes measured from
// the data, over the benchmark patterns and nested queries on the demo
// project (the generated queries on generated projects are
// fuzz.TestGeneratedVisitsWithinCost, in the fuzz module).
func TestVisitsWithinCost(t *testing.T) {
	// within checks the bound for q compiled both ways: optimised, and
	// plain (every loop a guarded frame loop, so every visit counted).
	within := func(t *testing.T, q *typecheck.Query, p *schema.Project, _ *eval.Program) uint64 {
		objs := p.Objects(q.Context)
		bound := q.Cost(typecheck.MeasureSizes(schema.New(), objs...))
		total := uint64(0)
		for _, opts := range [][]eval.Option{nil, {eval.WithoutOptimizations()}} {
			prog, err := eval.Compile(q, append(opts, eval.WithUserRefs(p.Users...))...)
			require.NoError(t, err)
			for _, o := range objs {
				ok, visits := prog.MatchVisits(o)
				require.Equal(t, prog.Match(o), ok)
				require.LessOrEqual(t, float64(visits), bound, "%s", q.Source)
				total += visits
			}
		}
		return total
	}

	proj := demo.Default()
	srcs := []string{nested(3), nestedOf(`user = @user:"alice"`, 4)}
	for _, pt := range benchPatterns {
		srcs = append(srcs, pt.src)
	}
	for _, src := range srcs {
		q := check(t, schema.New(), schema.CtxStrings, src, checkOpts{users: proj.UserIDs()})
		prog, err := eval.Compile(q, eval.WithUserRefs(proj.Users...))
		require.NoError(t, err)
		within(t, q, proj, prog)
	}

}
