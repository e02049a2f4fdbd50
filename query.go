package croql

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"time"
	"unsafe"

	"github.com/croql/croql/ast"
	"github.com/croql/croql/diag"
	"github.com/croql/croql/eval"
	"github.com/croql/croql/schema"
	"github.com/croql/croql/typecheck"
)

// Rules of the diagnostics Compile adds to those of Check.
const (
	// RuleUnresolvedUser: a @user mention in an environment without a user
	// directory; the evaluator needs the id.
	RuleUnresolvedUser = "unresolved-user"
	// RuleNoUserDirectory: the query reads user logins (`login of user`,
	// `user with (...)`) in an environment without a user directory.
	RuleNoUserDirectory = "no-user-directory"
	// RuleCompile: the checked query could not be compiled for evaluation.
	RuleCompile = "compile"
)

// Query is a compiled query: the checked query and the program that
// evaluates it on objects of the environment's context. It is immutable and
// safe for concurrent use.
type Query struct {
	checked *typecheck.Query
	prog    *eval.Program
	model   typecheck.CostModel
	ptr     reflect.Type // *root type, what Match takes
	loc     *time.Location
	users   map[int64]string // the user directory, id to login (nil: none); Why reads it
	// The program as a func of its root type (eval.Typed.Func): the one
	// of the query's context is set, the others are nil.
	strs     func(*schema.SourceString) bool
	trs      func(*schema.Translation) bool
	tms      func(*schema.TMSegment) bool
	terms    func(*schema.GlossaryTerm) bool
	concepts func(*schema.GlossaryConcept) bool
}

// Compile checks src and compiles it for evaluation. On any error it
// returns a nil Query and every diagnostic; warnings come back with a
// usable Query. The environment's user directory (WithUserIDs) resolves @user
// mentions and gives the evaluator each user id's login.
func (e *Env) Compile(src string) (*Query, diag.List) {
	q, diags := e.Check(src)
	if q == nil {
		return nil, diags
	}
	return e.compile(q, diags)
}

// CompileChecked is Compile of a query this environment's Check returned:
// it compiles q for evaluation without checking its source again, for a
// service that checked the query already (for its cost, or its SQL with
// SQLForChecked). The diagnostics are q's and those Compile adds; on an
// error the Query is nil. A nil q, or one of another context, is an error
// of rule RuleCompile.
func (e *Env) CompileChecked(q *typecheck.Query) (*Query, diag.List) {
	if d, ok := e.notChecked(q); !ok {
		return nil, diag.List{d}
	}
	return e.compile(q, q.Diags)
}

// notChecked is the error diagnostic of a q that is not a checked query
// of e's context (ok is false then).
func (e *Env) notChecked(q *typecheck.Query) (d diag.Diagnostic, ok bool) {
	switch {
	case q == nil || q.Root == nil || q.Diags.HasErrors():
		return diag.Errorf(diag.ClassLogic, RuleCompile, diag.Span{}, "the query is not a checked query (a nil or failed check)"), false
	case q.Context == nil || q.Context.Name != e.Context().Name:
		return diag.Errorf(diag.ClassLogic, RuleCompile, diag.Span{Start: 0, End: len(q.Source)},
			"the query was checked in context %s, the environment's is %s", q.Context.Name, e.Context().Name), false
	}
	return diag.Diagnostic{}, true
}

// compile is Compile of the checked query q, whose diagnostics are diags
// (no error among them).
func (e *Env) compile(q *typecheck.Query, diags diag.List) (*Query, diag.List) {
	// diags may be the checked query's own list: append to a copy.
	diags = diags[:len(diags):len(diags)]
	users := e.cfg.check.Users
	if users == nil {
		// Report every unresolved mention where it stands.
		var found diag.List
		typecheck.Inspect(q.Root, func(n typecheck.Node) {
			if k, ok := n.(*typecheck.Const); ok && k.Unresolved {
				found = append(found, diag.Errorf(diag.ClassLogic, RuleUnresolvedUser, k.Sp,
					"@user:%q cannot be evaluated without the user directory", k.S).
					WithHint("supply the users (login to id) with croql.WithUserIDs"))
			}
		})
		if len(found) > 0 {
			diags = append(diags, found...)
			diags.Sort()
			return nil, diags
		}
	}
	var (
		opts []eval.Option
		dir  map[int64]string
	)
	if users != nil {
		dir = make(map[int64]string, len(users))
		for login, id := range users {
			dir[id] = login
		}
		opts = append(opts, eval.WithUserLogins(dir))
	}
	prog, err := eval.Compile(q, opts...)
	if err != nil {
		d := backendDiag(RuleCompile, q.Source, err, "%v", err)
		if errors.Is(err, eval.ErrNoUsers) {
			d = backendDiag(RuleNoUserDirectory, q.Source, err,
				"the query reads user logins, which needs the user directory").
				WithHint("supply the users (login to id) with croql.WithUserIDs")
		}
		diags = append(diags, d)
		diags.Sort()
		return nil, diags
	}
	out := &Query{checked: q, prog: prog, model: e.CostModel(), ptr: reflect.PointerTo(prog.RootType()), loc: e.cfg.check.Location, users: dir}
	out.strs = typedFunc[schema.SourceString](prog)
	out.trs = typedFunc[schema.Translation](prog)
	out.tms = typedFunc[schema.TMSegment](prog)
	out.terms = typedFunc[schema.GlossaryTerm](prog)
	out.concepts = typedFunc[schema.GlossaryConcept](prog)
	return out, diags
}

