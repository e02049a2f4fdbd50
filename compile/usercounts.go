package compile

import (
	"github.com/croql/croql/ast"
	"github.com/croql/croql/schema"
	"github.com/croql/croql/typecheck"
)

// The user of every element (mapping.SoleKey): where the mapping keeps,
// on a row, the user that all the elements of one of its collections
// share (NULL when they differ or there are none) beside the count of
// those elements, two questions about a user X read the row alone:
//
//	some element is not by X   count of translations where (user != X) > 0
//	                           n > 0 AND NOT COALESCE(u = X, FALSE)
//	every element is by X,     count of translations > 0 and
//	and there is one           count of translations = count of translations where (user = X)
//	                           u = X
//
// where n is the count and u the user column. An element's user is never
// absent (the mapping keeps the column only for such a field), so the
// elements are all by X exactly when u = X or there are none, and some
// element is not by X exactly when there is one and u is not X. X may be
// absent (an @user mention the users table does not hold): then no
// element is by X, and u = X is NULL, which COALESCE makes FALSE where
// the answer must be TRUE or FALSE.

// soleBy is a collection whose row keeps the user of every element, and
// the user X a question compares it with.
type soleBy struct {
	// base is the collection (a field of a bound row).
	base *typecheck.Field
	// user and count are the row's user and count columns, qualified.
	user, count string
	// x is X.
	x typecheck.Node
}

// notBy matches e, "some element of C is not by X": Exists over `C where
// (user != X)` or `C where (not (user = X))`, C a collection whose row
// keeps the user of every element and the count, user a user field of
// the element, X a constant.
func (c *compiler) notBy(e *typecheck.Exists) (soleBy, bool) {
	f, ok := e.X.(*typecheck.Filter)
	if !ok || f.Kind != ast.Where {
		return soleBy{}, false
	}
	base, ok := f.X.(*typecheck.Field)
	if !ok {
		return soleBy{}, false
	}
	pred, neg := f.Pred, false
	if n, ok := pred.(*typecheck.Not); ok {
		pred, neg = n.X, true
	}
	cmp, ok := pred.(*typecheck.Compare)
	if !ok || (neg && cmp.Op != ast.OpEq) || (!neg && cmp.Op != ast.OpNe) {
		return soleBy{}, false
	}
	field, x := cmp.X, cmp.Y
	if _, isConst := field.(*typecheck.Const); isConst {
		field, x = x, field
	}
	uf, ok := field.(*typecheck.Field)
	k, kok := x.(*typecheck.Const)
	if !ok || !kok || k.T.Kind != schema.User || uf.Scope != f.Scope || uf.Obj != f.Elem || uf.F.Type.Kind != schema.User {
		return soleBy{}, false
	}
	return c.soleOf(base, uf.F.Name, k)
}

// soleOf is the soleBy of collection base's elements' user field field
// and X x, when the mapping keeps their user and their count on base's
// row (not on a sharded engine, where the columns are not kept).
func (c *compiler) soleOf(base *typecheck.Field, field string, x typecheck.Node) (soleBy, bool) {
	if _, sharded := c.d.(Sharding); sharded {
		return soleBy{}, false
	}
	if base.F.Type.Kind != schema.Collection || base.Scope < 0 || base.Scope >= len(c.scopes) {
		return soleBy{}, false
	}
	p := c.scopes[base.Scope]
	if p.tab == nil || (base.Obj != nil && base.Obj != p.obj) {
		return soleBy{}, false
	}
	user, count := p.tab.Sole(field, base.F.Name), p.tab.Count(base.F.Name, "")
	if user == "" || count == "" {
		return soleBy{}, false
	}
	return soleBy{base: base, user: p.alias + "." + c.q(user), count: p.alias + "." + c.q(count), x: x}, true
}

// someNotBy writes e, "some element of C is not by X", from the row's
// count and user (see notBy), and reports whether it did. It is TRUE or
// FALSE.
func (c *compiler) someNotBy(e *typecheck.Exists) bool {
	s, ok := c.notBy(e)
	if !ok {
		return false
	}
	// Most rows have some element: on SQLite the count's index is kept
	// from the plan (`+n`), where it would look each row up through it.
	plus := ""
	if _, lite := c.d.(SQLite); lite {
		plus = "+"
	}
	c.w("(", plus, s.count, " > ")
	c.param(int64(0), schema.Int) // a value of the query: never written into the text
	c.w(" AND NOT ")
	c.userIs(s, true)
	c.w(")")
	return true
}

// userIs writes u = X, COALESCEd to FALSE when strict.
func (c *compiler) userIs(s soleBy, strict bool) {
	if strict {
		c.w("COALESCE(")
	}
	c.w("(", s.user, " = ")
	c.value(s.x)
	c.w(")")
	if strict {
		c.w(", ", c.d.Bool(false), ")")
	}
}

// andItems returns the writers of the operands ops of an AND chain, with
// "C has some element" and "no element of C is not by X" (Not of an
// Exists that notBy matches) written together, where the first of them
// stood, as u = X: every element of C is by X and there is one.
func (c *compiler) andItems(ops []typecheck.Node, strict bool) []func() {
	pairs := map[int]soleBy{}
	skip, used := map[int]bool{}, map[int]bool{}
	for i, op := range ops {
		s, ok := c.noneNotBy(op)
		if !ok {
			continue
		}
		for j, other := range ops {
			if used[j] {
				continue
			}
			if some, ok := other.(*typecheck.Exists); ok && sameField(some.X, s.base) {
				pairs[min(i, j)], skip[max(i, j)] = s, true
				used[i], used[j] = true, true
				break
			}
		}
	}
	items := make([]func(), 0, len(ops))
	for i, op := range ops {
		switch s, paired := pairs[i]; {
		case skip[i]:
		case paired:
			items = append(items, func() { c.userIs(s, strict) })
		default:
			items = append(items, func() { c.pred(op, strict) })
		}
	}
	return items
}

// noneNotBy matches n, "no element of C is not by X": Not of an Exists
// that notBy matches.
func (c *compiler) noneNotBy(n typecheck.Node) (soleBy, bool) {
	not, ok := n.(*typecheck.Not)
	if !ok {
		return soleBy{}, false
	}
	e, ok := not.X.(*typecheck.Exists)
	if !ok {
		return soleBy{}, false
	}
	return c.notBy(e)
}

// sameField reports whether n is the collection field f (of the same
// row).
func sameField(n typecheck.Node, f *typecheck.Field) bool {
	g, ok := n.(*typecheck.Field)
	return ok && g.F == f.F && g.Obj == f.Obj && g.Scope == f.Scope
}
