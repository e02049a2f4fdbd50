// Package compile turns a checked CroQL query (package typecheck) into a SQL
// WHERE clause for PostgreSQL, SQLite or MySQL/MariaDB, with every value a
// bound parameter and every identifier taken from a [Mapping] and quoted.
//
// The SQL reproduces the language's semantics exactly (docs/language.md
// sections 3-5): two-valued logic (every compiled predicate is TRUE or FALSE,
// never NULL, wherever NULL would change the outcome), null-safe `=`,
// ordering, between and contains false on an absent operand, arithmetic
// with an absent operand absent, division by zero absent, `count of` an
// absent collection 0, and code-point string comparison. Collections become
// correlated subqueries; a count compared with zero becomes EXISTS or NOT
// EXISTS.
//
// The package writes SQL text and nothing else: it opens no connection and
// imports no driver. The tables and columns come from package mapping
// ([mapping.Mapping], [mapping.Default]); package store creates the tables
// (store.DDL), loads, reads back and runs what is compiled here, and answers
// on a sharded engine (the [Vitess] dialect) what the engine refuses with
// its coordinator.
package compile

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/croql/croql/ast"
	"github.com/croql/croql/diag"
	"github.com/croql/croql/mapping"
	"github.com/croql/croql/schema"
	"github.com/croql/croql/typecheck"
)

// ErrUnrepresentable is wrapped by errors about a value an engine cannot
// hold (PostgreSQL text with NUL or invalid UTF-8, for instance).
var ErrUnrepresentable = errors.New("value not representable in this engine")

// ErrTooManyParams is wrapped by the error of a query with more values
// than the dialect's MaxParams: every value is a bound parameter.
var ErrTooManyParams = errors.New("too many parameters")

// SQL is a compiled query.
type SQL struct {
	// Where is the condition on the root row, aliased Alias.
	Where string
	// Args are the values of the parameters of Where, in order.
	Args []any
	// From is the root table with its alias: "strings" AS t0.
	From string
	// Key is the root row's key column, qualified: t0."id".
	Key string
	// Table and Alias are the root table and its alias.
	Table, Alias string
	// Dialect is the dialect the text is written in.
	Dialect Dialect
	// CrossShard, for a sharded dialect (Sharding): the statement joins
	// rows that the layout places on different shards (a string's labels
	// read with a condition that also reads the string: the join table is
	// on the string's shard, each label on its own; see
	// mapping.Colocated), which vtgate runs as a nested loop, a query to
	// the shards per row. package store answers such a query through its
	// coordinator, which reads the rows by key a chunk at a time.
	CrossShard bool
	// Count, when not nil, counts the rows Where selects without reading
	// the root table: a statement whose one row holds the number, as
	// SELECT COUNT(*) FROM From WHERE Where would (compile.WholeSet only;
	// see total). It holds for the whole condition alone: a caller that
	// adds conditions of its own counts with COUNT(*).
	Count *Stmt

	// q and m are the query and mapping, kept for a sharded dialect
	// (Sharding), whose engine may refuse the statement: Run and RunLimit
	// then ask the coordinator (see Exec).
	q *typecheck.Query
	m *mapping.Mapping
}

// Query is the checked query s was compiled from (nil for a condition
// written with Root or KeyIn).
func (s *SQL) Query() *typecheck.Query { return s.q }

// Mapping is the mapping s was compiled for (nil for Root and KeyIn).
func (s *SQL) Mapping() *mapping.Mapping { return s.m }

// Select is the full query returning the keys of the matching rows in
// ascending order: SELECT key FROM from WHERE where ORDER BY key.
func (s *SQL) Select() string {
	return "SELECT " + s.Key + " FROM " + s.From + " WHERE " + s.Where + " ORDER BY " + s.Key
}

// SelectLimit is Select limited to limit rows; the limit is one more
// parameter, appended to a copy of Args.
func (s *SQL) SelectLimit(limit int) (string, []any) {
	args := append(append([]any(nil), s.Args...), int64(limit))
	return s.Select() + s.Dialect.Limit(s.Dialect.Param(len(args), schema.Int)), args
}

// Purpose is what a compiled condition is for. Where engines plan two
// equivalent forms differently, the compiler picks the one that suits the
// purpose (docs/sql.md, "Pages and whole sets"); the rows selected are the
// same either way.
type Purpose uint8

const (
	// WholeSet: every match is read (a total, a count, a full list). The
	// forms that are fastest over the whole set: on SQLite a semi-join
	// `key IN (SELECT fk ...)` and an anti-join `key NOT IN (SELECT fk
	// ...)`, and a count compared with a constant as a
	// grouped `IN (... GROUP BY fk HAVING COUNT(*) op k)` on every engine.
	WholeSet Purpose = iota
	// Page: the first rows in key order (Select with a LIMIT). Only
	// correlated forms (EXISTS, a COUNT per row), which an engine walking
	// the key in order can stop after the last row of the page, where the
	// whole-set forms build the whole list of matches before the first row.
	Page
)

// String is "whole set" or "page".
func (p Purpose) String() string {
	if p == Page {
		return "page"
	}
	return "whole set"
}

// Compile compiles q, a query without errors, for dialect d over mapping m,
// for the purpose WholeSet (see CompileFor).
// An error about one node of q (a value the dialect cannot hold, a field
// the mapping has no column for, the dialect's parameter limit) wraps a
// *diag.SpanError with that node's span (diag.SpanOf finds it).
func Compile(q *typecheck.Query, d Dialect, m *mapping.Mapping) (*SQL, error) {
	return CompileFor(q, d, m, WholeSet)
}

// CompileFor is Compile for purpose p: Page for a query that reads the
// first rows in key order (SelectLimit, ORDER BY key LIMIT n), WholeSet for
// one that reads every match (Select, a COUNT(*)).
func CompileFor(q *typecheck.Query, d Dialect, m *mapping.Mapping, p Purpose) (*SQL, error) {
	switch {
	case q == nil:
		return nil, errors.New("compile: no query")
	case q.Diags.HasErrors():
		return nil, fmt.Errorf("compile: the query has errors: %v", q.Diags[0].Message)
	case q.Root == nil || q.Context == nil:
		return nil, errors.New("compile: the query was not checked")
	case d == nil:
		return nil, errors.New("compile: no dialect")
	case m == nil:
		return nil, errors.New("compile: no mapping")
	}
	root, err := rootTable(m, q.Context)
	if err != nil {
		return nil, err
	}
	p = shardedPurpose(d, p)
	core, scopes := typecheck.CoreOf(q)
	s, err := compileCore(q, core, scopes, d, m, p, root)
	if err != nil {
		return nil, err
	}
	if _, sharded := d.(Sharding); sharded {
		// For the coordinator, when the engine refuses the statement.
		s.q, s.m = q, m
	}
	return s, nil
}

// rootTable is the table of context c's root objects, which needs a key.
// Every identifier Compile writes passes Mapping.Check's rules (see q):
// a NUL in one would collide with the parameter markers.
func rootTable(m *mapping.Mapping, c *schema.Context) (*mapping.Table, error) {
	root, err := m.Table(c.Root)
	if err != nil {
		return nil, err
	}
	if root.Key == "" {
		return nil, fmt.Errorf("compile: table %s of the %s context has no key", root.Name, c.Name)
	}
	for _, id := range []string{root.Name, root.Key} {
		if err := mapping.CheckIdent(id); err != nil {
			return nil, fmt.Errorf("compile: table of the %s context: %w", c.Name, err)
		}
	}
	return root, nil
}

// rootSQL is a compiled condition where on root, the root table, aliased
// rootAlias, with args its arguments.
func rootSQL(d Dialect, root *mapping.Table, where string, args []any) *SQL {
	return &SQL{
		Where:   where,
		Args:    args,
		From:    d.Quote(root.Name) + " AS " + rootAlias,
		Key:     rootAlias + "." + d.Quote(root.Key),
		Table:   root.Name,
		Alias:   rootAlias,
		Dialect: d,
	}
}

