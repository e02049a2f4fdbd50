package fuzz

import (
	"unicode/utf8"

	"github.com/leanovate/gopter"

	"github.com/croql/croql/ast"
	"github.com/croql/croql/schema"
)

// shrinker shrinks a Case: each candidate replaces one node of one part by
// something smaller (one of its own descendants, or a minimal literal), and
// only valid candidates (the framed query checks clean, see valid) are
// offered, so a shrunk counterexample is a well-typed query too. Every candidate has
// fewer nodes, or as many with a simpler literal, so shrinking ends.
func (g *Generator) shrinker(v any) gopter.Shrink {
	c, ok := v.(Case)
	if !ok {
		return gopter.NoShrink
	}
	type site struct {
		part int
		node ast.Expr
	}
	var sites []site
	for i, p := range c.Parts {
		walk(p, func(e ast.Expr) { sites = append(sites, site{i, e}) })
	}
	si, alts, ai := 0, []ast.Expr(nil), 0
	return func() (any, bool) {
		for si < len(sites) {
			if alts == nil {
				alts = g.smaller(sites[si].node)
				ai = 0
			}
			for ai < len(alts) {
				alt := alts[ai]
				ai++
				s := sites[si]
				parts := append([]ast.Expr(nil), c.Parts...)
				parts[s.part] = replace(parts[s.part], s.node, alt)
				cand := Case{Context: c.Context, Parts: parts, frame: c.frame, roles: c.roles}
				if g.valid(cand) {
					return cand, true
				}
			}
			si++
			alts = nil
		}
		return nil, false
	}
}

// smaller lists replacements for e, largest first: its proper descendants
// (member names excluded), the bool fields of the context, and minimal
// literals, each smaller than e.
func (g *Generator) smaller(e ast.Expr) []ast.Expr {
	var out []ast.Expr
	n := ast.Count(e)
	for _, k := range operands(e) {
		walk(k, func(d ast.Expr) { out = append(out, d) })
	}
	// Minimal literals of each kind; the checker keeps the right one.
	zero := []ast.Expr{&ast.Int{Value: 0}, &ast.String{Value: ""}, &ast.Float{Value: 0},
		&ast.Datetime{Text: "2024-01-01 00:00:00"}}
	if n > 1 {
		for _, name := range g.boolNames {
			out = append(out, &ast.Ident{Name: name})
		}
	}
	if n > 3 {
		out = append(out, &ast.Binary{Op: ast.OpEq, X: &ast.Int{Value: 0}, Y: &ast.Int{Value: 0}})
	}
	switch x := e.(type) {
	case *ast.Int:
		if x.Value != 0 {
			out = append(out, zero[0])
		}
	case *ast.String:
		if x.Value != "" {
			out = append(out, zero[1], &ast.String{Value: halve(x.Value)})
		}
	case *ast.Float:
		if x.Value != 0 {
			out = append(out, zero[2])
		}
	case *ast.Datetime:
		if x.Text != zero[3].(*ast.Datetime).Text {
			out = append(out, zero[3])
		}
	default:
		if n > 1 {
			out = append(out, zero...)
		}
	}
	return out
}

// halve returns the first half of s, cut at a rune boundary (so that a
// valid string stays valid) and shorter than s.
func halve(s string) string {
	i := len(s) / 2
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i]
}

// walk calls f on e and every expression under it in pre-order, leaving
// out member names.
func walk(e ast.Expr, f func(ast.Expr)) {
	f(e)
	for _, k := range operands(e) {
		walk(k, f)
	}
}

// operands are the children of e that are expressions (a member's name is
// not one).
func operands(e ast.Expr) []ast.Expr {
	if m, ok := e.(*ast.Member); ok {
		return []ast.Expr{m.X}
	}
	return ast.Children(e)
}

// replace returns root with the node old (found by identity) replaced by
// repl, copying the nodes on the path and sharing the rest.
func replace(root, old, repl ast.Expr) ast.Expr {
	if root == old {
		return repl
	}
	switch n := root.(type) {
	case *ast.Unary:
		if x := replace(n.X, old, repl); x != n.X {
			m := *n
			m.X = x
			return &m
		}
	case *ast.Binary:
		x, y := replace(n.X, old, repl), replace(n.Y, old, repl)
		if x != n.X || y != n.Y {
			m := *n
			m.X, m.Y = x, y
			return &m
		}
	case *ast.Between:
		x, lo, hi := replace(n.X, old, repl), replace(n.Lo, old, repl), replace(n.Hi, old, repl)
		if x != n.X || lo != n.Lo || hi != n.Hi {
			m := *n
			m.X, m.Lo, m.Hi = x, lo, hi
			return &m
		}
	case *ast.Member:
		if x := replace(n.X, old, repl); x != n.X {
			m := *n
			m.X = x
			return &m
		}
	case *ast.Filter:
		x, p := replace(n.X, old, repl), replace(n.Pred, old, repl)
		if x != n.X || p != n.Pred {
			m := *n
			m.X, m.Pred = x, p
			return &m
		}
	case *ast.If:
		c, t, e := replace(n.Cond, old, repl), replace(n.Then, old, repl), replace(n.Else, old, repl)
		if c != n.Cond || t != n.Then || e != n.Else {
			m := *n
			m.Cond, m.Then, m.Else = c, t, e
			return &m
		}
	}
	return root
}

// NormalNames returns a copy of e with every name in its normal form
// (schema.NormalKey), so that trees that differ only in how names are
// spelled compare equal with ast.Equal.
func NormalNames(e ast.Expr) ast.Expr {
	switch n := e.(type) {
	case *ast.Ident:
		m := *n
		m.Name = schema.NormalKey(n.Name)
		return &m
	case *ast.Unary:
		m := *n
		m.X = NormalNames(n.X)
		return &m
	case *ast.Binary:
		m := *n
		m.X, m.Y = NormalNames(n.X), NormalNames(n.Y)
		return &m
	case *ast.Between:
		m := *n
		m.X, m.Lo, m.Hi = NormalNames(n.X), NormalNames(n.Lo), NormalNames(n.Hi)
		return &m
	case *ast.Member:
		m := *n
		m.Name = NormalNames(n.Name).(*ast.Ident)
		m.X = NormalNames(n.X)
		return &m
	case *ast.Filter:
		m := *n
		m.X, m.Pred = NormalNames(n.X), NormalNames(n.Pred)
		return &m
	case *ast.If:
		m := *n
		m.Cond, m.Then, m.Else = NormalNames(n.Cond), NormalNames(n.Then), NormalNames(n.Else)
		return &m
	}
	return e
}
