package store

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strings"

	"github.com/croql/croql/ast"
	"github.com/croql/croql/compile"
	"github.com/croql/croql/eval"
	"github.com/croql/croql/mapping"
	"github.com/croql/croql/schema"
	"github.com/croql/croql/typecheck"
)

// The coordinator: on a sharded engine (a [compile.Sharding] dialect), a query
// whose SQL the engine refuses, or which the compiler will not send there
// because the engine answers its form wrongly ([compile.ErrSharded]), is answered
// by croql itself, as a distributed engine's coordinator answers what it
// cannot push down to the shards:
//
//  1. the prefilter, the conjuncts of the condition that read only the
//     root row's own columns (no subquery, no referenced object, no
//     unresolved mention), selects the candidates on the shards; with no
//     such conjunct every root row is a candidate;
//  2. the candidates are read back by key, a chunk at a time, with the
//     collections the query reaches ([ReadObjects]), and the users table
//     ([ReadUsers]);
//  3. the evaluator (package eval) keeps the candidates that match.
//
// Every statement sent is a plain one the engine routes by key: the
// prefilter's scan with column conditions, and `key IN (...)` lookups. The
// prefilter selects a superset of the matches: a conjunct left out is
// read as TRUE, and a condition holds only where all its conjuncts do. The
// answer is the evaluator's by construction; its cost is reading the
// candidates (docs/serve.md, "Vitess").

// coordinatorChunk is how many candidates the coordinator reads and
// evaluates at a time.
const coordinatorChunk = 500

// coordinator answers one checked query at croql's side of a sharded
// engine.
type coordinator struct {
	q *typecheck.Query
	// core and scopes are q's core tree (typecheck.CoreOf), computed
	// once.
	core   typecheck.Node
	scopes int
	d      compile.Dialect
	m      *mapping.Mapping
	pre    *compile.SQL
}

// newCoordinator prepares the coordinator's answer to q: the prefilter
// compiled for d.
func newCoordinator(q *typecheck.Query, d compile.Dialect, m *mapping.Mapping) (*coordinator, error) {
	core, scopes := typecheck.CoreOf(q)
	var kept []typecheck.Node
	for _, c := range conjuncts(core, nil) {
		if rowOnly(c) {
			kept = append(kept, c)
		}
	}
	pre, err := compile.Conjunction(q, kept, scopes, d, m, compile.WholeSet)
	if err != nil {
		return nil, fmt.Errorf("store: the coordinator's prefilter: %w", err)
	}
	return &coordinator{q: q, core: core, scopes: scopes, d: d, m: m, pre: pre}, nil
}

// conjuncts appends the conjuncts of n (A and B gives those of A and of
// B) to out.
func conjuncts(n typecheck.Node, out []typecheck.Node) []typecheck.Node {
	if l, ok := n.(*typecheck.Logic); ok && l.Op == ast.OpAnd {
		return conjuncts(l.Y, conjuncts(l.X, out))
	}
	return append(out, n)
}

// rowOnly reports whether n reads the root row's own columns alone: no
// collection, no referenced object's field, no mention to look up.
func rowOnly(n typecheck.Node) bool {
	if compile.HoldsSubquery(n) {
		return false
	}
	ok := true
	typecheck.Inspect(n, func(n typecheck.Node) {
		if k, isConst := n.(*typecheck.Const); isConst && k.Unresolved {
			ok = false
		}
	})
	return ok
}

// run answers the query: the keys of the matches in ascending order, at
// most limit of them (all when limit <= 0).
func (co *coordinator) run(ctx context.Context, db *sql.DB, limit int) ([]int64, error) {
	cands, err := runSelect(ctx, db, co.d, co.pre.Select(), co.pre.Args)
	if err != nil {
		return nil, fmt.Errorf("store: the coordinator's prefilter: %w", err)
	}
	var opts []eval.Option
	q := co.q
	if usesUsers(co.q, co.core) {
		users, err := ReadUsers(ctx, db, co.d, co.m)
		if err != nil {
			return nil, fmt.Errorf("store: the coordinator: %w", err)
		}
		opts = append(opts, eval.WithUserRefs(users...))
		q = co.resolveMentions(users)
	}
	prog, err := eval.Compile(q, opts...)
	if err != nil {
		return nil, fmt.Errorf("store: the coordinator: %w", err)
	}
	want := reached(co.q, co.core)
	ids := []int64{}
	for chunk := range slices.Chunk(cands, coordinatorChunk) {
		objs, err := ReadObjects(ctx, db, co.d, co.m, co.q.Context, chunk, want)
		if err != nil {
			return nil, fmt.Errorf("store: the coordinator: %w", err)
		}
		for _, o := range objs {
			ok, err := prog.MatchContext(ctx, o)
			if err != nil {
				return nil, fmt.Errorf("store: the coordinator: %w", err)
			}
			if !ok {
				continue
			}
			id, ok := schema.ObjectID(o)
			if !ok {
				return nil, fmt.Errorf("store: the coordinator: a %T without an id", o)
			}
			ids = append(ids, id)
			if limit > 0 && len(ids) >= limit {
				return ids, nil
			}
		}
	}
	return ids, nil
}