// compileCore writes core, the condition on the root row of q's context
// (its core tree, or a part of it), with scopes scopes, for dialect d,
// mapping m and purpose p; root is the context's table.
func compileCore(q *typecheck.Query, core typecheck.Node, scopes int, d Dialect, m *mapping.Mapping, p Purpose, root *mapping.Table) (*SQL, error) {
	var c *compiler
	var where string
	var args []any
	for _, noGuard := range []bool{false, true} {
		c = &compiler{d: d, m: m, scopes: make([]binding, max(scopes, 1)), root: core, purpose: p, noGuard: noGuard}
		c.scopes[0] = binding{alias: c.alias(), obj: q.Context.Root, tab: root}
		c.pred(core, false)
		if c.err != nil {
			return nil, c.err
		}
		where, args = c.finish(c.b.String())
		if c.err != nil {
			return nil, c.err
		}
		if len(args) <= d.MaxParams() || !c.guards {
			break
		}
		// The guards repeat their values: try without them.
	}
	if len(args) > d.MaxParams() {
		return nil, diag.At(core.Span(), fmt.Errorf("compile: the query has %d values, more than the %d parameters one %s statement may have: %w",
			len(args), d.MaxParams(), d.Name(), ErrTooManyParams))
	}
	s := rootSQL(d, root, where, args)
	s.CrossShard = c.crossShard
	if p == WholeSet {
		tc := &compiler{d: d, m: m, scopes: make([]binding, max(scopes, 1)), root: core, purpose: p}
		tc.scopes[0] = binding{alias: tc.alias(), obj: q.Context.Root, tab: root}
		s.Count = total(tc, core)
	}
	return s, nil
}

// binding is the row bound at one scope.
type binding struct {
	alias string
	obj   *schema.Object
	tab   *mapping.Table
}

type compiler struct {
	// root is the query's core tree: the condition on the root row.
	root   typecheck.Node
	d      Dialect
	m      *mapping.Mapping
	b      strings.Builder
	vals   []pending
	scopes []binding
	next   int
	err    error
	depth  int
	// spanned: err has the span of the node it is about (see at).
	spanned bool
	// purpose decides between whole-set and page forms (semiJoin,
	// countGrouped, guarded).
	purpose Purpose
	// noGuard leaves the guards of a page out; guards says some were
	// written.
	noGuard, guards bool
	// subRoot is the whole condition of the elements of a semi-join
	// written as IN (no link to the parent row, one predicate): a
	// semi-join there may be an IN too, as at the root.
	subRoot typecheck.Node
	// crossShard: a join of rows placed on different shards was written
	// (SQL.CrossShard); shardKeys is the mapping's ShardKeys, read once.
	crossShard bool
	shardKeys  map[string]string
	// layout is the mapping's layout, read once by ownerNotNull.
	layout *mapping.Layout
}

// maxDepth bounds the recursion; the parser's limits keep real queries far
// below it.
const maxDepth = 10000

func (c *compiler) fail(format string, args ...any) {
	if c.err == nil {
		c.err = fmt.Errorf("compile: "+format, args...)
	}
}

func (c *compiler) failErr(err error) {
	if c.err == nil {
		c.err = err
	}
}

func (c *compiler) w(s ...string) {
	for _, x := range s {
		c.b.WriteString(x)
	}
}

func (c *compiler) alias() string {
	a := "t" + strconv.Itoa(c.next)
	c.next++
	return a
}

// q quotes an identifier of the mapping, after checking it as
// Mapping.Check does: running the whole Check on every compilation would
// cost ten times the compilation, so Compile checks exactly the
// identifiers it writes.
func (c *compiler) q(ident string) string {
	if err := mapping.CheckIdent(ident); err != nil {
		c.fail("mapping: %v", err)
		return `""`
	}
	return c.d.Quote(ident)
}

// param writes a marker for value v: NUL, its index, NUL. finish turns the
// markers into the dialect's placeholders in the order they appear in the
// final text, so that a dialect may put its operands in any order (or
// repeat one) and the arguments still line up with positional "?".
// Identifiers never hold NUL (checkIdent) and no value is ever written
// into the text, so the markers are unambiguous.
func (c *compiler) param(v any, k schema.Kind) {
	if s, ok := v.(string); ok {
		if err := c.d.CheckString(s); err != nil {
			c.failErr(fmt.Errorf("compile: %w", err))
		}
	}
	c.vals = append(c.vals, pending{v, k})
	c.w("\x00", strconv.Itoa(len(c.vals)-1), "\x00")
}

type pending struct {
	v any
	k schema.Kind
}

// finish replaces the markers of text with placeholders and returns the
// text and the arguments in placeholder order.
func (c *compiler) finish(text string) (string, []any) {
	var b strings.Builder
	b.Grow(len(text) + 4*len(c.vals))
	args := make([]any, 0, len(c.vals))
	for {
		i := strings.IndexByte(text, 0)
		if i < 0 {
			b.WriteString(text)
			break
		}
		j := strings.IndexByte(text[i+1:], 0)
		if j < 0 {
			c.fail("internal: unterminated parameter marker")
			return "", nil
		}
		idx, err := strconv.Atoi(text[i+1 : i+1+j])
		if err != nil || idx < 0 || idx >= len(c.vals) {
			c.fail("internal: bad parameter marker")
			return "", nil
		}
		b.WriteString(text[:i])
		args = append(args, c.vals[idx].v)
		b.WriteString(c.d.Param(len(args), c.vals[idx].k))
		text = text[i+2+j:]
	}
	return b.String(), args
}

func (c *compiler) enter(n typecheck.Node) bool {
	c.depth++
	if c.depth > maxDepth {
		c.fail("the query is nested too deeply")
		c.at(n)
		return false
	}
	return c.err == nil
}

func (c *compiler) leave(n typecheck.Node) {
	c.depth--
	c.at(n)
}

// at gives the error, if there is one and it has no span yet, the span of
// n (a diag.SpanError), so that it is reported on n and not on the whole
// query. leave calls it innermost node first: an error gets the span of the
// innermost node being compiled when it was made. Nothing is tracked on the
// way down, so a query that compiles pays nothing for it.
func (c *compiler) at(n typecheck.Node) {
	if c.err == nil || c.spanned || n == nil {
		return
	}
	c.err, c.spanned = diag.At(n.Span(), c.err), true
}

// maybeNullBool reports whether pred, compiled not strict, may yield NULL.
func maybeNullBool(n typecheck.Node) bool {
	switch n := n.(type) {
	case *typecheck.Member:
		return true
	case *typecheck.Compare:
		if n.Operand == schema.Bool || n.Op == ast.OpEq || n.Op == ast.OpNe {
			return false // compiled null-safe when strict
		}
		return typecheck.Nullable(n.X) || typecheck.Nullable(n.Y)
	case *typecheck.Between:
		return typecheck.Nullable(n.X) || typecheck.Nullable(n.Lo) || typecheck.Nullable(n.Hi)
	case *typecheck.Contains:
		return typecheck.Nullable(n.X) || typecheck.Nullable(n.Sub)
	case *typecheck.If:
		return maybeNullBool(n.Then) || maybeNullBool(n.Else)
	case *typecheck.Field:
		return n.F.Nullable
	}
	return false
}

