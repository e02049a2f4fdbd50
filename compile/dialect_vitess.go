package compile

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/croql/croql/ast"
	"github.com/croql/croql/mapping"
	"github.com/croql/croql/schema"
	"github.com/croql/croql/typecheck"
)

// Vitess is a sharded MySQL keyspace served by Vitess's vtgate (tested with
// Vitess v0.24 on MariaDB 10.11). It is the MySQL dialect, with these
// differences:
//
//   - the DDL declares where each table's rows live (see
//     mapping.Mapping.ShardKeys): after each CREATE TABLE comes an ALTER
//     VSCHEMA that gives the table a hash vindex on its shard column, the
//     master string's id (mapping.ShardKeyColumn) for the tables placed
//     with their string;
//   - each link between an element and its parent carries the equality of
//     their shard keys (coShard), and a string's labels are read through
//     an uncorrelated subquery on the labels (linkIn), so that vtgate
//     sends a string's collections to the shards with the string;
//   - the forms vtgate refuses or answers wrongly are written otherwise
//     (antiJoin, memberIn, objectIn; docs/serve.md, "Vitess");
//   - a statement's time is bounded by vtgate's QUERY_TIMEOUT_MS comment,
//     which vtgate reads and enforces on every shard.
//
// The conformance corpus, the seed patterns and the fuzzer check on a
// 2-shard keyspace that vtgate plans the compiled SQL and answers as the
// evaluator does (docs/serve.md, "Vitess").
type Vitess struct {
	MySQL
}

// Name implements Dialect.
func (Vitess) Name() string { return "vitess" }

// TimedSelect implements Dialect with vtgate's query timeout comment.
func (Vitess) TimedSelect(query string, left time.Duration) string {
	rest, ok := strings.CutPrefix(query, "SELECT")
	if !ok {
		return query
	}
	return "SELECT /*vt+ QUERY_TIMEOUT_MS=" + strconv.FormatInt(max(left.Milliseconds(), 1), 10) + " */" + rest
}

// BulkLoad implements Dialect: the MySQL dialect's, each INSERT committed
// on its own (see [BulkLoad.Autocommit]).
func (Vitess) BulkLoad() BulkLoad { return BulkLoad{Autocommit: true} }

// ShardTable implements [Sharding]: a hash vindex on column. vtgate creates
// the vindex named "hash" at its first use and reuses it for every other
// table.
func (d Vitess) ShardTable(table, column string) []string {
	return []string{"ALTER VSCHEMA ON " + d.Quote(table) + " ADD VINDEX `hash`(" + d.Quote(column) + ") USING `hash`"}
}

// Sharding is a dialect of a sharded engine: the DDL places each table on
// the shards by one column, its shard key. ShardTable returns the
// statements that declare it, run right after the table's CREATE TABLE
// and before any row.
type Sharding interface {
	ShardTable(table, column string) []string
}

// KeyEq implements Dialect with =, which vtgate reads as a vindex
// equality: a subquery on an element table placed by its parent's key is
// then merged into the parent's route and runs on the parent's shard.
func (Vitess) KeyEq(key, ref string) string { return key + " = " + ref }

// groupedSemiJoin reports whether countGrouped may write a count as a
// semi-join on grouped elements in dialect d, root telling whether the
// count is the whole condition. On a sharded engine only then: vtgate
// v0.24 answers the grouped semi-join wrongly inside a correlated
// subquery or under NOT (the differential suite's edge queries, and
// docs/serve.md's reproducer); the count stays a scalar subquery there,
// which vtgate refuses instead of answering wrongly.
func groupedSemiJoin(d Dialect, root bool) bool {
	_, sharded := d.(Sharding)
	return root || !sharded
}

// shardedPurpose is the purpose the compiler writes for p in dialect d:
// on a sharded engine always WholeSet. The page forms gain nothing there
// (vtgate sends a page's query to every shard and merges the rows), and
// the differential suite finds vtgate refusing more of them and answering
// some wrongly: a page's guard is an uncorrelated EXISTS, and beside a
// correlated subquery under OR vtgate drops the whole condition (the
// upstream bug in docs/serve.md, "Vitess"); and a page's counts stay
// scalar subqueries, which vtgate does not run.
func shardedPurpose(d Dialect, p Purpose) Purpose {
	if _, sharded := d.(Sharding); sharded {
		return WholeSet
	}
	return p
}

