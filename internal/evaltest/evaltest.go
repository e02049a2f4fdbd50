// Package evaltest holds checks of the evaluator that the eval package's
// tests and the fuzz module's tests both run.
package evaltest

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/croql/croql/eval"
	"github.com/croql/croql/schema"
	"github.com/croql/croql/typecheck"
)

// VisitsWithinCost checks, for every object of q's context in p, that the
// elements the evaluator's guarded loops visit never exceed q's cost
// estimate under the sizes measured from p, with q compiled both ways:
// optimised, and plain (every loop a guarded frame loop, so every visit
// counted). It returns the visits counted over both.
func VisitsWithinCost(t testing.TB, q *typecheck.Query, p *schema.Project) uint64 {
	t.Helper()
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
