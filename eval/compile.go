package eval

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"unsafe"

	"github.com/croql/croql/ast"
	"github.com/croql/croql/diag"
	"github.com/croql/croql/schema"
	"github.com/croql/croql/typecheck"
)

// The closures a Program is made of. Each is specialised to one Go type;
// a nullable value is a (value, present) pair, and a predicate is a plain
// bool (two-valued logic: absent is false where a bool is needed).
type (
	predFn       func(frame) bool
	valFn[T any] func(frame) (T, bool)
	// ptrFn yields the object a Record (or a user) value denotes, nil when
	// it is absent.
	ptrFn func(frame) unsafe.Pointer
	// srcFn yields the elements of a collection: the first and how many.
	srcFn func(frame) (unsafe.Pointer, int)
)

// ordered is what the comparison closures are instantiated for.
type ordered interface{ ~int64 | ~float64 | ~string }

// ErrUnresolvedUser is wrapped by the error Compile returns when the query
// mentions a user that the checker could not resolve because no user
// directory was given.
var ErrUnresolvedUser = errors.New("unresolved user mention")

// ErrNoUsers is wrapped by the error Compile returns when the query reads
// user logins (`login of user`, `user with (...)`) and no user directory was
// given with WithUserLogins or WithUserRefs.
var ErrNoUsers = errors.New("no user directory")

// compiler turns checked IR into closures. It lives for one Compile call.
type compiler struct {
	scopes  int
	users   map[int64]*schema.UserRef
	haveDir bool
	depth   int
	// opt turns on the optimising layer: the fused test trees (fuse.go),
	// the comparisons that read a field inline (compareFast, direct) and
	// the loops that read a slice field inline (coll.direct). Without it
	// every node is its plain closure.
	opt bool
}

// maxDepth bounds the recursion of the compiler, as a guard against IR that
// did not come from the checker (the parser's limits keep real trees far
// below it).
const maxDepth = 10000

func (c *compiler) enter(n typecheck.Node) error {
	c.depth++
	if c.depth > maxDepth {
		return fmt.Errorf("expression nested deeper than %d", maxDepth)
	}
	if n == nil {
		return errors.New("missing expression node")
	}
	return nil
}

func (c *compiler) leave() { c.depth-- }

// errAt is an error about node n: a *diag.SpanError with n's span, which
// the croql facade reports as a diagnostic on n.
func errAt(n typecheck.Node, format string, args ...any) error {
	return diag.At(n.Span(), fmt.Errorf(format, args...))
}

func (c *compiler) scope(n typecheck.Node, s int) error {
	if s < 0 || s >= c.scopes {
		return errAt(n, "scope %d outside the query's %d scopes", s, c.scopes)
	}
	return nil
}

// field binds a bare field to its Go field and checks its scope.
func (c *compiler) field(n *typecheck.Field) (goField, error) {
	if err := c.scope(n, n.Scope); err != nil {
		return goField{}, err
	}
	g, err := bindField(n.Obj, n.F)
	if err != nil {
		return goField{}, errAt(n, "%v", err)
	}
	return g, nil
}

// ---------------------------------------------------------------------------
// Predicates

func (c *compiler) pred(n typecheck.Node) (predFn, error) {
	if err := c.enter(n); err != nil {
		return nil, err
	}
	defer c.leave()
	if k := n.Type().Kind; k != schema.Bool {
		return nil, errAt(n, "%T is %s where a bool is needed", n, n.Type())
	}
	switch n := n.(type) {
	case *typecheck.Field:
		g, err := c.field(n)
		if err != nil {
			return nil, err
		}
		return fieldPred(n.Scope, g), nil
	case *typecheck.Member:
		v, err := c.boolV(n)
		if err != nil {
			return nil, err
		}
		return func(fr frame) bool { b, ok := v(fr); return ok && b }, nil
	case *typecheck.Filter:
		return c.with(n)
	case *typecheck.Exists:
		cl, err := c.coll(n.X)
		if err != nil {
			return nil, err
		}
		return exists(cl), nil
	case *typecheck.Not:
		x, err := c.pred(n.X)
		if err != nil {
			return nil, err
		}
		return opEvals[ast.OpNot].not(x), nil
	case *typecheck.Logic:
		return c.logic(n)
	case *typecheck.Compare:
		return c.compare(n)
	case *typecheck.Between:
		return c.between(n)
	case *typecheck.Contains:
		return c.contains(n)
	case *typecheck.If:
		cond, err := c.pred(n.Cond)
		if err != nil {
			return nil, err
		}
		th, err := c.pred(n.Then)
		if err != nil {
			return nil, err
		}
		el, err := c.pred(n.Else)
		if err != nil {
			return nil, err
		}
		return func(fr frame) bool {
			if cond(fr) {
				return th(fr)
			}
			return el(fr)
		}, nil
	case *typecheck.IsSet:
		switch n.X.Type().Kind {
		case schema.Datetime, schema.Int, schema.User:
			x, err := c.intV(n.X)
			if err != nil {
				return nil, err
			}
			return func(fr frame) bool { _, ok := x(fr); return ok }, nil
		case schema.Float:
			x, err := c.floatV(n.X)
			if err != nil {
				return nil, err
			}
			return func(fr frame) bool { _, ok := x(fr); return ok }, nil
		case schema.String, schema.Language:
			x, err := c.strV(n.X)
			if err != nil {
				return nil, err
			}
			return func(fr frame) bool { _, ok := x(fr); return ok }, nil
		}
		return nil, errAt(n, "IsSet of %s", n.X.Type())
	}
	return nil, errAt(n, "%T cannot stand as a bool", n)
}

