// Package refeval is a plain tree-walking interpreter of the core IR
// (typecheck.CoreOf): the tests' oracle for the fast evaluator in package
// eval, and for the clause values croql.Query.Why shows (Interp.Value). Only
// tests and their helper internal/whytest import it.
//
// It is written for obviousness, not speed: objects are read by reflection
// on every access, values are `any` with nil for an absent value, and every
// rule of language.md section 4 is spelled out where it applies (integer
// arithmetic is computed exactly, with math/big, and is absent when the
// result does not fit in 64 bits). It shares no code with package eval.
package refeval

import (
	"fmt"
	"math/big"
	"reflect"
	"strings"
	"unicode/utf8"

	"github.com/croql/croql/ast"
	"github.com/croql/croql/schema"
	"github.com/croql/croql/typecheck"
)

// Interp evaluates checked queries.
type Interp struct {
	// Users is the user directory, id to login. Nil means none was given:
	// reading a login is then an error.
	Users map[int64]string
	// Visits counts the collection elements the interpreter has visited
	// since it was made (or the caller last reset it): every element of a
	// collection it reads, and every element a where/with tests. The cost
	// model (typecheck.CostModel) bounds it per evaluation.
	Visits int64
}

// errEval carries an evaluation error through the recursion.
type errEval struct{ err error }

// Match evaluates q on obj, a pointer to the root type of q's context.
func (in *Interp) Match(q *typecheck.Query, obj any) (ok bool, err error) {
	if q == nil || q.Root == nil || q.Context == nil {
		return false, fmt.Errorf("refeval: query not checked")
	}
	v := reflect.ValueOf(obj)
	if v.Kind() != reflect.Pointer || v.Type().Elem() != q.Context.Root.GoType {
		return false, nil
	}
	if v.IsNil() {
		return false, nil
	}
	defer func() {
		if r := recover(); r != nil {
			e, isEval := r.(errEval)
			if !isEval {
				panic(r)
			}
			ok, err = false, e.err
		}
	}()
	core, _ := typecheck.CoreOf(q)
	scopes := []reflect.Value{v.Elem()}
	return truth(in.eval(core, scopes)), nil
}

// Elements is the value of a collection clause (a collection field, or
// `X where P`): the number of its elements.
type Elements int

// User is the value of a user clause: the user's id.
type User int64

// Value evaluates n, a node of q's checked tree that reads no scope but the
// root object's (a clause outside every where/with predicate), on obj, a
// pointer to the root type of q's context. The node is lowered into the
// core IR first (typecheck.Lower), so it is evaluated by the same rules as
// Match. The value is nil when absent, else a bool, an int64 (an int, or a
// datetime as Unix seconds), a float64, a string (a string or a language
// code), a User or an Elements.
func (in *Interp) Value(q *typecheck.Query, n typecheck.Node, obj any) (val any, err error) {
	if q == nil || q.Root == nil || q.Context == nil || n == nil {
		return nil, fmt.Errorf("refeval: query not checked")
	}
	v := reflect.ValueOf(obj)
	if v.Kind() != reflect.Pointer || v.Type().Elem() != q.Context.Root.GoType || v.IsNil() {
		return nil, fmt.Errorf("refeval: %T is not a non-nil *%s", obj, q.Context.Root.GoType)
	}
	defer func() {
		if r := recover(); r != nil {
			e, isEval := r.(errEval)
			if !isEval {
				panic(r)
			}
			val, err = nil, e.err
		}
	}()
	core, _ := typecheck.Lower(n, q.Scopes)
	switch x := in.eval(core, []reflect.Value{v.Elem()}).(type) {
	case user:
		return User(x), nil
	case collection:
		return Elements(len(x)), nil
	case reflect.Value:
		fail("a record is not a value of the language")
	default:
		return x, nil
	}
	return nil, nil
}

// counted counts the elements of v when it is a collection, and returns it.
func (in *Interp) counted(v any) any {
	if c, ok := v.(collection); ok {
		in.Visits += int64(len(c))
	}
	return v
}

