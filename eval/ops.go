package eval

import (
	"math"
	"strings"

	"github.com/croql/croql/ast"
)

// The evaluation of the operators, one row per operator of ast.Syntax:
// the plain closure the evaluator builds for it from its operands'
// closures. The compiler (compile.go) reads an operator's closure here and
// nowhere else; the optimising layer (compareFast, fuse.go) has faster
// forms of some, and falls back on these for the rest. Each builder
// returns one closure per operator, so that the operation is inlined in
// it: running one costs no call beyond its operands'. TestOpEvals fails
// for an operator of ast.Syntax without a row.

// opEval is one operator's row. The field that is set says which node of
// the checked IR carries the operator (typecheck/ops.go gives each its
// rule).
type opEval struct {
	// logic builds and, or, xor (a typecheck.Logic).
	logic func(x, y predFn) predFn
	// not builds a prefix negation of a condition (a typecheck.Not).
	not func(x predFn) predFn
	// intArith and floatArith build arithmetic (a typecheck.Arith) on
	// ints and on floats; intArith is nil for an operator whose result
	// is always a float (typecheck.Arithmetic.Float).
	intArith   func(x, y valFn[int64]) valFn[int64]
	floatArith func(x, y valFn[float64]) valFn[float64]
	// intNeg and floatNeg build a prefix arithmetic operator (a
	// typecheck.Neg).
	intNeg   func(x valFn[int64]) valFn[int64]
	floatNeg func(x valFn[float64]) valFn[float64]
	// cmp builds a comparison (a typecheck.Compare) of each operand
	// kind.
	cmp *cmpEval
	// text builds a test of two strings (a typecheck.Contains); fold is
	// the query's case folding.
	text func(x, sub valFn[string], fold bool) predFn
}

// cmpEval builds one comparison operator for each kind its operands may
// have after the checker unified them.
type cmpEval struct {
	// bools is nil for an operator that does not apply to bools (an
	// ordering).
	bools  func(x, y valFn[bool]) predFn
	ints   func(x, y valFn[int64]) predFn
	floats func(x, y valFn[float64]) predFn
	strs   func(x, y valFn[string]) predFn
}

// opEvals is the evaluation of every operator, by Op.
var opEvals = map[ast.Op]opEval{
	ast.OpOr:       {logic: func(x, y predFn) predFn { return func(fr frame) bool { return x(fr) || y(fr) } }},
	ast.OpXor:      {logic: func(x, y predFn) predFn { return func(fr frame) bool { return x(fr) != y(fr) } }},
	ast.OpAnd:      {logic: func(x, y predFn) predFn { return func(fr frame) bool { return x(fr) && y(fr) } }},
	ast.OpNot:      {not: func(x predFn) predFn { return func(fr frame) bool { return !x(fr) } }},
	ast.OpEq:       {cmp: &cmpEval{bools: eqVals[bool], ints: eqVals[int64], floats: eqVals[float64], strs: eqVals[string]}},
	ast.OpNe:       {cmp: &cmpEval{bools: neVals[bool], ints: neVals[int64], floats: neVals[float64], strs: neVals[string]}},
	ast.OpLt:       {cmp: &cmpEval{ints: ltVals[int64], floats: ltVals[float64], strs: ltVals[string]}},
	ast.OpLe:       {cmp: &cmpEval{ints: leVals[int64], floats: leVals[float64], strs: leVals[string]}},
	ast.OpGt:       {cmp: &cmpEval{ints: gtVals[int64], floats: gtVals[float64], strs: gtVals[string]}},
	ast.OpGe:       {cmp: &cmpEval{ints: geVals[int64], floats: geVals[float64], strs: geVals[string]}},
	ast.OpContains: {text: containsVals},
	ast.OpAdd:      {intArith: addInts, floatArith: addFloats},
	ast.OpSub:      {intArith: subInts, floatArith: subFloats},
	ast.OpMul:      {intArith: mulInts, floatArith: mulFloats},
	ast.OpDiv:      {floatArith: divFloats},
	ast.OpNeg:      {intNeg: negInt, floatNeg: negFloat},
}

// Integer arithmetic is checked: the result is absent when either operand
// is or when the exact result is outside the 64-bit range (see addInt).

