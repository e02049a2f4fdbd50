package croql

import (
	"errors"
	"fmt"
	"math"
	"math/bits"
	"reflect"
	"strings"
	"unicode/utf8"

	"github.com/croql/croql/ast"
	"github.com/croql/croql/schema"
	"github.com/croql/croql/typecheck"
)

// This file is the walk Query.Why reads each clause's value with: a plain
// interpreter of the core IR (typecheck.Lower) that reads the object by
// reflection. It is written for clarity, not speed, and follows the rules
// of docs/language.md as every back end does (absent values, null-safe =,
// integer arithmetic that is absent when it overflows, division by zero
// absent, case folding of contains). Why checks its result against the
// evaluator's on every call, and the tests check every clause against the
// reference interpreter.

// whyUser is the value of a user clause: the user's id.
type whyUser int64

// whyElements is the value of a collection clause (a collection field, or
// `X where P`): the number of its elements.
type whyElements int

// whyColl is an evaluated collection: its elements (struct values).
type whyColl []reflect.Value

// clauseValue evaluates n, a node of q's checked tree that reads no scope
// but the root object's (a clause outside every where/with predicate), on
// root, the root object. users maps user ids to logins (nil: none known).
// The value is nil when absent, else a bool, an int64 (an int, or a
// datetime as Unix seconds), a float64, a string (a string or a language
// code), a whyUser or a whyElements.
func clauseValue(q *typecheck.Query, n typecheck.Node, root reflect.Value, users map[int64]string) (any, error) {
	core, _ := typecheck.Lower(n, q.Scopes)
	w := &valueWalk{users: users}
	v := w.eval(core, []reflect.Value{root})
	if w.err != nil {
		return nil, w.err
	}
	switch x := v.(type) {
	case whyColl:
		return whyElements(len(x)), nil
	case reflect.Value:
		return nil, errors.New("a record is not a value of the language")
	}
	return v, nil
}

// valueWalk is one evaluation. The first error stops it: every value after
// it is absent, and err is returned instead of the value.
type valueWalk struct {
	users map[int64]string
	err   error
}

// fail records the first error and returns an absent value.
func (w *valueWalk) fail(format string, args ...any) any {
	if w.err == nil {
		w.err = fmt.Errorf(format, args...)
	}
	return nil
}

// holds is a value standing as a predicate: only a present true holds.
func holds(v any) bool {
	b, ok := v.(bool)
	return ok && b
}

func (w *valueWalk) eval(n typecheck.Node, scopes []reflect.Value) any {
	if w.err != nil {
		return nil
	}
	switch n := n.(type) {
	case *typecheck.Const:
		return w.constant(n)
	case *typecheck.Field:
		if n.Scope < 0 || n.Scope >= len(scopes) {
			return w.fail("scope %d of %s is not bound", n.Scope, n.F.Name)
		}
		return w.field(scopes[n.Scope], n.F)
	case *typecheck.Member:
		return w.member(n, scopes)
	case *typecheck.Count:
		c, _ := w.eval(n.X, scopes).(whyColl)
		return int64(len(c))
	case *typecheck.Exists:
		c, _ := w.eval(n.X, scopes).(whyColl)
		return len(c) > 0
	case *typecheck.Filter:
		return w.filter(n, scopes)
	case *typecheck.Not:
		return !holds(w.eval(n.X, scopes))
	case *typecheck.Logic:
		x, y := holds(w.eval(n.X, scopes)), holds(w.eval(n.Y, scopes))
		switch n.Op {
		case ast.OpAnd:
			return x && y
		case ast.OpOr:
			return x || y
		case ast.OpXor:
			return x != y
		}
	case *typecheck.Arith:
		return w.arith(n, scopes)
	case *typecheck.Neg:
		switch x := asNumber(w.eval(n.X, scopes)).(type) {
		case nil:
			return nil
		case int64:
			if x == math.MinInt64 {
				return nil // -x does not fit in 64 bits
			}
			return -x
		case float64:
			return -x
		}
	case *typecheck.ToFloat:
		switch x := asNumber(w.eval(n.X, scopes)).(type) {
		case nil:
			return nil
		case int64:
			return float64(x)
		case float64:
			return x
		}
	case *typecheck.IsSet:
		return w.eval(n.X, scopes) != nil
	case *typecheck.If:
		if holds(w.eval(n.Cond, scopes)) {
			return w.eval(n.Then, scopes)
		}
		return w.eval(n.Else, scopes)
	case *typecheck.Compare:
		return w.compare(n.Op, w.eval(n.X, scopes), w.eval(n.Y, scopes))
	case *typecheck.Between:
		x, lo, hi := w.eval(n.X, scopes), w.eval(n.Lo, scopes), w.eval(n.Hi, scopes)
		return holds(w.compare(ast.OpGe, x, lo)) && holds(w.compare(ast.OpLe, x, hi))
	case *typecheck.Contains:
		x, xok := w.eval(n.X, scopes).(string)
		sub, subok := w.eval(n.Sub, scopes).(string)
		if !xok || !subok {
			return false
		}
		if n.Fold {
			return containsFolded(x, sub)
		}
		return strings.Contains(x, sub)
	}
	if w.err != nil {
		return nil
	}
	return w.fail("cannot explain a %T", n)
}