// usesUsers reports whether evaluating q reads the users table: a
// user's field (`login of user`, `user with (...)`), or a mention of a
// login not resolved to an id.
func usesUsers(q *typecheck.Query, core typecheck.Node) bool {
	found := false
	inspectBoth(q, core, func(n typecheck.Node) {
		switch n := n.(type) {
		case *typecheck.Const:
			found = found || n.Unresolved
		case *typecheck.Member:
			found = found || n.X.Type().Kind == schema.User
		case *typecheck.Filter:
			found = found || n.X.Type().Kind == schema.User
		}
	})
	return found
}

// reached returns the collections q reads, for ReadObjects: a
// collection field of an object is read when q names that field.
func reached(q *typecheck.Query, core typecheck.Node) func(*schema.Object, *schema.Field) bool {
	names := map[*schema.Field]bool{}
	inspectBoth(q, core, func(n typecheck.Node) {
		switch n := n.(type) {
		case *typecheck.Field:
			names[n.F] = true
		case *typecheck.Member:
			names[n.F] = true
		}
	})
	return func(_ *schema.Object, f *schema.Field) bool { return names[f] }
}

// inspectBoth calls f on every node of q's tree and of its core tree
// core (where derived fields are spelled out).
func inspectBoth(q *typecheck.Query, core typecheck.Node, f func(typecheck.Node)) {
	typecheck.Inspect(q.Root, f)
	typecheck.Inspect(core, f)
}

// refusal is an error of a sharded engine refusing a statement: vtgate's
// VTxxxxx errors (a shape its planner does not support), a statement it
// rewrote wrongly for the shards (a missing bind variable, a syntax error
// in the rewritten text), and a connection it closed when its planner
// panicked.
var refusal = regexp.MustCompile(`VT\d{5}|missing bind var|syntax error|invalid connection`)

// Refused reports whether err, from compiling or running a statement for
// dialect d, is a sharded engine refusing it (or the compiler refusing a
// form the engine answers wrongly, ErrSharded): the coordinator answers
// such a query instead (Exec, Coordinate). It is false for every other
// dialect and error, a timeout or a cancellation included.
func Refused(d compile.Dialect, err error) bool {
	if _, sharded := d.(compile.Sharding); !sharded || err == nil {
		return false
	}
	if errors.Is(err, compile.ErrSharded) || errors.Is(err, driver.ErrBadConn) {
		return true
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return false
	}
	return refusal.MatchString(err.Error()) || strings.Contains(err.Error(), "bad connection")
}

// Exec runs q on db and returns the keys of its matches in ascending
// order, at most limit of them (all when limit <= 0): the SQL compiled for
// purpose p (Page, with limit, reads the first rows of SelectLimit).
// On a sharded engine ([compile.Sharding]) a query the engine refuses, or that
// the compiler will not send there ([compile.ErrSharded]), is answered by the
// coordinator (see [Coordinate] and docs/serve.md, "Vitess"), and
// coordinated is true.
func Exec(ctx context.Context, db *sql.DB, d compile.Dialect, m *mapping.Mapping, q *typecheck.Query, p compile.Purpose, limit int) (ids []int64, coordinated bool, err error) {
	s, err := compile.CompileFor(q, d, m, p)
	if err != nil {
		if !Refused(d, err) {
			return nil, false, err
		}
		return coordinateRefused(ctx, db, d, m, q, limit, err)
	}
	return execSQL(ctx, db, s, limit)
}

// coordinateRefused is the coordinator's answer to q, which the engine or
// the compiler refused with refusal.
func coordinateRefused(ctx context.Context, db *sql.DB, d compile.Dialect, m *mapping.Mapping, q *typecheck.Query, limit int, refusal error) ([]int64, bool, error) {
	co, err := newCoordinator(q, d, m)
	if err != nil {
		return nil, false, errors.Join(refusal, err)
	}
	ids, err := co.run(ctx, db, limit)
	return ids, true, err
}