func addInts(x, y valFn[int64]) valFn[int64] {
	return func(fr frame) (int64, bool) {
		a, aok := x(fr)
		b, bok := y(fr)
		c, ok := addInt(a, b)
		return c, aok && bok && ok
	}
}

func subInts(x, y valFn[int64]) valFn[int64] {
	return func(fr frame) (int64, bool) {
		a, aok := x(fr)
		b, bok := y(fr)
		c, ok := subInt(a, b)
		return c, aok && bok && ok
	}
}

func mulInts(x, y valFn[int64]) valFn[int64] {
	return func(fr frame) (int64, bool) {
		a, aok := x(fr)
		b, bok := y(fr)
		c, ok := mulInt(a, b)
		return c, aok && bok && ok
	}
}

// negInt is -x; the negation of the smallest int64 overflows.
func negInt(x valFn[int64]) valFn[int64] {
	return func(fr frame) (int64, bool) {
		a, ok := x(fr)
		if !ok || a == math.MinInt64 {
			return 0, false
		}
		return -a, true
	}
}

// Float arithmetic: absent when either operand is (the right one is not
// evaluated when the left is absent), and a division by zero is absent.

func addFloats(x, y valFn[float64]) valFn[float64] {
	return func(fr frame) (float64, bool) {
		a, ok := x(fr)
		if !ok {
			return 0, false
		}
		b, ok := y(fr)
		return a + b, ok
	}
}

func subFloats(x, y valFn[float64]) valFn[float64] {
	return func(fr frame) (float64, bool) {
		a, ok := x(fr)
		if !ok {
			return 0, false
		}
		b, ok := y(fr)
		return a - b, ok
	}
}

func mulFloats(x, y valFn[float64]) valFn[float64] {
	return func(fr frame) (float64, bool) {
		a, ok := x(fr)
		if !ok {
			return 0, false
		}
		b, ok := y(fr)
		return a * b, ok
	}
}

func divFloats(x, y valFn[float64]) valFn[float64] {
	return func(fr frame) (float64, bool) {
		a, ok := x(fr)
		if !ok {
			return 0, false
		}
		b, ok := y(fr)
		if !ok || b == 0 {
			return 0, false
		}
		return a / b, true
	}
}

func negFloat(x valFn[float64]) valFn[float64] {
	return func(fr frame) (float64, bool) { a, ok := x(fr); return -a, ok }
}

// Comparisons of two nullable values: = is null-safe (absent = absent),
// != is not =, and ordering with an absent operand is false.

func eqVals[T comparable](x, y valFn[T]) predFn {
	return func(fr frame) bool {
		a, aok := x(fr)
		b, bok := y(fr)
		if aok && bok {
			return a == b
		}
		return aok == bok
	}
}

func neVals[T comparable](x, y valFn[T]) predFn {
	return func(fr frame) bool {
		a, aok := x(fr)
		b, bok := y(fr)
		if aok && bok {
			return a != b
		}
		return aok != bok
	}
}

func ltVals[T ordered](x, y valFn[T]) predFn {
	return func(fr frame) bool {
		a, aok := x(fr)
		b, bok := y(fr)
		return aok && bok && a < b
	}
}

func leVals[T ordered](x, y valFn[T]) predFn {
	return func(fr frame) bool {
		a, aok := x(fr)
		b, bok := y(fr)
		return aok && bok && a <= b
	}
}

func gtVals[T ordered](x, y valFn[T]) predFn {
	return func(fr frame) bool {
		a, aok := x(fr)
		b, bok := y(fr)
		return aok && bok && a > b
	}
}

func geVals[T ordered](x, y valFn[T]) predFn {
	return func(fr frame) bool {
		a, aok := x(fr)
		b, bok := y(fr)
		return aok && bok && a >= b
	}
}

// containsVals is x contains sub, false when either is absent; fold
// compares under simple case folding.
func containsVals(x, sub valFn[string], fold bool) predFn {
	if fold {
		return func(fr frame) bool {
			v, ok := x(fr)
			if !ok {
				return false
			}
			s, ok := sub(fr)
			return ok && containsFold(v, s)
		}
	}
	return func(fr frame) bool {
		v, ok := x(fr)
		if !ok {
			return false
		}
		s, ok := sub(fr)
		return ok && strings.Contains(v, s)
	}
}