// fieldPred reads a bool field of the object bound at scope s: a bool of
// its own, or a bit (mask) of the byte at off.
func fieldPred(s int, g goField) predFn {
	off, mask := g.off, g.mask
	if mask != 0 {
		return func(fr frame) bool { return *(*uint8)(unsafe.Add(fr[s], off))&mask != 0 }
	}
	if g.ptr {
		return func(fr frame) bool {
			p := *(**bool)(unsafe.Add(fr[s], off))
			return p != nil && *p
		}
	}
	return func(fr frame) bool { return *(*bool)(unsafe.Add(fr[s], off)) }
}

func (c *compiler) logic(n *typecheck.Logic) (predFn, error) {
	x, err := c.pred(n.X)
	if err != nil {
		return nil, err
	}
	y, err := c.pred(n.Y)
	if err != nil {
		return nil, err
	}
	if build := opEvals[n.Op].logic; build != nil {
		return build(x, y), nil
	}
	return nil, errAt(n, "unknown logical operator %s", n.Op)
}

// ---------------------------------------------------------------------------
// Values

// boolV is a bool that may be absent (a member of an absent object), for
// the null-safe = and != on bools.
func (c *compiler) boolV(n typecheck.Node) (valFn[bool], error) {
	if err := c.enter(n); err != nil {
		return nil, err
	}
	defer c.leave()
	switch n := n.(type) {
	case *typecheck.Field:
		g, err := c.field(n)
		if err != nil {
			return nil, err
		}
		if g.ptr {
			return fieldVal[bool](n.Scope, g), nil
		}
		p := fieldPred(n.Scope, g)
		return func(fr frame) (bool, bool) { return p(fr), true }, nil
	case *typecheck.Member:
		x, err := c.ptr(n.X)
		if err != nil {
			return nil, err
		}
		g, err := c.member(n)
		if err != nil {
			return nil, err
		}
		if g.mask != 0 {
			return memberBit(x, g), nil
		}
		return memberVal[bool](x, g), nil
	case *typecheck.If:
		return ifOf(c, n, c.boolV)
	}
	p, err := c.pred(n)
	if err != nil {
		return nil, err
	}
	return func(fr frame) (bool, bool) { return p(fr), true }, nil
}

// intV compiles an int, a datetime (Unix seconds) or a user (its id).
func (c *compiler) intV(n typecheck.Node) (valFn[int64], error) {
	if err := c.enter(n); err != nil {
		return nil, err
	}
	defer c.leave()
	switch k := n.Type().Kind; k {
	case schema.Int, schema.Datetime, schema.User:
	default:
		return nil, errAt(n, "%T is %s where an int is needed", n, n.Type())
	}
	switch n := n.(type) {
	case *typecheck.Const:
		if n.Unresolved {
			return nil, c.unresolved(n)
		}
		v := n.I
		return func(frame) (int64, bool) { return v, true }, nil
	case *typecheck.Field:
		g, err := c.field(n)
		if err != nil {
			return nil, err
		}
		if g.rep == repUint32 {
			s, off := n.Scope, g.off
			return func(fr frame) (int64, bool) { return int64(*(*uint32)(unsafe.Add(fr[s], off))), true }, nil
		}
		return fieldVal[int64](n.Scope, g), nil
	case *typecheck.Member:
		return c.intMember(n)
	case *typecheck.Count:
		cnt, err := c.count(n.X)
		if err != nil {
			return nil, err
		}
		return func(fr frame) (int64, bool) { return int64(cnt(fr)), true }, nil
	case *typecheck.Arith:
		x, err := c.intV(n.X)
		if err != nil {
			return nil, err
		}
		y, err := c.intV(n.Y)
		if err != nil {
			return nil, err
		}
		if build := opEvals[n.Op].intArith; build != nil {
			return build(x, y), nil
		}
		// The checker makes the result of an operator such as division
		// a float; another operator here has no integer evaluation.
		return nil, errAt(n, "operator %s has no integer evaluation in the evaluator", n.Op)
	case *typecheck.Neg:
		x, err := c.intV(n.X)
		if err != nil {
			return nil, err
		}
		return opEvals[ast.OpNeg].intNeg(x), nil
	case *typecheck.If:
		return ifOf(c, n, c.intV)
	}
	return nil, errAt(n, "%T cannot be an int", n)
}

// Integer arithmetic is checked: each of these reports false when the
// exact result is outside the 64-bit range (the result is then absent,
// like a division by zero).

func addInt(a, b int64) (int64, bool) {
	c := a + b
	return c, (c > a) == (b > 0)
}

func subInt(a, b int64) (int64, bool) {
	c := a - b
	return c, (c < a) == (b > 0)
}

func mulInt(a, b int64) (int64, bool) {
	if b == 0 {
		return 0, true
	}
	c := a * b
	// The product wrapped when dividing it back does not give a, except
	// for MinInt64 * -1, which wraps to MinInt64 and divides back to it.
	return c, c/b == a && !(b == -1 && a == math.MinInt64)
}

