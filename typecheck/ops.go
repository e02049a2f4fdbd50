package typecheck

import "github.com/croql/croql/ast"

// The type rules of the operators, one row per operator of ast.Syntax.
// The checker reads an operator's rule here and nowhere else; the back
// ends read what an arithmetic operator's result may be (Arithmetic) from
// the same row. TestOpRules fails for an operator of ast.Syntax without a
// row.

// rule is how the checker types an operator's operands and which node of
// the IR it makes of it.
type rule uint8

const (
	// ruleLogic: two conditions (a BoolAlso value stands for "is set"),
	// a Logic node.
	ruleLogic rule = iota + 1
	// ruleNot: one condition, a Not node.
	ruleNot
	// ruleEquality: two operands unified to one kind, bools, users and
	// languages included; a Compare node.
	ruleEquality
	// ruleOrder: two operands unified to numbers, datetimes or strings;
	// a Compare node.
	ruleOrder
	// ruleContains: two strings (or language codes), a Contains node.
	ruleContains
	// ruleArith: two numbers, an Arith node of Int (both ints) or Float.
	ruleArith
	// ruleNeg: one number, a Neg node of its type.
	ruleNeg
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

// opRule is one operator's row: its rule and, for an arithmetic one, its
// result.
type opRule struct {
	rule  rule
	arith Arithmetic
}

// opRules is the type rule of every operator, by Op.
var opRules = map[ast.Op]opRule{
	ast.OpOr:       {rule: ruleLogic},
	ast.OpXor:      {rule: ruleLogic},
	ast.OpAnd:      {rule: ruleLogic},
	ast.OpNot:      {rule: ruleNot},
	ast.OpEq:       {rule: ruleEquality},
	ast.OpNe:       {rule: ruleEquality},
	ast.OpLt:       {rule: ruleOrder},
	ast.OpLe:       {rule: ruleOrder},
	ast.OpGt:       {rule: ruleOrder},
	ast.OpGe:       {rule: ruleOrder},
	ast.OpContains: {rule: ruleContains},
	ast.OpAdd:      {rule: ruleArith},
	ast.OpSub:      {rule: ruleArith},
	ast.OpMul:      {rule: ruleArith},
	ast.OpDiv:      {rule: ruleArith, arith: Arithmetic{Float: true, Partial: true}},
	ast.OpNeg:      {rule: ruleNeg},
}

// prefixRules and infixRules are the rules an operator may have in each
// position; TestOpRules holds every row to its operator's role.
var (
	prefixRules = []rule{ruleNot, ruleNeg}
	infixRules  = []rule{ruleLogic, ruleEquality, ruleOrder, ruleContains, ruleArith}
)

// ArithmeticOf returns what the result of arithmetic operator op may be
// (the zero Arithmetic for an operator that is not arithmetic).
func ArithmeticOf(op ast.Op) Arithmetic { return opRules[op].arith }

// HasRule reports whether the checker has a type rule for op: every
// operator of ast.Syntax must.
func HasRule(op ast.Op) bool { _, ok := opRules[op]; return ok }