// ErrSharded is the error of Compile for a query that a sharded engine
// would answer wrongly in the form the compiler writes it.
var ErrSharded = errors.New("compile: not run on a sharded engine, which answers this form wrongly")

// lookupSubquery reports an error for a sharded dialect, where an
// unresolved @user mention cannot be looked up in the users table by a
// scalar subquery: vtgate v0.24 evaluates that uncorrelated subquery first
// and, beside a correlated one in the same condition, drops the whole
// condition (docs/serve.md, "Vitess"). Where it means the same, a
// comparison with the mention is a semi-join instead (mentionIn); for the
// rest, resolve mentions to ids first (croql.WithUserIDs), as croql serve
// does.
func lookupSubquery(d Dialect) error {
	if _, sharded := d.(Sharding); sharded {
		return fmt.Errorf("%w: an @user mention not resolved to a user id (resolve it with croql.WithUserIDs)", ErrSharded)
	}
	return nil
}

// groupedOverNested reports an error for a sharded dialect when coll, a
// collection counted by a grouped semi-join (countGrouped), is filtered
// by a count or an element of a collection of its elements: vtgate v0.24
// answers `key IN (SELECT fk ... WHERE EXISTS (SELECT ... nested) GROUP
// BY fk HAVING COUNT(*) = k)` with no rows (`count of translations where
// (count of votes > 0) = 1`, 0 strings where 6 hold), so the coordinator
// answers instead.
func groupedOverNested(d Dialect, coll typecheck.Node) error {
	if _, sharded := d.(Sharding); !sharded {
		return nil
	}
	f, ok := coll.(*typecheck.Filter)
	if !ok {
		return nil
	}
	nested := false
	typecheck.Inspect(f.Pred, func(n typecheck.Node) {
		switch x := n.(type) {
		case *typecheck.Count, *typecheck.Filter:
			nested = true
		case *typecheck.Field:
			nested = nested || x.F.Type.Kind == schema.Collection
		}
	})
	if nested {
		return fmt.Errorf("%w: a grouped count of elements filtered by a collection of their own", ErrSharded)
	}
	return nil
}

// antiJoin writes "no element of C" for a sharded dialect as uncorrelated
// anti-joins,
//
//	NOT COALESCE(parent.key IN (SELECT fk FROM elements WHERE ...), FALSE)
//
// and reports whether it did: vtgate v0.24 runs no correlated subquery
// but EXISTS, so it refuses NOT EXISTS over a join (string_translations
// JOIN translations), and runs this form on the shards. COALESCE keeps the
// answer TRUE or FALSE when fk holds a NULL. It is written only in the
// condition on the root row itself, for elements whose predicates read no
// outer scope: inside a correlated EXISTS vtgate loses the anti-join (edge
// query 58). vtgate drops an OR that holds a subquery inside the IN's
// subquery and answers wrongly (the seed pattern
// seed-no-approved-or-voted-in-language, `... where (language = "de" and
// (count of approvals > 0 or count of votes > 0)) = 0`), so the predicate
// of the outermost where is first split into its disjuncts (see
// disjuncts): "no element matches A or B" is "no element matches A" and
// "no element matches B", one anti-join each, whose predicates hold no OR
// (nor NOT, nor xor) over a subquery. Where that cannot be had, it stays
// NOT EXISTS.
func (c *compiler) antiJoin(e *typecheck.Exists) bool {
	if _, sharded := c.d.(Sharding); !sharded || !c.topLevel() || correlated(e.X, nil) {
		return false
	}
	pieces := []typecheck.Node{e.X}
	if f, ok := e.X.(*typecheck.Filter); ok && f.Kind == ast.Where {
		ds := disjuncts(f.Pred, maxAntiJoins)
		if ds == nil {
			return false
		}
		pieces = pieces[:0]
		for _, d := range ds {
			cp := *f
			cp.Pred = d
			pieces = append(pieces, &cp)
		}
	}
	for _, p := range pieces {
		if branchesOverSubquery(p) {
			return false
		}
	}
	if len(pieces) > 1 {
		c.w("(")
	}
	for i, p := range pieces {
		if i > 0 {
			c.w(" AND ")
		}
		parent, fk, ok := c.collectionParent(p, false)
		if !ok {
			// The same for every piece: only the first can fail.
			return false
		}
		c.w("NOT COALESCE(", parent, " IN (SELECT ", fk)
		c.elements(p, nil, false)
		c.w("), ", c.d.Bool(false), ")")
	}
	if len(pieces) > 1 {
		c.w(")")
	}
	return true
}

