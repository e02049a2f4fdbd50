package refeval

import (
	"slices"
	"testing"

	"github.com/croql/croql/ast"
	"github.com/croql/croql/typecheck"
)

// TestOps requires a meaning for every operator of ast.Syntax, of the
// form its class needs (see operator).
func TestOps(t *testing.T) {
	for _, op := range ast.Ops() {
		o, ok := operators[op]
		if !ok {
			t.Errorf("operator %s: the reference interpreter has no meaning for it; add its row to operators in internal/refeval/ops.go", op)
			continue
		}
		var missing string
		switch {
		case op.IsLogical():
			if o.logic == nil {
				missing = "logic"
			}
		case op.IsArithmetic():
			if o.floats == nil {
				missing = "floats"
			} else if o.ints == nil && !typecheck.ArithmeticOf(op).Float {
				missing = "ints (its result is not always a float: typecheck.Arithmetic)"
			}
		case op.IsComparison():
			if o.cmp == nil && o.text == nil {
				missing = "cmp or text"
			}
		case op.Role() == ast.RolePrefix:
			if o.not == nil && (o.neg == nil || o.negFloat == nil) {
				missing = "not, or neg and negFloat"
			}
		default:
			missing = "a class the interpreter knows (logical, arithmetic, comparison, prefix)"
		}
		if missing != "" {
			t.Errorf("operator %s: its row of operators (internal/refeval/ops.go) lacks %s", op, missing)
		}
	}
	for op := range operators {
		if !slices.Contains(ast.Ops(), op) {
			t.Errorf("operators (internal/refeval/ops.go) has a row for operator %d, which has no row of ast.Syntax", op)
		}
	}
}