func (w *valueWalk) constant(n *typecheck.Const) any {
	switch n.T.Kind {
	case schema.Int, schema.Datetime:
		return n.I
	case schema.User:
		if n.Unresolved {
			return w.fail("unresolved user %q", n.S)
		}
		return whyUser(n.I)
	case schema.Float:
		return n.F
	case schema.String, schema.Language:
		return n.S
	}
	return w.fail("a constant of type %s", n.T)
}

// member is F of X: absent when X is, or when X is a user the directory
// does not know.
func (w *valueWalk) member(n *typecheck.Member, scopes []reflect.Value) any {
	switch x := w.eval(n.X, scopes).(type) {
	case nil:
		return nil
	case whyUser:
		u, ok := w.user(x)
		if !ok {
			return nil
		}
		return w.field(u, n.F)
	case reflect.Value:
		return w.field(x, n.F)
	default:
		return w.fail("a member of a %T", x)
	}
}

// user is the record of the user id, when the directory has its login.
func (w *valueWalk) user(id whyUser) (reflect.Value, bool) {
	login, ok := w.users[int64(id)]
	if !ok {
		return reflect.Value{}, false
	}
	return reflect.ValueOf(&schema.UserRef{ID: int64(id), Login: login}).Elem(), true
}

// filter is X where P (the elements of X that satisfy P) or X with P (P
// holds on the object X, or on some element of the collection X).
func (w *valueWalk) filter(n *typecheck.Filter, scopes []reflect.Value) any {
	x := w.eval(n.X, scopes)
	if n.Scope < 0 || n.Scope > len(scopes) {
		return w.fail("scope %d of a filter is not bound", n.Scope)
	}
	sat := func(e reflect.Value) bool {
		inner := append(append(make([]reflect.Value, 0, n.Scope+1), scopes[:n.Scope]...), e)
		return holds(w.eval(n.Pred, inner))
	}
	if n.Kind == ast.Where {
		c, _ := x.(whyColl)
		out := whyColl{}
		for _, e := range c {
			if sat(e) {
				out = append(out, e)
			}
		}
		return out
	}
	switch x := x.(type) {
	case nil:
		return false
	case whyColl:
		for _, e := range x {
			if sat(e) {
				return true
			}
		}
		return false
	case reflect.Value:
		return sat(x)
	case whyUser:
		u, ok := w.user(x)
		return ok && sat(u)
	}
	return w.fail("with on a %T", x)
}

// arith is + - * / : integer arithmetic is exact and absent when the
// result does not fit in 64 bits; division is on floats, and absent by
// zero.
func (w *valueWalk) arith(n *typecheck.Arith, scopes []reflect.Value) any {
	x, y := asNumber(w.eval(n.X, scopes)), asNumber(w.eval(n.Y, scopes))
	if x == nil || y == nil {
		return nil
	}
	if a, ok := x.(int64); ok && n.T.Kind == schema.Int && n.Op != ast.OpDiv {
		b, ok := y.(int64)
		if !ok {
			return w.fail("an int and a %T", y)
		}
		r, fits := intArith(n.Op, a, b)
		if !fits {
			return nil
		}
		return r
	}
	a, aok := floatOf(x)
	b, bok := floatOf(y)
	if !aok || !bok {
		return w.fail("arithmetic on a %T and a %T", x, y)
	}
	switch n.Op {
	case ast.OpAdd:
		return a + b
	case ast.OpSub:
		return a - b
	case ast.OpMul:
		return a * b
	case ast.OpDiv:
		if b == 0 {
			return nil
		}
		return a / b
	}
	return w.fail("arithmetic operator %v", n.Op)
}

