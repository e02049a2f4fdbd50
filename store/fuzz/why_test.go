package fuzz_test

import (
	"testing"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/prop"

	"github.com/croql/croql/internal/whytest"
	"github.com/croql/croql/store/fuzz"
)

// TestPropWhy: on generated data, for generated queries of every context,
// Query.Why returns an explanation for every object whose result is the
// evaluator's and whose every clause value the reference interpreter
// confirms (internal/whytest: `(clause) = value` holds).
func TestPropWhy(t *testing.T) {
	for _, tg := range targets() {
		t.Run(tg.String(), func(t *testing.T) {
			g := generator(t, tg)
			e := env(t, tg)
			users := map[int64]string{}
			for _, u := range fuzz.Users() {
				users[u.ID] = u.Login
			}
			check(t, "why agrees with the evaluator and refeval", 150, func() gopter.Prop {
				return prop.ForAll(func(d fuzz.Data, c fuzz.Case) bool {
					q, diags := e.Compile(c.Source())
					if q == nil {
						t.Logf("%s: %v", c.Source(), diags)
						return false
					}
					for _, o := range d.P.Objects(q.Context()) {
						x, err := q.Why(o)
						if err != nil {
							t.Logf("%s: %v", c.Source(), err)
							return false
						}
						if err := whytest.Check(e, users, o, x); err != nil {
							t.Logf("%s:\n%s%v", c.Source(), x, err)
							return false
						}
					}
					return true
				}, fuzz.GenProject(), g.Query())
			})
		})
	}
}
