package ast

import (
	"strconv"
	"strings"
)

// SExpr writes e as an S-expression, the form the conformance corpus uses to
// state how a query groups (its `tree:` key). The format is exact, so tests
// compare strings:
//
//   - an identifier is its name as written; a name of several words is
//     wrapped in bars: `count`, `|languages summary|`;
//   - literals print as in CroQL: `7`, `10.01` (always with a point), `"x"`
//     (quoted like [Quote]), `'2024-01-01'`, `@user:"alice"`;
//   - an operator node is `(op operand...)` with the canonical spelling of
//     the operator: `(= a b)`, `(and a b)`, `(contains text "x")`,
//     `(not x)`, and `(neg x)` for unary minus;
//   - `(between x lo hi)`, `(of name x)`, `(where x p)`, `(with x p)`,
//     `(if cond then else)`;
//
// with single spaces between the items and nothing else. For example
// `count of translations where (p) > 0` is `(> (of count (where translations p)) 0)`.
func SExpr(e Expr) string {
	var b strings.Builder
	sexpr(&b, e)
	return b.String()
}

func sexpr(b *strings.Builder, e Expr) {
	open := func(head string, kids ...Expr) {
		b.WriteByte('(')
		b.WriteString(head)
		for _, k := range kids {
			b.WriteByte(' ')
			sexpr(b, k)
		}
		b.WriteByte(')')
	}
	switch n := e.(type) {
	case nil:
		b.WriteString("<nil>")
	case *Ident:
		if strings.ContainsRune(n.Name, ' ') {
			b.WriteByte('|')
			b.WriteString(n.Name)
			b.WriteByte('|')
		} else {
			b.WriteString(n.Name)
		}
	case *Int:
		b.WriteString(strconv.FormatInt(n.Value, 10))
	case *Float:
		b.WriteString(FormatFloat(n.Value))
	case *String:
		b.WriteString(Quote(n.Value))
	case *Datetime, *Mention:
		Printer{}.expr(b, e, PrecPrimary)
	case *Unary:
		head := "not"
		if n.Op == OpNeg {
			head = "neg"
		}
		open(head, n.X)
	case *Binary:
		open(n.Op.String(), n.X, n.Y)
	case *Between:
		open("between", n.X, n.Lo, n.Hi)
	case *Member:
		open("of", n.Name, n.X)
	case *Filter:
		open(n.Kind.String(), n.X, n.Pred)
	case *If:
		open("if", n.Cond, n.Then, n.Else)
	default:
		b.WriteString("<?>")
	}
}

// Grouped writes e in CroQL with every operand that is not a leaf in
// parentheses, so that a reader sees how precedence grouped the query:
// `count of translations where (p) > 0` is written
// `(count of (translations where (p))) > 0`, and `-count of translations + 1`
// is `(-(count of translations)) + 1`. The predicate of where/with is always
// in parentheses; the outermost node is not wrapped. The result parses back
// to the same tree.
func Grouped(e Expr) string {
	var b strings.Builder
	grouped(&b, e, false)
	return b.String()
}

func grouped(b *strings.Builder, e Expr, wrap bool) {
	if Precedence(e) == PrecPrimary {
		Printer{}.expr(b, e, PrecPrimary)
		return
	}
	if wrap {
		b.WriteByte('(')
		defer b.WriteByte(')')
	}
	switch n := e.(type) {
	case *Unary:
		if n.Op == OpNot {
			b.WriteString("not ")
		} else {
			b.WriteByte('-')
		}
		grouped(b, n.X, true)
	case *Binary:
		grouped(b, n.X, true)
		b.WriteByte(' ')
		b.WriteString(n.Op.String())
		b.WriteByte(' ')
		grouped(b, n.Y, true)
	case *Between:
		grouped(b, n.X, true)
		b.WriteString(" between ")
		grouped(b, n.Lo, true)
		b.WriteString(" and ")
		grouped(b, n.Hi, true)
	case *Member:
		b.WriteString(n.Name.Name)
		b.WriteString(" of ")
		grouped(b, n.X, true)
	case *Filter:
		grouped(b, n.X, true)
		b.WriteByte(' ')
		b.WriteString(n.Kind.String())
		b.WriteString(" (")
		grouped(b, n.Pred, false)
		b.WriteByte(')')
	case *If:
		b.WriteString("if ")
		grouped(b, n.Cond, false)
		b.WriteString(" then ")
		grouped(b, n.Then, false)
		b.WriteString(" else ")
		grouped(b, n.Else, false)
	}
}