// execSQL runs s (Select, or SelectLimit for limit > 0), and on a refusal
// of a sharded engine the coordinator. A statement that joins rows on
// different shards (compile.SQL.CrossShard) goes to the coordinator
// first: vtgate runs it as a query to the shards per row (when a
// string's translations were placed apart from it, the seed patterns over
// them took 4 to 50 times the coordinator's time, docs/serve.md,
// "Vitess").
func execSQL(ctx context.Context, db *sql.DB, s *compile.SQL, limit int) ([]int64, bool, error) {
	if s.CrossShard && s.Query() != nil && s.Mapping() != nil {
		if co, err := newCoordinator(s.Query(), s.Dialect, s.Mapping()); err == nil {
			ids, err := co.run(ctx, db, limit)
			return ids, true, err
		}
	}
	query, args := s.Select(), s.Args
	if limit > 0 {
		query, args = s.SelectLimit(limit)
	}
	ids, err := runSelect(ctx, db, s.Dialect, query, args)
	if err == nil || s.Query() == nil || !Refused(s.Dialect, err) {
		return ids, false, err
	}
	return coordinateRefused(ctx, db, s.Dialect, s.Mapping(), s.Query(), limit, err)
}

// RunSQLLimit is RunSQL for the first limit matches (SelectLimit); on a
// sharded engine a statement it refuses is answered by the coordinator.
func RunSQLLimit(ctx context.Context, db *sql.DB, s *compile.SQL, limit int) ([]int64, error) {
	if limit <= 0 {
		return []int64{}, nil
	}
	ids, _, err := execSQL(ctx, db, s, limit)
	return ids, err
}

// Coordinate answers q on db as the coordinator does on a sharded engine,
// on any engine: the prefilter's candidates, read back and matched by the
// evaluator. It returns the keys of the matches in ascending order, at
// most limit of them (all when limit <= 0). Exec and Run call it for what
// a sharded engine refuses; it is exported for tools and for the
// differential suite, which proves it on every engine.
func Coordinate(ctx context.Context, db *sql.DB, d compile.Dialect, m *mapping.Mapping, q *typecheck.Query, limit int) ([]int64, error) {
	switch {
	case q == nil || q.Root == nil || q.Context == nil:
		return nil, errors.New("store: no checked query")
	case q.Diags.HasErrors():
		return nil, fmt.Errorf("store: the query has errors: %v", q.Diags[0].Message)
	case d == nil || m == nil || db == nil:
		return nil, errors.New("store: Coordinate needs a database, a dialect and a mapping")
	}
	co, err := newCoordinator(q, d, m)
	if err != nil {
		return nil, err
	}
	return co.run(ctx, db, limit)
}

// resolveMentions returns the query with every @user mention not resolved to an
// id (Const.Unresolved) resolved against users, as the SQL's lookup in
// the users table resolves it. A login no user has is absent in SQL (the
// lookup finds no row); users compare only with = and !=, which are
// null-safe, so such a mention becomes an id no user has, one for every
// such login: it equals another unknown login's mention and nothing
// else, as absent equals absent and nothing else.
func (co *coordinator) resolveMentions(users []schema.UserRef) *typecheck.Query {
	ids := make(map[string]int64, len(users))
	taken := make(map[int64]bool, len(users))
	for _, u := range users {
		ids[u.Login] = u.ID
		taken[u.ID] = true
	}
	none := int64(math.MinInt64)
	for taken[none] {
		none++
	}
	cp := *co.q
	cp.Core = mapConsts(co.core, func(k *typecheck.Const) *typecheck.Const {
		if !k.Unresolved {
			return k
		}
		id, ok := ids[k.S]
		if !ok {
			id = none
		}
		return &typecheck.Const{T: k.T, I: id, Sp: k.Sp}
	})
	cp.CoreScopes = co.scopes
	return &cp
}

// mapConsts returns a copy of the core tree n with every constant k
// replaced by f(k).
func mapConsts(n typecheck.Node, f func(*typecheck.Const) *typecheck.Const) typecheck.Node {
	if k, ok := n.(*typecheck.Const); ok {
		return f(k)
	}
	ops := typecheck.Operands(n)
	if len(ops) == 0 {
		return n
	}
	out := make([]typecheck.Node, len(ops))
	for i, x := range ops {
		out[i] = mapConsts(x, f)
	}
	return typecheck.WithOperands(n, out)
}