func (c *compiler) floatV(n typecheck.Node) (valFn[float64], error) {
	if err := c.enter(n); err != nil {
		return nil, err
	}
	defer c.leave()
	if k := n.Type().Kind; k != schema.Float {
		return nil, errAt(n, "%T is %s where a float is needed", n, n.Type())
	}
	switch n := n.(type) {
	case *typecheck.Const:
		v := n.F
		return func(frame) (float64, bool) { return v, true }, nil
	case *typecheck.Field:
		return fieldOf[float64](c, n)
	case *typecheck.Member:
		return memberOf[float64](c, n)
	case *typecheck.ToFloat:
		x, err := c.intV(n.X)
		if err != nil {
			return nil, err
		}
		return func(fr frame) (float64, bool) { a, ok := x(fr); return float64(a), ok }, nil
	case *typecheck.Arith:
		x, err := c.floatV(n.X)
		if err != nil {
			return nil, err
		}
		y, err := c.floatV(n.Y)
		if err != nil {
			return nil, err
		}
		if build := opEvals[n.Op].floatArith; build != nil {
			return build(x, y), nil
		}
		return nil, errAt(n, "operator %s has no float evaluation in the evaluator", n.Op)
	case *typecheck.Neg:
		x, err := c.floatV(n.X)
		if err != nil {
			return nil, err
		}
		return opEvals[ast.OpNeg].floatNeg(x), nil
	case *typecheck.If:
		return ifOf(c, n, c.floatV)
	}
	return nil, errAt(n, "%T cannot be a float", n)
}

// strV compiles a string or a language code.
func (c *compiler) strV(n typecheck.Node) (valFn[string], error) {
	if err := c.enter(n); err != nil {
		return nil, err
	}
	defer c.leave()
	if k := n.Type().Kind; k != schema.String && k != schema.Language {
		return nil, errAt(n, "%T is %s where a string is needed", n, n.Type())
	}
	switch n := n.(type) {
	case *typecheck.Const:
		v := n.S
		return func(frame) (string, bool) { return v, true }, nil
	case *typecheck.Field:
		return fieldOf[string](c, n)
	case *typecheck.Member:
		return memberOf[string](c, n)
	case *typecheck.If:
		return ifOf(c, n, c.strV)
	}
	return nil, errAt(n, "%T cannot be a string", n)
}

// ifOf compiles if C then A else B, the branches with sub (the compiler
// of their kind).
func ifOf[T any](c *compiler, n *typecheck.If, sub func(typecheck.Node) (valFn[T], error)) (valFn[T], error) {
	cond, err := c.pred(n.Cond)
	if err != nil {
		return nil, err
	}
	th, err := sub(n.Then)
	if err != nil {
		return nil, err
	}
	el, err := sub(n.Else)
	if err != nil {
		return nil, err
	}
	return ifVal(cond, th, el), nil
}

// fieldOf compiles a bare field read as T.
func fieldOf[T any](c *compiler, n *typecheck.Field) (valFn[T], error) {
	g, err := c.field(n)
	if err != nil {
		return nil, err
	}
	return fieldVal[T](n.Scope, g), nil
}

// memberOf compiles F of X read as T; absent when X is.
func memberOf[T any](c *compiler, n *typecheck.Member) (valFn[T], error) {
	x, err := c.ptr(n.X)
	if err != nil {
		return nil, err
	}
	g, err := c.member(n)
	if err != nil {
		return nil, err
	}
	return memberVal[T](x, g), nil
}

// intMember compiles F of X read as an int; absent when X is.
func (c *compiler) intMember(n *typecheck.Member) (valFn[int64], error) {
	x, err := c.ptr(n.X)
	if err != nil {
		return nil, err
	}
	g, err := c.member(n)
	if err != nil {
		return nil, err
	}
	if g.rep == repUint32 {
		off := g.off
		return func(fr frame) (int64, bool) {
			p := x(fr)
			if p == nil {
				return 0, false
			}
			return int64(*(*uint32)(unsafe.Add(p, off))), true
		}, nil
	}
	return memberVal[int64](x, g), nil
}

func ifVal[T any](cond predFn, th, el valFn[T]) valFn[T] {
	return func(fr frame) (T, bool) {
		if cond(fr) {
			return th(fr)
		}
		return el(fr)
	}
}

// fieldVal reads a scalar field of the object bound at scope s.
func fieldVal[T any](s int, g goField) valFn[T] {
	off := g.off
	if g.ptr {
		return func(fr frame) (T, bool) {
			p := *(**T)(unsafe.Add(fr[s], off))
			if p == nil {
				var zero T
				return zero, false
			}
			return *p, true
		}
	}
	return func(fr frame) (T, bool) { return *(*T)(unsafe.Add(fr[s], off)), true }
}

// memberVal reads a scalar field of the object x yields; absent when x is.
func memberVal[T any](x ptrFn, g goField) valFn[T] {
	off, isPtr := g.off, g.ptr
	return func(fr frame) (T, bool) {
		p := x(fr)
		if p == nil {
			var zero T
			return zero, false
		}
		return load[T](p, off, isPtr)
	}
}

