package compile

import (
	"slices"

	"github.com/croql/croql/ast"
	"github.com/croql/croql/mapping"
	"github.com/croql/croql/schema"
	"github.com/croql/croql/typecheck"
)

// Stmt is a statement and the values of its parameters, in order.
type Stmt struct {
	SQL  string
	Args []any
}

// total is the count of the rows a whole condition selects, counted from
// the elements' side, when the condition is "some element of C matches
// P" (`count of C where (P) > 0`, `C with (P)`), C a collection of the
// root row whose elements are rows of their own table with the root's key
// in a foreign key column fk, and P reads the element alone (or through
// subqueries that read no outer row):
//
//	SELECT COUNT(DISTINCT fk) FROM elements WHERE P
//
// A root row is selected exactly when one of its elements matches, and
// every element's fk is the key of a row of the root table (the loader
// writes the elements of each row it writes with the row's key, and the
// writes of a platform delete a string's elements with it), so the number
// of distinct fk among the matching elements is the number of rows
// selected; an fk that is NULL (an element of a table with several
// parents, owned by another one) is not counted, as it selects no row. The
// engines read an index on (the columns P tests, fk) alone, instead of
// testing every root row or building the list of their keys.
//
// nil for the Page purpose, on a sharded dialect (package store's
// coordinator answers there), for elements read through a join table, and
// where the row keeps the count (countExists) or the user of every element
// (someNotBy) that answers the condition from the root table alone. Where
// the mapping keeps counts of the elements by one of their values that
// answer the condition, or its negation (byShapeOf), it is byTotal's
// count of those.
//
// An error writing it (which the WHERE, compiled first from the same
// nodes, did not meet) leaves it nil: COUNT(*) over the WHERE counts the
// same rows.
func total(c *compiler, core typecheck.Node) *Stmt {
	if s, ok := c.keptTotalOf(core); ok {
		return s
	}
	if s, ok := c.byShapeOf(core); ok {
		return byTotal(c, s)
	}
	coll, with, ok := c.totalShape(core)
	if !ok {
		return nil
	}
	_, fk, ok := c.collectionParent(coll, with != nil)
	if !ok || c.err != nil {
		return nil
	}
	c.w("SELECT COUNT(DISTINCT ", fk, ")")
	c.elements(coll, with, false)
	return c.countStmt()
}

// totalShape matches core, the whole condition, as total's "some element
// of coll (that with's predicate keeps) matches", and reports whether
// total may count it from the elements' side.
func (c *compiler) totalShape(core typecheck.Node) (coll typecheck.Node, with *typecheck.Filter, ok bool) {
	if _, sharded := c.d.(Sharding); sharded || c.purpose == Page {
		return nil, nil, false
	}
	switch n := core.(type) {
	case *typecheck.Exists:
		if _, col := c.countOf(n.X); col != "" {
			return nil, nil, false
		}
		if _, by := c.notBy(n); by {
			return nil, nil, false
		}
		coll = n.X
	case *typecheck.Filter:
		if n.Kind != ast.With || n.X.Type().Kind != schema.Collection {
			return nil, nil, false
		}
		if _, col := c.withCount(n); col != "" {
			return nil, nil, false
		}
		coll, with = n.X, n
	default:
		return nil, nil, false
	}
	if correlated(coll, with) || !c.ownTable(coll) || c.err != nil {
		return nil, nil, false
	}
	return coll, with, true
}

// ownTable reports whether coll (filtered by `where` or not) is a
// collection field of the root row whose elements are rows of their own
// table, tied to the root row by a foreign key (not a join table).
func (c *compiler) ownTable(coll typecheck.Node) bool {
	base, ok := collectionField(coll)
	if !ok || base.Scope != 0 {
		return false
	}
	root := c.scopes[0]
	if root.tab == nil || (base.Obj != nil && base.Obj != root.obj) {
		return false
	}
	ch := root.tab.Children[base.F.Name]
	return ch != nil && ch.Through == "" && ch.FK != ""
}

// collectionField is the collection field under coll's where filters:
// false when it is not a field of a collection of objects.
func collectionField(coll typecheck.Node) (*typecheck.Field, bool) {
	x := coll
	for {
		f, ok := x.(*typecheck.Filter)
		if !ok || f.Kind != ast.Where {
			break
		}
		x = f.X
	}
	base, ok := x.(*typecheck.Field)
	return base, ok && base.F.Type.Kind == schema.Collection && base.F.Type.Obj != nil
}

// countStmt is the count statement written so far in c.b, nil when it
// failed or binds more parameters than the dialect takes.
func (c *compiler) countStmt() *Stmt {
	if c.err != nil {
		return nil
	}
	text, args := c.finish(c.b.String())
	if c.err != nil || len(args) > c.d.MaxParams() {
		return nil
	}
	return &Stmt{SQL: text, Args: args}
}

// keptTotalOf is the count of the rows a whole condition selects when it
// is one of the counts the root row keeps above zero (countExists: `count
// of records > 0`, `records with (usageCount > 0)`), or its negation,
// and the mapping keeps the totals of the root table (mapping.Table.Totals,
// one row):
//
//	SELECT t1."n_records_used" FROM "tm_segment_totals" AS t1
//	SELECT t1."n_rows" - t1."n_records" FROM "tm_segment_totals" AS t1
//
// false on a sharded engine (there is no such table), for a page, and for
// any other condition.
func (c *compiler) keptTotalOf(core typecheck.Node) (*Stmt, bool) {
	if _, sharded := c.d.(Sharding); sharded || c.purpose == Page || len(c.scopes) == 0 || c.scopes[0].tab == nil {
		return nil, false
	}
	n, neg := core, false
	if not, ok := n.(*typecheck.Not); ok {
		n, neg = not.X, true
	}
	var alias, col string
	switch x := n.(type) {
	case *typecheck.Exists:
		alias, col = c.countOf(x.X)
	case *typecheck.Filter:
		alias, col = c.withCount(x)
	}
	root := c.scopes[0]
	if col == "" || alias != root.alias {
		return nil, false
	}
	l, err := c.m.Layout()
	if err != nil {
		return nil, false
	}
	tt := l.TotalsOf(root.tab)
	if tt == nil || !slices.ContainsFunc(tt.Columns, func(name string) bool { return c.q(name) == col }) {
		return nil, false
	}
	a := c.alias()
	c.w("SELECT ")
	if neg {
		c.w(a, ".", c.q(mapping.TotalsRows), " - ")
	}
	c.w(a, ".", col, " FROM ", c.q(tt.Name), " AS ", a)
	s := c.countStmt()
	return s, s != nil
}