// typedFunc returns prog as a func on *T, or nil when T is not its root
// type.
func typedFunc[T any](prog *eval.Program) func(*T) bool {
	t, err := eval.Bind[T](prog)
	if err != nil {
		return nil
	}
	return t.Func()
}

// backendDiag is the error diagnostic of rule for err, an error of a back
// end (the evaluator's compiler, the SQL generator) on the checked query
// src: over the span of the node err is about (a diag.SpanError in its
// chain), or over the whole query when err is about no node of it (a
// mapping without a table for the context, for instance).
func backendDiag(rule, src string, err error, format string, args ...any) diag.Diagnostic {
	sp, ok := diag.SpanOf(err)
	if !ok || sp.Start < 0 || sp.End > len(src) || sp.Start > sp.End {
		sp = diag.Span{Start: 0, End: len(src)}
	}
	d := diag.Errorf(diag.ClassLogic, rule, sp, format, args...)
	d.Cause = err
	return d
}

// Match reports whether the query holds for obj, a non-nil pointer to the
// context's root type: *schema.SourceString (strings), *schema.Translation
// (translations), *schema.TMSegment (tm), *schema.GlossaryTerm (glossary),
// *schema.GlossaryConcept (concepts).
//
// Anything else is a misuse, and Match never reports it as a plain false:
// a value instead of a pointer, a pointer to another type, a nil pointer
// or a nil interface is an error wrapping ErrMisuse that names the type
// it got and the type to pass (CheckValue returns the same error without
// evaluating). The error result makes every call site say what it does
// with a misuse: `ok := q.Match(v)` does not build, and errcheck flags a
// call that drops the error (with -blank, one assigned to _).
//
// On a right value Match allocates nothing and returns a nil error. Taking
// any value has a price: the call is not inlined, and it costs about 28
// instructions more than the typed evaluator (eval.Bind) per object (see
// docs/performance.md). A loop over objects of one type binds
// the query once with For, whose Matcher costs what eval.Bind costs. To
// evaluate over a service's own types, use package bind.
func (q *Query) Match(obj any) (bool, error) {
	if x, ok := obj.(*schema.SourceString); ok && x != nil && q.strs != nil {
		return q.strs(noescape(x)), nil
	}
	return q.match(obj)
}

// match is Match for the contexts other than strings, and for misuse.
func (q *Query) match(obj any) (bool, error) {
	switch x := obj.(type) {
	case *schema.Translation:
		if x != nil && q.trs != nil {
			return q.trs(noescape(x)), nil
		}
	case *schema.TMSegment:
		if x != nil && q.tms != nil {
			return q.tms(noescape(x)), nil
		}
	case *schema.GlossaryTerm:
		if x != nil && q.terms != nil {
			return q.terms(noescape(x)), nil
		}
	case *schema.GlossaryConcept:
		if x != nil && q.concepts != nil {
			return q.concepts(noescape(x)), nil
		}
	}
	return false, q.CheckValue(obj)
}

// Matcher is a query bound to its context's root type T, made by For: the
// compiler checks what Match is given (a *T: not a value, not another
// type), so a nil pointer is the one misuse left to report at run time.
// It is the facade's path for a loop over objects. A Matcher is a small
// value, safe for concurrent use; make it with For (the zero Matcher has
// no query, and its Match panics, as a method of a nil *Query does).
type Matcher[T any] struct {
	f      func(*T) bool // the program as a func on *T (eval.Typed.Func)
	misuse error         // the error for a nil *T
}

// For binds q to T, which must be the root type of q's context
// (schema.SourceString for strings, schema.Translation, schema.TMSegment,
// schema.GlossaryTerm, schema.GlossaryConcept); another T is an error
// wrapping ErrMisuse that names the type to use.
func For[T any](q *Query) (Matcher[T], error) {
	if q == nil {
		return Matcher[T]{}, fmt.Errorf("%w: a nil *croql.Query", ErrMisuse)
	}
	f := typedFunc[T](q.prog)
	if f == nil {
		return Matcher[T]{}, fmt.Errorf("%w: the %s context evaluates %s, not %s",
			ErrMisuse, q.checked.Context.Name, q.ptr, reflect.TypeFor[*T]())
	}
	return Matcher[T]{f: f, misuse: fmt.Errorf("%w: a nil %s", ErrMisuse, q.ptr)}, nil
}

// Match reports whether the query holds for x. A nil x is an error
// wrapping ErrMisuse; otherwise the error is nil and Match allocates
// nothing. In a loop over a slice (`m.Match(&strs[i])`) the compiler
// inlines Match and drops the nil test: it costs what eval.Bind's typed
// function costs (see docs/performance.md).
func (m Matcher[T]) Match(x *T) (bool, error) {
	if x == nil {
		return false, m.misuse
	}
	// x hidden from escape analysis, as hide does, written out so that
	// Match stays within the inliner's budget.
	p := uintptr(unsafe.Pointer(x))
	return m.f(*(**T)(unsafe.Pointer(&p))), nil
}