// maxAntiJoins bounds the anti-joins one "no element matches P" is split
// into (see disjuncts).
const maxAntiJoins = 8

// disjuncts returns P's disjunctive pieces, at most limit of them (nil if
// there would be more): A or B gives the pieces of A and of B, A and B
// each piece of A with each piece of B, anything else itself. P holds
// exactly where one of its pieces holds: AND distributes over OR in
// SQL's three-valued logic as in CroQL's.
func disjuncts(n typecheck.Node, limit int) []typecheck.Node {
	l, ok := n.(*typecheck.Logic)
	if !ok || (l.Op != ast.OpOr && l.Op != ast.OpAnd) {
		return []typecheck.Node{n}
	}
	x := disjuncts(l.X, limit)
	y := disjuncts(l.Y, limit)
	if x == nil || y == nil {
		return nil
	}
	if l.Op == ast.OpOr {
		if len(x)+len(y) > limit {
			return nil
		}
		return append(x, y...)
	}
	if len(x) == 1 && len(y) == 1 {
		return []typecheck.Node{n}
	}
	if len(x)*len(y) > limit {
		return nil
	}
	out := make([]typecheck.Node, 0, len(x)*len(y))
	for _, a := range x {
		for _, b := range y {
			out = append(out, &typecheck.Logic{Op: ast.OpAnd, X: a, Y: b, Sp: l.Sp})
		}
	}
	return out
}

// branchesOverSubquery reports whether the predicates of coll's where
// filters hold an or, a xor or a not over a subquery (another
// collection, or a field of a referenced object).
func branchesOverSubquery(coll typecheck.Node) bool {
	found := false
	for _, f := range filtersOf(coll, nil) {
		typecheck.Inspect(f.Pred, func(n typecheck.Node) {
			switch n := n.(type) {
			case *typecheck.Logic:
				found = found || (n.Op != ast.OpAnd && holdsSubquery(n))
			case *typecheck.Not:
				found = found || holdsSubquery(n)
			}
		})
	}
	return found
}

// holdsSubquery reports whether n holds another collection or a field of
// a referenced object.
func holdsSubquery(n typecheck.Node) bool {
	found := false
	typecheck.Inspect(n, func(n typecheck.Node) {
		switch n.(type) {
		case *typecheck.Exists, *typecheck.Count, *typecheck.Filter, *typecheck.Member:
			found = true
		}
	})
	return found
}

// topLevel reports whether the compiler is writing the condition on the
// root row itself, not the inside of a subquery (which binds a scope).
func (c *compiler) topLevel() bool {
	for _, b := range c.scopes[min(1, len(c.scopes)):] {
		if b.alias != "" {
			return false
		}
	}
	return true
}

