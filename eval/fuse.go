package eval

import (
	"unsafe"

	"github.com/croql/croql/ast"
	"github.com/croql/croql/schema"
	"github.com/croql/croql/typecheck"
)

// Most where predicates are a field of the element tested against a
// constant, or a few such tests joined by `and`: `user = @user:"alice"`,
// `has unresolved issue`, `is translated and not is approved`. For those
// the collection loop runs the tests inline (a switch per test) instead of
// binding the element in the frame and calling a closure per element.

// testKind is what an elemTest does with the field at off.
type testKind uint8

const (
	testBool    testKind = iota + 1 // the bool is true
	testNotBool                     // the bool is false
	testStrEq                       // the string equals s
	testStrNe                       // the string differs from s
	testInt                         // the int64 compares with k by op
)

// elemTest is one test of a field of the element.
type elemTest struct {
	kind testKind
	op   ast.Op
	off  uintptr
	k    int64
	s    string
}

func (t *elemTest) eval(e unsafe.Pointer) bool {
	p := unsafe.Add(e, t.off)
	switch t.kind {
	case testBool:
		return *(*bool)(p)
	case testNotBool:
		return !*(*bool)(p)
	case testStrEq:
		return *(*string)(p) == t.s
	case testStrNe:
		return *(*string)(p) != t.s
	}
	v := *(*int64)(p)
	switch t.op {
	case ast.OpEq:
		return v == t.k
	case ast.OpNe:
		return v != t.k
	case ast.OpLt:
		return v < t.k
	case ast.OpLe:
		return v <= t.k
	case ast.OpGt:
		return v > t.k
	}
	return v >= t.k
}

// allTests reports whether every test holds for the element at e.
func allTests(ts []elemTest, e unsafe.Pointer) bool {
	for i := range ts {
		if !ts[i].eval(e) {
			return false
		}
	}
	return true
}

// maxTests bounds the conjunctions fused: longer ones are rare, and the
// closure form handles them.
const maxTests = 4

// simpleTests returns the tests that pred, evaluated with the element
// bound at scope, amounts to, when it is a conjunction of simple tests of
// plain (not nullable) fields of that element.
func (c *compiler) simpleTests(pred typecheck.Node, scope int) ([]elemTest, bool) {
	var out []elemTest
	var add func(n typecheck.Node, negated bool) bool
	add = func(n typecheck.Node, negated bool) bool {
		if len(out) >= maxTests {
			return false
		}
		switch n := n.(type) {
		case *typecheck.Logic:
			return !negated && n.Op == ast.OpAnd && add(n.X, false) && add(n.Y, false)
		case *typecheck.Not:
			return !negated && add(n.X, true)
		case *typecheck.Field:
			if n.Scope != scope || n.F.Type.Kind != schema.Bool {
				return false
			}
			g, err := c.field(n)
			if err != nil || g.ptr {
				return false
			}
			t := elemTest{off: g.off}
			switch {
			case g.f.Equals != "":
				t.kind, t.s = testStrEq, g.f.Equals
				if negated {
					t.kind = testStrNe
				}
			case g.f.Negate != negated:
				t.kind = testNotBool
			default:
				t.kind = testBool
			}
			out = append(out, t)
			return true
		case *typecheck.Compare:
			x, y, op := n.X, n.Y, n.Op
			if _, ok := constOf(x); ok {
				x, y, op = y, x, flip(op)
			}
			k, ok := constOf(y)
			if !ok {
				return false
			}
			f, g, ok := c.direct(x)
			if !ok || f.Scope != scope || g.ptr {
				return false
			}
			switch {
			case g.rep == repInt && (k.T.Kind == schema.Int || k.T.Kind == schema.User || k.T.Kind == schema.Datetime):
				if negated {
					op = negate(op)
				}
				out = append(out, elemTest{kind: testInt, op: op, off: g.off, k: k.I})
				return true
			case g.rep == repString && isText(k.T.Kind) && (op == ast.OpEq || op == ast.OpNe):
				eq := (op == ast.OpEq) != negated
				t := elemTest{kind: testStrEq, off: g.off, s: k.S}
				if !eq {
					t.kind = testStrNe
				}
				out = append(out, t)
				return true
			}
		}
		return false
	}
	if !add(pred, false) {
		return nil, false
	}
	return out, true
}

