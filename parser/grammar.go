package parser

import "github.com/alecthomas/participle/v2/lexer"

// The participle grammar. Participle builds one Go value per production it
// enters, by reflection, and tries the alternatives of a choice one by one,
// so the grammar keeps both few: an expression is an operand followed by
// any number of (binary operator, operand) tails, and the precedence table
// of language.md section 2 is applied to that flat chain by the precedence
// climber in lower.go. An operand is its prefixes (`not`, unary `-`), a
// primary, and any number of links (`of P`, `where P`, `with P`), from
// which the lowering builds the right-leaning `of` chain (level 10) of
// left-leaning filters (level 11). Every list is a repetition, so
// participle only recurses through parentheses and `if`, which the scanner
// bounds.
//
// Token types (see lexer.go): Leaf is any name or literal, Op any binary
// operator, Link is of/where/with.

// gExpr is a whole expression: `if C then A else B`, or a chain.
type gExpr struct {
	If    *gIf    `parser:"  @@"`
	Chain *gChain `parser:"| @@"`
}

// gIf is `if C then A else B`; else extends to the right.
type gIf struct {
	If   lexer.Token `parser:"@If"`
	Cond *gExpr      `parser:"@@"`
	Then *gExpr      `parser:"Then @@"`
	Else *gExpr      `parser:"Else @@"`
}

// gChain is operands joined by binary operators, precedence not yet
// applied. The `and` of `X between A and B` is one of the tails.
type gChain struct {
	X    *gOperand `parser:"@@"`
	Rest []*gTail  `parser:"@@*"`
}

type gTail struct {
	Op lexer.Token `parser:"@Op"`
	Y  *gOperand   `parser:"@@"`
}

// gOperand is prefixes, a primary and its links. The primary is `( E )`,
// a leaf, or an `if` written where an operand belongs (BareIf), which the
// lowering reports: it needs parentheses.
type gOperand struct {
	Prefix []*gPrefix   `parser:"@@*"`
	Leaf   *lexer.Token `parser:"(  @Leaf"`
	Open   *lexer.Token `parser:" | @LParen"`
	Sub    *gExpr       `parser:"   @@"`
	Close  lexer.Token  `parser:"   @RParen"`
	BareIf *gIf         `parser:" | @@ )"`
	Links  []*gLink     `parser:"@@*"`
}

// gPrefix is one `not` or unary minus. (A repeated capture into a
// []lexer.Token field keeps only the last token, so each prefix is a
// struct of its own.)
type gPrefix struct {
	Tok lexer.Token `parser:"@( Not | '-' )"`
}

// gLink is `of P`, `where P` or `with P`, P a primary.
type gLink struct {
	Kw     lexer.Token  `parser:"@Link"`
	Leaf   *lexer.Token `parser:"(  @Leaf"`
	Open   *lexer.Token `parser:" | @LParen"`
	Sub    *gExpr       `parser:"   @@"`
	Close  lexer.Token  `parser:"   @RParen"`
	BareIf *gIf         `parser:" | @@ )"`
}

// gPrim is the primary of an operand or a link.
type gPrim struct {
	Leaf   *lexer.Token
	Open   *lexer.Token
	Sub    *gExpr
	Close  lexer.Token
	BareIf *gIf
}

func (g *gOperand) prim() gPrim { return gPrim{g.Leaf, g.Open, g.Sub, g.Close, g.BareIf} }
func (g *gLink) prim() gPrim    { return gPrim{g.Leaf, g.Open, g.Sub, g.Close, g.BareIf} }
