package eval

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"sync"
	"unsafe"

	"github.com/croql/croql/ast"
	"github.com/croql/croql/schema"
	"github.com/croql/croql/typecheck"
)

// Program is a compiled query: a tree of typed closures over the Go type
// of its context's root object. It is immutable and safe for concurrent
// use by any number of goroutines; an evaluation allocates nothing.
type Program struct {
	query    *typecheck.Query
	rootType reflect.Type
	// kind and ptrType (*Root) are what unpack reads Match's argument by.
	kind    rootKind
	ptrType reflect.Type
	// root evaluates the query on the root object, false for nil: the
	// fused tests of a query that reads only the root object (no frame),
	// else the closures over a frame on the stack (see framed). Typed.Func
	// hands it out as a func(*T) bool.
	root objPred
	// guarded is root with a guard (see MatchContext) in the frame.
	guarded guardedPred
	// guards recycles the guards of MatchContext.
	guards sync.Pool
}

// objPred is a predicate on the object at its argument, with no frame.
type objPred func(unsafe.Pointer) bool

// guardedPred is a predicate on the object at obj that runs its loops under
// the guard at g (see guard).
type guardedPred func(obj, g unsafe.Pointer) bool

// MaxScopes is the most scopes (the root and the nested where/with) a
// query may bind: evaluation keeps them in a frame on the stack. The
// parser's default nesting limit keeps real queries far below it.
const MaxScopes = 128

// Option configures Compile.
type Option func(*options)

type options struct {
	users    map[int64]*schema.UserRef
	haveDirs bool
	plain    bool
}

// WithoutOptimizations compiles the query to the plain closure tree, one
// closure per node of the core IR, without the optimising layer (fused
// test trees, inline field reads and loops). The answers are the same;
// the tests run every query both ways.
func WithoutOptimizations() Option {
	return func(o *options) { o.plain = true }
}

// WithUserLogins supplies the user directory as a map from each user id to
// its login. A query that reads a user's login (`login of user`,
// `user with (login = "x")`) needs it; a user id the directory lacks has no
// login, and `with` on it is false. The map is copied. (croql.WithUserIDs
// takes the same directory the other way round, login to id, and gives it
// to the evaluator itself.)
func WithUserLogins(idToLogin map[int64]string) Option {
	return func(o *options) {
		o.haveDirs = true
		if o.users == nil {
			o.users = make(map[int64]*schema.UserRef, len(idToLogin))
		}
		for id, login := range idToLogin {
			o.users[id] = &schema.UserRef{ID: id, Login: login}
		}
	}
}

// WithUsers is WithUserLogins (id to login).
//
// Deprecated: use WithUserLogins, whose name says the map's direction
// (croql.WithUsers, now croql.WithUserIDs, took login to id). WithUsers
// will be removed in v0.2.0.
func WithUsers(idToLogin map[int64]string) Option { return WithUserLogins(idToLogin) }

// WithUserRefs is WithUserLogins for a directory given as a list (for example
// schema.Project.Users).
func WithUserRefs(users ...schema.UserRef) Option {
	return func(o *options) {
		o.haveDirs = true
		if o.users == nil {
			o.users = make(map[int64]*schema.UserRef, len(users))
		}
		for _, u := range users {
			o.users[u.ID] = &schema.UserRef{ID: u.ID, Login: u.Login}
		}
	}
}

var typeOfUserRef = reflect.TypeFor[schema.UserRef]()

// Compile compiles a checked query. It fails when the query has errors or
// was not checked, when it mentions a user the checker could not resolve
// (give the checker a user directory: croql.WithUserIDs), when it reads user
// logins and no directory was given (WithUserLogins, WithUserRefs), and when
// the schema's Go types do not fit its fields. An error about one node of
// the query wraps a *diag.SpanError with the node's span (diag.SpanOf).
func Compile(q *typecheck.Query, opts ...Option) (*Program, error) {
	if q == nil {
		return nil, errors.New("eval: nil query")
	}
	if q.Diags.HasErrors() {
		return nil, fmt.Errorf("eval: the query has errors: %w", q.Diags.Errors()[0])
	}
	if q.Root == nil || q.Context == nil || q.Context.Root == nil {
		return nil, errors.New("eval: the query was not checked (no root expression or context)")
	}
	core, scopes := typecheck.CoreOf(q)
	obj := q.Context.Root
	if obj.GoType == nil || obj.GoType.Kind() != reflect.Struct {
		return nil, fmt.Errorf("eval: context %q has no Go struct type", q.Context.Name)
	}
	if err := validate(core, 0); err != nil {
		return nil, fmt.Errorf("eval: %w", err)
	}
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	scopes = max(scopes, 1)
	if scopes > MaxScopes {
		return nil, fmt.Errorf("eval: the query nests %d where/with scopes; at most %d are supported", scopes-1, MaxScopes-1)
	}
	c := &compiler{scopes: scopes, users: o.users, haveDir: o.haveDirs, opt: !o.plain}
	pred, err := c.pred(core)
	if err != nil {
		return nil, fmt.Errorf("eval: %w", err)
	}
	root, guarded := framed(pred, scopes)
	if ts, ok := c.simpleTests(core, 0); ok {
		// The query reads only the root object: run its tests on it, with
		// no frame (the closures above also checked the tree). Its loops
		// are over the object's own collections and theirs, at most
		// maxTests of them: bounded work, with no guard to look at.
		root = lowerRoot(ts)
		guarded = func(obj, _ unsafe.Pointer) bool { return root(obj) }
	}
	return &Program{
		query:    q,
		rootType: obj.GoType,
		kind:     kindOf(obj.GoType),
		ptrType:  reflect.PointerTo(obj.GoType),
		root:     root,
		guarded:  guarded,
	}, nil
}