// pred writes a boolean expression. When strict is false the expression
// sits where NULL and FALSE mean the same (a WHERE clause, an operand of
// AND/OR there, the condition of CASE), so it may yield NULL for false;
// when strict it must yield TRUE or FALSE.
func (c *compiler) pred(n typecheck.Node, strict bool) {
	if !c.enter(n) {
		return
	}
	defer c.leave(n)
	if strict && maybeNullBool(n) {
		c.w("COALESCE(")
		c.pred(n, false)
		c.w(", ", c.d.Bool(false), ")")
		return
	}
	switch n := n.(type) {
	case *typecheck.Field:
		if !c.boolIs(n, true) {
			c.field(c.scope(n.Scope, n.Obj), n.F)
		}
	case *typecheck.Member:
		c.member(n)
	case *typecheck.Not:
		c.not(n)
	case *typecheck.Exists:
		c.exists(n, strict)
	case *typecheck.Logic:
		switch {
		case n.Op == ast.OpXor:
			c.xor(xorTerms(n, nil))
		case opSQLs[n.Op].infix != "":
			c.logic(n, strict)
		default:
			c.fail("unknown logical operator %s", n.Op)
		}
	case *typecheck.Compare:
		if !c.memberIn(n) {
			c.compare(n, strict)
		}
	case *typecheck.Between:
		c.between(n)
	case *typecheck.Contains:
		if !c.memberIn(n) {
			c.contains(n)
		}
	case *typecheck.Filter:
		if n.Kind != ast.With {
			c.fail("a `where` collection is not a condition")
			return
		}
		c.with(n, strict)
	case *typecheck.If:
		c.ifPred(n, strict)
	case *typecheck.IsSet:
		c.w("(")
		c.value(n.X)
		c.w(" IS NOT NULL)")
	default:
		c.fail("%T is not a condition", n)
	}
}

// not writes `not X`. `not not X` is X as TRUE or FALSE: a run of more
// than two nots is written as one NOT or none, so a thousand of them do
// not nest a thousand deep (SQLite refuses expressions over 1000 deep);
// one or two are written as they stand.
func (c *compiler) not(n *typecheck.Not) {
	x, run := typecheck.Node(n.X), 1
	for {
		inner, ok := x.(*typecheck.Not)
		if !ok {
			break
		}
		x, run = inner.X, run+1
	}
	if run <= 2 {
		x = n.X
	} else if run%2 == 0 {
		c.pred(x, true)
		return
	}
	if e, ok := x.(*typecheck.Exists); ok {
		if c.antiJoin(e) || c.notIn(n, e) {
			return
		}
		c.w(opSQLs[ast.OpNot].prefix, " ")
		c.exists(e, true)
		return
	}
	if f, ok := x.(*typecheck.Field); ok && c.boolIs(f, false) {
		return
	}
	c.w(opSQLs[ast.OpNot].prefix, " (")
	c.pred(x, true)
	c.w(")")
}

// boolTester is a dialect whose planner searches an index for a boolean
// column compared with a constant, but not for the column alone or its
// negation (SQLite: `t0."is_hidden" = TRUE AND t0."is_duplicate" = FALSE`
// is a range of an index on both columns, `t0."is_hidden" AND NOT
// (t0."is_duplicate")` a pass over every row).
type boolTester interface {
	// BoolIs is the condition "the NOT NULL boolean column col is v".
	BoolIs(col string, v bool) string
}

// boolIs writes f, a boolean field that is never absent, as "f is v" where
// the dialect is a boolTester, and reports whether it did. Two-valued: the
// column is NOT NULL (the field is not nullable), so the comparison is
// TRUE or FALSE as the column and its negation are. Only for the WholeSet
// purpose: a page reads the rows in key order and stops after its rows,
// where a range of an index whose later columns come before the key
// (strings(is_duplicate, is_hidden, n_translations)) is read whole and
// sorted (`is hidden and not is duplicate and count of translations > 0`:
// 3.5 ms per first page against 1.0 ms).
func (c *compiler) boolIs(f *typecheck.Field, v bool) bool {
	bt, ok := c.d.(boolTester)
	if !ok || c.purpose == Page || f.F.Nullable || f.F.Type.Kind != schema.Bool || c.err != nil {
		return false
	}
	b := c.scope(f.Scope, f.Obj)
	if c.err != nil {
		return true
	}
	col, ok := b.tab.Columns[f.F.Name]
	if !ok || col == "" {
		return false
	}
	c.w("(", bt.BoolIs(b.alias+"."+c.q(col), v), ")")
	return true
}

// between writes X BETWEEN Lo AND Hi.
func (c *compiler) between(n *typecheck.Between) {
	c.w("(")
	c.value(n.X)
	c.w(" BETWEEN ")
	c.value(n.Lo)
	c.w(" AND ")
	c.value(n.Hi)
	c.w(")")
}

// ifPred writes a conditional condition as CASE.
func (c *compiler) ifPred(n *typecheck.If, strict bool) {
	c.w("(CASE WHEN ")
	c.pred(n.Cond, false)
	c.w(" THEN ")
	c.pred(n.Then, strict)
	c.w(" ELSE ")
	c.pred(n.Else, strict)
	c.w(" END)")
}

// naryGroup is the most operands one flat AND or OR list has. A longer
// chain is written as a balanced tree of such lists: SQLite parses
// `a AND b AND c ...` as a left-deep tree and refuses one deeper than 1000
// (SQLITE_MAX_EXPR_DEPTH), so a flat list of n operands is n deep there,
// while lists of lists of naryGroup are at most naryGroup deep per level.
const naryGroup = 100

// inChunk is the most values one IN list holds; a longer equality chain
// is several IN lists joined by OR. Every value is a parameter, so the
// query as a whole must stay within the dialect's MaxParams (Compile
// checks that).
const inChunk = 1000

// logic writes an AND or OR chain as one flat list (n-ary, not nested
// binary parentheses): a and b and c is (a AND b AND c). In an OR chain
// the equalities of one column with constants, two or more of them,
// become one `column IN (?, ?, ...)` (see orItems). AND and OR are
// associative and commutative in SQL's three-valued logic as in CroQL's,
// so the flat list means what the nested one did.
func (c *compiler) logic(n *typecheck.Logic, strict bool) {
	ops := flatten(n)
	sep := " " + opSQLs[n.Op].infix + " "
	var items []func()
	if n.Op == ast.OpOr {
		items = c.orItems(ops, strict)
	} else {
		items = c.andItems(ops, strict)
	}
	c.nary(items, sep)
}

// flatten returns the operands of the chain of n's operator that n heads,
// left to right: the operands of (a or b) or (c or d) are a, b, c, d.
// It walks with a stack of its own, so a chain of any length costs no
// recursion.
func flatten(n *typecheck.Logic) []typecheck.Node {
	var out []typecheck.Node
	stack := []typecheck.Node{n}
	for len(stack) > 0 {
		x := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if l, ok := x.(*typecheck.Logic); ok && l.Op == n.Op {
			stack = append(stack, l.Y, l.X)
			continue
		}
		out = append(out, x)
	}
	return out
}

// nary writes items joined by sep in parentheses, as a flat list of at
// most naryGroup items, or a balanced tree of such lists.
func (c *compiler) nary(items []func(), sep string) {
	if len(items) == 1 {
		items[0]()
		return
	}
	size := 1
	if len(items) > naryGroup {
		size = (len(items) + naryGroup - 1) / naryGroup
	}
	c.w("(")
	for i := 0; i < len(items); i += size {
		if i > 0 {
			c.w(sep)
		}
		if size == 1 {
			items[i]()
		} else {
			c.nary(items[i:min(i+size, len(items))], sep)
		}
	}
	c.w(")")
}

// xorTerms appends the operands of the xor chain n (left to right, through
// nested xors on either side) to out.
func xorTerms(n typecheck.Node, out []typecheck.Node) []typecheck.Node {
	if l, ok := n.(*typecheck.Logic); ok && l.Op == ast.OpXor {
		return xorTerms(l.Y, xorTerms(l.X, out))
	}
	return append(out, n)
}

// xor writes the xor of terms as TRUE/FALSE operands compared with <>,
// grouped as a balanced tree: xor of two-valued operands is associative
// (the parity of the true ones), so the grouping does not change the
// value, and a chain of n terms nests log2(n) deep instead of n (SQLite
// refuses expressions over 1000 deep, PostgreSQL and MariaDB run out of
// parser stack). Up to three terms this is the left-leaning grouping the
// query was written in.
func (c *compiler) xor(terms []typecheck.Node) {
	if len(terms) == 1 {
		c.operand(terms[0], true, true)
		return
	}
	mid := (len(terms) + 1) / 2
	c.w("(")
	c.xor(terms[:mid])
	c.w(" ", opSQLs[ast.OpXor].infix, " ")
	c.xor(terms[mid:])
	c.w(")")
}

