package refeval

import (
	"slices"
	"testing"

	"github.com/croql/croql/ast"
	"github.com/croql/croql/typecheck"
)

// TestOps requires a meaning for every operator of ast.Syntax, of the
// form its class (typecheck.ClassOf) needs (see operator).
func TestOps(t *testing.T) {
	for _, op := range ast.Ops() {
		o, ok := operators[op]
		if !ok {
			t.Errorf("operator %s: the reference interpreter has no meaning for it; add its row to operators in internal/refeval/ops.go", op)
			continue
		}
		var missing string
		switch typecheck.ClassOf(op) {
		case typecheck.ClassLogic:
			if o.logic == nil {
				missing = "logic"
			}
		case typecheck.ClassNot:
			if o.not == nil {
				missing = "not"
			}
		case typecheck.ClassArith:
			if o.floats == nil {
				missing = "floats"
			} else if o.ints == nil && !typecheck.ArithmeticOf(op).Float {
				missing = "ints (its result is not always a float: typecheck.Arithmetic)"
			}
		case typecheck.ClassNeg:
			if o.neg == nil || o.negFloat == nil {
				missing = "neg and negFloat"
			}
		case typecheck.ClassEquality, typecheck.ClassOrder:
			if o.cmp == nil {
				missing = "cmp"
			}
		case typecheck.ClassContains:
			if o.text == nil {
				missing = "text"
			}
		default:
			missing = "a class: typecheck.ClassOf has none for it (add its row to opRules in typecheck/ops.go first)"
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