// validate checks that the tree has no missing nodes and no unknown node
// types, so that the compiler can read every child without nil checks.
func validate(n typecheck.Node, depth int) error {
	if depth > maxDepth {
		return fmt.Errorf("expression nested deeper than %d", maxDepth)
	}
	if n == nil {
		return errors.New("missing expression node")
	}
	kids := func(xs ...typecheck.Node) error {
		for _, x := range xs {
			if err := validate(x, depth+1); err != nil {
				return err
			}
		}
		return nil
	}
	bad := errors.New("missing expression node")
	switch n := n.(type) {
	case *typecheck.Const:
		if n == nil {
			return bad
		}
		return nil
	case *typecheck.Field:
		if n == nil || n.F == nil || n.Obj == nil {
			return bad
		}
		return nil
	case *typecheck.Member:
		if n == nil || n.F == nil {
			return bad
		}
		return kids(n.X)
	case *typecheck.Count:
		if n == nil {
			return bad
		}
		return kids(n.X)
	case *typecheck.Filter:
		if n == nil {
			return bad
		}
		return kids(n.X, n.Pred)
	case *typecheck.Not:
		if n == nil {
			return bad
		}
		return kids(n.X)
	case *typecheck.Logic:
		if n == nil {
			return bad
		}
		if opEvals[n.Op].logic == nil {
			return noEvaluation(n, n.Op)
		}
		return kids(n.X, n.Y)
	case *typecheck.Arith:
		if n == nil {
			return bad
		}
		if e := opEvals[n.Op]; (n.T.Kind == schema.Int && e.intArith == nil) || (n.T.Kind != schema.Int && e.floatArith == nil) {
			return noEvaluation(n, n.Op)
		}
		return kids(n.X, n.Y)
	case *typecheck.Neg:
		if n == nil {
			return bad
		}
		return kids(n.X)
	case *typecheck.Compare:
		if n == nil {
			return bad
		}
		if opEvals[n.Op].cmp == nil {
			return noEvaluation(n, n.Op)
		}
		return kids(n.X, n.Y)
	case *typecheck.Between:
		if n == nil {
			return bad
		}
		return kids(n.X, n.Lo, n.Hi)
	case *typecheck.Contains:
		if n == nil {
			return bad
		}
		return kids(n.X, n.Sub)
	case *typecheck.If:
		if n == nil {
			return bad
		}
		return kids(n.Cond, n.Then, n.Else)
	case *typecheck.ToFloat:
		if n == nil {
			return bad
		}
		return kids(n.X)
	case *typecheck.IsSet:
		if n == nil {
			return bad
		}
		return kids(n.X)
	case *typecheck.Exists:
		if n == nil {
			return bad
		}
		return kids(n.X)
	}
	return fmt.Errorf("unknown expression node %T", n)
}

// rootKind names the root type of a program for unpack: one of the
// schema's root types, or another struct (read with reflect).
type rootKind uint8

const (
	rootOther rootKind = iota
	rootString
	rootTranslation
	rootTMSegment
	rootGlossaryTerm
	rootGlossaryConcept
)

// kindOf returns the rootKind of struct type t.
func kindOf(t reflect.Type) rootKind {
	switch t {
	case reflect.TypeFor[schema.SourceString]():
		return rootString
	case reflect.TypeFor[schema.Translation]():
		return rootTranslation
	case reflect.TypeFor[schema.TMSegment]():
		return rootTMSegment
	case reflect.TypeFor[schema.GlossaryTerm]():
		return rootGlossaryTerm
	case reflect.TypeFor[schema.GlossaryConcept]():
		return rootGlossaryConcept
	}
	return rootOther
}

