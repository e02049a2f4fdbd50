package compile

import "github.com/croql/croql/ast"

// The SQL of the operators, one row per operator of ast.Syntax. The
// compiler reads an operator's spelling here and nowhere else; what an
// operator's result may be (absent on a zero divisor, overflow) it reads
// from the checker's row (typecheck.ArithmeticOf, typecheck.MayOverflow).
// TestOpSQL fails for an operator of ast.Syntax without a row.

// opSQL is how one operator is written in SQL.
type opSQL struct {
	// infix is the SQL operator written between the two operands of a
	// logical operator, a comparison or an arithmetic operator ("AND",
	// "<", "+"); prefix the one written before the operand of a prefix
	// operator ("NOT", "-"). Integer arithmetic that may overflow passes
	// infix or prefix to Dialect.IntArith.
	infix, prefix string
	// spell writes an operator that engines spell differently through
	// the dialect (contains: Dialect.Contains). x and y are the operands'
	// SQL.
	spell func(d Dialect, x, y string) string
}

// opSQLs is the SQL of every operator, by Op.
var opSQLs = map[ast.Op]opSQL{
	ast.OpOr:       {infix: "OR"},
	ast.OpXor:      {infix: "<>"}, // of two operands that are TRUE or FALSE
	ast.OpAnd:      {infix: "AND"},
	ast.OpNot:      {prefix: "NOT"},
	ast.OpEq:       {infix: "="}, // null-safe where needed: Dialect.NullSafeEq
	ast.OpNe:       {infix: "<>"},
	ast.OpLt:       {infix: "<"},
	ast.OpLe:       {infix: "<="},
	ast.OpGt:       {infix: ">"},
	ast.OpGe:       {infix: ">="},
	ast.OpContains: {spell: Dialect.Contains},
	ast.OpAdd:      {infix: "+"},
	ast.OpSub:      {infix: "-"},
	ast.OpMul:      {infix: "*"},
	ast.OpDiv:      {infix: "/"},
	ast.OpNeg:      {prefix: "-"},
}
