package parser

import "github.com/alecthomas/participle/v2/lexer"

// The participle grammar: one production per precedence level of
// language.md section 2, lowest first. Binary levels are a first operand
// followed by a repetition of (operator, operand), prefix operators are a
// repetition of the operator, and `of` and `where`/`with` chains are
// repetitions too, so participle only recurses through parentheses and
// `if`, which the pre-scan bounds. The lowering in lower.go turns the
// repetitions into left- or right-leaning trees.

// gExpr is level 1: `if C then A else B`, or an `or` chain.
type gExpr struct {
	If *gIf `parser:"  @@"`
	Or *gOr `parser:"| @@"`
}

// gIf is `if C then A else B`; else extends to the right.
type gIf struct {
	If   lexer.Token `parser:"@'if'"`
	Cond *gExpr      `parser:"@@"`
	Then *gExpr      `parser:"'then' @@"`
	Else *gExpr      `parser:"'else' @@"`
}

// gOr is level 2.
type gOr struct {
	X    *gXor    `parser:"@@"`
	Rest []*gOrOp `parser:"@@*"`
}

type gOrOp struct {
	Op lexer.Token `parser:"@'or'"`
	Y  *gXor       `parser:"@@"`
}

// gXor is level 3.
type gXor struct {
	X    *gAnd     `parser:"@@"`
	Rest []*gXorOp `parser:"@@*"`
}

type gXorOp struct {
	Op lexer.Token `parser:"@'xor'"`
	Y  *gAnd       `parser:"@@"`
}

// gAnd is level 4.
type gAnd struct {
	X    *gNot     `parser:"@@"`
	Rest []*gAndOp `parser:"@@*"`
}

type gAndOp struct {
	Op lexer.Token `parser:"@'and'"`
	Y  *gNot       `parser:"@@"`
}

// gNot is level 5: any number of `not` before a comparison.
type gNot struct {
	Nots []*gNotTok `parser:"@@*"`
	X    *gCmp      `parser:"@@"`
}

// gNotTok is one `not`. (A repeated capture into a []lexer.Token field
// keeps only the last token, so each prefix is a struct of its own.)
type gNotTok struct {
	Tok lexer.Token `parser:"@'not'"`
}

// gCmp is level 6. Comparisons do not chain; the grammar still accepts a
// chain so that the lowering can say so in a precise diagnostic.
type gCmp struct {
	X    *gAdd     `parser:"@@"`
	Rest []*gCmpOp `parser:"@@*"`
}

type gCmpOp struct {
	Op      lexer.Token `parser:"(  @( '=' | '!=' | '≠' | '<=' | '≤' | '>=' | '≥' | '<' | '>' | 'contains' )"`
	Y       *gAdd       `parser:"   @@"`
	Between lexer.Token `parser:" | @'between'"`
	Lo      *gAdd       `parser:"   @@"`
	Hi      *gAdd       `parser:"   'and' @@ )"`
}

// gAdd is level 7.
type gAdd struct {
	X    *gMul     `parser:"@@"`
	Rest []*gAddOp `parser:"@@*"`
}

type gAddOp struct {
	Op lexer.Token `parser:"@( '+' | '-' )"`
	Y  *gMul       `parser:"@@"`
}

// gMul is level 8.
type gMul struct {
	X    *gNeg     `parser:"@@"`
	Rest []*gMulOp `parser:"@@*"`
}

type gMulOp struct {
	Op lexer.Token `parser:"@( '*' | '/' )"`
	Y  *gNeg       `parser:"@@"`
}

// gNeg is level 9: any number of unary minus.
type gNeg struct {
	Negs []*gNegTok `parser:"@@*"`
	X    *gOf       `parser:"@@"`
}

// gNegTok is one unary minus.
type gNegTok struct {
	Tok lexer.Token `parser:"@'-'"`
}

// gOf is level 10: `a of b of c`, right-leaning. Every link but the last
// must be a bare field name; the lowering checks.
type gOf struct {
	Links []*gFilter `parser:"@@ ( 'of' @@ )*"`
}

// gFilter is level 11: a primary followed by any number of `where P` or
// `with P`, P a primary.
type gFilter struct {
	X    *gPrimary    `parser:"@@"`
	Rest []*gFilterOp `parser:"@@*"`
}

type gFilterOp struct {
	Kind lexer.Token `parser:"@( 'where' | 'with' )"`
	Pred *gPrimary   `parser:"@@"`
}

// gPrimary is level 12. BareIf accepts an `if` where an operand belongs so
// that the lowering can say to parenthesise it.
type gPrimary struct {
	Ident    *lexer.Token `parser:"  @Ident"`
	Int      *lexer.Token `parser:"| @Int"`
	Float    *lexer.Token `parser:"| @Float"`
	String   *lexer.Token `parser:"| @String"`
	Datetime *lexer.Token `parser:"| @Datetime"`
	Mention  *lexer.Token `parser:"| @Mention"`
	Open     *lexer.Token `parser:"| ( @'('"`
	Sub      *gExpr       `parser:"    @@"`
	Close    lexer.Token  `parser:"    @')' )"`
	BareIf   *gIf         `parser:"| @@"`
}