// noEvaluation is the error of validate for an operator the evaluator has
// no code for: the switches of the compiler, which read the operators they
// know, are never reached with another (one would take it for the last
// case).
func noEvaluation(n typecheck.Node, op ast.Op) error {
	return errAt(n, "operator %s has no evaluation in the evaluator", op)
}

// unpack returns the pointer in obj when obj holds a non-nil pointer to
// the program's root type, else nil. It uses only supported operations: a
// type assertion for the schema's root types, reflect for any other
// struct a context may be declared over. Neither makes obj escape, so a
// root on the caller's stack stays there.
//
// Go has no supported way to compare an interface's dynamic type with a
// reflect.Type as cheaply as a type assertion to a type known at compile
// time: the assertion compares one word, reflect builds a Type and a
// Value. Hence the switch on the program's root kind, and Match's own
// test for *schema.SourceString. An unsafe overlay of the interface's two
// words, compared with the word of a *Root (what Match did before), is
// not supported and is not done. What that costs, on count-eq-3 through
// Program.Match (callgrind, `cd bench && ENGINE=croql-program
// PATTERNS=count-eq-3 ./instr.sh`, the loop and the query included; go1.26.8,
// valgrind 3.19): 55.37 instructions per object, against 53.41 with the
// overlay. The typed entry points (Typed.Match, Typed.Func, croql.For)
// unpack nothing.
func (p *Program) unpack(obj any) unsafe.Pointer {
	var x unsafe.Pointer
	switch p.kind {
	case rootString:
		v, _ := obj.(*schema.SourceString)
		x = unsafe.Pointer(v)
	case rootTranslation:
		v, _ := obj.(*schema.Translation)
		x = unsafe.Pointer(v)
	case rootTMSegment:
		v, _ := obj.(*schema.TMSegment)
		x = unsafe.Pointer(v)
	case rootGlossaryTerm:
		v, _ := obj.(*schema.GlossaryTerm)
		x = unsafe.Pointer(v)
	case rootGlossaryConcept:
		v, _ := obj.(*schema.GlossaryConcept)
		x = unsafe.Pointer(v)
	default:
		x = p.unpackOther(obj)
	}
	return x
}

// unpackOther is unpack for a root type outside the schema's.
func (p *Program) unpackOther(obj any) unsafe.Pointer {
	v := reflect.ValueOf(obj)
	if !v.IsValid() || v.Type() != p.ptrType {
		return nil
	}
	return v.UnsafePointer()
}

// Match reports whether the query holds for obj, a pointer to the
// context's root type (*schema.SourceString for the strings context,
// *schema.Translation, *schema.TMSegment, *schema.GlossaryTerm,
// *schema.GlossaryConcept). Anything else, or a nil pointer, is false.
func (p *Program) Match(obj any) bool {
	// The strings context first, with no call to unpack.
	if x, ok := obj.(*schema.SourceString); ok {
		return p.kind == rootString && p.run(unsafe.Pointer(x))
	}
	return p.run(p.unpack(obj))
}

// run evaluates the query on the root object at obj. It is small enough
// to be inlined into Match, Typed.Match and the loops of Filter.
func (p *Program) run(obj unsafe.Pointer) bool {
	// The closures only read the object (or keep it in a frame on their
	// stack) during the call: hide keeps obj from escaping (see hide).
	return p.root(hide(obj))
}

// MatchContext is Match under ctx: the evaluation looks at the context
// between elements of the collections it visits (every guardEvery elements)
// and, once ctx is done, stops and returns false and the context's error
// (wrapped; errors.Is finds context.Canceled or DeadlineExceeded). It
// allocates nothing unless it fails.
func (p *Program) MatchContext(ctx context.Context, obj any) (bool, error) {
	select { // cheaper than ctx.Err, which takes a lock
	case <-ctx.Done():
		return false, fmt.Errorf("eval: %w", ctx.Err())
	default:
	}
	x := p.unpack(obj)
	if x == nil {
		return false, nil
	}
	// The guard is on the heap, reused through the program's pool: a
	// pointer into this goroutine's stack, hidden in the frame, would not
	// survive the compiler reusing the slot or the stack moving.
	g, _ := p.guards.Get().(*guard)
	if g == nil {
		g = new(guard)
	}
	*g = guard{ctx: ctx, next: guardEvery}
	ok := p.guarded(hide(x), unsafe.Pointer(g))
	err := g.err
	*g = guard{}
	p.guards.Put(g)
	if err != nil {
		return false, fmt.Errorf("eval: %w", err)
	}
	return ok, nil
}