// noescape is x, hidden from escape analysis (see hide).
func noescape[T any](x *T) *T { return (*T)(hide(unsafe.Pointer(x))) }

// hide returns p with escape analysis unable to follow it, so that an
// object on the caller's stack that Match is given stays there (a pointer
// passed to a func value is taken to escape). The compiled query only
// reads the object during the call and keeps no reference to it: the same
// reasoning as eval's own hide, which Program.Match and Typed.Match use.
func hide(p unsafe.Pointer) unsafe.Pointer {
	x := uintptr(p)
	return *(*unsafe.Pointer)(unsafe.Pointer(&x))
}

// ErrMisuse is wrapped by the errors of Match, MatchContext and CheckValue:
// a value the query cannot be evaluated on.
var ErrMisuse = errors.New("croql: not a value of the query's context")

// MatchErr is Match.
//
// Deprecated: Match itself reports misuse now; MatchErr will be removed in
// v0.2.0.
func (q *Query) MatchErr(obj any) (bool, error) { return q.Match(obj) }

// CheckValue reports whether Match can evaluate obj: nil for a non-nil
// pointer to the context's root type, else an error wrapping ErrMisuse
// that says what to pass instead.
func (q *Query) CheckValue(obj any) error {
	want := q.ptrType()
	switch t := reflect.TypeOf(obj); {
	case t == nil:
		return fmt.Errorf("%w: got nil, want a %s", ErrMisuse, want)
	case t == want:
		if reflect.ValueOf(obj).IsNil() {
			return fmt.Errorf("%w: a nil %s", ErrMisuse, want)
		}
		return nil
	case t == want.Elem():
		return fmt.Errorf("%w: got a %s value, want a pointer to it (%s): pass &v", ErrMisuse, t, want)
	default:
		return fmt.Errorf("%w: got %s; the %s context evaluates %s (package bind evaluates your own types)",
			ErrMisuse, t, q.checked.Context.Name, want)
	}
}

// ptrType is the type Match takes: a pointer to the root type.
func (q *Query) ptrType() reflect.Type { return q.ptr }

// MatchContext is Match under ctx: the evaluation looks at ctx while it
// visits collections and, once ctx is done, stops and returns false and an
// error wrapping ctx's (see eval.Program.MatchContext). A query within the
// cost budget (WithMaxCost) is cheap on data of the model's sizes; the
// context bounds the time on any data. A misuse is an error wrapping
// ErrMisuse, as for Match.
func (q *Query) MatchContext(ctx context.Context, obj any) (bool, error) {
	if err := q.CheckValue(obj); err != nil {
		return false, err
	}
	return q.prog.MatchContext(ctx, obj)
}

// Today reports whether the query reads 'today' and, if so, the instant it
// was resolved to when the query was compiled: midnight of that day in the
// environment's location (WithLocation), read from its clock (WithClock).
//
// 'today' is fixed at compile time, like every literal, so that a
// compiled query is an immutable value and Match stays free of clock
// reads. A service that caches compiled queries recompiles one that is
// Stale (or keys its cache by the day); see docs/language.md.
func (q *Query) Today() (time.Time, bool) {
	var day time.Time
	found := false
	ast.Inspect(q.checked.AST, func(e ast.Expr) bool {
		d, ok := e.(*ast.Datetime)
		if !ok || !strings.EqualFold(strings.TrimSpace(d.Text), "today") {
			return true
		}
		typecheck.Inspect(q.checked.Root, func(n typecheck.Node) {
			if k, ok := n.(*typecheck.Const); ok && !found && k.Sp == d.Sp && k.T.Kind == schema.Datetime {
				day, found = time.Unix(k.I, 0).In(q.loc), true
			}
		})
		return !found
	})
	return day, found
}

// Stale reports whether the query reads 'today' and now falls on another
// day than the one it was compiled on, in the environment's location: a
// service caching compiled queries recompiles such a query (Env.Compile)
// to evaluate with the current day.
func (q *Query) Stale(now time.Time) bool {
	day, ok := q.Today()
	if !ok {
		return false
	}
	y, m, d := now.In(q.loc).Date()
	dy, dm, dd := day.Date()
	return y != dy || m != dm || d != dd
}

// Cost is the query's estimated cost per object (steps, see
// typecheck.CostModel) under the environment's cost model.
func (q *Query) Cost() float64 { return q.checked.Cost(q.model) }

// Source is the query text.
func (q *Query) Source() string { return q.checked.Source }

// Checked is the checked query (the IR, the tree and the warnings).
func (q *Query) Checked() *typecheck.Query { return q.checked }

// Program is the evaluator's program, for eval.Filter, eval.FilterParallel
// and eval.Bind.
func (q *Query) Program() *eval.Program { return q.prog }

// Context is the context the query runs in.
func (q *Query) Context() *schema.Context { return q.checked.Context }
