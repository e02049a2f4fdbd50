package typecheck

import "github.com/croql/croql/ast"

// The type rules of the operators, one row per operator of ast.Syntax.
// The checker reads an operator's rule here and nowhere else; the back
// ends read what an arithmetic operator's result may be (Arithmetic) from
// the same row. TestOpRules fails for an operator of ast.Syntax without a
// row.

// OpClass is the type rule of an operator: how the checker types its
// operands and which node of the IR it makes of it. The back ends and the
// generators of tests read it (ClassOf) to tell operators of one class
// apart from the rest.
type OpClass uint8

// The classes.
const (
	// ClassLogic: two conditions (a BoolAlso value stands for "is set"),
	// a Logic node.
	ClassLogic OpClass = iota + 1
	// ClassNot: one condition, a Not node.
	ClassNot
	// ClassEquality: two operands unified to one kind, bools, users and
	// languages included; a Compare node.
	ClassEquality
	// ClassOrder: two operands unified to numbers, datetimes or strings;
	// a Compare node.
	ClassOrder
	// ClassContains: two strings (or language codes), a Contains node.
	ClassContains
	// ClassArith: two numbers, an Arith node of Int (both ints) or Float.
	ClassArith
	// ClassNeg: one number, a Neg node of its type.
	ClassNeg
)

// Arithmetic is what the back ends read about the result of an arithmetic
// operator (an Arith node), besides the operands' types.
type Arithmetic struct {
	// Float is set for an operator whose result is a float whatever its
	// operands (division): the checker converts int operands.
	Float bool
	// Partial is set for an operator whose result is absent when its
	// right operand is zero (division).
	Partial bool
}

// opRule is one operator's row: its class and, for an arithmetic one,
// its result.
type opRule struct {
	class OpClass
	arith Arithmetic
}

// opRules is the type rule of every operator, by Op.
var opRules = map[ast.Op]opRule{
	ast.OpOr:       {class: ClassLogic},
	ast.OpXor:      {class: ClassLogic},
	ast.OpAnd:      {class: ClassLogic},
	ast.OpNot:      {class: ClassNot},
	ast.OpEq:       {class: ClassEquality},
	ast.OpNe:       {class: ClassEquality},
	ast.OpLt:       {class: ClassOrder},
	ast.OpLe:       {class: ClassOrder},
	ast.OpGt:       {class: ClassOrder},
	ast.OpGe:       {class: ClassOrder},
	ast.OpContains: {class: ClassContains},
	ast.OpAdd:      {class: ClassArith},
	ast.OpSub:      {class: ClassArith},
	ast.OpMul:      {class: ClassArith},
	ast.OpDiv:      {class: ClassArith, arith: Arithmetic{Float: true, Partial: true}},
	ast.OpNeg:      {class: ClassNeg},
}

// prefixClasses and infixClasses are the classes an operator may have in
// each position; TestOpRules holds every row to its operator's role.
var (
	prefixClasses = []OpClass{ClassNot, ClassNeg}
	infixClasses  = []OpClass{ClassLogic, ClassEquality, ClassOrder, ClassContains, ClassArith}
)

// ArithmeticOf returns what the result of arithmetic operator op may be
// (the zero Arithmetic for an operator that is not arithmetic).
func ArithmeticOf(op ast.Op) Arithmetic { return opRules[op].arith }

// ClassOf returns the class of op, 0 for an operator the checker has no
// rule for (every operator of ast.Syntax has one).
func ClassOf(op ast.Op) OpClass { return opRules[op].class }