// framed runs pred with a frame on the stack sized for the query: a slot
// per scope and, last, the guard of MatchContext (nil for Match). The
// objPred is false for a nil object (see Program.root); the guardedPred
// is given a non-nil one.
func framed(pred predFn, scopes int) (objPred, guardedPred) {
	n := scopes + 1
	switch {
	case n <= 3: // most queries: the root and one where
		return func(obj unsafe.Pointer) bool {
				if obj == nil {
					return false
				}
				var buf [3]unsafe.Pointer
				buf[0] = obj
				return pred(unsafe.Slice((*unsafe.Pointer)(hide(unsafe.Pointer(&buf))), n))
			}, func(obj, g unsafe.Pointer) bool {
				var buf [3]unsafe.Pointer
				buf[0], buf[n-1] = obj, g
				return pred(unsafe.Slice((*unsafe.Pointer)(hide(unsafe.Pointer(&buf))), n))
			}
	case n <= 8:
		return func(obj unsafe.Pointer) bool {
				if obj == nil {
					return false
				}
				var buf [8]unsafe.Pointer
				buf[0] = obj
				return pred(unsafe.Slice((*unsafe.Pointer)(hide(unsafe.Pointer(&buf))), n))
			}, func(obj, g unsafe.Pointer) bool {
				var buf [8]unsafe.Pointer
				buf[0], buf[n-1] = obj, g
				return pred(unsafe.Slice((*unsafe.Pointer)(hide(unsafe.Pointer(&buf))), n))
			}
	case n <= 32:
		return func(obj unsafe.Pointer) bool {
				if obj == nil {
					return false
				}
				var buf [32]unsafe.Pointer
				buf[0] = obj
				return pred(unsafe.Slice((*unsafe.Pointer)(hide(unsafe.Pointer(&buf))), n))
			}, func(obj, g unsafe.Pointer) bool {
				var buf [32]unsafe.Pointer
				buf[0], buf[n-1] = obj, g
				return pred(unsafe.Slice((*unsafe.Pointer)(hide(unsafe.Pointer(&buf))), n))
			}
	}
	return func(obj unsafe.Pointer) bool {
			if obj == nil {
				return false
			}
			var buf [MaxScopes + 1]unsafe.Pointer
			buf[0] = obj
			return pred(unsafe.Slice((*unsafe.Pointer)(hide(unsafe.Pointer(&buf))), n))
		}, func(obj, g unsafe.Pointer) bool {
			var buf [MaxScopes + 1]unsafe.Pointer
			buf[0], buf[n-1] = obj, g
			return pred(unsafe.Slice((*unsafe.Pointer)(hide(unsafe.Pointer(&buf))), n))
		}
}

// RootType is the Go type (a struct, not a pointer) Match takes a pointer to.
func (p *Program) RootType() reflect.Type { return p.rootType }

// Query is the checked query the program was compiled from.
func (p *Program) Query() *typecheck.Query { return p.query }

// Typed is a Program bound to its root Go type T: Match takes a *T with no
// type test.
type Typed[T any] struct{ p *Program }

// Bind binds p to T, which must be the context's root type (for example
// schema.SourceString).
func Bind[T any](p *Program) (Typed[T], error) {
	if p == nil {
		return Typed[T]{}, errors.New("eval: nil program")
	}
	if t := reflect.TypeFor[T](); t != p.rootType {
		return Typed[T]{}, fmt.Errorf("eval: the program runs on %s, not %s", p.rootType, t)
	}
	return Typed[T]{p: p}, nil
}

// Match reports whether the query holds for x; a nil x is false.
func (t Typed[T]) Match(x *T) bool {
	if t.p == nil {
		return false
	}
	return t.p.run(unsafe.Pointer(x))
}

// Program is the program t runs.
func (t Typed[T]) Program() *Program { return t.p }

// Func returns the query as a Go func on *T, for a loop that calls it per
// object: Match with nothing between the call and the query's compiled
// code (no method value, no type test, no wrapper). A nil x is false.
func (t Typed[T]) Func() func(x *T) bool {
	if t.p == nil {
		return func(*T) bool { return false }
	}
	// root is a func(unsafe.Pointer) bool that is false for nil; a
	// func(*T) bool has the same representation (a pointer to the closure)
	// and calling convention (one pointer argument, a bool result), so the
	// program's own closure serves as it. hide is not needed: a caller of
	// a func value already lets its argument escape.
	return *(*func(*T) bool)(unsafe.Pointer(&t.p.root))
}