// memberIn writes, for a sharded dialect, a comparison or contains of
// a referenced object's field with a constant (`name of branch =
// "main"`, `title of file contains "x"`) as an uncorrelated semi-join on
// that object's table, which is TRUE or FALSE, and reports whether it did:
//
//	COALESCE(t0.branch_id IN (SELECT a.id FROM branches AS a WHERE a.name = ?), FALSE)
//
// and `!=` as NOT of that form with =. vtgate runs no correlated scalar
// subquery, which is how the field reads elsewhere, and no correlated
// subquery but EXISTS, and that not inside an expression (NOT,
// COALESCE); it refuses those and runs this form, also inside another
// subquery and under NOT (the differential suite's edge queries and
// vitessQueries; an EXISTS over the row, its first form here, was
// refused under NOT and rewritten wrongly inside EXISTS). The form holds
// exactly where the field compares with the constant: = is null-safe and
// the constant is never absent, and the ordering operators and contains
// are false on an absent operand, so a missing object and an absent
// field leave it false.
func (c *compiler) memberIn(n typecheck.Node) bool {
	if _, sharded := c.d.(Sharding); !sharded {
		return false
	}
	if c.mentionIn(n) {
		return true
	}
	var m *typecheck.Member
	var other typecheck.Node
	var write func(field, val string) string
	neg := false
	switch n := n.(type) {
	case *typecheck.Compare:
		o := n.Op
		if o == ast.OpNe { // not =
			o, neg = ast.OpEq, true
		}
		if opSQLs[o].infix == "" || n.Operand == schema.Bool {
			return false
		}
		op := " " + opSQLs[o].infix + " "
		if x, ok := n.X.(*typecheck.Member); ok {
			m, other = x, n.Y
			write = func(field, val string) string { return "(" + field + op + val + ")" }
		} else if y, ok := n.Y.(*typecheck.Member); ok {
			m, other = y, n.X
			write = func(field, val string) string { return "(" + val + op + field + ")" }
		}
	case *typecheck.Contains:
		fold := func(x string) string {
			if n.Fold {
				return c.d.Fold(x)
			}
			return x
		}
		if x, ok := n.X.(*typecheck.Member); ok {
			m, other = x, n.Sub
			write = func(field, val string) string { return "(" + c.d.Contains(fold(field), fold(val)) + ")" }
		} else if y, ok := n.Sub.(*typecheck.Member); ok {
			m, other = y, n.X
			write = func(field, val string) string { return "(" + c.d.Contains(fold(val), fold(field)) + ")" }
		}
	}
	if m == nil {
		return false
	}
	if k, ok := other.(*typecheck.Const); !ok || k.Unresolved {
		return false
	}
	obj := m.X.Type().Obj
	if obj == nil {
		return false
	}
	t, err := c.m.Table(obj)
	if err != nil || t.Key == "" || t.Columns[m.F.Name] == "" || t.Columns[m.F.Name] == t.Key {
		return false
	}
	a := c.alias()
	ref := c.sub(func() { c.ref(m.X) })
	field := c.sub(func() { c.field(binding{alias: a, obj: obj, tab: t}, m.F) })
	val := c.sub(func() { c.value(other) })
	if neg {
		c.w("NOT ")
	}
	c.w("COALESCE(", ref, " IN (SELECT ", a, ".", c.q(t.Key), " FROM ", c.q(t.Name), " AS ", a, " WHERE ", write(field, val), "), ", c.d.Bool(false), ")")
	return true
}

// mentionIn writes, for memberIn, `x = @user:"login"` with a
// mention not resolved to an id as an uncorrelated semi-join on the
// users table, TRUE or FALSE,
//
//	COALESCE(t1.user_id IN (SELECT a.id FROM users AS a WHERE a.login = ?), FALSE)
//
// and `x != @user:"login"` as NOT of it, and reports whether it did:
// elsewhere the mention is looked up by an uncorrelated scalar subquery,
// which vtgate answers wrongly beside a correlated one (see
// lookupSubquery), and an EXISTS over the user's row is refused under NOT.
// Only for an x that is never absent: = is null-safe, so an absent x
// equals the mention of a login no user has.
func (c *compiler) mentionIn(n typecheck.Node) bool {
	cmp, ok := n.(*typecheck.Compare)
	if !ok || (cmp.Op != ast.OpEq && cmp.Op != ast.OpNe) {
		return false
	}
	x, k := cmp.X, cmp.Y
	if kc, ok := x.(*typecheck.Const); ok {
		x, k = k, kc
	}
	kc, ok := k.(*typecheck.Const)
	if !ok || !kc.Unresolved || kc.T.Kind != schema.User {
		return false
	}
	if _, ok := x.(*typecheck.Const); ok || typecheck.Nullable(x) {
		return false
	}
	ut, err := c.m.Table(c.m.Catalog().UserObj)
	if err != nil {
		return false
	}
	login, id := ut.Columns["login"], ut.Columns["id"]
	if login == "" || id == "" {
		return false
	}
	a := c.alias()
	ref := c.sub(func() { c.value(x) })
	if cmp.Op == ast.OpNe {
		c.w("NOT ")
	}
	c.w("COALESCE(", ref, " IN (SELECT ", a, ".", c.q(id), " FROM ", c.q(ut.Name), " AS ", a, " WHERE ", a, ".", c.q(login), " = ")
	c.param(kc.S, schema.String)
	c.w("), ", c.d.Bool(false), ")")
	return true
}

