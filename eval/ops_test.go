package eval

import (
	"slices"
	"testing"

	"github.com/croql/croql/ast"
	"github.com/croql/croql/typecheck"
)

// TestOpEvals requires an evaluation for every operator of ast.Syntax, of
// the form its class (typecheck.ClassOf) needs: a logical operator builds
// from two conditions, an arithmetic one from two numbers (ints too unless
// its result is always a float), a comparison from two values of each
// kind it compares, a prefix operator from one operand.
func TestOpEvals(t *testing.T) {
	const where = "add its row to opEvals in eval/ops.go"
	for _, op := range ast.Ops() {
		e, ok := opEvals[op]
		if !ok {
			t.Errorf("operator %s: no evaluation; %s", op, where)
			continue
		}
		var missing string
		switch typecheck.ClassOf(op) {
		case typecheck.ClassLogic:
			if e.logic == nil {
				missing = "logic"
			}
		case typecheck.ClassNot:
			if e.not == nil {
				missing = "not"
			}
		case typecheck.ClassArith:
			if e.floatArith == nil {
				missing = "floatArith"
			} else if e.intArith == nil && !typecheck.ArithmeticOf(op).Float {
				missing = "intArith (its result is not always a float: typecheck.Arithmetic)"
			}
		case typecheck.ClassNeg:
			if e.intNeg == nil || e.floatNeg == nil {
				missing = "intNeg and floatNeg"
			}
		case typecheck.ClassEquality, typecheck.ClassOrder:
			if e.cmp == nil || e.cmp.ints == nil || e.cmp.floats == nil || e.cmp.strs == nil {
				missing = "cmp (ints, floats and strs)"
			} else if typecheck.ClassOf(op) == typecheck.ClassEquality && e.cmp.bools == nil {
				missing = "cmp.bools (an equality compares bools)"
			}
		case typecheck.ClassContains:
			if e.text == nil {
				missing = "text"
			}
		default:
			missing = "a class: typecheck.ClassOf has none for it (add its row to opRules in typecheck/ops.go first)"
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
