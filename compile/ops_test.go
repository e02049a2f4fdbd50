package compile

import (
	"slices"
	"testing"

	"github.com/croql/croql/ast"
)

// TestOpSQL requires SQL for every operator of ast.Syntax: an infix
// operator is spelt between its operands or through the dialect, a prefix
// one before its operand.
func TestOpSQL(t *testing.T) {
	for _, op := range ast.Ops() {
		s, ok := opSQLs[op]
		switch {
		case !ok:
			t.Errorf("operator %s: no SQL for it; add its row to opSQLs in compile/ops.go", op)
		case op.Role() == ast.RoleInfix && s.infix == "" && s.spell == nil:
			t.Errorf("operator %s: its row of opSQLs (compile/ops.go) has neither infix nor spell", op)
		case op.Role() == ast.RolePrefix && s.prefix == "":
			t.Errorf("operator %s: its row of opSQLs (compile/ops.go) has no prefix", op)
		}
	}
	for op := range opSQLs {
		if !slices.Contains(ast.Ops(), op) {
			t.Errorf("opSQLs (compile/ops.go) has a row for operator %d, which has no row of ast.Syntax", op)
		}
	}
}
