package compile_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/croql/croql/schema"
	"github.com/croql/croql/store"
)

// overflowQueries hold integer arithmetic whose exact result leaves the
// int64 range for some or every object. The language's rule
// (docs/language.md, "Numbers"): such a result is absent, like a division
// by zero, on every store.
var overflowQueries = []struct {
	context, query string
	// all is the share of the context's objects it matches: "none", "all"
	// or "some" (the data decides).
	all string
}{
	{"strings", `9223372036854775807 + 2 >= 0`, "none"},
	{"strings", `9223372036854775807 + 1 < 0`, "none"},
	{"strings", `not (9223372036854775807 + 1 > 0)`, "all"},
	{"strings", `9223372036854775807 * 2 = 0 or not (9223372036854775807 * 2 = 0)`, "all"},
	{"strings", `(9223372036854775807 + 1) = (9223372036854775807 + 1)`, "all"},
	{"strings", `-(-9223372036854775807 - 1) > 0`, "none"},
	{"strings", `-9223372036854775807 - 1 < 0`, "all"},
	{"strings", `-9223372036854775807 - 2 < 0`, "none"},
	{"strings", `(9223372036854775807 + 1) - 2 > 0`, "none"},
	{"strings", `max length * 9223372036854775807 > 0`, "some"},
	{"strings", `not (max length * 9223372036854775807 > 0)`, "some"},
	{"strings", `max length * 9223372036854775807 = max length * 9223372036854775807`, "all"},
	{"strings", `(max length + 9223372036854775807) - 9223372036854775807 = max length`, "some"},
	{"strings", `-9223372036854775807 - max length < 0`, "some"},
	{"strings", `count of translations * 4611686018427387904 > 0`, "some"},
	{"strings", `max length * 9223372036854775807 / 2 > 0`, "some"},
	{"strings", `(if is hidden then 9223372036854775807 + 1 else 1) = 1`, "some"},
	{"strings", `count of languages summary where (9223372036854775807 = rating and 3 + rating != 14) = 0`, "all"},
	{"tm", `records with (usageCount * 9223372036854775807 > 1)`, "some"},
}

// TestOverflowRule: the evaluator, SQLite, PostgreSQL and MariaDB give
// the same answer to arithmetic that overflows, and the answer is the
// language's (absent): none of the engines fails the query or computes in
// floating point.
func TestOverflowRule(t *testing.T) {
	for pname, p := range projects(t) {
		dbs := map[string]*store.DB{}
		for _, e := range engines(t) {
			dbs[e] = openLoaded(t, e, p)
		}
		t.Run(pname, func(t *testing.T) {
			for _, x := range overflowQueries {
				q := check(t, x.query, checkOpts{context: x.context, users: p.UserIDs(), edition: schema.Enterprise})
				want := evalIDs(t, q, p)
				n := len(p.Objects(q.Context))
				require.Positive(t, n)
				switch x.all {
				case "none":
					assert.Empty(t, want, "%s: the evaluator", x.query)
				case "all":
					assert.Len(t, want, n, "%s: the evaluator", x.query)
				}
				for e, db := range dbs {
					assert.Equal(t, want, runSQL(t, db, q), "%q on %s", x.query, e)
				}
			}
		})
	}
}