// orItems returns the writers of the operands of an OR chain. The
// equalities of one column (a field, or a member such as `id of file`)
// with a constant (not an unresolved mention), two or more of them, are
// one item that writes `column IN (?, ?, ...)` where the first of them
// stood. Its meaning is the chain's: for a column that is not NULL, IN is
// the OR of the equalities; for NULL, each equality and the IN are NULL,
// which a WHERE takes as false, and where the OR must be TRUE or FALSE
// (strict) each equality would be null-safe, false on NULL, and the IN is
// COALESCEd to false.
func (c *compiler) orItems(ops []typecheck.Node, strict bool) []func() {
	type group struct {
		x      typecheck.Node
		consts []*typecheck.Const
		first  typecheck.Node
	}
	groups := map[string]*group{}
	items := make([]func(), 0, len(ops))
	for _, op := range ops {
		x, k, ok := columnEqConst(op)
		if ok {
			key := c.columnKey(x)
			if g := groups[key]; key != "" && g != nil {
				g.consts = append(g.consts, k)
				continue
			} else if key != "" {
				g := &group{x: x, consts: []*typecheck.Const{k}, first: op}
				groups[key] = g
				items = append(items, func() {
					if len(g.consts) == 1 {
						c.pred(g.first, strict)
						return
					}
					c.inList(g.x, g.consts, strict)
				})
				continue
			}
		}
		items = append(items, func() { c.pred(op, strict) })
	}
	return items
}

// columnEqConst reports whether n is `column = constant` (either way
// round) with a column that is a field or a member and a resolved
// constant of a scalar kind other than bool, and returns both.
func columnEqConst(n typecheck.Node) (typecheck.Node, *typecheck.Const, bool) {
	x, k, ok := columnEqValue(n)
	if !ok || k.Unresolved {
		return nil, nil, false
	}
	return x, k, true
}

// columnEqValue is columnEqConst with the constant resolved or not (a
// user named by a login the check had no directory for, which the SQL
// looks up).
func columnEqValue(n typecheck.Node) (typecheck.Node, *typecheck.Const, bool) {
	cmp, ok := n.(*typecheck.Compare)
	if !ok || cmp.Op != ast.OpEq {
		return nil, nil, false
	}
	switch cmp.Operand {
	case schema.Int, schema.Float, schema.String, schema.Datetime:
	default:
		return nil, nil, false
	}
	x, y := cmp.X, cmp.Y
	k, ok := y.(*typecheck.Const)
	if !ok {
		x, y = y, x
		if k, ok = y.(*typecheck.Const); !ok {
			return nil, nil, false
		}
	}
	switch k.T.Kind {
	case schema.Int, schema.Float, schema.String, schema.Language, schema.Datetime, schema.User:
	default:
		return nil, nil, false
	}
	switch x := x.(type) {
	case *typecheck.Field:
		if x.F.Type.Kind == schema.Collection || x.F.Type.Kind == schema.Bool {
			return nil, nil, false
		}
	case *typecheck.Member:
		if x.F.Type.Kind == schema.Bool {
			return nil, nil, false
		}
	default:
		return nil, nil, false
	}
	return x, k, true
}

// columnKey is the SQL text of column x, by which the equalities of one
// column are grouped, or "" when it cannot serve as one (it holds a
// parameter). It writes nothing: the aliases and parameters it takes are
// given back.
func (c *compiler) columnKey(x typecheck.Node) string {
	next, vals, err := c.next, len(c.vals), c.err
	key := c.sub(func() { c.value(x) })
	c.next, c.vals, c.err = next, c.vals[:vals], err
	if strings.IndexByte(key, 0) >= 0 {
		return ""
	}
	return key
}

// inList writes `x IN (k1, k2, ...)`, as several IN lists of at most
// inChunk values joined by OR when there are more; COALESCEd to false when
// the result must be TRUE or FALSE and x may be NULL.
func (c *compiler) inList(x typecheck.Node, consts []*typecheck.Const, strict bool) {
	coalesce := strict && typecheck.Nullable(x)
	var items []func()
	for i := 0; i < len(consts); i += inChunk {
		chunk := consts[i:min(i+inChunk, len(consts))]
		items = append(items, func() {
			if coalesce {
				c.w("COALESCE(")
			}
			c.w("(")
			c.value(x)
			c.w(" IN (")
			for j, k := range chunk {
				if j > 0 {
					c.w(", ")
				}
				c.constant(k)
			}
			c.w("))")
			if coalesce {
				c.w(", ", c.d.Bool(false), ")")
			}
		})
	}
	c.nary(items, " OR ")
}

// operand writes a predicate as an operand of AND/OR or, when compared is
// set, of = or <> (xor, bools compared). A negation compared is
// parenthesised: MySQL and MariaDB bind NOT below comparisons, so
// `a <> NOT (b)` and `a <> NOT EXISTS (...)` would not parse there.
func (c *compiler) operand(n typecheck.Node, strict, compared bool) {
	if !compared || !negation(n) {
		c.pred(n, strict)
		return
	}
	c.w("(")
	c.pred(n, strict)
	c.w(")")
}

// negation reports whether pred may write n starting with NOT (a
// negation), or as EXISTS or a count: these are parenthesised too.
func negation(n typecheck.Node) bool {
	switch n := n.(type) {
	case *typecheck.Not, *typecheck.Exists:
		return true
	case *typecheck.Compare:
		return n.Operand == schema.Int
	}
	return false
}

// scope returns the binding of scope i, checking that it binds obj.
func (c *compiler) scope(i int, obj *schema.Object) binding {
	if i < 0 || i >= len(c.scopes) || c.scopes[i].tab == nil {
		c.fail("scope %d is not bound", i)
		return binding{}
	}
	b := c.scopes[i]
	if obj != nil && b.obj != obj {
		if t, err := c.m.Table(obj); err != nil || t != b.tab {
			c.fail("scope %d binds %s, not %s", i, b.obj.Name, obj.Name)
			return binding{}
		}
	}
	return b
}

// field writes field f of the row bound as b: its column.
func (c *compiler) field(b binding, f *schema.Field) {
	if c.err != nil {
		return
	}
	col, ok := b.tab.Columns[f.Name]
	if !ok || col == "" {
		c.fail("the mapping has no column for `%s` of %s (table %s)", f.Name, b.obj.Name, b.tab.Name)
		return
	}
	c.w(b.alias, ".", c.q(col))
}

// value writes a scalar expression (NULL for an absent value).
func (c *compiler) value(n typecheck.Node) {
	if !c.enter(n) {
		return
	}
	defer c.leave(n)
	if n.Type().Kind == schema.Bool {
		c.pred(n, true)
		return
	}
	switch n := n.(type) {
	case *typecheck.Const:
		c.constant(n)
	case *typecheck.Field:
		if n.F.Type.Kind == schema.Collection {
			c.fail("collection `%s` used as a value", n.F.Name)
			return
		}
		c.field(c.scope(n.Scope, n.Obj), n.F)
	case *typecheck.Member:
		c.member(n)
	case *typecheck.Count:
		if t := n.X.Type(); t.Kind != schema.Collection {
			c.fail("count of %s", t)
			return
		}
		if col := c.countColumn(n.X); col != "" {
			c.w(col)
			return
		}
		c.w("(SELECT COUNT(*)")
		c.fromWhere(n.X, nil)
		c.w(")")
	case *typecheck.Arith:
		op := opSQLs[n.Op].infix
		if op == "" {
			c.fail("unknown arithmetic operator %s", n.Op)
			return
		}
		x := c.sub(func() { c.value(n.X) })
		y := c.sub(func() { c.value(n.Y) })
		if typecheck.ArithmeticOf(n.Op).Partial {
			// No value for a zero right operand: NULL, not an error.
			y = "NULLIF(" + y + ", 0)"
		}
		if typecheck.MayOverflow(n) {
			c.w(c.d.IntArith(op, x, y))
			return
		}
		c.w("(", x, " ", op, " ", y, ")")
	case *typecheck.Neg:
		op := opSQLs[ast.OpNeg].prefix
		if typecheck.MayOverflow(n) {
			c.w(c.d.IntArith(op, c.sub(func() { c.value(n.X) }), ""))
			return
		}
		c.w("(", op, "(")
		c.value(n.X)
		c.w("))")
	case *typecheck.ToFloat:
		c.w(c.d.ToFloat(c.sub(func() { c.value(n.X) })))
	case *typecheck.If:
		c.w("(CASE WHEN ")
		c.pred(n.Cond, false)
		c.w(" THEN ")
		c.value(n.Then)
		c.w(" ELSE ")
		c.value(n.Else)
		c.w(" END)")
	default:
		c.fail("%T is not a value", n)
	}
}