// memberBit reads a bool held as a bit (g.mask) of the object x yields;
// absent when x is.
func memberBit(x ptrFn, g goField) valFn[bool] {
	off, mask := g.off, g.mask
	return func(fr frame) (bool, bool) {
		p := x(fr)
		if p == nil {
			return false, false
		}
		return *(*uint8)(unsafe.Add(p, off))&mask != 0, true
	}
}

// member binds the field of a Member node to the Go type of its object.
func (c *compiler) member(n *typecheck.Member) (goField, error) {
	obj := n.X.Type().Obj
	g, err := bindField(obj, n.F)
	if err != nil {
		return goField{}, errAt(n, "%v", err)
	}
	return g, nil
}

func (c *compiler) unresolved(n *typecheck.Const) error {
	return errAt(n, "@user:%q is not resolved to a user id: %w; supply the user directory (croql.WithUserIDs, login to id; or eval.WithUserLogins, id to login)", n.S, ErrUnresolvedUser)
}

// ---------------------------------------------------------------------------
// Objects and collections

// ptr compiles a Record (an object that may be absent) or a user (looked
// up in the user directory; absent when the directory lacks the id).
func (c *compiler) ptr(n typecheck.Node) (ptrFn, error) {
	if err := c.enter(n); err != nil {
		return nil, err
	}
	defer c.leave()
	switch n.Type().Kind {
	case schema.User:
		if !c.haveDir {
			return nil, errAt(n, "reading a user's login needs the user directory: %w; supply it with croql.WithUserIDs (login to id) or eval.WithUserLogins (id to login)", ErrNoUsers)
		}
		if n.Type().Obj == nil || n.Type().Obj.GoType != typeOfUserRef {
			return nil, errAt(n, "the user object's Go type must be schema.UserRef")
		}
		id, err := c.intV(n)
		if err != nil {
			return nil, err
		}
		users := c.users
		return func(fr frame) unsafe.Pointer {
			v, ok := id(fr)
			if !ok {
				return nil
			}
			return unsafe.Pointer(users[v])
		}, nil
	case schema.Record:
	default:
		return nil, errAt(n, "%T is %s where an object is needed", n, n.Type())
	}
	switch n := n.(type) {
	case *typecheck.Field:
		g, err := c.field(n)
		if err != nil {
			return nil, err
		}
		s, off := n.Scope, g.off
		if g.ptr {
			return func(fr frame) unsafe.Pointer { return *(*unsafe.Pointer)(unsafe.Add(fr[s], off)) }, nil
		}
		return func(fr frame) unsafe.Pointer { return unsafe.Add(fr[s], off) }, nil
	case *typecheck.Member:
		x, err := c.ptr(n.X)
		if err != nil {
			return nil, err
		}
		g, err := c.member(n)
		if err != nil {
			return nil, err
		}
		off := g.off
		if g.ptr {
			return func(fr frame) unsafe.Pointer {
				p := x(fr)
				if p == nil {
					return nil
				}
				return *(*unsafe.Pointer)(unsafe.Add(p, off))
			}, nil
		}
		return func(fr frame) unsafe.Pointer {
			p := x(fr)
			if p == nil {
				return nil
			}
			return unsafe.Add(p, off)
		}, nil
	}
	return nil, errAt(n, "%T cannot be an object", n)
}

// coll is a compiled collection: a source slice and the where filters
// applied to it, in order. Consumers (count, with) loop over the source
// and keep the elements every stage accepts; nothing is materialised.
type coll struct {
	src    srcFn
	size   uintptr
	stages []stage
	// direct is set when src reads a collection field of the object at
	// scope directScope, at directOff (its count at directLenOff):
	// consumers may read it inline.
	direct       bool
	directScope  int
	directOff    uintptr
	directLenOff uintptr
}

// stage is one where: bind the element at scope, keep it if pred holds.
type stage struct {
	scope int
	pred  predFn
	// tests, when set, is what pred amounts to as simple tests of the
	// element (see simpleTests): a lone stage then runs inline.
	tests []elemTest
}

func (c *compiler) coll(n typecheck.Node) (coll, error) {
	if err := c.enter(n); err != nil {
		return coll{}, err
	}
	defer c.leave()
	if n.Type().Kind != schema.Collection {
		return coll{}, errAt(n, "%T is %s where a collection is needed", n, n.Type())
	}
	switch n := n.(type) {
	case *typecheck.Field:
		g, err := c.field(n)
		if err != nil {
			return coll{}, err
		}
		s, off, lenOff := n.Scope, g.off, g.lenOff
		return coll{
			src:    func(fr frame) (unsafe.Pointer, int) { return sliceAt(fr[s], off, lenOff) },
			size:   g.elemSize,
			direct: c.opt, directScope: s, directOff: off, directLenOff: lenOff,
		}, nil
	case *typecheck.Member:
		x, err := c.ptr(n.X)
		if err != nil {
			return coll{}, err
		}
		g, err := c.member(n)
		if err != nil {
			return coll{}, err
		}
		off, lenOff := g.off, g.lenOff
		return coll{
			src: func(fr frame) (unsafe.Pointer, int) {
				p := x(fr)
				if p == nil {
					return nil, 0
				}
				return sliceAt(p, off, lenOff)
			},
			size: g.elemSize,
		}, nil
	case *typecheck.Filter:
		if n.Kind != ast.Where {
			return coll{}, errAt(n, "with is a bool, not a collection")
		}
		x, err := c.coll(n.X)
		if err != nil {
			return coll{}, err
		}
		if err := c.scope(n, n.Scope); err != nil {
			return coll{}, err
		}
		if n.Elem != nil && n.X.Type().Obj != nil && n.Elem != n.X.Type().Obj {
			return coll{}, errAt(n, "where binds %s over a collection of %s", n.Elem.Name, n.X.Type().Obj.Name)
		}
		p, err := c.pred(n.Pred)
		if err != nil {
			return coll{}, err
		}
		ts, _ := c.simpleTests(n.Pred, n.Scope)
		// x is this call's own (coll returns a fresh value, used once),
		// so its stages grow in place: a chain of n where costs O(n),
		// where copying them at every level cost O(n^2) time and memory.
		x.stages = append(x.stages, stage{scope: n.Scope, pred: p, tests: ts})
		return x, nil
	}
	return coll{}, errAt(n, "%T cannot be a collection", n)
}