// negate is the comparison that holds exactly when op does not (for
// present values, which plain fields and constants are).
func negate(op ast.Op) ast.Op {
	switch op {
	case ast.OpEq:
		return ast.OpNe
	case ast.OpNe:
		return ast.OpEq
	case ast.OpLt:
		return ast.OpGe
	case ast.OpLe:
		return ast.OpGt
	case ast.OpGt:
		return ast.OpLe
	}
	return ast.OpLt
}

// elems reads the collection's source inline when it is a slice field of
// a scope object, through its closure otherwise.
func elems(cl *coll, fr frame) (unsafe.Pointer, int) {
	if cl.direct {
		return sliceAt(fr[cl.directScope], cl.directOff)
	}
	return cl.src(fr)
}

// fusedExists is exists over a collection whose one stage is simple tests.
func fusedExists(cl coll, ts []elemTest) predFn {
	size := cl.size
	if len(ts) == 1 {
		t := ts[0]
		return func(fr frame) bool {
			base, k := elems(&cl, fr)
			for i := range k {
				if t.eval(unsafe.Add(base, uintptr(i)*size)) {
					return true
				}
			}
			return false
		}
	}
	return func(fr frame) bool {
		base, k := elems(&cl, fr)
		for i := range k {
			if allTests(ts, unsafe.Add(base, uintptr(i)*size)) {
				return true
			}
		}
		return false
	}
}

// fusedAll is "every element passes the tests".
func fusedAll(cl coll, ts []elemTest) predFn {
	size := cl.size
	return func(fr frame) bool {
		base, k := elems(&cl, fr)
		for i := range k {
			if !allTests(ts, unsafe.Add(base, uintptr(i)*size)) {
				return false
			}
		}
		return true
	}
}

// fusedCount counts the elements that pass the tests.
func fusedCount(cl coll, ts []elemTest) func(frame) int {
	size := cl.size
	return func(fr frame) int {
		base, k := elems(&cl, fr)
		m := 0
		for i := range k {
			if allTests(ts, unsafe.Add(base, uintptr(i)*size)) {
				m++
			}
		}
		return m
	}
}

// sameSource reports whether a and b denote the same collection: the same
// field read from the same scope (or the same member of the same object).
func sameSource(a, b typecheck.Node) bool {
	switch a := a.(type) {
	case *typecheck.Field:
		b, ok := b.(*typecheck.Field)
		return ok && a.F == b.F && a.Obj == b.Obj && a.Scope == b.Scope
	case *typecheck.Member:
		b, ok := b.(*typecheck.Member)
		return ok && a.F == b.F && sameSource(a.X, b.X)
	}
	return false
}

// forAll recognises count of X = count of X where (P) (and !=, and the
// sides swapped): the counts are equal exactly when every element of X
// satisfies P, which stops at the first that does not.
func (c *compiler) forAll(n *typecheck.Compare) (predFn, bool, error) {
	if n.Op != ast.OpEq && n.Op != ast.OpNe {
		return nil, false, nil
	}
	cx, ok1 := n.X.(*typecheck.Count)
	cy, ok2 := n.Y.(*typecheck.Count)
	if !ok1 || !ok2 {
		return nil, false, nil
	}
	all, filtered := cx.X, cy.X
	f, ok := filtered.(*typecheck.Filter)
	if !ok || f.Kind != ast.Where || !sameSource(all, f.X) {
		all, filtered = cy.X, cx.X
		if f, ok = filtered.(*typecheck.Filter); !ok || f.Kind != ast.Where || !sameSource(all, f.X) {
			return nil, false, nil
		}
	}
	cl, err := c.coll(all)
	if err != nil {
		return nil, true, err
	}
	if err := c.scope(f, f.Scope); err != nil {
		return nil, true, err
	}
	var p predFn
	if ts, ok := c.simpleTests(f.Pred, f.Scope); ok {
		p = fusedAll(cl, ts)
	} else {
		pred, err := c.pred(f.Pred)
		if err != nil {
			return nil, true, err
		}
		// Every element fails to be a counter-example: exists of "not P".
		cl.stages = append(cl.stages[:len(cl.stages):len(cl.stages)], stage{scope: f.Scope, pred: func(fr frame) bool { return !pred(fr) }})
		some := exists(cl)
		p = func(fr frame) bool { return !some(fr) }
	}
	if n.Op == ast.OpNe {
		return func(fr frame) bool { return !p(fr) }, true, nil
	}
	return p, true, nil
}
