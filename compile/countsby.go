package compile

import (
	"strings"

	"github.com/croql/croql/ast"
	"github.com/croql/croql/mapping"
	"github.com/croql/croql/schema"
	"github.com/croql/croql/typecheck"
)

// byShape is a whole condition byTotal counts from a CountsBy table:
// "some element of the root row's collection has the value k of the
// table's By field and matches one of the filters the table keeps a count
// of" (none: any element with the value), or its negation.
type byShape struct {
	neg  bool
	cb   *mapping.CountsByTable
	eq   typecheck.Node // the element's `by = k`
	f    *typecheck.Filter
	cols []string // the counts of the filters, any of them above zero
}

// byTotal is the count of the rows a whole condition selects, when it is
// `count of C where (F = k and P) > 0` (`C with (...)`, or `= 0`: its
// negation) and the mapping keeps the counts of the elements of C by
// their field F (mapping.CountsBy), P a disjunction of filters it keeps a
// count of (`count of approvals > 0 or count of votes > 0`), or nothing:
//
//	SELECT COUNT(*) FROM counts AS t1 WHERE t1.F = k AND (t1.n_p1 > 0 OR t1.n_p2 > 0)
//	SELECT (SELECT COUNT(*) FROM root) - (SELECT COUNT(*) FROM counts AS t1 WHERE ...)
//
// The table has one row per root row and value its elements hold (the
// loader and store.RefreshCounts keep it, and the writes of a platform
// delete a string's rows with it), so its rows where the value is k and
// one of the counts is above zero are the root rows that match, and the
// others are every other root row: a range of the table's index of the
// value and the counts, instead of the elements of every root row. s is
// the condition's shape (byShapeOf); nil on an error writing it.
func byTotal(c *compiler, s byShape) *Stmt {
	root := c.scopes[0]
	a := c.alias()
	if s.neg {
		c.w("SELECT (SELECT COUNT(*) FROM ", c.q(root.tab.Name), ") - (")
	}
	c.w("SELECT COUNT(*) FROM ", c.q(s.cb.Name), " AS ", a, " WHERE ")
	side := &mapping.Table{Name: s.cb.Name, Columns: map[string]string{s.cb.By.Name: s.cb.ByColumn}}
	c.bindPred(s.f.Scope, binding{alias: a, obj: s.f.Elem, tab: side}, s.eq)
	if len(s.cols) > 0 {
		terms := make([]string, len(s.cols))
		for i, col := range s.cols {
			terms[i] = a + "." + c.q(col) + " > 0"
		}
		c.w(" AND (", strings.Join(terms, " OR "), ")")
	}
	if s.neg {
		c.w(")")
	}
	return c.countStmt()
}

// byShapeOf matches core as byTotal's shape.
func (c *compiler) byShapeOf(core typecheck.Node) (byShape, bool) {
	var s byShape
	if _, sharded := c.d.(Sharding); sharded || c.purpose == Page {
		return s, false
	}
	n := core
	if not, ok := n.(*typecheck.Not); ok {
		s.neg, n = true, not.X
	}
	switch x := n.(type) {
	case *typecheck.Exists:
		f, ok := x.X.(*typecheck.Filter)
		if !ok || f.Kind != ast.Where {
			return s, false
		}
		s.f = f
	case *typecheck.Filter:
		if x.Kind != ast.With {
			return s, false
		}
		s.f = x
	default:
		return s, false
	}
	base, ok := s.f.X.(*typecheck.Field)
	root := c.scopes[0]
	if !ok || base.Scope != 0 || base.F.Type.Kind != schema.Collection || root.tab == nil || (base.Obj != nil && base.Obj != root.obj) {
		return s, false
	}
	l, err := c.m.Layout()
	if err != nil {
		return s, false
	}
	terms := []typecheck.Node{s.f.Pred}
	if and, ok := s.f.Pred.(*typecheck.Logic); ok && and.Op == ast.OpAnd {
		terms = flatten(and)
	}
	for i, t := range terms {
		x, _, ok := columnEqValue(t)
		pf, isField := x.(*typecheck.Field)
		if !ok || !isField || pf.Scope != s.f.Scope || pf.Obj != s.f.Elem {
			continue
		}
		if s.cb = l.CountsBy(root.tab, base.F.Name, pf.F.Name); s.cb != nil {
			s.eq = t
			rest := append(append([]typecheck.Node(nil), terms[:i]...), terms[i+1:]...)
			s.cols, ok = byCounts(s.f, s.cb, rest)
			return s, ok
		}
	}
	return s, false
}

// byCounts are the counts of cb whose filters, any of them, hold exactly
// where rest (terms of f's filter, joined by `and`) holds: rest's one term
// an `or` of filters cb keeps a count of, or rest those of one filter;
// none for no terms (any element). false when cb keeps no such counts.
func byCounts(f *typecheck.Filter, cb *mapping.CountsByTable, rest []typecheck.Node) ([]string, bool) {
	if len(rest) == 0 {
		return nil, true
	}
	alts := [][]typecheck.Node{rest}
	if or, ok := rest[0].(*typecheck.Logic); ok && or.Op == ast.OpOr && len(rest) == 1 {
		alts = nil
		for _, x := range flatten(or) {
			terms := []typecheck.Node{x}
			if and, ok := x.(*typecheck.Logic); ok && and.Op == ast.OpAnd {
				terms = flatten(and)
			}
			alts = append(alts, terms)
		}
	}
	var cols []string
	for _, terms := range alts {
		keys := make([]string, len(terms))
		for i, t := range terms {
			if keys[i] = countTerm(f, t); keys[i] == "" {
				return nil, false
			}
		}
		col := cb.Count(strings.Join(keys, " and "))
		if col == "" {
			return nil, false
		}
		cols = append(cols, col)
	}
	return cols, true
}
