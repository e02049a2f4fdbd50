package typecheck_test

import (
	"fmt"
	"strings"

	"github.com/croql/croql/ast"
	"github.com/croql/croql/typecheck"
)

// The operators of each class: a test generator or a back end picks the
// operators it handles alike by their class, not by a list.
func ExampleClassOf() {
	var order []string
	for _, op := range ast.Ops() {
		if typecheck.ClassOf(op) == typecheck.ClassOrder {
			order = append(order, op.String())
		}
	}
	fmt.Println(strings.Join(order, " "))
	// Output: < <= > >=
}

// What the result of an arithmetic operator may be: division's is a
// float whatever its operands, and has no value for a zero divisor.
func ExampleArithmeticOf() {
	for _, op := range []ast.Op{ast.OpAdd, ast.OpDiv} {
		a := typecheck.ArithmeticOf(op)
		fmt.Printf("%s: always float %v, absent on zero %v\n", op, a.Float, a.Partial)
	}
	// Output:
	// +: always float false, absent on zero false
	// /: always float true, absent on zero true
}
