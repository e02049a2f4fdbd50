package ast_test

import (
	"fmt"

	"github.com/croql/croql/ast"
)

// The prefix operators of ast.Syntax: `-` is two operators, subtraction
// (infix) and negation (prefix).
func ExampleOp_Role() {
	for _, op := range ast.Ops() {
		if op.Role() == ast.RolePrefix {
			fmt.Println(op)
		}
	}
	// Output:
	// not
	// -
}