// count compiles count of X.
func (c *compiler) count(n typecheck.Node) (func(frame) int, error) {
	cl, err := c.coll(n)
	if err != nil {
		return nil, err
	}
	size, stages := cl.size, cl.stages
	if cl.direct && len(stages) <= 1 {
		// The common shapes, written out with the source read inline.
		s0, off, lenOff := cl.directScope, cl.directOff, cl.directLenOff
		switch {
		case len(stages) == 0:
			return func(fr frame) int { return int(*(*uint32)(unsafe.Add(fr[s0], lenOff))) }, nil
		case stages[0].tests != nil:
			return fusedCount(cl, stages[0].tests), nil
		}
		s, p := stages[0].scope, stages[0].pred
		return func(fr frame) int {
			base, k := sliceAt(fr[s0], off, lenOff)
			if stop(fr, k) {
				return 0
			}
			m := 0
			for i := range k {
				fr[s] = unsafe.Add(base, uintptr(i)*size)
				if p(fr) {
					m++
				}
			}
			return m
		}, nil
	}
	switch {
	case len(stages) == 0:
		return elemsInt(cl, func(_ frame, _ unsafe.Pointer, k int) int { return k }), nil
	case len(stages) == 1 && stages[0].tests != nil:
		return fusedCount(cl, stages[0].tests), nil
	case len(stages) == 1:
		s, p := stages[0].scope, stages[0].pred
		return elemsInt(cl, func(fr frame, base unsafe.Pointer, k int) int {
			m := 0
			for i := range k {
				fr[s] = unsafe.Add(base, uintptr(i)*size)
				if p(fr) {
					m++
				}
			}
			return m
		}), nil
	}
	return elemsInt(cl, func(fr frame, base unsafe.Pointer, k int) int {
		m := 0
		for i := range k {
			if keep(fr, stages, unsafe.Add(base, uintptr(i)*size)) {
				m++
			}
		}
		return m
	}), nil
}

// keep binds e in every stage and reports whether all of them accept it.
func keep(fr frame, stages []stage, e unsafe.Pointer) bool {
	for _, st := range stages {
		fr[st.scope] = e
		if !st.pred(fr) {
			return false
		}
	}
	return true
}

// exists compiles "some element of cl is kept".
func exists(cl coll) predFn {
	size, stages := cl.size, cl.stages
	switch {
	case len(stages) == 1 && stages[0].tests != nil:
		return fusedExists(cl, stages[0].tests)
	case cl.direct && len(stages) == 0:
		s0, lenOff := cl.directScope, cl.directLenOff
		return func(fr frame) bool { return *(*uint32)(unsafe.Add(fr[s0], lenOff)) > 0 }
	case cl.direct && len(stages) == 1:
		s0, off, lenOff := cl.directScope, cl.directOff, cl.directLenOff
		s, p := stages[0].scope, stages[0].pred
		return func(fr frame) bool {
			base, k := sliceAt(fr[s0], off, lenOff)
			if stop(fr, k) {
				return false
			}
			for i := range k {
				fr[s] = unsafe.Add(base, uintptr(i)*size)
				if p(fr) {
					return true
				}
			}
			return false
		}
	case len(stages) == 0:
		return elemsBool(cl, func(_ frame, _ unsafe.Pointer, k int) bool { return k > 0 })
	case len(stages) == 1:
		s, p := stages[0].scope, stages[0].pred
		return elemsBool(cl, func(fr frame, base unsafe.Pointer, k int) bool {
			for i := range k {
				fr[s] = unsafe.Add(base, uintptr(i)*size)
				if p(fr) {
					return true
				}
			}
			return false
		})
	}
	return elemsBool(cl, func(fr frame, base unsafe.Pointer, k int) bool {
		for i := range k {
			if keep(fr, stages, unsafe.Add(base, uintptr(i)*size)) {
				return true
			}
		}
		return false
	})
}

