package fuzz_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/croql/croql/fuzz"
	"github.com/croql/croql/typecheck"
)

// TestCostGeneratedUnderBudget: every query the generators make at the
// default depth the properties use costs less than a tenth of the default
// budget, so the budget never refuses a query the properties check; at the
// deeper one of the coverage test (which checks without a budget), less
// than the budget.
func TestCostGeneratedUnderBudget(t *testing.T) {
	m := typecheck.DefaultCostModel()
	for _, tg := range targets() {
		for _, depth := range []int{4, 6} {
			g, err := fuzz.NewGenerator(fuzz.Config{Context: tg.context, Edition: tg.edition, FoldContains: tg.fold, MaxDepth: depth})
			require.NoError(t, err)
			dearest, which := 0.0, ""
			n := 2000
			if testing.Short() {
				n = 500
			}
			for i, v := range sample(t, g.Query(), n, int64(depth)) {
				c := v.(fuzz.Case)
				q, err := g.Check(c.Source())
				require.NoError(t, err, "case %d", i)
				if cost := q.Cost(m); cost > dearest {
					dearest, which = cost, c.Source()
				}
			}
			t.Logf("%s depth %d: the dearest of %d costs %g: %s", tg, depth, n, dearest, which)
			margin := 10.0
			if depth > 4 {
				margin = 1
			}
			require.Less(t, dearest*margin, typecheck.DefaultMaxCost, "%s depth %d: %s", tg, depth, which)
		}
	}
}
