package compile

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/croql/croql/ast"
	"github.com/croql/croql/mapping"
	"github.com/croql/croql/schema"
	"github.com/croql/croql/typecheck"
)

// The pieces of a compiled query that a service composes itself: the
// coordinator of package store (a query answered at croql's side of a
// sharded engine) and a served list's page of keys.

// Root is the condition where, with arguments args, on the root table of
// context c: the SELECT shell CompileFor writes (alias, key, table), for a
// condition written elsewhere ("TRUE", a key list).
func Root(d Dialect, m *mapping.Mapping, c *schema.Context, where string, args []any) (*SQL, error) {
	if d == nil || m == nil || c == nil {
		return nil, errors.New("compile: Root needs a dialect, a mapping and a context")
	}
	root, err := rootTable(m, c)
	if err != nil {
		return nil, err
	}
	return rootSQL(d, root, where, args), nil
}

// Conjunction compiles the conjunction of parts, each a condition on the
// root row of q's context taken from q's core tree (typecheck.CoreOf, with
// scopes scopes), for dialect d, mapping m and purpose p. With no parts
// it is Root's TRUE.
func Conjunction(q *typecheck.Query, parts []typecheck.Node, scopes int, d Dialect, m *mapping.Mapping, p Purpose) (*SQL, error) {
	if q == nil || d == nil || m == nil {
		return nil, errors.New("compile: Conjunction needs a query, a dialect and a mapping")
	}
	root, err := rootTable(m, q.Context)
	if err != nil {
		return nil, err
	}
	if len(parts) == 0 {
		return rootSQL(d, root, d.Bool(true), nil), nil
	}
	n := parts[0]
	for _, k := range parts[1:] {
		n = &typecheck.Logic{Op: ast.OpAnd, X: n, Y: k, Sp: k.Span()}
	}
	return compileCore(q, n, scopes, d, m, p, root)
}

// HoldsSubquery reports whether the SQL of n reads another row than the
// root's own: a collection, a referenced object, a lookup.
func HoldsSubquery(n typecheck.Node) bool { return holdsSubquery(n) }

// KeyIn is a compiled condition selecting exactly the root objects of
// context c whose keys are ids: `t0.id IN (?, ...)` (FALSE for no ids),
// with the alias and columns CompileFor writes, so that a service can put
// the coordinator's answer where a compiled query's Where goes. It fails
// with ErrTooManyParams when ids has more values than one statement of d
// may hold.
func KeyIn(d Dialect, m *mapping.Mapping, c *schema.Context, ids []int64) (*SQL, error) {
	if d == nil || m == nil || c == nil {
		return nil, errors.New("compile: KeyIn needs a dialect, a mapping and a context")
	}
	root, err := rootTable(m, c)
	if err != nil {
		return nil, err
	}
	if len(ids) > d.MaxParams() {
		return nil, fmt.Errorf("compile: %d keys, more than the %d parameters one %s statement may have: %w", len(ids), d.MaxParams(), d.Name(), ErrTooManyParams)
	}
	s := rootSQL(d, root, "", nil)
	if len(ids) == 0 {
		s.Where = d.Bool(false)
		return s, nil
	}
	list, args := KeyList(d, make([]any, 0, len(ids)), ids)
	s.Where, s.Args = s.Key+" IN ("+list+")", args
	return s, nil
}

// KeyList is the inside of an IN list of keys: one integer parameter per
// key, numbered after the arguments args already holds, and args with the
// keys appended. Every list of keys croql writes (KeyIn, package store's
// reader, croql serve's pages) is written by it.
//
// On SQLite it is one parameter, the keys as a JSON array, read by
// json_each (`SELECT value FROM json_each(?)`): the planner searches the
// column's index for each key as it does for a list, and the statement's
// text is the same for any keys. With a parameter per key, SQLite's
// STAT4 samples make the planner plan the statement twice, once as it is
// prepared and again at its first step with the keys bound, which was
// most of the cost of a page's small reads (a page's labels, its TM
// records).
func KeyList(d Dialect, args []any, keys []int64) (string, []any) {
	if _, lite := d.(SQLite); lite {
		b := make([]byte, 0, 2+len(keys)*8)
		b = append(b, '[')
		for i, k := range keys {
			if i > 0 {
				b = append(b, ',')
			}
			b = strconv.AppendInt(b, k, 10)
		}
		args = append(args, string(append(b, ']')))
		return "SELECT value FROM json_each(" + d.Param(len(args), schema.String) + ")", args
	}
	var b strings.Builder
	for i, k := range keys {
		if i > 0 {
			b.WriteString(", ")
		}
		args = append(args, k)
		b.WriteString(d.Param(len(args), schema.Int))
	}
	return b.String(), args
}

// rootAlias is the root row's alias in every compiled condition: the
// compiler's first alias (compiler.alias), which binds the root row.
const rootAlias = "t0"

// InsertSQL is a multi-row INSERT of n rows into table, in dialect d:
// INSERT INTO table (cols) VALUES (?, ...), ..., identifiers quoted and
// one placeholder per value, numbered from 1 in row order. The loader and
// croql serve's uploads write their batches with it.
func InsertSQL(d Dialect, table string, cols []string, n int) string {
	var s strings.Builder
	s.WriteString("INSERT INTO ")
	s.WriteString(d.Quote(table))
	s.WriteString(" (")
	for i, c := range cols {
		if i > 0 {
			s.WriteString(", ")
		}
		s.WriteString(d.Quote(c))
	}
	s.WriteString(") VALUES ")
	p := 0
	for r := range n {
		if r > 0 {
			s.WriteString(", ")
		}
		s.WriteByte('(')
		for i := range cols {
			if i > 0 {
				s.WriteString(", ")
			}
			p++
			s.WriteString(d.Placeholder(p))
		}
		s.WriteByte(')')
	}
	return s.String()
}
