package typecheck

import (
	"slices"
	"testing"

	"github.com/croql/croql/ast"
)

// TestOpRules requires a type rule for every operator of ast.Syntax, one
// that fits the operator's position: a prefix rule for a prefix operator,
// an infix rule for an infix one.
func TestOpRules(t *testing.T) {
	for i := range ast.Syntax {
		s := &ast.Syntax[i]
		if s.Op == ast.OpInvalid || s.Alias {
			continue
		}
		r, ok := opRules[s.Op]
		if !ok {
			t.Errorf("operator %s: no type rule; add its row to opRules in typecheck/ops.go", s.Op)
			continue
		}
		switch s.Role {
		case ast.RolePrefix:
			if !slices.Contains(prefixClasses, r.class) {
				t.Errorf("operator %s: a prefix operator with an infix type rule (%d) in opRules, typecheck/ops.go", s.Op, r.class)
			}
		case ast.RoleInfix:
			if !slices.Contains(infixClasses, r.class) {
				t.Errorf("operator %s: an infix operator with a prefix type rule (%d) in opRules, typecheck/ops.go", s.Op, r.class)
			}
		}
		if r.arith != (Arithmetic{}) && r.class != ClassArith {
			t.Errorf("operator %s: Arithmetic set on a rule that is not ClassArith in opRules, typecheck/ops.go", s.Op)
		}
	}
	for op := range opRules {
		if !slices.Contains(ast.Ops(), op) {
			t.Errorf("opRules (typecheck/ops.go) has a row for operator %d, which has no row of ast.Syntax", op)
		}
	}
}