// sub runs f writing into a fresh buffer and returns what it wrote, for
// dialect methods that wrap or reorder expressions (see param).
func (c *compiler) sub(f func()) string {
	saved := c.b
	c.b = strings.Builder{}
	f()
	s := c.b.String()
	c.b = saved
	return s
}

func (c *compiler) constant(n *typecheck.Const) {
	switch n.T.Kind {
	case schema.Int, schema.Datetime:
		c.param(n.I, schema.Int)
	case schema.Float:
		c.param(n.F, schema.Float)
	case schema.String, schema.Language:
		c.param(n.S, schema.String)
	case schema.User:
		if !n.Unresolved {
			c.param(n.I, schema.Int)
			return
		}
		if err := lookupSubquery(c.d); err != nil {
			c.failErr(err)
			return
		}
		ut, err := c.m.Table(c.m.Catalog().UserObj)
		if err != nil {
			c.failErr(err)
			return
		}
		login, lok := ut.Columns["login"]
		id, iok := ut.Columns["id"]
		if !lok || !iok {
			c.fail("the mapping of users has no id or login column")
			return
		}
		a := c.alias()
		c.w("(SELECT ", a, ".", c.q(id), " FROM ", c.q(ut.Name), " AS ", a, " WHERE ", a, ".", c.q(login), " = ")
		c.param(n.S, schema.String)
		c.w(")")
	default:
		c.fail("a constant of type %s", n.T)
	}
}

// ref writes the key of the object (Record or User) n refers to.
func (c *compiler) ref(n typecheck.Node) {
	switch n.Type().Kind {
	case schema.Record, schema.User:
		if f, ok := n.(*typecheck.Field); ok {
			c.field(c.scope(f.Scope, f.Obj), f.F)
			return
		}
		if n.Type().Kind == schema.Record {
			if m, ok := n.(*typecheck.Member); ok {
				c.member(m)
				return
			}
			c.fail("%T as an object", n)
			return
		}
		c.value(n)
	default:
		c.fail("%s is not an object", n.Type())
	}
}

// member writes F of X: a scalar subquery on X's table, or X itself when
// F is X's key (id of file is the string's file_id).
func (c *compiler) member(n *typecheck.Member) {
	obj := n.X.Type().Obj
	if obj == nil {
		c.fail("member `%s` of %s", n.F.Name, n.X.Type())
		return
	}
	t, err := c.m.Table(obj)
	if err != nil {
		c.failErr(err)
		return
	}
	col, ok := t.Columns[n.F.Name]
	if !ok {
		c.fail("the mapping has no column for `%s` of %s (table %s)", n.F.Name, obj.Name, t.Name)
		return
	}
	if col == t.Key {
		c.ref(n.X)
		return
	}
	if t.Key == "" {
		c.fail("table %s of %s has no key", t.Name, obj.Name)
		return
	}
	a := c.alias()
	c.w("(SELECT ")
	c.field(binding{alias: a, obj: obj, tab: t}, n.F)
	c.w(" FROM ", c.q(t.Name), " AS ", a, " WHERE ", c.d.KeyEq(a+"."+c.q(t.Key), c.sub(func() { c.ref(n.X) })), ")")
}

// with writes X with P: EXISTS over the collection's elements, or over the
// one row an object reference points at.
func (c *compiler) with(n *typecheck.Filter, strict bool) {
	switch n.X.Type().Kind {
	case schema.Collection:
		if a, col := c.withCount(n); col != "" {
			c.countExists(n, a, col)
			return
		}
		if !strict && c.semiJoin(n, n.X, n) {
			return
		}
		c.existsOver(n, n.X, n, strict)
	case schema.Record, schema.User:
		obj := n.Elem
		t, err := c.m.Table(obj)
		if err != nil {
			c.failErr(err)
			return
		}
		if t.Key == "" {
			c.fail("table %s of %s has no key", t.Name, obj.Name)
			return
		}
		if c.objectIn(n, t) {
			return
		}
		a := c.alias()
		c.w("EXISTS (SELECT 1 FROM ", c.q(t.Name), " AS ", a, " WHERE ", c.d.KeyEq(a+"."+c.q(t.Key), c.sub(func() { c.ref(n.X) })), " AND ")
		c.bindPred(n.Scope, binding{alias: a, obj: obj, tab: t}, n.Pred)
		c.w(")")
	default:
		c.fail("`with` on %s", n.X.Type())
	}
}

// bindPred writes pred with b bound at scope i.
func (c *compiler) bindPred(i int, b binding, pred typecheck.Node) {
	if i < 0 || i >= len(c.scopes) {
		c.fail("scope %d out of range", i)
		return
	}
	saved := c.scopes[i]
	c.scopes[i] = b
	c.pred(pred, false) // every condition form delimits itself
	c.scopes[i] = saved
}

// fromWhere writes " FROM <elements> WHERE <belong to the parent> AND
// <each where> [AND <with's predicate>]" for collection coll.
func (c *compiler) fromWhere(coll typecheck.Node, with *typecheck.Filter) {
	c.elements(coll, with, true)
}

// elements writes the FROM and WHERE of the elements of coll; link adds
// the condition that ties them to the parent row (without it, the rows
// are the elements of every parent, for a GROUP BY on the parent key).
func (c *compiler) elements(coll typecheck.Node, with *typecheck.Filter, link bool) {
	var filters []*typecheck.Filter
	x := coll
	for {
		f, ok := x.(*typecheck.Filter)
		if !ok || f.Kind != ast.Where {
			break
		}
		filters = append(filters, f)
		x = f.X
	}
	base, ok := x.(*typecheck.Field)
	if !ok || base.F.Type.Kind != schema.Collection || base.F.Type.Obj == nil {
		c.fail("%T is not a collection of the mapping", x)
		return
	}
	plain := !correlated(coll, with) && !c.predsHoldSubquery(coll, with)
	a, et, open, ok := c.elementsFrom(base, link, len(filters) == 0 && with == nil, plain)
	if !ok {
		return
	}
	if open {
		defer c.w(")")
	}
	sep := " WHERE "
	if link && !open {
		sep = " AND "
	}
	cond := func() {
		c.w(sep)
		sep = " AND "
	}
	elemObj := base.F.Type.Obj
	b := binding{alias: a, obj: elemObj, tab: et}
	saved := c.subRoot
	defer func() { c.subRoot = saved }()
	c.subRoot = nil
	switch {
	case link:
	case len(filters) == 1 && with == nil:
		c.subRoot = filters[0].Pred
	case len(filters) == 0 && with != nil:
		c.subRoot = with.Pred
	}
	for i := len(filters) - 1; i >= 0; i-- {
		cond()
		c.bindPred(filters[i].Scope, b, filters[i].Pred)
	}
	if with != nil {
		cond()
		c.bindPred(with.Scope, b, with.Pred)
	}
}

