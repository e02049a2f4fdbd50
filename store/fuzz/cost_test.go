package fuzz_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/croql/croql/internal/corpus"
	"github.com/croql/croql/internal/refeval"
	"github.com/croql/croql/schema"
	"github.com/croql/croql/store/fuzz"
	"github.com/croql/croql/typecheck"
)

// TestCostGeneratedUnderBudget: every query the generators make at the
// default depth the properties use costs less than a tenth of the default
// budget on these fixed seeds (the properties themselves check without a
// budget: a random seed can generate a dearer query); at the deeper one of
// the coverage test, less than the budget.
func TestCostGeneratedUnderBudget(t *testing.T) {
	m := typecheck.DefaultCostModel()
	for _, tg := range targets() {
		for _, depth := range []int{4, 6} {
			g, err := fuzz.NewGenerator(fuzz.Config{Context: tg.context, Edition: tg.edition, FoldContains: tg.fold, MaxDepth: depth})
			require.NoError(t, err)
			dearest, which := 0.0, ""
			n := 2000 / raceScale
			if testing.Short() {
				n = min(n, 500)
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

// costBound checks that no evaluation of q on an object of p visits more
// collection elements than the cost model estimates, with the model's
// sizes measured from p (the largest collection of each kind): the
// estimate is an upper bound on the reference interpreter's visits. It
// returns "" when it holds.
func costBound(q *typecheck.Query, p *schema.Project) string {
	objs := p.Objects(q.Context)
	m := typecheck.MeasureSizes(schema.New(), objs...)
	bound := q.Cost(m)
	in := &refeval.Interp{Users: p.UserLogins()}
	for _, o := range objs {
		in.Visits = 0
		if _, err := in.Match(q, o); err != nil {
			return err.Error()
		}
		if float64(in.Visits) > bound {
			id, _ := schema.ObjectID(o)
			return fmt.Sprintf("object %d: %d elements visited, over the estimate %g (sizes %v)", id, in.Visits, bound, m.Sizes)
		}
	}
	return ""
}

// TestPropCostBound: over random queries and data, the cost estimate
// under sizes measured from the data bounds the elements the reference
// interpreter visits on every object.
func TestPropCostBound(t *testing.T) {
	propOnData(t, "visits <= cost estimate", 300, func(q *typecheck.Query, d fuzz.Data) string {
		return costBound(q, d.P)
	})
}

// TestCostBoundNested: the bound holds, and is tight up to a small factor,
// on the nested reproducer over data with large collections.
func TestCostBoundNested(t *testing.T) {
	e := env(t, target{context: "strings", edition: schema.Enterprise})
	q := `text = "x"`
	for range 3 {
		q = "count of translations where (" + q + ") > 0"
	}
	checked, diags := e.Check(q)
	require.False(t, diags.HasErrors(), "%v", diags)
	s := schema.SourceString{ID: 1, Text: "x"}
	for range 12 {
		s.Translations = append(s.Translations, schema.Translation{StringID: 1, Language: "de", Text: "y"})
	}
	p := &schema.Project{Strings: []schema.SourceString{s}}
	require.Empty(t, costBound(checked, p))
	in := &refeval.Interp{}
	_, err := in.Match(checked, &p.Strings[0])
	require.NoError(t, err)
	bound := checked.Cost(typecheck.MeasureSizes(schema.New(), &p.Strings[0]))
	require.Greater(t, float64(in.Visits)*8, bound, "the estimate is not loose by more than 8x here: %d visits, estimate %g", in.Visits, bound)
}

// FuzzCost: for any text that checks clean (within the default budget), no
// evaluation on generated data visits more elements than the estimate
// under the data's measured sizes.
func FuzzCost(f *testing.F) {
	seedCorpus(f, func(c corpus.Case) {
		f.Add(c.Query(), ctxByte(c), c.Edition() == "enterprise", int64(len(c.Name)))
	})
	envs := newFuzzEnvs(f)
	f.Fuzz(func(t *testing.T, src string, ctx uint8, enterprise bool, seed int64) {
		q, diags := envs.env(ctx, enterprise).Check(src)
		if diags.HasErrors() {
			return
		}
		p := project(seed)
		var msg string
		within(t, "refeval", func() { msg = costBound(q, p) })
		if msg != "" {
			t.Fatalf("%q over project seed %d: %s", src, seed, msg)
		}
	})
}
