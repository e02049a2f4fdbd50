package ast

import "strings"

// Role is what the parser does with a keyword or operator: which token the
// lexer makes of it and where the grammar accepts it.
type Role uint8

// The roles.
const (
	// RoleInfix is a binary operator: a tail of an operand chain, applied
	// by the precedence climber at the operator's Prec.
	RoleInfix Role = iota + 1
	// RoleBetween is `between`, read like an infix operator whose right side
	// is `A and B`.
	RoleBetween
	// RolePrefix is a prefix of an operand (`not`, unary `-`).
	RolePrefix
	// RoleLink is `of`, `where` or `with` after a primary.
	RoleLink
	// RoleIf, RoleThen and RoleElse spell the conditional.
	RoleIf
	RoleThen
	RoleElse
)

// Spelling is one keyword or operator of CroQL as written. Syntax lists
// them all; the lexer, the parser's precedence climber, the printer
// (Op.String, Op.Precedence) and the editor features (completion docs,
// semantic tokens) all read it, so adding an operator's syntax is one row
// here (and its Op constant).
type Spelling struct {
	// Text is the spelling: lower case for a keyword, which is matched in
	// any case.
	Text string
	// Keyword is set for a reserved word (the rest are symbols).
	Keyword bool
	Role    Role
	// Op is the operator the spelling makes (OpInvalid for between, of,
	// where, with, if, then, else).
	Op Op
	// Prec is the binding level (language.md section 2) of Op, or of the
	// construct for the rows without one.
	Prec int
	// Alias marks a second spelling of an Op (≠ ≤ ≥): it parses, and the
	// printer writes the first row's Text.
	Alias bool
	// Doc is the one-line help completion shows for a keyword.
	Doc string
}

// Syntax is the table of every keyword and operator spelling. It is
// read-only: the lookups below index it once, at start-up.
var Syntax = [...]Spelling{
	{Text: "or", Keyword: true, Role: RoleInfix, Op: OpOr, Prec: PrecOr, Doc: "A or B: either holds."},
	{Text: "xor", Keyword: true, Role: RoleInfix, Op: OpXor, Prec: PrecXor, Doc: "A xor B: exactly one holds."},
	{Text: "and", Keyword: true, Role: RoleInfix, Op: OpAnd, Prec: PrecAnd, Doc: "A and B: both hold."},
	{Text: "not", Keyword: true, Role: RolePrefix, Op: OpNot, Prec: PrecNot, Doc: "not A: A does not hold."},
	{Text: "=", Role: RoleInfix, Op: OpEq, Prec: PrecCompare},
	{Text: "!=", Role: RoleInfix, Op: OpNe, Prec: PrecCompare},
	{Text: "≠", Role: RoleInfix, Op: OpNe, Prec: PrecCompare, Alias: true},
	{Text: "<", Role: RoleInfix, Op: OpLt, Prec: PrecCompare},
	{Text: "<=", Role: RoleInfix, Op: OpLe, Prec: PrecCompare},
	{Text: "≤", Role: RoleInfix, Op: OpLe, Prec: PrecCompare, Alias: true},
	{Text: ">", Role: RoleInfix, Op: OpGt, Prec: PrecCompare},
	{Text: ">=", Role: RoleInfix, Op: OpGe, Prec: PrecCompare},
	{Text: "≥", Role: RoleInfix, Op: OpGe, Prec: PrecCompare, Alias: true},
	{Text: "contains", Keyword: true, Role: RoleInfix, Op: OpContains, Prec: PrecCompare, Doc: "S contains T: text S contains T."},
	{Text: "between", Keyword: true, Role: RoleBetween, Prec: PrecCompare, Doc: "X between A and B: A <= X <= B."},
	{Text: "+", Role: RoleInfix, Op: OpAdd, Prec: PrecAdd},
	{Text: "-", Role: RoleInfix, Op: OpSub, Prec: PrecAdd},
	{Text: "*", Role: RoleInfix, Op: OpMul, Prec: PrecMul},
	{Text: "/", Role: RoleInfix, Op: OpDiv, Prec: PrecMul},
	{Text: "-", Role: RolePrefix, Op: OpNeg, Prec: PrecNeg},
	{Text: "of", Keyword: true, Role: RoleLink, Prec: PrecOf, Doc: "M of X: member M of object X; count of C: the number of elements."},
	{Text: "where", Keyword: true, Role: RoleLink, Prec: PrecFilter, Doc: "C where (P): the elements of C for which P holds."},
	{Text: "with", Keyword: true, Role: RoleLink, Prec: PrecFilter, Doc: "C with (P): some element of C (or the object) satisfies P."},
	{Text: "if", Keyword: true, Role: RoleIf, Prec: PrecIf, Doc: "if C then A else B."},
	{Text: "then", Keyword: true, Role: RoleThen, Prec: PrecIf, Doc: "if C then A else B."},
	{Text: "else", Keyword: true, Role: RoleElse, Prec: PrecIf, Doc: "if C then A else B."},
}