// elementsFrom writes the FROM of the elements of collection field base,
// with the condition that ties them to the parent row when link is set,
// and returns the elements' alias and table; ok is false when nothing is
// left to write (bare: nothing reads the elements, so the join table
// alone is enough) or on an error. plain tells that the predicates on
// the elements read their own fields alone; open, that the elements'
// rows are an IN subquery left open for those predicates (see linkIn).
func (c *compiler) elementsFrom(base *typecheck.Field, link, bare, plain bool) (a string, et *mapping.Table, open, ok bool) {
	parent := c.scope(base.Scope, base.Obj)
	if c.err != nil {
		return "", nil, false, false
	}
	ch := parent.tab.Children[base.F.Name]
	if ch == nil {
		c.fail("the mapping of %s has no child entry for `%s`", parent.obj.Name, base.F.Name)
		return "", nil, false, false
	}
	elemObj := base.F.Type.Obj
	et, err := c.m.Table(elemObj)
	if err != nil {
		c.failErr(err)
		return "", nil, false, false
	}
	a = c.alias()
	pkey := parent.alias + "." + c.q(parent.tab.Key)
	c.noteShards(ch, et, bare || (ch.Through != "" && c.linkIn(ch, et, plain)))
	switch {
	case ch.Through != "" && bare:
		// Nothing reads the elements: the join table alone counts them
		// (the loader stores no link to a missing element).
		c.w(" FROM ", c.q(ch.Through), " AS ", a)
		if link {
			c.w(" WHERE ", a, ".", c.q(ch.From), " = ", pkey, c.coShard(a, ch.Through, parent.alias, parent.tab.Name))
		}
		return a, et, false, false
	case ch.Through != "" && c.linkIn(ch, et, plain):
		l := c.alias()
		c.w(" FROM ", c.q(ch.Through), " AS ", l, " WHERE ")
		if link {
			c.w(l, ".", c.q(ch.From), " = ", pkey, c.coShard(l, ch.Through, parent.alias, parent.tab.Name), " AND ")
		}
		c.w(l, ".", c.q(ch.To), " IN (SELECT ", a, ".", c.q(et.Key), " FROM ", c.q(et.Name), " AS ", a)
		return a, et, true, true
	case ch.Through != "":
		if et.Key == "" {
			c.fail("table %s of %s has no key", et.Name, elemObj.Name)
			return "", nil, false, false
		}
		l := c.alias()
		c.w(" FROM ", c.q(ch.Through), " AS ", l, " JOIN ", c.q(et.Name), " AS ", a,
			" ON ", a, ".", c.q(et.Key), " = ", l, ".", c.q(ch.To), c.coShard(a, et.Name, l, ch.Through))
		if link {
			c.w(" WHERE ", l, ".", c.q(ch.From), " = ", pkey, c.coShard(l, ch.Through, parent.alias, parent.tab.Name))
		}
	default:
		c.w(" FROM ", c.q(et.Name), " AS ", a)
		if link {
			c.w(" WHERE ", a, ".", c.q(ch.FK), " = ", pkey, c.coShard(a, et.Name, parent.alias, parent.tab.Name))
		}
	}
	return a, et, false, true
}

// noteShards records, for a sharded dialect, whether reading the elements
// et of child ch (bare: through the join table alone) joins rows placed
// on different shards: elements read through a join table that are not
// placed with the join table's rows (labels), or elements not placed by
// their link to the parent nor with it (see coShard).
func (c *compiler) noteShards(ch *mapping.Child, et *mapping.Table, bare bool) {
	if _, sharded := c.d.(Sharding); !sharded || c.crossShard {
		return
	}
	switch {
	case ch.Through != "":
		c.crossShard = !bare && !c.colocated(et.Name, ch.Through)
	default:
		c.crossShard = c.shardKeyOf(et.Name) != ch.FK && !c.colocated(et.Name)
	}
}

// compare writes a comparison.
func (c *compiler) compare(n *typecheck.Compare, strict bool) {
	if c.countGrouped(n) {
		return
	}
	if n.Operand == schema.Bool {
		if n.Op != ast.OpEq && n.Op != ast.OpNe {
			c.fail("bools are not ordered")
			return
		}
		c.w("(")
		c.operand(n.X, true, true)
		c.w(" ", opSQLs[n.Op].infix, " ")
		c.operand(n.Y, true, true)
		c.w(")")
		return
	}
	nx, ny := typecheck.Nullable(n.X), typecheck.Nullable(n.Y)
	x := c.sub(func() { c.value(n.X) })
	y := c.sub(func() { c.value(n.Y) })
	op := opSQLs[n.Op].infix
	switch {
	case op == "":
		c.fail("unknown comparison %s", n.Op)
	case n.Op == ast.OpEq && (nx || ny) && (strict || nx == ny):
		// Plain = only where it means the same: no NULL, or one NULL side
		// that a WHERE treats as false (keeps index use).
		c.w("(", c.d.NullSafeEq(x, y), ")")
	case n.Op == ast.OpNe && (nx || ny):
		c.w("(", c.d.NullSafeNe(x, y), ")")
	default:
		// An ordering with a NULL operand is NULL, which a WHERE takes
		// as false (maybeNullBool makes it FALSE where it must be).
		c.w("(", x, " ", op, " ", y, ")")
	}
}

// semiJoin writes n, "some element of coll (that with's predicate keeps)", as
//
//	parent.key IN (SELECT fk FROM elements WHERE ...)
//
// where the dialect plans that better than a correlated EXISTS per parent
// row (Dialect semiJoinIn), and reports whether it did. It is used only
// for the WholeSet purpose (the engine builds the whole list before the
// first row, so a page's LIMIT saves nothing), and only where NULL means
// false (not strict): IN yields NULL, not FALSE, when the subquery holds
// a NULL key and no match.
func (c *compiler) semiJoin(n, coll typecheck.Node, with *typecheck.Filter) bool {
	_, where := coll.(*typecheck.Filter)
	if c.purpose == Page || !semiJoinIn(c.d) || (n != c.root && n != c.subRoot) || (with == nil && !where) || correlated(coll, with) {
		// Beside another condition the IN reads every element however few
		// rows that condition leaves, an unfiltered IN reads every element,
		// and a correlated one runs per parent row without the link to
		// narrow it (see semiJoinIn).
		return false
	}
	parent, fk, ok := c.collectionParent(coll, with != nil)
	if !ok {
		return false
	}
	c.w("(", parent, " IN (SELECT ", fk)
	c.elements(coll, with, false)
	c.w("))")
	return true
}

// correlated reports whether the predicates of coll's where filters or of
// with read a scope outside the element (`translations with (text =
// identifier)`).
func correlated(coll typecheck.Node, with *typecheck.Filter) bool {
	outer := false
	for _, f := range filtersOf(coll, with) {
		typecheck.Inspect(f.Pred, func(n typecheck.Node) {
			if fl, ok := n.(*typecheck.Field); ok && fl.Scope < f.Scope {
				outer = true
			}
		})
	}
	return outer
}

// filtersOf is with (when not nil) and the where filters of coll.
func filtersOf(coll typecheck.Node, with *typecheck.Filter) []*typecheck.Filter {
	var out []*typecheck.Filter
	if with != nil {
		out = append(out, with)
	}
	for x := coll; ; {
		f, ok := x.(*typecheck.Filter)
		if !ok {
			return out
		}
		out = append(out, f)
		x = f.X
	}
}

// semiJoinIn tells whether dialect d runs "some element matches P" faster
// as `key IN (SELECT fk ... WHERE P)` than as a correlated EXISTS. Measured
// with BenchmarkSeedPatterns over 100,000 strings (docs/sql.md, "Some
// element matches"): SQLite, yes when it is the whole condition and the
// elements are filtered (it scans the filtered elements once instead of
// probing per string; an unfiltered IN reads every element and lost 3x
// where another condition was selective). PostgreSQL 15 plans both as the
// same merge semi-join (equal EXPLAIN costs), and MariaDB 10.11 rewrites
// EXISTS into IN itself (optimizer_switch exists_to_in) and plans both
// alike, so they keep EXISTS.
func semiJoinIn(d Dialect) bool { return d.SemiJoinIn() }

// exists writes "C has some element" as EXISTS.
func (c *compiler) exists(n *typecheck.Exists, strict bool) {
	if a, col := c.countOf(n.X); col != "" {
		c.countExists(n, a, col)
		return
	}
	if c.someNotBy(n) {
		return
	}
	if !strict && c.semiJoin(n, n.X, nil) {
		return
	}
	c.existsOver(n, n.X, nil, strict)
}

