package refeval

import (
	"math/big"
	"strings"

	"github.com/croql/croql/ast"
)

// The operators, one row per operator of ast.Syntax, each spelt out on the
// interpreter's values (nil for an absent value). The interpreter reads an
// operator's meaning here and nowhere else; TestOps fails for an operator
// of ast.Syntax without a row.

// operator is the meaning of one operator. The field that is set says
// which node of the checked IR carries it.
type operator struct {
	// logic is and, or, xor on two conditions (absent is false).
	logic func(a, b bool) bool
	// not is a prefix operator on a condition.
	not func(a bool) bool
	// ints is exact integer arithmetic, nil for no value (the
	// interpreter also drops a result outside the int64 range); it is nil
	// for an operator whose result is always a float. floats is the float
	// arithmetic, false for no value. Neither sees an absent operand.
	ints   func(x, y *big.Int) *big.Int
	floats func(x, y float64) (float64, bool)
	// neg and negFloat are a prefix arithmetic operator.
	neg      func(x *big.Int) *big.Int
	negFloat func(x float64) float64
	// cmp is a comparison of two values of one kind, either of them
	// possibly absent.
	cmp func(a, b any) bool
	// text is a test of two strings, neither absent; fold is the query's
	// case folding.
	text func(s, sub string, fold bool) bool
}

// both reports whether neither value is absent.
func both(a, b any) bool { return a != nil && b != nil }

// operators is the meaning of every operator, by Op.
var operators = map[ast.Op]operator{
	ast.OpOr:  {logic: func(a, b bool) bool { return a || b }},
	ast.OpXor: {logic: func(a, b bool) bool { return a != b }},
	ast.OpAnd: {logic: func(a, b bool) bool { return a && b }},
	ast.OpNot: {not: func(a bool) bool { return !a }},
	// = is null-safe: absent equals absent and nothing else; != is not =.
	ast.OpEq: {cmp: equal},
	ast.OpNe: {cmp: func(a, b any) bool { return !equal(a, b) }},
	// An ordering with an absent operand is false.
	ast.OpLt: {cmp: func(a, b any) bool { return both(a, b) && less(a, b) }},
	ast.OpLe: {cmp: func(a, b any) bool { return both(a, b) && lessEq(a, b) }},
	ast.OpGt: {cmp: func(a, b any) bool { return both(a, b) && less(b, a) }},
	ast.OpGe: {cmp: func(a, b any) bool { return both(a, b) && lessEq(b, a) }},
	ast.OpContains: {text: func(s, sub string, fold bool) bool {
		if fold {
			return containsFold(s, sub)
		}
		return strings.Contains(s, sub)
	}},
	ast.OpAdd: {
		ints:   func(x, y *big.Int) *big.Int { return new(big.Int).Add(x, y) },
		floats: func(x, y float64) (float64, bool) { return x + y, true },
	},
	ast.OpSub: {
		ints:   func(x, y *big.Int) *big.Int { return new(big.Int).Sub(x, y) },
		floats: func(x, y float64) (float64, bool) { return x - y, true },
	},
	ast.OpMul: {
		ints:   func(x, y *big.Int) *big.Int { return new(big.Int).Mul(x, y) },
		floats: func(x, y float64) (float64, bool) { return x * y, true },
	},
	// Division is always a float; by zero it has no value.
	ast.OpDiv: {floats: func(x, y float64) (float64, bool) { return x / y, y != 0 }},
	ast.OpNeg: {
		neg:      func(x *big.Int) *big.Int { return new(big.Int).Neg(x) },
		negFloat: func(x float64) float64 { return -x },
	},
}