func fail(format string, args ...any) {
	panic(errEval{fmt.Errorf("refeval: "+format, args...)})
}

// truth is a value standing as a predicate: only a present true is true.
func truth(v any) bool {
	b, ok := v.(bool)
	return ok && b
}

// collection is an evaluated collection: its elements (addressable struct
// values).
type collection []reflect.Value

// user is a user value: its id.
type user int64

func (in *Interp) eval(n typecheck.Node, scopes []reflect.Value) any {
	switch n := n.(type) {
	case *typecheck.Const:
		switch n.T.Kind {
		case schema.Int, schema.Datetime:
			return n.I
		case schema.User:
			if n.Unresolved {
				fail("unresolved user %q", n.S)
			}
			return user(n.I)
		case schema.Float:
			return n.F
		case schema.String, schema.Language:
			return n.S
		}
		fail("constant of type %s", n.T)
	case *typecheck.Field:
		if n.Scope >= len(scopes) {
			fail("scope %d not bound", n.Scope)
		}
		return in.counted(readField(scopes[n.Scope], n.F))
	case *typecheck.Member:
		x := in.eval(n.X, scopes)
		if x == nil {
			return nil // M of null is null
		}
		switch x := x.(type) {
		case user:
			u := in.lookup(x)
			if u == nil {
				return nil
			}
			return readField(*u, n.F)
		case reflect.Value:
			return in.counted(readField(x, n.F))
		}
		fail("member of %T", x)
	case *typecheck.Count:
		x := in.eval(n.X, scopes)
		if x == nil {
			return int64(0)
		}
		return int64(len(x.(collection)))
	case *typecheck.Filter:
		x := in.eval(n.X, scopes)
		inner := func(e reflect.Value) bool {
			if n.X.Type().Kind == schema.Collection {
				in.Visits++
			}
			s := append(append([]reflect.Value{}, scopes[:n.Scope]...), e)
			return truth(in.eval(n.Pred, s))
		}
		if n.Kind == ast.Where {
			var out collection
			if x != nil {
				for _, e := range x.(collection) {
					if inner(e) {
						out = append(out, e)
					}
				}
			}
			return out
		}
		switch x := x.(type) {
		case nil:
			return false
		case collection:
			for _, e := range x {
				if inner(e) {
					return true
				}
			}
			return false
		case reflect.Value:
			return inner(x)
		case user:
			u := in.lookup(x)
			if u == nil {
				return false
			}
			return inner(*u)
		}
		fail("with on %T", x)
	case *typecheck.Not:
		return operators[ast.OpNot].not(truth(in.eval(n.X, scopes)))
	case *typecheck.Logic:
		if o := operators[n.Op]; o.logic != nil {
			return o.logic(truth(in.eval(n.X, scopes)), truth(in.eval(n.Y, scopes)))
		}
	case *typecheck.Arith:
		a, b := number(in.eval(n.X, scopes)), number(in.eval(n.Y, scopes))
		if a == nil || b == nil {
			return nil
		}
		o := operators[n.Op]
		if n.T.Kind == schema.Int && o.ints != nil {
			return int64Of(o.ints(big.NewInt(a.(int64)), big.NewInt(b.(int64))))
		}
		if o.floats != nil {
			if v, ok := o.floats(toFloat(a), toFloat(b)); ok {
				return v
			}
			return nil
		}
	case *typecheck.Neg:
		o := operators[ast.OpNeg]
		switch v := number(in.eval(n.X, scopes)).(type) {
		case nil:
			return nil
		case int64:
			return int64Of(o.neg(big.NewInt(v)))
		case float64:
			return o.negFloat(v)
		}
	case *typecheck.ToFloat:
		v := number(in.eval(n.X, scopes))
		if v == nil {
			return nil
		}
		return toFloat(v)
	case *typecheck.IsSet:
		return in.eval(n.X, scopes) != nil
	case *typecheck.Exists:
		x := in.eval(n.X, scopes)
		return x != nil && len(x.(collection)) > 0
	case *typecheck.If:
		if truth(in.eval(n.Cond, scopes)) {
			return in.eval(n.Then, scopes)
		}
		return in.eval(n.Else, scopes)
	case *typecheck.Compare:
		if o := operators[n.Op]; o.cmp != nil {
			return o.cmp(in.eval(n.X, scopes), in.eval(n.Y, scopes))
		}
	case *typecheck.Between:
		x, lo, hi := in.eval(n.X, scopes), in.eval(n.Lo, scopes), in.eval(n.Hi, scopes)
		if x == nil || lo == nil || hi == nil {
			return false
		}
		return lessEq(lo, x) && lessEq(x, hi)
	case *typecheck.Contains:
		x, sub := in.eval(n.X, scopes), in.eval(n.Sub, scopes)
		if x == nil || sub == nil {
			return false
		}
		return operators[ast.OpContains].text(x.(string), sub.(string), n.Fold)
	}
	fail("cannot evaluate %T", n)
	return nil
}

