package eval

import (
	"unsafe"

	"github.com/croql/croql/ast"
	"github.com/croql/croql/schema"
	"github.com/croql/croql/typecheck"
)

// Most where predicates are fields of the element tested against
// constants, joined by and, or, not, and counts of the element's own
// collections filtered the same way: `user = @user:"alice"`, `is
// translated and not is approved`, `count of approvals where (user =
// @user:"erin") > 0`. For those the collection loop runs a small tree of
// tests (elemTest) with direct calls instead of binding the element in the
// frame and calling a closure per element and per node.

// testKind is what an elemTest does.
type testKind uint8

const (
	testBool   testKind = iota + 1 // the bool at off
	testStr                        // the string at off equals s
	testInt                        // the int64 at off compares with k by op
	testAll                        // every test of sub holds
	testAnyOf                      // some test of sub holds
	testExists                     // some element of the slice at off passes every test of sub
	testCount                      // the number of elements of the slice at off that pass sub compares with k by op
)

// elemTest is a test of the element at e; neg negates it.
type elemTest struct {
	kind testKind
	neg  bool
	op   ast.Op
	off  uintptr
	k    int64
	s    string
	size uintptr    // element size of the slice, for testExists and testCount
	sub  []elemTest // operands of testAll and testAnyOf; the tests of each element of the slice
}

