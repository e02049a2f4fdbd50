package fuzz_test

import (
	"math/rand"
	"testing"

	"github.com/leanovate/gopter"
	"github.com/stretchr/testify/require"

	"github.com/croql/croql/internal/evaltest"
	"github.com/croql/croql/schema"
	"github.com/croql/croql/store/fuzz"
)

// TestGeneratedVisitsWithinCost: the elements the evaluator's guarded
// loops visit on an object never exceed the cost estimate under sizes
// measured from the data, over generated queries on generated projects
// (eval's TestVisitsWithinCost covers the benchmark patterns and nested
// queries on the demo project).
func TestGeneratedVisitsWithinCost(t *testing.T) {
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
			visited += evaltest.VisitsWithinCost(t, q, dv.(fuzz.Data).P)
			cases++
		}
	}
	require.Positive(t, visited, "the generated queries do enter guarded loops")
	t.Logf("%d generated queries, %d elements visited in guarded loops", cases, visited)
}
