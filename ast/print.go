package ast

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Printer writes the canonical form of a tree: lower-case keywords, single
// spaces, the predicate of where/with always in parentheses, and other
// parentheses only where precedence needs them.
type Printer struct {
	// Name, when set, gives the spelling to print for an identifier (the type
	// checker supplies the documented spelling of each field). When nil, or
	// when it returns "", the name is printed as written.
	Name func(*Ident) string
}

// Print returns the canonical form of e with names as written.
func Print(e Expr) string { return Printer{}.Print(e) }

// Print returns the canonical form of e.
func (p Printer) Print(e Expr) string {
	var b strings.Builder
	p.expr(&b, e, PrecIf)
	return b.String()
}

func (p Printer) sub(b *strings.Builder, e Expr, need int) {
	if Precedence(e) < need {
		b.WriteByte('(')
		p.expr(b, e, PrecIf)
		b.WriteByte(')')
		return
	}
	p.expr(b, e, need)
}

func (p Printer) expr(b *strings.Builder, e Expr, _ int) {
	switch n := e.(type) {
	case *Ident:
		b.WriteString(p.name(n))
	case *Int:
		b.WriteString(strconv.FormatInt(n.Value, 10))
	case *Float:
		b.WriteString(FormatFloat(n.Value))
	case *String:
		b.WriteString(Quote(n.Value))
	case *Datetime:
		b.WriteByte('\'')
		b.WriteString(n.Text)
		b.WriteByte('\'')
	case *Mention:
		b.WriteByte('@')
		b.WriteString(n.Kind)
		b.WriteByte(':')
		b.WriteString(Quote(n.Value))
	case *Unary:
		if n.Op == OpNot {
			b.WriteString("not ")
			p.sub(b, n.X, PrecNot)
			return
		}
		b.WriteByte('-')
		var inner strings.Builder
		p.sub(&inner, n.X, PrecNeg)
		if strings.HasPrefix(inner.String(), "-") {
			b.WriteByte(' ')
		}
		b.WriteString(inner.String())
	case *Binary:
		prec := n.Op.Precedence()
		left, right := prec, prec+1
		if n.Op.IsComparison() {
			left = prec + 1
		}
		p.sub(b, n.X, left)
		b.WriteByte(' ')
		b.WriteString(n.Op.String())
		b.WriteByte(' ')
		p.sub(b, n.Y, right)
	case *Between:
		p.sub(b, n.X, PrecAdd)
		b.WriteString(" between ")
		p.sub(b, n.Lo, PrecAdd)
		b.WriteString(" and ")
		p.sub(b, n.Hi, PrecAdd)
	case *Member:
		if strings.EqualFold(n.Name.Name, "count") {
			b.WriteString("count") // the built-in member is canonical lower-case
		} else {
			b.WriteString(p.name(n.Name))
		}
		b.WriteString(" of ")
		p.sub(b, n.X, PrecOf)
	case *Filter:
		p.sub(b, n.X, PrecFilter)
		b.WriteByte(' ')
		b.WriteString(n.Kind.String())
		b.WriteString(" (")
		p.expr(b, n.Pred, PrecIf)
		b.WriteByte(')')
	case *If:
		b.WriteString("if ")
		p.expr(b, n.Cond, PrecIf)
		b.WriteString(" then ")
		p.expr(b, n.Then, PrecIf)
		b.WriteString(" else ")
		p.expr(b, n.Else, PrecIf)
	default:
		fmt.Fprintf(b, "<%T>", e)
	}
}

func (p Printer) name(n *Ident) string {
	if p.Name != nil {
		if s := p.Name(n); s != "" {
			return s
		}
	}
	return n.Name
}

// FormatFloat writes a float so that it reads back as a float: always with
// a decimal point, never with an exponent.
func FormatFloat(f float64) string {
	s := strconv.FormatFloat(f, 'f', -1, 64)
	if !strings.ContainsRune(s, '.') {
		s += ".0"
	}
	return s
}

// Quote writes s as a double-quoted CroQL string: \" \\ \n \t \r escaped,
// other control characters as \uXXXX, everything else as is.
func Quote(s string) string {
	var b strings.Builder
	b.Grow(len(s) + 2)
	b.WriteByte('"')
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == '"':
			b.WriteString(`\"`)
		case r == '\\':
			b.WriteString(`\\`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\r':
			b.WriteString(`\r`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+size]) // invalid bytes are kept as they are
		}
		i += size
	}
	b.WriteByte('"')
	return b.String()
}

// Dump writes the tree one node a line, children indented under their
// parent, each line ending with the node's byte span: the shape `croql
// explain` shows so that a user sees how precedence grouped the query.
func Dump(e Expr) string {
	var b strings.Builder
	dump(&b, e, 0)
	return b.String()
}

func dump(b *strings.Builder, e Expr, depth int) {
	b.WriteString(strings.Repeat("  ", depth))
	switch n := e.(type) {
	case *Ident:
		fmt.Fprintf(b, "field %q", n.Name)
	case *Int:
		fmt.Fprintf(b, "int %d", n.Value)
	case *Float:
		fmt.Fprintf(b, "float %s", FormatFloat(n.Value))
	case *String:
		fmt.Fprintf(b, "string %s", Quote(n.Value))
	case *Datetime:
		fmt.Fprintf(b, "datetime '%s'", n.Text)
	case *Mention:
		fmt.Fprintf(b, "mention @%s:%s", n.Kind, Quote(n.Value))
	case *Unary:
		fmt.Fprintf(b, "%s (unary)", n.Op)
	case *Binary:
		b.WriteString(n.Op.String())
	case *Between:
		b.WriteString("between")
	case *Member:
		fmt.Fprintf(b, "%s of", n.Name.Name)
	case *Filter:
		b.WriteString(n.Kind.String())
	case *If:
		b.WriteString("if")
	default:
		fmt.Fprintf(b, "%T", e)
	}
	fmt.Fprintf(b, "  [%d:%d]\n", e.Span().Start, e.Span().End)
	for _, c := range Children(e) {
		if m, ok := e.(*Member); ok && c == Expr(m.Name) {
			continue // the member name is on the parent's line
		}
		dump(b, c, depth+1)
	}
}
