// Package ast defines the syntax tree of CroQL: one node type per construct
// of the language, each knowing the byte span it covers in the source, a
// walker, structural equality, and the canonical printer that the formatter
// uses.
//
// The tree is built by package parser and read by the type checker. It keeps
// no parentheses: grouping is the shape of the tree, and the printer writes
// parentheses back only where precedence needs them.
package ast

import (
	"github.com/croql/croql/diag"
)

// Span is a half-open byte range of the source.
type Span = diag.Span

// Expr is any CroQL expression node.
type Expr interface {
	// Span is the bytes of the source the node was parsed from,
	// parentheses around it excluded.
	Span() Span
	exprNode()
}

// Ident is a field name: one or more words, written with single spaces
// between them ("is hidden", "languages summary", "usageCount").
type Ident struct {
	Name string
	Sp   Span
}

// Int is an integer literal.
type Int struct {
	Value int64
	Sp    Span
}

// Float is a decimal literal such as 10.01.
type Float struct {
	Value float64
	Sp    Span
}

// String is a double-quoted literal; Value is the decoded text.
type String struct {
	Value string
	Sp    Span
}

// Datetime is a single-quoted literal; Text is what stands between the
// quotes ('today', 'YYYY-MM-DD HH:MM:SS', ...). The type checker reads it.
type Datetime struct {
	Text string
	Sp   Span
}

// Mention is @kind:"value", for example @user:"alice" or @language:"de".
// Kind is lower-case.
type Mention struct {
	Kind  string
	Value string
	Sp    Span
}

// Unary is a prefix operator: OpNeg (-x) or OpNot (not x).
type Unary struct {
	Op Op
	X  Expr
	Sp Span
}

// Binary is an infix operator: arithmetic, comparison, contains, and the
// logical and, or, xor.
type Binary struct {
	Op     Op
	X, Y   Expr
	OpSpan Span // the operator token itself
	Sp     Span
}

// Between is X between Lo and Hi.
type Between struct {
	X, Lo, Hi Expr
	Sp        Span
}

// Member is Name of X: a member of an object ("id of file") or the count of
// a collection ("count of translations").
type Member struct {
	Name *Ident
	X    Expr
	Sp   Span
}

// Filter is X where Pred (a collection filtered element-wise) or X with Pred
// (an object, or some element of a collection, satisfying Pred).
type Filter struct {
	Kind FilterKind
	X    Expr
	Pred Expr
	Sp   Span
}

// If is if Cond then Then else Else.
type If struct {
	Cond, Then, Else Expr
	Sp               Span
}

// FilterKind tells where from with.
type FilterKind uint8

// The two filters.
const (
	Where FilterKind = iota
	With
)

func (k FilterKind) String() string {
	if k == With {
		return "with"
	}
	return "where"
}

func (n *Ident) Span() Span    { return n.Sp }
func (n *Int) Span() Span      { return n.Sp }
func (n *Float) Span() Span    { return n.Sp }
func (n *String) Span() Span   { return n.Sp }
func (n *Datetime) Span() Span { return n.Sp }
func (n *Mention) Span() Span  { return n.Sp }
func (n *Unary) Span() Span    { return n.Sp }
func (n *Binary) Span() Span   { return n.Sp }
func (n *Between) Span() Span  { return n.Sp }
func (n *Member) Span() Span   { return n.Sp }
func (n *Filter) Span() Span   { return n.Sp }
func (n *If) Span() Span       { return n.Sp }

func (*Ident) exprNode()    {}
func (*Int) exprNode()      {}
func (*Float) exprNode()    {}
func (*String) exprNode()   {}
func (*Datetime) exprNode() {}
func (*Mention) exprNode()  {}
func (*Unary) exprNode()    {}
func (*Binary) exprNode()   {}
func (*Between) exprNode()  {}
func (*Member) exprNode()   {}
func (*Filter) exprNode()   {}
func (*If) exprNode()       {}

// Op is an operator of a Unary or Binary node.
type Op uint8

// The operators. Aliases (≠ ≥ ≤) parse to the same Op as their ASCII form.
const (
	OpInvalid Op = iota
	OpOr
	OpXor
	OpAnd
	OpNot
	OpEq
	OpNe
	OpLt
	OpLe
	OpGt
	OpGe
	OpContains
	OpAdd
	OpSub
	OpMul
	OpDiv
	OpNeg
)

// String is the canonical spelling of the operator (its row of Syntax).
func (o Op) String() string {
	if s := o.row(); s != nil {
		return s.Text
	}
	return "?"
}

// The classes below are read from the operator's row of Syntax (its role
// and binding level), not from its place in the enum: an Op can be added
// anywhere among the constants without moving another into a class.

// IsComparison reports whether o is = != < <= > >= or contains: an infix
// operator at the comparison level.
func (o Op) IsComparison() bool {
	s := o.row()
	return s != nil && s.Role == RoleInfix && s.Prec == PrecCompare
}

// IsLogical reports whether o is and, or, xor: an infix operator at one of
// their levels.
func (o Op) IsLogical() bool {
	s := o.row()
	return s != nil && s.Role == RoleInfix && (s.Prec == PrecOr || s.Prec == PrecXor || s.Prec == PrecAnd)
}

// IsArithmetic reports whether o is + - * /: an infix operator at the
// additive or multiplicative level.
func (o Op) IsArithmetic() bool {
	s := o.row()
	return s != nil && s.Role == RoleInfix && (s.Prec == PrecAdd || s.Prec == PrecMul)
}

// Mirror returns the operator that gives the same answer with the operands
// swapped: `k < x` is `x > k`. Operators that do not order are their own
// mirror.
func (o Op) Mirror() Op {
	switch o {
	case OpLt:
		return OpGt
	case OpLe:
		return OpGe
	case OpGt:
		return OpLt
	case OpGe:
		return OpLe
	}
	return o
}

// Precedence levels of language.md section 2, lowest first.
const (
	PrecIf      = 1
	PrecOr      = 2
	PrecXor     = 3
	PrecAnd     = 4
	PrecNot     = 5
	PrecCompare = 6
	PrecAdd     = 7
	PrecMul     = 8
	PrecNeg     = 9
	PrecOf      = 10
	PrecFilter  = 11
	PrecPrimary = 12
)

// Precedence returns the binding level of a binary or unary operator
// (its row of Syntax).
func (o Op) Precedence() int {
	if s := o.row(); s != nil {
		return s.Prec
	}
	return PrecCompare
}

// Precedence returns the level at which e binds (PrecPrimary for leaves).
func Precedence(e Expr) int {
	switch n := e.(type) {
	case *If:
		return PrecIf
	case *Binary:
		return n.Op.Precedence()
	case *Unary:
		return n.Op.Precedence()
	case *Between:
		return PrecCompare
	case *Member:
		return PrecOf
	case *Filter:
		return PrecFilter
	default:
		return PrecPrimary
	}
}