func cmpInt(op ast.Op, v, k int64) bool {
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

func (t *elemTest) eval(e unsafe.Pointer) bool {
	p := unsafe.Add(e, t.off)
	switch t.kind {
	case testBool:
		return *(*bool)(p) != t.neg
	case testStr:
		return (*(*string)(p) == t.s) != t.neg
	case testInt:
		return cmpInt(t.op, *(*int64)(p), t.k) != t.neg
	}
	return t.evalTree(e) != t.neg
}

func (t *elemTest) evalTree(e unsafe.Pointer) bool {
	switch t.kind {
	case testAll:
		return allTests(t.sub, e)
	case testAnyOf:
		for i := range t.sub {
			if quick(&t.sub[i], e) {
				return true
			}
		}
		return false
	case testExists:
		base, k := sliceAt(e, t.off)
		return k > 0 && (len(t.sub) == 0 || anyPass(base, k, t.size, t.sub))
	case testCount:
		base, k := sliceAt(e, t.off)
		n := k
		if k > 0 && len(t.sub) > 0 {
			n = countPass(base, k, t.size, t.sub)
		}
		return cmpInt(t.op, int64(n), t.k)
	}
	return false
}

// quick is eval with the bool and string leaves inline.
func quick(t *elemTest, e unsafe.Pointer) bool {
	p := unsafe.Add(e, t.off)
	if t.kind == testStr {
		return (*(*string)(p) == t.s) != t.neg
	}
	if t.kind == testBool {
		return *(*bool)(p) != t.neg
	}
	return t.eval(e)
}

// allTests reports whether every test holds for the element at e.
func allTests(ts []elemTest, e unsafe.Pointer) bool {
	for i := range ts {
		if !quick(&ts[i], e) {
			return false
		}
	}
	return true
}

// leavesOnly reports whether ts tests fields only, with no collection.
func leavesOnly(ts []elemTest) bool {
	for i := range ts {
		switch ts[i].kind {
		case testExists, testCount:
			return false
		case testAll, testAnyOf:
			if !leavesOnly(ts[i].sub) {
				return false
			}
		}
	}
	return true
}

// maxTests bounds the size of a fused test tree: longer predicates are
// rare, and the closure form handles them.
const maxTests = 16

// simpleTests returns the conjunction of tests that pred, evaluated with
// the element bound at scope, amounts to; false when pred reads anything
// but plain (not nullable) fields of that element, constants, and the
// element's own collections filtered by such tests.
func (c *compiler) simpleTests(pred typecheck.Node, scope int) ([]elemTest, bool) {
	budget := maxTests
	t, ok := c.simpleTest(pred, scope, &budget)
	if !ok {
		return nil, false
	}
	if t.kind == testAll && !t.neg {
		return t.sub, true
	}
	return []elemTest{t}, true
}

func (c *compiler) simpleTest(n typecheck.Node, scope int, budget *int) (elemTest, bool) {
	if *budget--; *budget < 0 {
		return elemTest{}, false
	}
	switch n := n.(type) {
	case *typecheck.Logic:
		if n.Op != ast.OpAnd && n.Op != ast.OpOr {
			return elemTest{}, false
		}
		x, ok := c.simpleTest(n.X, scope, budget)
		if !ok {
			return elemTest{}, false
		}
		y, ok := c.simpleTest(n.Y, scope, budget)
		if !ok {
			return elemTest{}, false
		}
		kind := testAll
		if n.Op == ast.OpOr {
			kind = testAnyOf
		}
		t := elemTest{kind: kind}
		for _, o := range []elemTest{x, y} {
			if o.kind == kind && !o.neg { // flatten a and (b and c)
				t.sub = append(t.sub, o.sub...)
			} else {
				t.sub = append(t.sub, o)
			}
		}
		return t, true
	case *typecheck.Not:
		t, ok := c.simpleTest(n.X, scope, budget)
		t.neg = !t.neg
		return t, ok
	case *typecheck.Field:
		if n.Scope != scope || n.F.Type.Kind != schema.Bool {
			return elemTest{}, false
		}
		g, err := c.field(n)
		if err != nil || g.ptr {
			return elemTest{}, false
		}
		if g.f.Equals != "" {
			return elemTest{kind: testStr, off: g.off, s: g.f.Equals}, true
		}
		return elemTest{kind: testBool, off: g.off, neg: g.f.Negate}, true
	case *typecheck.Filter:
		// E with (P) on a collection E of the element.
		if n.Kind != ast.With || n.X.Type().Kind != schema.Collection {
			return elemTest{}, false
		}
		t, ok := c.subCollection(n.X, scope, budget)
		if !ok {
			return elemTest{}, false
		}
		ts, ok := c.subTests(n.Pred, n.Scope, budget)
		if !ok {
			return elemTest{}, false
		}
		t.kind, t.sub = testExists, append(t.sub, ts...)
		return t, true
	case *typecheck.Compare:
		x, y, op := n.X, n.Y, n.Op
		if _, ok := constOf(x); ok {
			x, y, op = y, x, flip(op)
		}
		k, ok := constOf(y)
		if !ok {
			return elemTest{}, false
		}
		if cnt, ok := x.(*typecheck.Count); ok && k.T.Kind == schema.Int {
			t, ok := c.subCollection(cnt.X, scope, budget)
			if !ok {
				return elemTest{}, false
			}
			switch {
			case (op == ast.OpGt && k.I == 0) || (op == ast.OpGe && k.I == 1) || (op == ast.OpNe && k.I == 0):
				t.kind = testExists
			case (op == ast.OpEq && k.I == 0) || (op == ast.OpLe && k.I == 0) || (op == ast.OpLt && k.I == 1):
				t.kind, t.neg = testExists, true
			default:
				t.kind, t.op, t.k = testCount, op, k.I
			}
			return t, true
		}
		f, g, ok := c.direct(x)
		if !ok || f.Scope != scope || g.ptr {
			return elemTest{}, false
		}
		switch {
		case g.rep == repInt && (k.T.Kind == schema.Int || k.T.Kind == schema.User || k.T.Kind == schema.Datetime):
			return elemTest{kind: testInt, op: op, off: g.off, k: k.I}, true
		case g.rep == repString && isText(k.T.Kind) && (op == ast.OpEq || op == ast.OpNe):
			return elemTest{kind: testStr, off: g.off, s: k.S, neg: op == ast.OpNe}, true
		}
	}
	return elemTest{}, false
}

// subCollection reads X, a collection of the element at scope, possibly
// filtered by where clauses of simple tests: its slice field and the
// conjunction of the filters (kind and the comparison are the caller's).
func (c *compiler) subCollection(x typecheck.Node, scope int, budget *int) (elemTest, bool) {
	switch x := x.(type) {
	case *typecheck.Field:
		if x.Scope != scope {
			return elemTest{}, false
		}
		g, err := c.field(x)
		if err != nil || g.rep != repSlice {
			return elemTest{}, false
		}
		return elemTest{off: g.off, size: g.elemSize}, true
	case *typecheck.Filter:
		if x.Kind != ast.Where {
			return elemTest{}, false
		}
		t, ok := c.subCollection(x.X, scope, budget)
		if !ok {
			return elemTest{}, false
		}
		ts, ok := c.subTests(x.Pred, x.Scope, budget)
		if !ok {
			return elemTest{}, false
		}
		t.sub = append(t.sub[:len(t.sub):len(t.sub)], ts...)
		return t, true
	}
	return elemTest{}, false
}

// subTests is simpleTests within a budget.
func (c *compiler) subTests(pred typecheck.Node, scope int, budget *int) ([]elemTest, bool) {
	t, ok := c.simpleTest(pred, scope, budget)
	if !ok {
		return nil, false
	}
	if t.kind == testAll && !t.neg {
		return t.sub, true
	}
	return []elemTest{t}, true
}

// elemsBool and elemsInt make a closure over the frame from body, a loop
// over the collection's elements: the closure reads the source inline when
// it is a slice field of a scope object (most are), so a collection costs
// one call, the body's.
func elemsBool(cl coll, body func(fr frame, base unsafe.Pointer, k int) bool) predFn {
	if cl.direct {
		s, off := cl.directScope, cl.directOff
		return func(fr frame) bool {
			base, k := sliceAt(fr[s], off)
			return body(fr, base, k)
		}
	}
	src := cl.src
	return func(fr frame) bool {
		base, k := src(fr)
		return body(fr, base, k)
	}
}

func elemsInt(cl coll, body func(fr frame, base unsafe.Pointer, k int) int) func(frame) int {
	if cl.direct {
		s, off := cl.directScope, cl.directOff
		return func(fr frame) int {
			base, k := sliceAt(fr[s], off)
			return body(fr, base, k)
		}
	}
	src := cl.src
	return func(fr frame) int {
		base, k := src(fr)
		return body(fr, base, k)
	}
}

// fusedExists is exists over a collection whose one stage is simple
// tests.
func fusedExists(cl coll, ts []elemTest) predFn {
	size := cl.size
	if cl.direct {
		s, off := cl.directScope, cl.directOff
		return func(fr frame) bool {
			base, k := sliceAt(fr[s], off)
			return anyPass(base, k, size, ts)
		}
	}
	src := cl.src
	return func(fr frame) bool {
		base, k := src(fr)
		return anyPass(base, k, size, ts)
	}
}

// fusedAll is "every element passes the tests".
func fusedAll(cl coll, ts []elemTest) predFn {
	size := cl.size
	if cl.direct {
		s, off := cl.directScope, cl.directOff
		return func(fr frame) bool {
			base, k := sliceAt(fr[s], off)
			return allPass(base, k, size, ts)
		}
	}
	return elemsBool(cl, func(_ frame, base unsafe.Pointer, k int) bool { return allPass(base, k, size, ts) })
}

// The loops over elements: the common one- and two-test shapes run
// inline, anything else calls eval per test.

func anyPass(base unsafe.Pointer, k int, size uintptr, ts []elemTest) bool {
	switch {
	case len(ts) == 1 && ts[0].kind == testBool:
		off, want := ts[0].off, !ts[0].neg
		for i := range k {
			if *(*bool)(unsafe.Add(base, uintptr(i)*size+off)) == want {
				return true
			}
		}
		return false
	case len(ts) == 1 && ts[0].kind == testInt:
		off, op, c, neg := ts[0].off, ts[0].op, ts[0].k, ts[0].neg
		for i := range k {
			if cmpInt(op, *(*int64)(unsafe.Add(base, uintptr(i)*size+off)), c) != neg {
				return true
			}
		}
		return false
	case len(ts) == 1 && ts[0].kind == testStr:
		off, str, neg := ts[0].off, ts[0].s, ts[0].neg
		for i := range k {
			if (*(*string)(unsafe.Add(base, uintptr(i)*size+off)) == str) != neg {
				return true
			}
		}
		return false
	case len(ts) == 1 && ts[0].kind == testExists && !ts[0].neg:
		// some element has some sub-element passing the sub-tests
		off, subSize, sub := ts[0].off, ts[0].size, ts[0].sub
		for i := range k {
			if sb, sk := sliceAt(unsafe.Add(base, uintptr(i)*size), off); sk > 0 && anyPass(sb, sk, subSize, sub) {
				return true
			}
		}
		return false
	case len(ts) > 1 && ts[0].kind == testStr:
		// a string test first (`language = "de" and ...`): inline, the
		// rest only for the elements that pass it
		off, str, neg, rest := ts[0].off, ts[0].s, ts[0].neg, ts[1:]
		if len(str) == 2 { // language codes: compare two bytes inline
			w := *(*uint16)(unsafe.Pointer(unsafe.StringData(str)))
			for i := range k {
				e := unsafe.Add(base, uintptr(i)*size)
				v := *(*string)(unsafe.Add(e, off))
				eq := len(v) == 2 && *(*uint16)(unsafe.Pointer(unsafe.StringData(v))) == w
				if eq != neg && allTests(rest, e) {
					return true
				}
			}
			return false
		}
		for i := range k {
			e := unsafe.Add(base, uintptr(i)*size)
			if (*(*string)(unsafe.Add(e, off)) == str) != neg && allTests(rest, e) {
				return true
			}
		}
		return false
	case len(ts) == 2 && ts[0].kind == testBool && ts[1].kind == testBool:
		off0, want0, off1, want1 := ts[0].off, !ts[0].neg, ts[1].off, !ts[1].neg
		for i := range k {
			e := unsafe.Add(base, uintptr(i)*size)
			if *(*bool)(unsafe.Add(e, off0)) == want0 && *(*bool)(unsafe.Add(e, off1)) == want1 {
				return true
			}
		}
		return false
	}
	for i := range k {
		if allTests(ts, unsafe.Add(base, uintptr(i)*size)) {
			return true
		}
	}
	return false
}

// allPass reports whether every element passes the tests.
func allPass(base unsafe.Pointer, k int, size uintptr, ts []elemTest) bool {
	switch {
	case len(ts) == 1 && ts[0].kind == testInt:
		off, op, c, neg := ts[0].off, ts[0].op, ts[0].k, ts[0].neg
		for i := range k {
			if cmpInt(op, *(*int64)(unsafe.Add(base, uintptr(i)*size+off)), c) == neg {
				return false
			}
		}
		return true
	case len(ts) == 1 && ts[0].kind == testBool:
		off, want := ts[0].off, !ts[0].neg
		for i := range k {
			if *(*bool)(unsafe.Add(base, uintptr(i)*size+off)) != want {
				return false
			}
		}
		return true
	}
	for i := range k {
		if !allTests(ts, unsafe.Add(base, uintptr(i)*size)) {
			return false
		}
	}
	return true
}

func countPass(base unsafe.Pointer, k int, size uintptr, ts []elemTest) int {
	m := 0
	switch {
	case len(ts) == 1 && ts[0].kind == testBool:
		off, want := ts[0].off, !ts[0].neg
		for i := range k {
			if *(*bool)(unsafe.Add(base, uintptr(i)*size+off)) == want {
				m++
			}
		}
		return m
	case len(ts) == 1 && ts[0].kind == testInt:
		off, op, c, neg := ts[0].off, ts[0].op, ts[0].k, ts[0].neg
		for i := range k {
			if cmpInt(op, *(*int64)(unsafe.Add(base, uintptr(i)*size+off)), c) != neg {
				m++
			}
		}
		return m
	}
	for i := range k {
		if allTests(ts, unsafe.Add(base, uintptr(i)*size)) {
			m++
		}
	}
	return m
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