// with compiles X with P: P in the scope of the object X, or of some
// element of the collection X.
func (c *compiler) with(n *typecheck.Filter) (predFn, error) {
	if n.Kind != ast.With {
		return nil, errAt(n, "where is a collection, not a bool")
	}
	if err := c.scope(n, n.Scope); err != nil {
		return nil, err
	}
	if t := n.X.Type(); n.Elem != nil && t.Obj != nil && n.Elem != t.Obj {
		return nil, errAt(n, "with binds %s over %s", n.Elem.Name, t)
	}
	if n.X.Type().Kind == schema.Collection {
		cl, err := c.coll(n.X)
		if err != nil {
			return nil, err
		}
		p, err := c.pred(n.Pred)
		if err != nil {
			return nil, err
		}
		ts, _ := c.simpleTests(n.Pred, n.Scope)
		cl.stages = append(cl.stages[:len(cl.stages):len(cl.stages)], stage{scope: n.Scope, pred: p, tests: ts})
		return exists(cl), nil
	}
	x, err := c.ptr(n.X)
	if err != nil {
		return nil, err
	}
	p, err := c.pred(n.Pred)
	if err != nil {
		return nil, err
	}
	s := n.Scope
	return func(fr frame) bool {
		o := x(fr)
		if o == nil {
			return false
		}
		fr[s] = o
		return p(fr)
	}, nil
}

// ---------------------------------------------------------------------------
// Comparisons

// isOrderOp reports whether op is one of the comparisons the optimising
// layer has inline forms of (compareFast, fuse.go); the others compile to
// their closure of opEvals.
func isOrderOp(op ast.Op) bool {
	switch op {
	case ast.OpEq, ast.OpNe, ast.OpLt, ast.OpLe, ast.OpGt, ast.OpGe:
		return true
	}
	return false
}

// direct reports a plain scalar field of the object at a scope: the
// comparisons read it inline instead of through a value closure.
func (c *compiler) direct(n typecheck.Node) (*typecheck.Field, goField, bool) {
	if !c.opt {
		return nil, goField{}, false
	}
	f, ok := n.(*typecheck.Field)
	if !ok || f == nil || f.F == nil {
		return nil, goField{}, false
	}
	g, err := c.field(f)
	if err != nil || g.rep == repStruct || g.rep == repSlice {
		return nil, goField{}, false
	}
	return f, g, true
}

func constOf(n typecheck.Node) (*typecheck.Const, bool) {
	k, ok := n.(*typecheck.Const)
	return k, ok && k != nil && !k.Unresolved
}

func (c *compiler) compare(n *typecheck.Compare) (predFn, error) {
	build := opEvals[n.Op].cmp
	if build == nil {
		return nil, errAt(n, "unknown comparison %s", n.Op)
	}
	if err := c.enter(n.X); err != nil {
		return nil, err
	}
	c.leave()
	if err := c.enter(n.Y); err != nil {
		return nil, err
	}
	c.leave()
	if p, ok, err := c.compareFast(n); ok || err != nil {
		return p, err
	}
	switch n.Operand {
	case schema.Bool:
		if build.bools == nil {
			return nil, errAt(n, "bools are not ordered")
		}
		return cmpOf(c, n, c.boolV, build.bools)
	case schema.Int, schema.Datetime, schema.User:
		return cmpOf(c, n, c.intV, build.ints)
	case schema.Float:
		return cmpOf(c, n, c.floatV, build.floats)
	case schema.String, schema.Language:
		return cmpOf(c, n, c.strV, build.strs)
	}
	return nil, errAt(n, "cannot compare %s", n.Operand)
}

// cmpOf compiles the operands of comparison n with v and the comparison
// with build.
func cmpOf[T any](c *compiler, n *typecheck.Compare, v func(typecheck.Node) (valFn[T], error), build func(x, y valFn[T]) predFn) (predFn, error) {
	if build == nil {
		return nil, errAt(n, "operator %s does not compare %s", n.Op, n.Operand)
	}
	x, err := v(n.X)
	if err != nil {
		return nil, err
	}
	y, err := v(n.Y)
	if err != nil {
		return nil, err
	}
	return build(x, y), nil
}

// compareFast handles the shapes that dominate real queries with one
// closure each: a field against a constant, and a count against a
// constant.
func (c *compiler) compareFast(n *typecheck.Compare) (predFn, bool, error) {
	if !c.opt || !isOrderOp(n.Op) {
		return nil, false, nil
	}
	x, y, op := n.X, n.Y, n.Op
	if _, ok := constOf(x); ok {
		x, y, op = y, x, op.Mirror()
	}
	k, ok := constOf(y)
	if !ok {
		return nil, false, nil
	}
	if cnt, ok := x.(*typecheck.Count); ok && n.Operand == schema.Int && k.T.Kind == schema.Int {
		return c.countCmp(cnt, op, k.I)
	}
	if m, ok := x.(*typecheck.Member); ok {
		return c.memberConst(m, n.Operand, op, k)
	}
	f, g, ok := c.direct(x)
	if !ok {
		return nil, false, nil
	}
	switch {
	case n.Operand == schema.Int || n.Operand == schema.Datetime || n.Operand == schema.User:
		if g.rep != repInt && g.rep != repUint32 || (k.T.Kind != schema.Int && k.T.Kind != schema.Datetime && k.T.Kind != schema.User) {
			return nil, false, nil
		}
		if g.rep == repUint32 {
			s, off, v := f.Scope, g.off, k.I
			return func(fr frame) bool { return cmpOrd(op, int64(*(*uint32)(unsafe.Add(fr[s], off))), v) }, true, nil
		}
		return fieldConst(op, f.Scope, g, k.I), true, nil
	case n.Operand == schema.Float:
		if g.rep != repFloat || k.T.Kind != schema.Float {
			return nil, false, nil
		}
		return fieldConst(op, f.Scope, g, k.F), true, nil
	case n.Operand == schema.String || n.Operand == schema.Language:
		if g.rep != repString || (k.T.Kind != schema.String && k.T.Kind != schema.Language) {
			return nil, false, nil
		}
		return fieldConst(op, f.Scope, g, k.S), true, nil
	}
	return nil, false, nil
}

