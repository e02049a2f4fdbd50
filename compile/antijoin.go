package compile

import (
	"github.com/croql/croql/ast"
	"github.com/croql/croql/typecheck"
)

// notIn writes n, "no element of coll matches P" (n is Not of e, e the
// Exists over coll), as an uncorrelated anti-join,
//
//	(parent.key NOT IN (SELECT fk FROM elements WHERE P))
//
// where the dialect plans that better than a correlated NOT EXISTS per
// parent row (Dialect SemiJoinIn), and reports whether it did. It holds
// exactly where NOT EXISTS does, and is TRUE or FALSE:
//
//   - P reads the element alone (no outer row: not correlated), so the
//     subquery's rows are the matching elements of every parent, each
//     with its parent's key in fk, and a parent is in them exactly when
//     one of its elements matches; a parent without elements is in none
//     and is kept, as its count is 0;
//   - fk is NOT NULL (a join table's column, or the foreign key of an
//     element table with one parent: see ownerNotNull) and so is the
//     parent's key, so NOT IN never meets a NULL, which would make it
//     NULL instead of TRUE;
//   - an @user mention in P that no user holds is NULL in P as in NOT
//     EXISTS, and matches no element: every parent is kept.
//
// Elements shared between parents (the translations a duplicate string
// lists from its master) are read through the join table, whose rows
// give each parent that lists the element.
//
// Like semiJoin, only for the WholeSet purpose (the engine builds the
// whole list of matches before the first row, so a page keeps the
// correlated form, which stops after its rows), only where n is the whole
// condition, or that of the elements of a semi-join (beside another
// condition the list is built however few rows that condition leaves:
// `text contains "Welcome" and count of translations where (text contains
// "Welcome") = 0` took twice as long as NOT IN on SQLite), only over
// filtered elements (an unfiltered NOT IN lists every element), and not
// where the row keeps the count (countExists) or the user of every
// element (someNotBy) that answers it without the elements.
func (c *compiler) notIn(n *typecheck.Not, e *typecheck.Exists) bool {
	if _, sharded := c.d.(Sharding); sharded || c.purpose == Page || !semiJoinIn(c.d) {
		return false
	}
	f, where := e.X.(*typecheck.Filter)
	if n.X != e || (n != c.root && n != c.subRoot) || !where || f.Kind != ast.Where || correlated(e.X, nil) {
		return false
	}
	if c.countColumn(e.X) != "" {
		return false
	}
	if _, ok := c.notBy(e); ok {
		return false
	}
	if !c.ownerNotNull(e.X) {
		return false
	}
	parent, fk, ok := c.collectionParent(e.X, false)
	if !ok {
		return false
	}
	c.w("(", parent, " NOT IN (SELECT ", fk)
	c.elements(e.X, nil, false)
	c.w("))")
	return true
}

// ownerNotNull reports whether the column that holds the parent's key on
// the rows of collection coll's elements (collectionParent's fk) is NOT
// NULL in the DDL: a join table's column always is, an element table's
// foreign key when the table has one parent (mapping.TableLayout.Nullable).
func (c *compiler) ownerNotNull(coll typecheck.Node) bool {
	base, ok := collectionField(coll)
	if !ok || base.Scope < 0 || base.Scope >= len(c.scopes) {
		return false
	}
	p := c.scopes[base.Scope]
	if p.tab == nil {
		return false
	}
	ch := p.tab.Children[base.F.Name]
	switch {
	case ch == nil:
		return false
	case ch.Through != "":
		return true
	}
	et, err := c.m.Table(base.F.Type.Obj)
	if err != nil {
		return false
	}
	if c.layout == nil {
		l, err := c.m.Layout()
		if err != nil {
			return false
		}
		c.layout = l
	}
	ti := c.layout.Of(et)
	if ti == nil {
		return false
	}
	for _, col := range ti.Columns {
		if col.Name == ch.FK {
			return !ti.Nullable(col)
		}
	}
	return false
}