// objectIn writes, for a sharded dialect, `X with (P)` on a referenced
// object X (table t) as an uncorrelated semi-join on t, which is TRUE or
// FALSE, and reports whether it did:
//
//	COALESCE(t1.user_id IN (SELECT a.id FROM users AS a WHERE P), FALSE)
//
// where the EXISTS over X's row is refused under NOT and rewritten wrongly
// by vtgate inside another EXISTS (the differential suite's edge
// queries). Only when P reads X's fields alone: no outer scope, no
// subquery.
func (c *compiler) objectIn(n *typecheck.Filter, t *mapping.Table) bool {
	if _, sharded := c.d.(Sharding); !sharded || correlated(n.X, n) || holdsSubquery(n.Pred) {
		return false
	}
	a := c.alias()
	ref := c.sub(func() { c.ref(n.X) })
	c.w("COALESCE(", ref, " IN (SELECT ", a, ".", c.q(t.Key), " FROM ", c.q(t.Name), " AS ", a, " WHERE ")
	c.bindPred(n.Scope, binding{alias: a, obj: n.Elem, tab: t}, n.Pred)
	c.w("), ", c.d.Bool(false), ")")
	return true
}

// shardKeyOf is the shard column of table in the mapping
// (mapping.ShardKeys), read once per compilation.
func (c *compiler) shardKeyOf(table string) string {
	if c.shardKeys == nil {
		c.shardKeys = c.m.ShardKeys()
	}
	return c.shardKeys[table]
}

// colocated reports whether every one of tables is placed with its
// string, by mapping.ShardKeyColumn (mapping.Colocated).
func (c *compiler) colocated(tables ...string) bool {
	for _, t := range tables {
		if c.shardKeyOf(t) != mapping.ShardKeyColumn {
			return false
		}
	}
	return true
}

// coShard returns, for a sharded dialect and two tables both placed with
// their string, the condition that ties the rows of alias a (table at) to
// those of alias b (table bt) on one shard,
//
//	AND a.shard_key = b.shard_key
//
// written beside the link of an element to its parent (a comment to its
// string, a translation to its row of string_translations): the link
// implies it, as the loader places an element with its parent, and it
// tells vtgate that the rows are on one shard, so that it sends the
// correlated subquery or join to the shards with the outer query instead
// of one query per row. "" otherwise.
func (c *compiler) coShard(a, at, b, bt string) string {
	if _, sharded := c.d.(Sharding); !sharded || !c.colocated(at, bt) {
		return ""
	}
	col := c.q(mapping.ShardKeyColumn)
	return " AND " + a + "." + col + " = " + b + "." + col
}

// linkIn reports whether the elements et of child ch, read through its
// join table, are written for a sharded dialect as an uncorrelated IN on
// the join table's element column,
//
//	FROM string_labels AS l WHERE l.string_id = t0.id AND l.shard_key = t0.shard_key
//	  AND l.label_id IN (SELECT a.id FROM labels AS a WHERE P)
//
// instead of a join of the two tables: the elements (labels) are placed
// by their key, not with the join table's rows, and vtgate runs such a
// join as one query to the shards per row; it runs the uncorrelated IN
// once and sends the rest with the parent's row. Only when the
// predicates P on the elements read their own fields alone (plain); the
// counts are the same, as a join table's row is one element (the loader
// stores no link to a missing element, and the key is unique).
func (c *compiler) linkIn(ch *mapping.Child, et *mapping.Table, plain bool) bool {
	if _, sharded := c.d.(Sharding); !sharded || !plain || et.Key == "" {
		return false
	}
	return c.colocated(ch.Through) && !c.colocated(et.Name)
}

// predsHoldSubquery reports whether a predicate on the elements of coll
// (its where filters, and with) holds another collection or a field of a
// referenced object.
func (c *compiler) predsHoldSubquery(coll typecheck.Node, with *typecheck.Filter) bool {
	for _, f := range filtersOf(coll, with) {
		if holdsSubquery(f.Pred) {
			return true
		}
	}
	return false
}

// CoShard is coShard for statements written outside the compiler (croql
// serve's): for a sharded dialect d, when tables at and bt of m are both
// placed with their string (mapping.Colocated), the condition
// " AND a.shard_key = b.shard_key" to write beside the link between the
// rows of aliases a and b, which tells vtgate that they are on one shard;
// "" otherwise.
func CoShard(d Dialect, m *mapping.Mapping, a, at, b, bt string) string {
	if _, sharded := d.(Sharding); !sharded {
		return ""
	}
	keys := m.ShardKeys()
	if keys[at] != mapping.ShardKeyColumn || keys[bt] != mapping.ShardKeyColumn {
		return ""
	}
	col := d.Quote(mapping.ShardKeyColumn)
	return " AND " + a + "." + col + " = " + b + "." + col
}