// memberConst compiles `M of R op k` where R is a record field of a scope
// object (`id of file = 7`): one closure, absent when R is.
func (c *compiler) memberConst(m *typecheck.Member, operand schema.Kind, op ast.Op, k *typecheck.Const) (predFn, bool, error) {
	rf, ok := m.X.(*typecheck.Field)
	if !ok || rf.F.Type.Kind != schema.Record {
		return nil, false, nil
	}
	rg, err := c.field(rf)
	if err != nil {
		return nil, true, err
	}
	g, err := c.member(m)
	if err != nil {
		return nil, true, err
	}
	s, roff, rptr := rf.Scope, rg.off, rg.ptr
	switch {
	case (operand == schema.Int || operand == schema.Datetime) && g.rep == repInt && (k.T.Kind == schema.Int || k.T.Kind == schema.Datetime):
		return memberCmp(op, s, roff, rptr, g, k.I), true, nil
	case operand == schema.Float && g.rep == repFloat && k.T.Kind == schema.Float:
		return memberCmp(op, s, roff, rptr, g, k.F), true, nil
	case operand == schema.String && g.rep == repString && isText(k.T.Kind):
		return memberCmp(op, s, roff, rptr, g, k.S), true, nil
	}
	return nil, false, nil
}

func cmpOrd[T ordered](op ast.Op, v, k T) bool {
	switch op {
	case ast.OpEq:
		return v == k
	case ast.OpNe:
		return v != k
	case ast.OpLt:
		return v < k
	case ast.OpLe:
		return v <= k
	case ast.OpGt:
		return v > k
	}
	return v >= k
}

// memberCmp compares field g of the record at fr[s]+roff (through a
// pointer when rptr) with k; an absent record or value is equal to nothing
// and ordered with nothing.
func memberCmp[T ordered](op ast.Op, s int, roff uintptr, rptr bool, g goField, k T) predFn {
	off, ptr := g.off, g.ptr
	absent := op == ast.OpNe
	return func(fr frame) bool {
		r := unsafe.Add(fr[s], roff)
		if rptr {
			r = *(*unsafe.Pointer)(r)
			if r == nil {
				return absent
			}
		}
		v, ok := load[T](r, off, ptr)
		if !ok {
			return absent
		}
		return cmpOrd(op, v, k)
	}
}

// countCmp compiles count of X op k (the core IR has turned the
// comparisons that only test emptiness into Exists).
func (c *compiler) countCmp(n *typecheck.Count, op ast.Op, k int64) (predFn, bool, error) {
	if f, ok := n.X.(*typecheck.Field); ok && f.F.Type.Kind == schema.Collection {
		// count of a collection field: its length, read inline.
		g, err := c.field(f)
		if err != nil {
			return nil, true, err
		}
		s, lenOff := f.Scope, g.lenOff
		return func(fr frame) bool { return cmpOrd(op, int64(*(*uint32)(unsafe.Add(fr[s], lenOff))), k) }, true, nil
	}
	cnt, err := c.count(n.X)
	if err != nil {
		return nil, true, err
	}
	switch op {
	case ast.OpEq:
		return func(fr frame) bool { return int64(cnt(fr)) == k }, true, nil
	case ast.OpNe:
		return func(fr frame) bool { return int64(cnt(fr)) != k }, true, nil
	case ast.OpLt:
		return func(fr frame) bool { return int64(cnt(fr)) < k }, true, nil
	case ast.OpLe:
		return func(fr frame) bool { return int64(cnt(fr)) <= k }, true, nil
	case ast.OpGt:
		return func(fr frame) bool { return int64(cnt(fr)) > k }, true, nil
	case ast.OpGe:
		return func(fr frame) bool { return int64(cnt(fr)) >= k }, true, nil
	}
	return nil, true, fmt.Errorf("unknown comparison %s", op)
}

// fieldConst compares a scalar field of the object at scope s with k.
func fieldConst[T ordered](op ast.Op, s int, g goField, k T) predFn {
	off := g.off
	if g.ptr {
		switch op {
		case ast.OpEq:
			return func(fr frame) bool { p := *(**T)(unsafe.Add(fr[s], off)); return p != nil && *p == k }
		case ast.OpNe:
			return func(fr frame) bool { p := *(**T)(unsafe.Add(fr[s], off)); return p == nil || *p != k }
		case ast.OpLt:
			return func(fr frame) bool { p := *(**T)(unsafe.Add(fr[s], off)); return p != nil && *p < k }
		case ast.OpLe:
			return func(fr frame) bool { p := *(**T)(unsafe.Add(fr[s], off)); return p != nil && *p <= k }
		case ast.OpGt:
			return func(fr frame) bool { p := *(**T)(unsafe.Add(fr[s], off)); return p != nil && *p > k }
		default: // ast.OpGe
			return func(fr frame) bool { p := *(**T)(unsafe.Add(fr[s], off)); return p != nil && *p >= k }
		}
	}
	switch op {
	case ast.OpEq:
		return func(fr frame) bool { return *(*T)(unsafe.Add(fr[s], off)) == k }
	case ast.OpNe:
		return func(fr frame) bool { return *(*T)(unsafe.Add(fr[s], off)) != k }
	case ast.OpLt:
		return func(fr frame) bool { return *(*T)(unsafe.Add(fr[s], off)) < k }
	case ast.OpLe:
		return func(fr frame) bool { return *(*T)(unsafe.Add(fr[s], off)) <= k }
	case ast.OpGt:
		return func(fr frame) bool { return *(*T)(unsafe.Add(fr[s], off)) > k }
	default: // ast.OpGe
		return func(fr frame) bool { return *(*T)(unsafe.Add(fr[s], off)) >= k }
	}
}