// existsOver writes n, "some element of coll (that with's predicate
// keeps)", as a correlated EXISTS; for a page, behind its guard where it
// has one (see guarded):
//
//	(EXISTS (SELECT 1 FROM elements WHERE P LIMIT 1) AND EXISTS (SELECT 1 FROM elements WHERE fk = parent.key AND P LIMIT 1))
func (c *compiler) existsOver(n, coll typecheck.Node, with *typecheck.Filter, strict bool) {
	guard := !strict && c.guarded(n, coll, with)
	if guard {
		c.guards = true
		key, onKey := c.parentKey(coll)
		if onKey {
			c.w("(", key, " >= (CASE WHEN EXISTS (SELECT 1")
		} else {
			c.w("(EXISTS (SELECT 1")
		}
		c.elements(coll, with, false)
		c.endExists()
		if onKey {
			c.w(" THEN ", leastInt, " END)")
		}
		c.w(" AND ")
	}
	c.w("EXISTS (SELECT 1")
	c.fromWhere(coll, with)
	c.endExists()
	if guard {
		c.w(")")
	}
}

// leastInt is the least 64-bit integer, the bound of a guard on a key
// that holds (see Dialect.GuardOnKey): every key is at least it.
const leastInt = "-9223372036854775808"

// parentKey is, where the dialect writes guards on the key
// (Dialect.GuardOnKey), the key column of the row whose collection coll
// is, qualified by its alias.
func (c *compiler) parentKey(coll typecheck.Node) (string, bool) {
	if !c.d.GuardOnKey() {
		return "", false
	}
	base, ok := collectionField(coll)
	if !ok {
		return "", false
	}
	parent := c.scope(base.Scope, base.Obj)
	if c.err != nil || parent.tab == nil || parent.tab.Key == "" {
		return "", false
	}
	return parent.alias + "." + c.q(parent.tab.Key), true
}

// guarded reports whether, for a page, n ("some element of coll matches")
// gets a guard: the same EXISTS without the link to the parent, which
// holds whenever n holds for some parent. It reads no outer row, so the
// engines evaluate it once (PostgreSQL as an InitPlan; SQLite as a range
// bound on the parent's key, Dialect.GuardOnKey): where some element
// matches it stops at the first one, and where none does the whole query
// is empty at once, instead of testing every row (a page with no match
// reads every row).
// Only where NULL means false (not strict: no guard under a negation,
// where a guard that fails makes every row match and buys nothing), only
// uncorrelated filtered collections, and only the root
// condition and the collections whose filters hold no further
// collection, so that the text grows at most fourfold: a nested one's
// inner guard is what makes the outer guard cheap. A page whose guards
// would take it over the dialect's parameter limit is compiled without
// them.
func (c *compiler) guarded(n, coll typecheck.Node, with *typecheck.Filter) bool {
	_, where := coll.(*typecheck.Filter)
	if c.purpose != Page || c.noGuard || (with == nil && !where) || correlated(coll, with) {
		return false
	}
	return n == c.root || !quantifies(coll, with)
}

// quantifies reports whether the predicates of coll's where filters or of
// with hold a collection or an object reference of their own (count,
// some element, with).
func quantifies(coll typecheck.Node, with *typecheck.Filter) bool {
	found := false
	for _, f := range filtersOf(coll, with) {
		typecheck.Inspect(f.Pred, func(n typecheck.Node) {
			switch n.(type) {
			case *typecheck.Exists, *typecheck.Count, *typecheck.Filter:
				found = true
			}
		})
	}
	return found
}

// endExists closes an EXISTS over a collection's elements. For a page it
// adds LIMIT 1, which changes nothing about the answer but keeps SQLite
// (3.46 and later) from turning the correlated EXISTS into a join behind
// a Bloom filter, which it builds from every element before the first
// row: `count of comments where (user = @user:"alice") > 0` took 5.7 ms
// of CPU for its first page over 100,000 strings that way, 0.45 ms with
// the LIMIT (docs/sql.md, "Pages and whole sets"). PostgreSQL drops a
// constant LIMIT from an EXISTS before planning.
func (c *compiler) endExists() {
	if c.purpose == Page {
		c.w(c.d.Limit("1"))
	}
	c.w(")")
}

// countGrouped writes `count of C op k` (k a constant that a count of 0
// does not satisfy, as in `count of translations = 3`) as a semi-join on
// the grouped elements:
//
//	parent.key IN (SELECT fk FROM elements WHERE ... GROUP BY fk HAVING COUNT(*) op k)
//
// which engines plan as one pass over the elements instead of one
// correlated COUNT per parent row. A parent with no elements is in no
// group, and is correctly left out because 0 op k is false. Other counts
// stay scalar subqueries, and so do all counts for the Page purpose: the
// grouping reads every element before the first row.
func (c *compiler) countGrouped(n *typecheck.Compare) bool {
	if c.purpose == Page || n.Operand != schema.Int {
		return false
	}
	op := n.Op
	cnt, ok := n.X.(*typecheck.Count)
	k, kok := n.Y.(*typecheck.Const)
	if !ok || !kok {
		cnt, ok = n.Y.(*typecheck.Count)
		k, kok = n.X.(*typecheck.Const)
		if !ok || !kok {
			return false
		}
		op = op.Mirror()
	}
	if k.T.Kind != schema.Int || k.Unresolved || holds(op, 0, k.I) || c.countColumn(cnt.X) != "" {
		return false
	}
	if opSQLs[op].infix == "" {
		return false
	}
	sqlOp := " " + opSQLs[op].infix + " "
	if !groupedSemiJoin(c.d, n == c.root) {
		return false
	}
	if err := groupedOverNested(c.d, cnt.X); err != nil {
		c.failErr(err)
		return true
	}
	parent, fk, ok := c.collectionParent(cnt.X, false)
	if !ok {
		return false
	}
	c.w("(", parent, " IN (SELECT ", fk)
	c.elements(cnt.X, nil, false)
	c.w(" GROUP BY ", fk, " HAVING COUNT(*)", sqlOp)
	c.param(k.I, schema.Int)
	c.w("))")
	return true
}

// countColumn is the column of a bound row that holds the count of the
// elements of coll (mapping.Table.Counts), qualified, or "" when the
// mapping keeps none for it: coll is a collection field of the row, or
// that filtered by `where` with a plain bool field of the element alone
// (`languages summary where (has qa issues)`). The column is NOT NULL
// (an empty collection counts 0), so it is TRUE or FALSE wherever it is
// compared. A sharded dialect counts the elements instead
// (store.RefreshCounts keeps no counts there).
func (c *compiler) countColumn(coll typecheck.Node) string {
	if a, col := c.countOf(coll); col != "" {
		return a + "." + col
	}
	return ""
}

// countOf is countColumn's alias of the row and quoted column apart
// ("", "" when the mapping keeps no count for coll).
func (c *compiler) countOf(coll typecheck.Node) (alias, col string) {
	if _, sharded := c.d.(Sharding); sharded {
		return "", ""
	}
	where := ""
	x := coll
	if f, ok := x.(*typecheck.Filter); ok {
		if where = countWhere(f); where == "" {
			return "", ""
		}
		x = f.X
	}
	base, ok := x.(*typecheck.Field)
	if !ok || base.F.Type.Kind != schema.Collection || base.Scope < 0 || base.Scope >= len(c.scopes) {
		return "", ""
	}
	p := c.scopes[base.Scope]
	if p.tab == nil || (base.Obj != nil && base.Obj != p.obj) {
		return "", ""
	}
	name := p.tab.Count(base.F.Name, where)
	if name == "" {
		return "", ""
	}
	return p.alias, c.q(name)
}

// withCount is countOf for n, `C with (P)`: the count the row keeps of
// the elements of C where P holds, which is above zero exactly when n
// holds (`records with (usageCount > 0)` is `count of records where
// (usageCount > 0) > 0`).
func (c *compiler) withCount(n *typecheck.Filter) (alias, col string) {
	if n.Kind != ast.With {
		return "", ""
	}
	where := *n
	where.Kind = ast.Where
	return c.countOf(&where)
}