// intArith is a op b on int64, and whether the exact result fits.
func intArith(op ast.Op, a, b int64) (int64, bool) {
	switch op {
	case ast.OpAdd:
		r := a + b
		return r, (r > a) == (b > 0)
	case ast.OpSub:
		r := a - b
		return r, (r < a) == (b > 0)
	case ast.OpMul:
		if a == 0 || b == 0 {
			return 0, true
		}
		hi, lo := bits.Mul64(uint64(absInt(a)), uint64(absInt(b)))
		neg := (a < 0) != (b < 0)
		switch {
		case hi != 0 || lo > 1<<63:
			return 0, false
		case lo == 1<<63:
			return math.MinInt64, neg
		case neg:
			return -int64(lo), true
		default:
			return int64(lo), true
		}
	}
	return 0, false
}

// absInt is |a| as the bits of a uint64 (|MinInt64| included).
func absInt(a int64) uint64 {
	if a < 0 {
		return uint64(-(a + 1)) + 1
	}
	return uint64(a)
}

// asNumber is v with a user read as its id: a user stands where an int is
// expected (the core IR writes `id of U` as U).
func asNumber(v any) any {
	if u, ok := v.(whyUser); ok {
		return int64(u)
	}
	return v
}

func floatOf(v any) (float64, bool) {
	switch v := v.(type) {
	case int64:
		return float64(v), true
	case float64:
		return v, true
	}
	return 0, false
}

// compare is x op y: = is null-safe (absent equals absent only), != is
// not =, and an order with an absent operand is false. Users compare as
// their ids; NaN is ordered with nothing.
func (w *valueWalk) compare(op ast.Op, x, y any) any {
	x, y = asNumber(x), asNumber(y)
	for _, v := range []any{x, y} {
		switch v.(type) {
		case whyColl, reflect.Value:
			return w.fail("cannot compare a %T", v)
		}
	}
	switch op {
	case ast.OpEq:
		return x == y
	case ast.OpNe:
		return x != y
	}
	if x == nil || y == nil {
		return false
	}
	var c int // -1, 0, 1; 2 when unordered (NaN)
	switch a := x.(type) {
	case int64:
		b, ok := y.(int64)
		if !ok {
			return w.fail("cannot compare an int with a %T", y)
		}
		c = cmpOrdered(a, b)
	case float64:
		b, ok := y.(float64)
		if !ok {
			return w.fail("cannot compare a float with a %T", y)
		}
		c = cmpOrdered(a, b)
		if a != a || b != b {
			c = 2
		}
	case string:
		b, ok := y.(string)
		if !ok {
			return w.fail("cannot compare a string with a %T", y)
		}
		c = strings.Compare(a, b)
	default:
		return w.fail("cannot order a %T", x)
	}
	switch op {
	case ast.OpLt:
		return c == -1
	case ast.OpLe:
		return c == -1 || c == 0
	case ast.OpGt:
		return c == 1
	case ast.OpGe:
		return c == 1 || c == 0
	}
	return w.fail("comparison operator %v", op)
}

func cmpOrdered[T int64 | float64](a, b T) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// field reads field f of the struct value obj: nil for an absent value.
func (w *valueWalk) field(obj reflect.Value, f *schema.Field) any {
	v := obj.FieldByName(f.GoName)
	if !v.IsValid() {
		return w.fail("%s has no field %s", obj.Type(), f.GoName)
	}
	if v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return nil
		}
		v = v.Elem()
	}
	switch f.Type.Kind {
	case schema.Bool:
		return v.Bool()
	case schema.Int, schema.Datetime:
		return v.Int()
	case schema.User:
		return whyUser(v.Int())
	case schema.Float:
		return v.Float()
	case schema.String, schema.Language:
		return v.String()
	case schema.Record:
		return v
	case schema.Collection:
		out := make(whyColl, v.Len())
		for i := range out {
			out[i] = v.Index(i)
		}
		return out
	}
	return w.fail("field %s of type %s", f.Name, f.Type)
}

// containsFolded reports whether some run of s's characters, as many as
// sub has, equals sub under Unicode simple folding (strings.EqualFold,
// which maps one rune to one rune).
func containsFolded(s, sub string) bool {
	n := utf8.RuneCountInString(sub)
	for i := 0; ; {
		j, k := i, 0
		for ; k < n && j < len(s); k++ {
			_, size := utf8.DecodeRuneInString(s[j:])
			j += size
		}
		if k == n && strings.EqualFold(s[i:j], sub) {
			return true
		}
		if i == len(s) {
			return false
		}
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
	}
}
