package eval

import (
	"slices"
	"testing"

	"github.com/croql/croql/ast"
	"github.com/croql/croql/typecheck"
)

// TestOpEvals requires an evaluation for every operator of ast.Syntax, of
// the form its class needs: a logical operator builds from two
// conditions, an arithmetic one from two numbers (ints too unless its
// result is always a float), a comparison from two values of each kind
// it orders, a prefix operator from one operand.
func TestOpEvals(t *testing.T) {
	const where = "add its row to opEvals in eval/ops.go"
	for _, op := range ast.Ops() {
		e, ok := opEvals[op]
		if !ok {
			t.Errorf("operator %s: no evaluation; %s", op, where)
			continue
		}
		var missing string
		switch {
		case op.IsLogical():
			if e.logic == nil {
				missing = "logic"
			}
		case op.IsArithmetic():
			if e.floatArith == nil {
				missing = "floatArith"
			} else if e.intArith == nil && !typecheck.ArithmeticOf(op).Float {
				missing = "intArith (its result is not always a float: typecheck.Arithmetic)"
			}
		case op.IsComparison():
			if e.text == nil && (e.cmp == nil || e.cmp.ints == nil || e.cmp.floats == nil || e.cmp.strs == nil) {
				missing = "cmp (ints, floats and strs) or text"
			}
		case op.Role() == ast.RolePrefix:
			if e.not == nil && (e.intNeg == nil || e.floatNeg == nil) {
				missing = "not, or intNeg and floatNeg"
			}
		default:
			missing = "a class the evaluator knows (logical, arithmetic, comparison, prefix)"
		}
		if missing != "" {
			t.Errorf("operator %s: its row of opEvals (eval/ops.go) lacks %s", op, missing)
		}
	}
	for op := range opEvals {
		if !slices.Contains(ast.Ops(), op) {
			t.Errorf("opEvals (eval/ops.go) has a row for operator %d, which has no row of ast.Syntax", op)
		}
	}
}
