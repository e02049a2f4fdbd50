package eval_test

import (
	"testing"

	"github.com/croql/croql/demo"
	"github.com/croql/croql/internal/evaltest"
	"github.com/croql/croql/schema"
)

// TestVisitsWithinCost: the elements the evaluator's guarded loops visit
// on an object never exceed the cost estimate under sizes measured from
// the data, over the benchmark patterns and nested queries on the demo
// project (the generated queries on generated projects are
// fuzz.TestGeneratedVisitsWithinCost, in the fuzz module).
func TestVisitsWithinCost(t *testing.T) {
	proj := demo.Default()
	srcs := []string{nested(3), nestedOf(`user = @user:"alice"`, 4)}
	for _, pt := range benchPatterns {
		srcs = append(srcs, pt.src)
	}
	for _, src := range srcs {
		q := check(t, schema.New(), schema.CtxStrings, src, checkOpts{users: proj.UserIDs()})
		evaltest.VisitsWithinCost(t, q, proj)
	}
}