func (in *Interp) lookup(id user) *reflect.Value {
	if in.Users == nil {
		fail("a user's login is read but no user directory was given")
	}
	login, ok := in.Users[int64(id)]
	if !ok {
		return nil
	}
	v := reflect.ValueOf(&schema.UserRef{ID: int64(id), Login: login}).Elem()
	return &v
}

// readField reads field f of the struct value obj.
func readField(obj reflect.Value, f *schema.Field) any {
	v := obj.FieldByName(f.GoName)
	if !v.IsValid() {
		fail("%s has no field %s", obj.Type(), f.GoName)
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
		return user(v.Int())
	case schema.Float:
		return v.Float()
	case schema.String, schema.Language:
		return v.String()
	case schema.Record:
		return v
	case schema.Collection:
		out := make(collection, v.Len())
		for i := range out {
			out[i] = v.Index(i)
		}
		return out
	}
	fail("field %s of type %s", f.Name, f.Type)
	return nil
}

// int64Of is the exact result of integer arithmetic as a value: absent
// when there is none (nil) or it does not fit in 64 bits.
func int64Of(x *big.Int) any {
	if x == nil || !x.IsInt64() {
		return nil
	}
	return x.Int64()
}

func toFloat(v any) float64 {
	switch v := v.(type) {
	case int64:
		return float64(v)
	case float64:
		return v
	}
	fail("not a number: %T", v)
	return 0
}

// number is v, with a user value read as its id: a user stands where an
// int is expected (the core IR writes `id of U` as U).
func number(v any) any {
	if u, ok := v.(user); ok {
		return int64(u)
	}
	return v
}

// equal is the null-safe =: absent equals absent only. Users compare with
// ints by id.
func equal(a, b any) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	if u, ok := a.(user); ok {
		a = int64(u)
	}
	if u, ok := b.(user); ok {
		b = int64(u)
	}
	return a == b
}

// less is the strict order of two present values of one kind; NaN is
// ordered with nothing.
func less(a, b any) bool {
	b = number(b)
	switch a := number(a).(type) {
	case int64:
		return a < b.(int64)
	case float64:
		return a < b.(float64)
	case string:
		return strings.Compare(a, b.(string)) < 0
	}
	fail("cannot order %T", a)
	return false
}

func lessEq(a, b any) bool { return less(a, b) || equal(a, b) }

// containsFold tries every rune offset of s: the next as many runes as sub
// has must equal sub under strings.EqualFold (Unicode simple folding, which
// maps one rune to one rune).
func containsFold(s, sub string) bool {
	n := utf8.RuneCountInString(sub)
	for i := 0; i <= len(s); {
		j, k := i, 0
		for k < n && j < len(s) {
			_, w := utf8.DecodeRuneInString(s[j:])
			j += w
			k++
		}
		if k == n && strings.EqualFold(s[i:j], sub) {
			return true
		}
		if i == len(s) {
			break
		}
		_, w := utf8.DecodeRuneInString(s[i:])
		i += w
	}
	return false
}