// countWhere is the filter of f as a key of mapping.Table.Counts (see
// mapping.CountKey): f is `where` with terms joined by `and`, each
// (countTerm) a bool field of the element, an int field of it compared
// with an int constant, or the count of a collection of it compared with
// one, maybe negated; "" when it is not. The mapping keeps a count only of
// stored, non-null fields, and matches a comparison only to one that
// holds of the same ints, so the column counts exactly what f keeps.
func countWhere(f *typecheck.Filter) string {
	if f.Kind != ast.Where {
		return ""
	}
	terms := []typecheck.Node{f.Pred}
	if l, ok := f.Pred.(*typecheck.Logic); ok && l.Op == ast.OpAnd {
		terms = flatten(l)
	}
	out := make([]string, len(terms))
	for i, t := range terms {
		if out[i] = countTerm(f, t); out[i] == "" {
			return ""
		}
	}
	return strings.Join(out, " and ")
}

// countTerm is t, a term of the filter f, as a term of a key of
// mapping.Table.Counts: `has qa issues`, `approvalsCount >= 1`, `count of
// votes > 0` (what `count of votes > 0` is lowered to: some vote), each
// maybe after `not `; "" for any other term.
func countTerm(f *typecheck.Filter, t typecheck.Node) string {
	not := ""
	for {
		n, ok := t.(*typecheck.Not)
		if !ok {
			break
		}
		if not == "" {
			not = "not "
		} else {
			not = ""
		}
		t = n.X
	}
	elem := func(n typecheck.Node, k schema.Kind) string {
		if pf, ok := n.(*typecheck.Field); ok && pf.Scope == f.Scope && pf.Obj == f.Elem && pf.F.Type.Kind == k {
			return pf.F.Name
		}
		return ""
	}
	switch t := t.(type) {
	case *typecheck.Field:
		if name := elem(t, schema.Bool); name != "" {
			return not + name
		}
	case *typecheck.Exists:
		if name := elem(t.X, schema.Collection); name != "" {
			return not + "count of " + name + " > 0"
		}
	case *typecheck.Compare:
		if name := derivedEquals(f, t); name != "" {
			return not + name
		}
		x, op, k, ok := intVsConst(t)
		if !ok {
			return ""
		}
		if cnt, isCount := x.(*typecheck.Count); isCount {
			if name := elem(cnt.X, schema.Collection); name != "" {
				return not + "count of " + name + " " + op.String() + " " + strconv.FormatInt(k, 10)
			}
		} else if name := elem(x, schema.Int); name != "" {
			return not + name + " " + op.String() + " " + strconv.FormatInt(k, 10)
		}
	}
	return ""
}

// derivedEquals is the name of the derived bool field of f's elements
// that n is (`is up`, which the checker lowers to its base compared with
// the value it names: schema.Field.Equals), or "".
func derivedEquals(f *typecheck.Filter, n *typecheck.Compare) string {
	b, ok := n.X.(*typecheck.Field)
	k, kok := n.Y.(*typecheck.Const)
	if !ok || !kok || n.Op != ast.OpEq || n.Operand != schema.String || k.Unresolved || k.T.Kind != schema.String ||
		b.Scope != f.Scope || b.Obj != f.Elem || f.Elem == nil {
		return ""
	}
	if d, _ := f.Elem.Field(b.F.Name); d != nil && d.Equals != "" && d.Equals == k.S {
		return d.Name
	}
	return ""
}

// intVsConst splits n, `x op k` or `k op x` (mirrored) for an int
// constant k, compared as ints.
func intVsConst(n *typecheck.Compare) (typecheck.Node, ast.Op, int64, bool) {
	if n.Operand != schema.Int {
		return nil, 0, 0, false
	}
	x, op := n.X, n.Op
	k, ok := n.Y.(*typecheck.Const)
	if !ok {
		x, op = n.Y, op.Mirror()
		k, ok = n.X.(*typecheck.Const)
	}
	if !ok || k.T.Kind != schema.Int || k.Unresolved || !op.IsComparison() || op == ast.OpContains {
		return nil, 0, 0, false
	}
	return x, op, k.I, true
}

// countExists writes n, "some element of n.X" (or of n.X that n's
// predicate keeps, for `C with (P)`), as the count the row
// keeps in col (countColumn) above zero. On SQLite the index of col is
// kept from the plan where reading the rows in key order is cheaper
// (`+col`): beside another condition (most rows have some element, and
// SQLite would look each one up through the index), and for a page, which
// stops after its rows where the index's range would be read and sorted
// whole; the page then has a guard, the same test on any row, which the
// index answers at once and which makes a page nothing matches empty at
// once instead of reading every row (see guarded). Both are TRUE or
// FALSE, so the guard holds under a negation too.
func (c *compiler) countExists(n typecheck.Node, alias, col string) {
	_, lite := c.d.(SQLite)
	page := lite && c.purpose == Page
	if !lite || (c.whole(n) && !page) {
		c.w("(", alias, ".", col, " > 0)")
		return
	}
	root := c.scopes[0]
	if !page || c.noGuard || alias != root.alias {
		c.w("(+", alias, ".", col, " > 0)")
		return
	}
	g := c.alias()
	c.w("(+", alias, ".", col, " > 0 AND EXISTS (SELECT 1 FROM ", c.q(root.tab.Name), " AS ", g, " WHERE ", g, ".", col, " > 0", c.d.Limit("1"), "))")
}

// whole reports whether n is the whole condition, or its negation is.
func (c *compiler) whole(n typecheck.Node) bool {
	if not, ok := c.root.(*typecheck.Not); ok {
		return not.X == n
	}
	return n == c.root
}

// holds evaluates `a op b`.
func holds(op ast.Op, a, b int64) bool {
	switch op {
	case ast.OpEq:
		return a == b
	case ast.OpNe:
		return a != b
	case ast.OpLt:
		return a < b
	case ast.OpLe:
		return a <= b
	case ast.OpGt:
		return a > b
	case ast.OpGe:
		return a >= b
	}
	return true
}

// collectionParent returns, for collection coll (with a `with` predicate
// when with is set), the parent's key expression and the expression
// fromWhere's element rows hold it in (the element's foreign key, or the
// join table's From column). It relies on
// fromWhere allocating the element alias first and the join table alias
// second.
func (c *compiler) collectionParent(coll typecheck.Node, with bool) (parent, fk string, ok bool) {
	x := coll
	filtered := with
	for {
		f, isF := x.(*typecheck.Filter)
		if !isF || f.Kind != ast.Where {
			break
		}
		filtered = true
		x = f.X
	}
	base, isField := x.(*typecheck.Field)
	if !isField || base.F.Type.Kind != schema.Collection || base.Scope < 0 || base.Scope >= len(c.scopes) {
		return "", "", false
	}
	p := c.scopes[base.Scope]
	if p.tab == nil || p.tab.Key == "" {
		return "", "", false
	}
	ch := p.tab.Children[base.F.Name]
	if ch == nil {
		return "", "", false
	}
	elem := "t" + strconv.Itoa(c.next)
	parent = p.alias + "." + c.q(p.tab.Key)
	switch {
	case ch.Through == "":
		return parent, elem + "." + c.q(ch.FK), true
	case !filtered:
		return parent, elem + "." + c.q(ch.From), true
	default:
		return parent, "t" + strconv.Itoa(c.next+1) + "." + c.q(ch.From), true
	}
}

func (c *compiler) contains(n *typecheck.Contains) {
	narrow := c.trigrams(n)
	x := c.sub(func() { c.value(n.X) })
	sub := c.sub(func() { c.value(n.Sub) })
	if n.Fold {
		x, sub = c.d.Fold(x), c.d.Fold(sub)
	}
	if narrow != "" {
		c.w("(", narrow, " AND ")
		defer c.w(")")
	}
	c.w("(", opSQLs[ast.OpContains].spell(c.d, x, sub), ")")
}
