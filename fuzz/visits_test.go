package fuzz_test

import (
	"math/rand"
	"testing"

	"github.com/leanovate/gopter"
	"github.com/stretchr/testify/require"

	"github.com/croql/croql/eval"
	"github.com/croql/croql/fuzz"
	"github.com/croql/croql/schema"
	"github.com/croql/croql/typecheck"
)

// TestGeneratedVisitsWithinCost: the elements the evaluator's guarded
// loops visit on an object never exceed the cost estimate under sizes
// measured from the data, over generated queries on generated projects
// (eval's TestVisitsWithinCost covers the benchmark patterns and nested
// queries on the demo project).
func TestGeneratedVisitsWithinCost(t *testing.T) {
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

	cases, visited := 0, uint64(0)
	for _, context := range []string{"strings", "translations", "tm"} {
		g, err := fuzz.NewGenerator(fuzz.Config{Context: context, Edition: schema.Enterprise})
		require.NoError(t, err)
		params := gopter.DefaultGenParameters()
		params.Rng = rand.New(rand.NewSource(7))
		for range 150 {
			cv, ok := g.Query()(params).Retrieve()
			require.True(t, ok)
			dv, ok := fuzz.GenProject()(params).Retrieve()
			require.True(t, ok)
			q, err := g.Check(cv.(fuzz.Case).Source())
			require.NoError(t, err)
			p := dv.(fuzz.Data).P
			prog, err := eval.Compile(q, eval.WithUserRefs(p.Users...))
			require.NoError(t, err)
			visited += within(t, q, p, prog)
			cases++
		}
	}
	require.Positive(t, visited, "the generated queries do enter guarded loops")
	t.Logf("%d generated queries, %d elements visited in guarded loops", cases, visited)
}