// opRow is, per Op, its row of Syntax that is not an alias (nil for an Op
// without one). It is as long as the largest Op of the table needs, so an
// Op may be declared anywhere in the enum: nothing here depends on the
// order of the constants.
var opRow = func() (rows []*Spelling) {
	for i := range Syntax {
		s := &Syntax[i]
		if s.Op == OpInvalid || s.Alias {
			continue
		}
		for len(rows) <= int(s.Op) {
			rows = append(rows, nil)
		}
		rows[s.Op] = s
	}
	return rows
}()

// row returns o's row of Syntax, or nil.
func (o Op) row() *Spelling {
	if int(o) < len(opRow) {
		return opRow[o]
	}
	return nil
}

// Role returns the role of o's row of Syntax (RoleInfix or RolePrefix),
// or 0 for an Op without a row.
func (o Op) Role() Role {
	if s := o.row(); s != nil {
		return s.Role
	}
	return 0
}

// Ops returns every operator that has a row in Syntax, in the order of
// the enum. Tests that must cover every operator (on every back end)
// range over it.
func Ops() []Op {
	var ops []Op
	for o, s := range opRow {
		if s != nil {
			ops = append(ops, Op(o))
		}
	}
	return ops
}

// infixRow maps the text of every infix and between spelling (keywords in
// lower case) to its row.
var infixRow = func() map[string]*Spelling {
	m := map[string]*Spelling{}
	for i := range Syntax {
		if s := &Syntax[i]; s.Role == RoleInfix || s.Role == RoleBetween {
			m[s.Text] = s
		}
	}
	return m
}()

// Infix returns the row of the binary operator (or `between`) spelt text,
// keywords in any case, or nil.
func Infix(text string) *Spelling {
	if s := infixRow[text]; s != nil {
		return s
	}
	if s := Keyword(text); s != nil && (s.Role == RoleInfix || s.Role == RoleBetween) {
		return s
	}
	return nil
}

// Keyword returns the row of the keyword w spells in any case, or nil.
// It does not allocate.
func Keyword(w string) *Spelling {
	if len(w) >= len(keywordsByLen) {
		return nil
	}
	for _, s := range keywordsByLen[len(w)] {
		if asciiEqualFold(s.Text, w) {
			return s
		}
	}
	return nil
}

// Symbol returns the longest symbol operator (a row that is not a keyword)
// that src starts with, or nil.
func Symbol(src string) *Spelling {
	var best *Spelling
	for _, s := range symbolRows {
		if strings.HasPrefix(src, s.Text) && (best == nil || len(s.Text) > len(best.Text)) {
			best = s
		}
	}
	return best
}

// keywordsByLen lists the keyword rows by length; symbolRows the others.
var keywordsByLen, symbolRows = func() (byLen [][]*Spelling, syms []*Spelling) {
	for i := range Syntax {
		s := &Syntax[i]
		if !s.Keyword {
			syms = append(syms, s)
			continue
		}
		for len(byLen) <= len(s.Text) {
			byLen = append(byLen, nil)
		}
		byLen[len(s.Text)] = append(byLen[len(s.Text)], s)
	}
	return byLen, syms
}()

// asciiEqualFold compares lower-case ASCII k with w, ignoring ASCII case.
func asciiEqualFold(k, w string) bool {
	for i := 0; i < len(k); i++ {
		c := w[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != k[i] {
			return false
		}
	}
	return true
}
