package ast

import "strings"

// Children returns the direct sub-expressions of e in source order.
func Children(e Expr) []Expr {
	switch n := e.(type) {
	case *Unary:
		return []Expr{n.X}
	case *Binary:
		return []Expr{n.X, n.Y}
	case *Between:
		return []Expr{n.X, n.Lo, n.Hi}
	case *Member:
		return []Expr{n.Name, n.X}
	case *Filter:
		return []Expr{n.X, n.Pred}
	case *If:
		return []Expr{n.Cond, n.Then, n.Else}
	default:
		return nil
	}
}

// Inspect walks the tree in depth-first order, calling f for each node
// before its children. When f returns false, the children of that node are
// skipped.
func Inspect(e Expr, f func(Expr) bool) {
	if e == nil || !f(e) {
		return
	}
	for _, c := range Children(e) {
		Inspect(c, f)
	}
}

// Count returns the number of nodes of the tree.
func Count(e Expr) int {
	n := 0
	Inspect(e, func(Expr) bool { n++; return true })
	return n
}

// Equal reports whether a and b are the same tree, ignoring spans.
// Identifier names compare exactly as written, except the built-in member
// `count`, which the printer writes in lower case however it was written.
func Equal(a, b Expr) bool {
	switch x := a.(type) {
	case nil:
		return b == nil
	case *Ident:
		y, ok := b.(*Ident)
		return ok && x.Name == y.Name
	case *Int:
		y, ok := b.(*Int)
		return ok && x.Value == y.Value
	case *Float:
		y, ok := b.(*Float)
		return ok && x.Value == y.Value
	case *String:
		y, ok := b.(*String)
		return ok && x.Value == y.Value
	case *Datetime:
		y, ok := b.(*Datetime)
		return ok && x.Text == y.Text
	case *Mention:
		y, ok := b.(*Mention)
		return ok && x.Kind == y.Kind && x.Value == y.Value
	case *Unary:
		y, ok := b.(*Unary)
		return ok && x.Op == y.Op && Equal(x.X, y.X)
	case *Binary:
		y, ok := b.(*Binary)
		return ok && x.Op == y.Op && Equal(x.X, y.X) && Equal(x.Y, y.Y)
	case *Between:
		y, ok := b.(*Between)
		return ok && Equal(x.X, y.X) && Equal(x.Lo, y.Lo) && Equal(x.Hi, y.Hi)
	case *Member:
		y, ok := b.(*Member)
		return ok && memberNameEqual(x.Name.Name, y.Name.Name) && Equal(x.X, y.X)
	case *Filter:
		y, ok := b.(*Filter)
		return ok && x.Kind == y.Kind && Equal(x.X, y.X) && Equal(x.Pred, y.Pred)
	case *If:
		y, ok := b.(*If)
		return ok && Equal(x.Cond, y.Cond) && Equal(x.Then, y.Then) && Equal(x.Else, y.Else)
	}
	return false
}

// memberNameEqual compares member names as written, the built-in `count`
// in any case.
func memberNameEqual(a, b string) bool {
	if strings.EqualFold(a, "count") {
		return strings.EqualFold(b, "count")
	}
	return a == b
}