func (c *compiler) between(n *typecheck.Between) (predFn, error) {
	for _, x := range []typecheck.Node{n.X, n.Lo, n.Hi} {
		if err := c.enter(x); err != nil {
			return nil, err
		}
		c.leave()
	}
	lo, lok := constOf(n.Lo)
	hi, hok := constOf(n.Hi)
	f, g, dok := c.direct(n.X)
	fast := lok && hok && dok
	switch n.Operand {
	case schema.Int, schema.Datetime:
		if fast && g.rep == repInt && lo.T.Kind == hi.T.Kind && lo.T.Kind != schema.Float && lo.T.Kind != schema.String {
			return fieldBetween(f.Scope, g, lo.I, hi.I), nil
		}
		if fast && g.rep == repUint32 && lo.T.Kind == hi.T.Kind && lo.T.Kind != schema.Float && lo.T.Kind != schema.String {
			s, off, a, b := f.Scope, g.off, lo.I, hi.I
			return func(fr frame) bool { v := int64(*(*uint32)(unsafe.Add(fr[s], off))); return v >= a && v <= b }, nil
		}
		return betweenV(c, n, c.intV)
	case schema.Float:
		if fast && g.rep == repFloat && lo.T.Kind == schema.Float && hi.T.Kind == schema.Float {
			return fieldBetween(f.Scope, g, lo.F, hi.F), nil
		}
		return betweenV(c, n, c.floatV)
	case schema.String, schema.Language:
		if fast && g.rep == repString && isText(lo.T.Kind) && isText(hi.T.Kind) {
			return fieldBetween(f.Scope, g, lo.S, hi.S), nil
		}
		return betweenV(c, n, c.strV)
	}
	return nil, errAt(n, "between does not order %s", n.Operand)
}

func isText(k schema.Kind) bool { return k == schema.String || k == schema.Language }

func betweenV[T ordered](c *compiler, n *typecheck.Between, v func(typecheck.Node) (valFn[T], error)) (predFn, error) {
	x, err := v(n.X)
	if err != nil {
		return nil, err
	}
	lo, err := v(n.Lo)
	if err != nil {
		return nil, err
	}
	hi, err := v(n.Hi)
	if err != nil {
		return nil, err
	}
	return func(fr frame) bool {
		a, ok := x(fr)
		if !ok {
			return false
		}
		l, ok := lo(fr)
		if !ok || a < l {
			return false
		}
		h, ok := hi(fr)
		return ok && a <= h
	}, nil
}

func fieldBetween[T ordered](s int, g goField, lo, hi T) predFn {
	off := g.off
	if g.ptr {
		return func(fr frame) bool {
			p := *(**T)(unsafe.Add(fr[s], off))
			return p != nil && *p >= lo && *p <= hi
		}
	}
	return func(fr frame) bool {
		v := *(*T)(unsafe.Add(fr[s], off))
		return v >= lo && v <= hi
	}
}

// ---------------------------------------------------------------------------
// contains

func (c *compiler) contains(n *typecheck.Contains) (predFn, error) {
	fold := n.Fold
	if k, ok := constOf(n.Sub); ok && isText(k.T.Kind) {
		sub := k.S
		var needle foldNeedle
		if fold {
			needle = newFoldNeedle(sub)
		}
		if f, g, ok := c.direct(n.X); ok && g.rep == repString {
			s, off := f.Scope, g.off
			switch {
			case fold && g.ptr:
				return func(fr frame) bool {
					p := *(**string)(unsafe.Add(fr[s], off))
					return p != nil && needle.in(*p)
				}, nil
			case fold:
				return func(fr frame) bool { return needle.in(*(*string)(unsafe.Add(fr[s], off))) }, nil
			case g.ptr:
				return func(fr frame) bool {
					p := *(**string)(unsafe.Add(fr[s], off))
					return p != nil && strings.Contains(*p, sub)
				}, nil
			}
			return func(fr frame) bool { return strings.Contains(*(*string)(unsafe.Add(fr[s], off)), sub) }, nil
		}
		x, err := c.strV(n.X)
		if err != nil {
			return nil, err
		}
		if fold {
			return func(fr frame) bool { v, ok := x(fr); return ok && needle.in(v) }, nil
		}
		return func(fr frame) bool { v, ok := x(fr); return ok && strings.Contains(v, sub) }, nil
	}
	x, err := c.strV(n.X)
	if err != nil {
		return nil, err
	}
	sub, err := c.strV(n.Sub)
	if err != nil {
		return nil, err
	}
	return opEvals[ast.OpContains].text(x, sub, fold), nil
}
