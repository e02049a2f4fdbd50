package eval

import (
	"math"
	"strings"
	"unsafe"

	"github.com/croql/croql/ast"
	"github.com/croql/croql/schema"
	"github.com/croql/croql/typecheck"
)

// Most queries, and most where predicates, read only their own object:
// fields tested against constants, joined by and, or, not, and counts of
// the object's own collections filtered the same way: `is hidden and not is
// duplicate`, `id of file = 1`, `count of approvals where (user =
// @user:"erin") > 0`. Such a predicate becomes a small tree of tests
// (elemTest), which compiles to closures on the object's address (objPred)
// specialised to each test's kind and path: no frame, a conjunction is a
// chain with no closure of its own, and loops over collections run the
// common element tests inline instead of calling a closure per element. A
// query that is such a tree as a whole runs without a frame at all (see
// Program.root); the frame-based closures (compile.go) use the trees for
// their where predicates.

// testKind is what an elemTest does.
type testKind uint8

const (
	// Leaves: the scalar the test's path reaches.
	testBool     testKind = iota + 1 // the bool is true
	testInt                          // the int64 compares with k by op
	testStr                          // the string compares with s by op
	testContains                     // the string contains s (folded by needle when set)
	testSet                          // the value is present
	testLen                          // the length of the collection at off (its count at lenOff) compares with k by op
	// Trees.
	testAll    // every test of sub holds
	testAnyOf  // some test of sub holds
	testExists // some element of the collection at off passes every test of sub
	testEvery  // every element of the collection at off passes every test of sub
	testCount  // the number of elements of the collection at off that pass sub compares with k by op
)

// elemTest is a test of the object at e; neg negates its result.
//
// A leaf reads the scalar at its path: e+off, or, when hop is set, off
// into the record the pointer at e+hopOff points to; when ptr is set the
// scalar is behind a pointer there. A nil pointer on the way is an absent
// value, and a leaf on an absent value is false (before neg: `not (max
// length > 10)` holds when there is no max length, and `!=` is the
// negation of `=`, which makes it null-safe).
type elemTest struct {
	kind testKind
	neg  bool
	// op and k are an int comparison as the query states it (testInt,
	// testLen, testCount); prepare turns them into the range [lo, hi]
	// (and neg). op is also the comparison of testStr.
	op     ast.Op
	k      int64
	lo, hi int64
	// num is set by prepare on the plain leaves that are a number at
	// e+off within [lo, hi]: a bool (a byte, in [1, 1]; with mask, the
	// bit mask of the byte), an int64 (word set) or a collection's length
	// (u32 set: the uint32 at e+off, which prepare moves to lenOff). Their
	// closures and loops read them inline.
	num, word, u32 bool
	hop, ptr       bool
	// narrow is set on a testInt leaf of a uint32 field (a compact int):
	// prepare makes it a u32 num leaf, like a collection's count.
	narrow bool
	// mask, for a testBool of a bool held as a bit, selects it in the
	// byte the path reaches (0 for a bool of its own).
	mask   uint8
	hopOff uintptr
	off    uintptr
	// lenOff is where the count of the collection at off is, for testLen,
	// testExists, testEvery and testCount.
	lenOff uintptr
	s      string
	needle *foldNeedle
	size   uintptr    // element size of the collection, for testExists, testEvery and testCount
	sub    []elemTest // operands of testAll and testAnyOf; the tests of each element of the collection
}

// intRange is the range of the int64 values v for which `v op k` holds,
// negated when neg (for !=); an empty range has lo > hi.
func intRange(op ast.Op, k int64) (lo, hi int64, neg bool) {
	switch op {
	case ast.OpEq:
		return k, k, false
	case ast.OpNe:
		return k, k, true
	case ast.OpLt:
		if k == math.MinInt64 {
			return 1, 0, false
		}
		return math.MinInt64, k - 1, false
	case ast.OpLe:
		return math.MinInt64, k, false
	case ast.OpGt:
		if k == math.MaxInt64 {
			return 1, 0, false
		}
		return k + 1, math.MaxInt64, false
	}
	return k, math.MaxInt64, false // ast.OpGe
}

// prepare turns the int comparisons of ts into ranges and marks the num
// leaves, through the whole tree.
func prepare(ts []elemTest) {
	for i := range ts {
		t := &ts[i]
		switch t.kind {
		case testInt, testLen, testCount:
			lo, hi, neg := intRange(t.op, t.k)
			t.lo, t.hi, t.neg = lo, hi, t.neg != neg
		case testBool:
			t.lo, t.hi = 1, 1
		}
		plain := !t.hop && !t.ptr
		switch t.kind {
		case testBool:
			t.num = plain
		case testInt:
			t.num, t.word = plain, true
			if t.narrow {
				t.num, t.word, t.u32 = true, false, true
			}
		case testLen: // the count, a uint32
			t.num, t.u32, t.off = true, true, t.lenOff
		}
		prepare(t.sub)
	}
}

// numAt evaluates a num leaf on the object at e.
func (t *elemTest) numAt(e unsafe.Pointer) bool {
	p := unsafe.Add(e, t.off)
	switch {
	case t.u32:
		v := int64(*(*uint32)(p))
		return (v >= t.lo && v <= t.hi) != t.neg
	case t.word:
		v := *(*int64)(p)
		return (v >= t.lo && v <= t.hi) != t.neg
	case t.mask != 0:
		return (*(*uint8)(p)&t.mask != 0) != t.neg
	}
	return *(*bool)(p) != t.neg
}

// intLeaf reports whether t is a plain int64 leaf: the int64 at e+off
// within [lo, hi] (!= neg). A bool is the byte at e+off (!= neg; a bit of
// it with mask), and a length the uint32 at e+off within [lo, hi].
func (t *elemTest) intLeaf() bool  { return t.num && t.word && t.kind == testInt }
func (t *elemTest) boolLeaf() bool { return t.num && t.kind == testBool }

// byteLeaf reports whether t is a plain bool leaf of a bool of its own.
func (t *elemTest) byteLeaf() bool { return t.boolLeaf() && t.mask == 0 }

// numOr reports whether t is an or of two num leaves of the same width,
// none negated: two int64s (word) or two counts (u32, `count of approvals
// > 0 or count of votes > 0`).
func (t *elemTest) numOr(u32 bool) bool {
	if t.kind != testAnyOf || t.neg || len(t.sub) != 2 {
		return false
	}
	a, b := &t.sub[0], &t.sub[1]
	return a.num && b.num && !a.neg && !b.neg && (u32 && a.u32 && b.u32 || !u32 && a.word && b.word)
}

// intEq reports whether t is a plain int64 leaf `= lo` (no neg).
func (t *elemTest) intEq() bool { return t.intLeaf() && t.lo == t.hi && !t.neg }

// narrowEq reports whether t is a narrow int leaf (a uint32) `= lo` (no
// neg), lo within the uint32 range.
func (t *elemTest) narrowEq() bool {
	return t.num && t.u32 && t.narrow && t.lo == t.hi && !t.neg && t.lo >= 0 && t.lo <= math.MaxUint32
}

// strEq reports whether t is a plain string equality.
func (t *elemTest) strEq() bool {
	return t.kind == testStr && t.op == ast.OpEq && !t.hop && !t.ptr
}

// at is the address of the scalar a leaf reads, nil when it is absent.
func (t *elemTest) at(e unsafe.Pointer) unsafe.Pointer {
	if t.hop {
		if e = *(*unsafe.Pointer)(unsafe.Add(e, t.hopOff)); e == nil {
			return nil
		}
	}
	p := unsafe.Add(e, t.off)
	if t.ptr {
		p = *(*unsafe.Pointer)(p)
	}
	return p
}

// leaf tests the present scalar at p (neg aside).
func (t *elemTest) leaf(p unsafe.Pointer) bool {
	switch t.kind {
	case testBool:
		if t.mask != 0 {
			return *(*uint8)(p)&t.mask != 0
		}
		return *(*bool)(p)
	case testInt:
		v := *(*int64)(p)
		if t.narrow {
			v = int64(*(*uint32)(p))
		}
		return v >= t.lo && v <= t.hi
	case testStr:
		return cmpOrd(t.op, *(*string)(p), t.s)
	case testContains:
		if t.needle != nil {
			return t.needle.in(*(*string)(p))
		}
		return strings.Contains(*(*string)(p), t.s)
	}
	return true // testSet
}

// The tests compile to closures on the object's address (objPred), each
// specialised to its kind and to the shape of its path, and a conjunction
// to a chain: each test calls the next only when it holds, so `a and b`
// costs no call of its own. Loops over a collection run the common element
// tests inline.

// lowerAll compiles "every test of ts holds" (true for none).
func lowerAll(ts []elemTest) objPred {
	var next objPred
	for i := len(ts) - 1; i >= 0; i-- {
		next = lower(&ts[i], next)
	}
	if next == nil {
		return func(unsafe.Pointer) bool { return true }
	}
	return next
}

// lowerRoot is lowerAll for the tests of a whole query (Program.root):
// false for a nil object. The common first tests (a num leaf, a string
// equality, an int behind a record or a pointer) check for nil in their
// own closure, so that the check costs no call; the others get a closure
// of their own.
func lowerRoot(ts []elemTest) objPred {
	if len(ts) == 0 {
		return func(e unsafe.Pointer) bool { return e != nil }
	}
	var next objPred
	if len(ts) > 1 {
		next = lowerAll(ts[1:])
	}
	t := &ts[0]
	off, neg, lo, hi := t.off, t.neg, t.lo, t.hi
	if p := rootNarrowLeaf(t, next); p != nil {
		return p
	}
	switch {
	case t.num && t.word && next == nil:
		return func(e unsafe.Pointer) bool {
			if e == nil {
				return false
			}
			v := *(*int64)(unsafe.Add(e, off))
			return (v >= lo && v <= hi) != neg
		}
	case t.num && t.word:
		return func(e unsafe.Pointer) bool {
			if e == nil {
				return false
			}
			v := *(*int64)(unsafe.Add(e, off))
			return (v >= lo && v <= hi) != neg && next(e)
		}
	case t.strEq() && next == nil:
		s := t.s
		return func(e unsafe.Pointer) bool { return e != nil && (*(*string)(unsafe.Add(e, off)) == s) != neg }
	case t.strEq():
		s := t.s
		return func(e unsafe.Pointer) bool {
			return e != nil && (*(*string)(unsafe.Add(e, off)) == s) != neg && next(e)
		}
	case t.kind == testInt && t.hop && !t.ptr: // `id of file = 1 and ...`
		hopOff := t.hopOff
		if next == nil {
			next = func(unsafe.Pointer) bool { return true }
		}
		return func(e unsafe.Pointer) bool {
			if e == nil {
				return false
			}
			r := *(*unsafe.Pointer)(unsafe.Add(e, hopOff))
			if r == nil {
				return neg && next(e)
			}
			v := *(*int64)(unsafe.Add(r, off))
			return (v >= lo && v <= hi) != neg && next(e)
		}
	case t.kind == testInt && !t.hop && t.ptr && next == nil: // `max length > 10`
		return func(e unsafe.Pointer) bool {
			if e == nil {
				return false
			}
			p := *(**int64)(unsafe.Add(e, off))
			return (p != nil && *p >= lo && *p <= hi) != neg
		}
	}
	if next == nil && (t.kind == testExists || t.kind == testEvery || t.kind == testCount) {
		return lower(t, nil) // false for nil (see existsFn)
	}
	p := lowerAll(ts)
	return func(e unsafe.Pointer) bool { return e != nil && p(e) }
}

// rootNarrowLeaf is lowerRoot's closure for a first test t that reads a
// bool byte, a bit or a uint32 of the object (then next), nil for other
// tests.
func rootNarrowLeaf(t *elemTest, next objPred) objPred {
	off, neg, lo, hi := t.off, t.neg, t.lo, t.hi
	switch {
	case t.byteLeaf() && next == nil:
		return func(e unsafe.Pointer) bool { return e != nil && *(*bool)(unsafe.Add(e, off)) != neg }
	case t.byteLeaf():
		return func(e unsafe.Pointer) bool { return e != nil && *(*bool)(unsafe.Add(e, off)) != neg && next(e) }
	case t.boolLeaf() && next == nil:
		mask := t.mask
		return func(e unsafe.Pointer) bool { return e != nil && (*(*uint8)(unsafe.Add(e, off))&mask != 0) != neg }
	case t.boolLeaf():
		mask := t.mask
		return func(e unsafe.Pointer) bool {
			return e != nil && (*(*uint8)(unsafe.Add(e, off))&mask != 0) != neg && next(e)
		}
	case t.u32 && lo == hi && next == nil:
		return func(e unsafe.Pointer) bool { return e != nil && (int64(*(*uint32)(unsafe.Add(e, off))) == lo) != neg }
	case t.u32 && lo == hi:
		return func(e unsafe.Pointer) bool {
			return e != nil && (int64(*(*uint32)(unsafe.Add(e, off))) == lo) != neg && next(e)
		}
	case t.u32 && lo <= hi && next == nil:
		span := uint64(hi - lo)
		return func(e unsafe.Pointer) bool {
			return e != nil && (uint64(int64(*(*uint32)(unsafe.Add(e, off)))-lo) <= span) != neg
		}
	case t.u32 && lo <= hi:
		span := uint64(hi - lo)
		return func(e unsafe.Pointer) bool {
			return e != nil && (uint64(int64(*(*uint32)(unsafe.Add(e, off)))-lo) <= span) != neg && next(e)
		}
	}
	return nil
}

// lower compiles t and then next: the predicate holds when t holds and
// next (if any) holds too.
func lower(t *elemTest, next objPred) objPred {
	var p objPred
	neg := t.neg
	switch {
	case t.num:
		return lowerNum(t, next)
	case t.strEq():
		off, s := t.off, t.s
		if next == nil {
			return func(e unsafe.Pointer) bool { return (*(*string)(unsafe.Add(e, off)) == s) != neg }
		}
		return func(e unsafe.Pointer) bool { return (*(*string)(unsafe.Add(e, off)) == s) != neg && next(e) }
	case t.kind == testAll:
		p = lowerAll(t.sub)
		if neg {
			q := p
			p = func(e unsafe.Pointer) bool { return !q(e) }
		}
	case t.kind == testAnyOf:
		p = lowerAny(t.sub, neg)
	case t.kind == testExists:
		p = existsFn(t.off, t.lenOff, t.size, t.sub, neg)
	case t.kind == testEvery:
		p = everyFn(t.off, t.lenOff, t.size, t.sub, neg)
	case t.kind == testCount:
		p = countFn(t.off, t.lenOff, t.size, t.sub, t.lo, t.hi, neg)
	default:
		p = lowerPath(t)
	}
	if next == nil {
		return p
	}
	return func(e unsafe.Pointer) bool { return p(e) && next(e) }
}

// lowerNum compiles a num leaf followed by next.
func lowerNum(t *elemTest, next objPred) objPred {
	off, neg, lo, hi := t.off, t.neg, t.lo, t.hi
	switch {
	case t.byteLeaf() && next == nil:
		return func(e unsafe.Pointer) bool { return *(*bool)(unsafe.Add(e, off)) != neg }
	case t.byteLeaf():
		return func(e unsafe.Pointer) bool { return *(*bool)(unsafe.Add(e, off)) != neg && next(e) }
	case t.boolLeaf() && next == nil:
		mask := t.mask
		return func(e unsafe.Pointer) bool { return (*(*uint8)(unsafe.Add(e, off))&mask != 0) != neg }
	case t.boolLeaf():
		mask := t.mask
		return func(e unsafe.Pointer) bool { return (*(*uint8)(unsafe.Add(e, off))&mask != 0) != neg && next(e) }
	case t.u32:
		return lowerCount(t, next)
	case lo == hi && next == nil:
		return func(e unsafe.Pointer) bool { return (*(*int64)(unsafe.Add(e, off)) == lo) != neg }
	case lo == hi:
		return func(e unsafe.Pointer) bool { return (*(*int64)(unsafe.Add(e, off)) == lo) != neg && next(e) }
	case next == nil:
		return func(e unsafe.Pointer) bool {
			v := *(*int64)(unsafe.Add(e, off))
			return (v >= lo && v <= hi) != neg
		}
	}
	return func(e unsafe.Pointer) bool {
		v := *(*int64)(unsafe.Add(e, off))
		return (v >= lo && v <= hi) != neg && next(e)
	}
}

// lowerCount compiles a num leaf of a collection's count (u32) followed
// by next. A count within [lo, hi] is one unsigned compare: v-lo <= hi-lo
// (for lo <= hi; an empty range holds for no count).
func lowerCount(t *elemTest, next objPred) objPred {
	off, neg, lo, hi := t.off, t.neg, t.lo, t.hi
	span := uint64(hi - lo)
	switch {
	case lo > hi && next == nil:
		return func(unsafe.Pointer) bool { return neg }
	case lo == hi && next == nil:
		return func(e unsafe.Pointer) bool { return (int64(*(*uint32)(unsafe.Add(e, off))) == lo) != neg }
	case lo == hi:
		return func(e unsafe.Pointer) bool { return (int64(*(*uint32)(unsafe.Add(e, off))) == lo) != neg && next(e) }
	case lo > hi:
		return func(e unsafe.Pointer) bool { return neg && next(e) }
	case next == nil:
		return func(e unsafe.Pointer) bool { return (uint64(int64(*(*uint32)(unsafe.Add(e, off)))-lo) <= span) != neg }
	}
	return func(e unsafe.Pointer) bool {
		return (uint64(int64(*(*uint32)(unsafe.Add(e, off)))-lo) <= span) != neg && next(e)
	}
}

// lowerPath compiles a leaf on a path that may be absent (a nullable
// field, a member of a record): the common int comparisons read it inline.
func lowerPath(t *elemTest) objPred {
	off, neg, lo, hi := t.off, t.neg, t.lo, t.hi
	if t.kind == testInt {
		switch {
		case t.hop && !t.ptr: // `id of file = 1`
			hopOff := t.hopOff
			return func(e unsafe.Pointer) bool {
				r := *(*unsafe.Pointer)(unsafe.Add(e, hopOff))
				if r == nil {
					return neg
				}
				v := *(*int64)(unsafe.Add(r, off))
				return (v >= lo && v <= hi) != neg
			}
		case !t.hop && t.ptr: // `max length > 10`
			return func(e unsafe.Pointer) bool {
				p := *(**int64)(unsafe.Add(e, off))
				return (p != nil && *p >= lo && *p <= hi) != neg
			}
		}
	}
	if t.kind == testContains && !t.hop && !t.ptr {
		if needle := t.needle; needle != nil {
			return func(e unsafe.Pointer) bool { return needle.in(*(*string)(unsafe.Add(e, off))) != neg }
		}
		s := t.s
		return func(e unsafe.Pointer) bool { return strings.Contains(*(*string)(unsafe.Add(e, off)), s) != neg }
	}
	tc := *t
	return func(e unsafe.Pointer) bool {
		p := tc.at(e)
		return (p != nil && tc.leaf(p)) != neg
	}
}

// lowerAny compiles "some test of ts holds", negated when neg. An or of
// num leaves (`count of approvals > 0 or count of votes > 0`) is one
// closure.
func lowerAny(ts []elemTest, neg bool) objPred {
	nums := true
	for i := range ts {
		nums = nums && ts[i].num
	}
	if nums && len(ts) == 2 && ts[0].u32 && ts[1].u32 {
		// `count of approvals > 0 or count of votes > 0`
		off0, lo0, hi0, neg0 := ts[0].off, ts[0].lo, ts[0].hi, ts[0].neg
		off1, lo1, hi1, neg1 := ts[1].off, ts[1].lo, ts[1].hi, ts[1].neg
		return func(e unsafe.Pointer) bool {
			v, w := int64(*(*uint32)(unsafe.Add(e, off0))), int64(*(*uint32)(unsafe.Add(e, off1)))
			return ((v >= lo0 && v <= hi0) != neg0 || (w >= lo1 && w <= hi1) != neg1) != neg
		}
	}
	if nums && len(ts) == 2 && ts[0].word && ts[1].word {
		off0, lo0, hi0, neg0 := ts[0].off, ts[0].lo, ts[0].hi, ts[0].neg
		off1, lo1, hi1, neg1 := ts[1].off, ts[1].lo, ts[1].hi, ts[1].neg
		return func(e unsafe.Pointer) bool {
			v, w := *(*int64)(unsafe.Add(e, off0)), *(*int64)(unsafe.Add(e, off1))
			return ((v >= lo0 && v <= hi0) != neg0 || (w >= lo1 && w <= hi1) != neg1) != neg
		}
	}
	if nums {
		return func(e unsafe.Pointer) bool {
			for i := range ts {
				if ts[i].numAt(e) {
					return !neg
				}
			}
			return neg
		}
	}
	fs := make([]objPred, len(ts))
	for i := range ts {
		fs[i] = lower(&ts[i], nil)
	}
	if len(fs) == 2 {
		a, b := fs[0], fs[1]
		return func(e unsafe.Pointer) bool { return (a(e) || b(e)) != neg }
	}
	return func(e unsafe.Pointer) bool {
		for _, f := range fs {
			if f(e) {
				return !neg
			}
		}
		return neg
	}
}

// existsFn compiles "some element of the slice at off (elements of size
// bytes) passes every test of ts", negated when neg. Like those of everyFn
// and countFn, its closures are false for a nil object (which only a
// query's root can be), so lowerRoot uses them as they are. The common element
// tests run inline: num leaves, a language code first, and a collection of
// the element tested with num leaves (`count of translations where (count
// of approvals where (user = 15) > 0) > 0`).
func existsFn(off, lenOff, size uintptr, ts []elemTest, neg bool) objPred {
	if p := existsBits(off, lenOff, size, ts, neg); p != nil {
		return p
	}
	switch {
	case len(ts) == 1 && ts[0].byteLeaf():
		eoff, want := ts[0].off, !ts[0].neg
		return func(e unsafe.Pointer) bool {
			if e == nil {
				return false
			}
			base, k := sliceAt(e, off, lenOff)
			for o := eoff; k > 0; k, o = k-1, o+size {
				if *(*bool)(unsafe.Add(base, o)) == want {
					return !neg
				}
			}
			return neg
		}
	case len(ts) == 1 && ts[0].intEq():
		eoff, c := ts[0].off, ts[0].lo
		return func(e unsafe.Pointer) bool {
			if e == nil {
				return false
			}
			base, k := sliceAt(e, off, lenOff)
			for o := eoff; k > 0; k, o = k-1, o+size {
				if *(*int64)(unsafe.Add(base, o)) == c {
					return !neg
				}
			}
			return neg
		}
	case len(ts) == 1 && ts[0].narrowEq():
		return existsNarrowEq(off, lenOff, size, ts[0].off, ts[0].lo, neg)
	case len(ts) == 1 && ts[0].intLeaf():
		eoff, lo, hi, eneg := ts[0].off, ts[0].lo, ts[0].hi, ts[0].neg
		return func(e unsafe.Pointer) bool {
			if e == nil {
				return false
			}
			base, k := sliceAt(e, off, lenOff)
			for o := eoff; k > 0; k, o = k-1, o+size {
				v := *(*int64)(unsafe.Add(base, o))
				if (v >= lo && v <= hi) != eneg {
					return !neg
				}
			}
			return neg
		}
	case len(ts) == 2 && ts[0].byteLeaf() && ts[1].byteLeaf():
		off0, want0, off1, want1 := ts[0].off, !ts[0].neg, ts[1].off, !ts[1].neg
		return func(e unsafe.Pointer) bool {
			if e == nil {
				return false
			}
			base, k := sliceAt(e, off, lenOff)
			for o := uintptr(0); k > 0; k, o = k-1, o+size {
				el := unsafe.Add(base, o)
				if *(*bool)(unsafe.Add(el, off0)) == want0 && *(*bool)(unsafe.Add(el, off1)) == want1 {
					return !neg
				}
			}
			return neg
		}
	case len(ts) == 1 && ts[0].kind == testExists && !ts[0].neg && len(ts[0].sub) == 1 && ts[0].sub[0].intEq():
		return existsNested(off, lenOff, size, &ts[0], neg)
	case len(ts) == 1 && ts[0].strEq():
		eoff, str, eneg := ts[0].off, ts[0].s, ts[0].neg
		return func(e unsafe.Pointer) bool {
			if e == nil {
				return false
			}
			base, k := sliceAt(e, off, lenOff)
			for o := eoff; k > 0; k, o = k-1, o+size {
				if (*(*string)(unsafe.Add(base, o)) == str) != eneg {
					return !neg
				}
			}
			return neg
		}
	case len(ts) == 2 && ts[0].strEq() && len(ts[0].s) == 2 && !ts[0].neg && ts[1].numOr(true):
		return existsLangOr(off, lenOff, size, ts, neg, true)
	case len(ts) == 2 && ts[0].strEq() && len(ts[0].s) == 2 && !ts[0].neg && ts[1].numOr(false):
		return existsLangOr(off, lenOff, size, ts, neg, false)
	case len(ts) > 1 && ts[0].strEq() && len(ts[0].s) == 2:
		// A language code first (`language = "de" and ...`): compared
		// inline as two bytes; the rest only for the elements that pass.
		eoff, eneg, rest := ts[0].off, ts[0].neg, lowerAll(ts[1:])
		w := *(*uint16)(unsafe.Pointer(unsafe.StringData(ts[0].s)))
		return func(e unsafe.Pointer) bool {
			if e == nil {
				return false
			}
			base, k := sliceAt(e, off, lenOff)
			for o := uintptr(0); k > 0; k, o = k-1, o+size {
				el := unsafe.Add(base, o)
				v := *(*string)(unsafe.Add(el, eoff))
				eq := len(v) == 2 && *(*uint16)(unsafe.Pointer(unsafe.StringData(v))) == w
				if eq != eneg && rest(el) {
					return !neg
				}
			}
			return neg
		}
	}
	return existsAny(off, lenOff, size, lowerAll(ts), neg)
}

// existsAny is existsFn for any tests, p: a call per element. Each value
// of neg has a closure of its own, which keeps one value less across the
// calls. Not inlined, for the reason existsNested is not.
//
//go:noinline
func existsAny(off, lenOff, size uintptr, p objPred, neg bool) objPred {
	if neg {
		return func(e unsafe.Pointer) bool {
			if e == nil {
				return false
			}
			base, k := sliceAt(e, off, lenOff)
			for i := range k {
				if p(unsafe.Add(base, uintptr(i)*size)) {
					return false
				}
			}
			return true
		}
	}
	return func(e unsafe.Pointer) bool {
		if e == nil {
			return false
		}
		base, k := sliceAt(e, off, lenOff)
		for i := range k {
			if p(unsafe.Add(base, uintptr(i)*size)) {
				return true
			}
		}
		return false
	}
}

// existsNested is existsFn for "some element has some element with an
// int equal to c" (`count of translations where (count of approvals where
// (user = 15) > 0) > 0`), t the element's test, a testExists whose one
// sub test is an int equality. The inner collection's pointer is read at
// o and its count at o+d2 (as sliceAt reads them, with one register
// less), and each value of neg has a closure of its own (one register
// less again): the loops run without spilling. It is not inlined: the
// copies of its closures inlining would make call sliceAt instead of
// inlining it.
//
//go:noinline
func existsNested(off, lenOff, size uintptr, t *elemTest, neg bool) objPred {
	off2, d2, size2, eoff, c := t.off, t.lenOff-t.off, t.size, t.sub[0].off, t.sub[0].lo
	if neg {
		return func(e unsafe.Pointer) bool {
			if e == nil {
				return false
			}
			base, k := sliceAt(e, off, lenOff)
			for o := off2; k > 0; k, o = k-1, o+size {
				b2, k2 := *(*unsafe.Pointer)(unsafe.Add(base, o)), *(*uint32)(unsafe.Add(base, o+d2))
				for o2 := eoff; k2 > 0; k2, o2 = k2-1, o2+size2 {
					if *(*int64)(unsafe.Add(b2, o2)) == c {
						return false
					}
				}
			}
			return true
		}
	}
	return func(e unsafe.Pointer) bool {
		if e == nil {
			return false
		}
		base, k := sliceAt(e, off, lenOff)
		for o := off2; k > 0; k, o = k-1, o+size {
			b2, k2 := *(*unsafe.Pointer)(unsafe.Add(base, o)), *(*uint32)(unsafe.Add(base, o+d2))
			for o2 := eoff; k2 > 0; k2, o2 = k2-1, o2+size2 {
				if *(*int64)(unsafe.Add(b2, o2)) == c {
					return true
				}
			}
		}
		return false
	}
}

// existsBits is existsFn for a conjunction of bools held as bits of the
// same byte of the element (`count of languages summary where (is
// translated and not is approved) > 0` over a bits tag): one masked
// compare of that byte per element. It is nil for other tests.
func existsBits(off, lenOff, size uintptr, ts []elemTest, neg bool) objPred {
	if len(ts) == 0 {
		return nil
	}
	var mask, want uint8
	for i := range ts {
		t := &ts[i]
		if !t.boolLeaf() || t.mask == 0 || t.off != ts[0].off || mask&t.mask != 0 {
			return nil
		}
		mask |= t.mask
		if !t.neg {
			want |= t.mask
		}
	}
	eoff := ts[0].off
	return func(e unsafe.Pointer) bool {
		if e == nil {
			return false
		}
		base, k := sliceAt(e, off, lenOff)
		for o := eoff; k > 0; k, o = k-1, o+size {
			if *(*uint8)(unsafe.Add(base, o))&mask == want {
				return !neg
			}
		}
		return neg
	}
}

// existsLangOr is existsFn for a language code and an or of two num
// leaves of the same width, two counts (u32) or two int64s (`language =
// "de" and (count of approvals > 0 or count of votes > 0)`): one pass over
// the elements testing all three inline, no call per element.
func existsLangOr(off, lenOff, size uintptr, ts []elemTest, neg, u32 bool) objPred {
	eoff, w := ts[0].off, *(*uint16)(unsafe.Pointer(unsafe.StringData(ts[0].s)))
	a, b := &ts[1].sub[0], &ts[1].sub[1]
	off0, lo0, hi0, off1, lo1, hi1 := a.off, a.lo, a.hi, b.off, b.lo, b.hi
	if u32 {
		return func(e unsafe.Pointer) bool {
			if e == nil {
				return false
			}
			base, k := sliceAt(e, off, lenOff)
			for o := uintptr(0); k > 0; k, o = k-1, o+size {
				el := unsafe.Add(base, o)
				v := *(*string)(unsafe.Add(el, eoff))
				if len(v) != 2 || *(*uint16)(unsafe.Pointer(unsafe.StringData(v))) != w {
					continue
				}
				x, y := int64(*(*uint32)(unsafe.Add(el, off0))), int64(*(*uint32)(unsafe.Add(el, off1)))
				if x >= lo0 && x <= hi0 || y >= lo1 && y <= hi1 {
					return !neg
				}
			}
			return neg
		}
	}
	return func(e unsafe.Pointer) bool {
		if e == nil {
			return false
		}
		base, k := sliceAt(e, off, lenOff)
		for o := uintptr(0); k > 0; k, o = k-1, o+size {
			el := unsafe.Add(base, o)
			v := *(*string)(unsafe.Add(el, eoff))
			if len(v) != 2 || *(*uint16)(unsafe.Pointer(unsafe.StringData(v))) != w {
				continue
			}
			x, y := *(*int64)(unsafe.Add(el, off0)), *(*int64)(unsafe.Add(el, off1))
			if x >= lo0 && x <= hi0 || y >= lo1 && y <= hi1 {
				return !neg
			}
		}
		return neg
	}
}

// existsNarrowEq is "some element of the collection at off has the
// narrow int (a uint32) c at eoff", negated when neg; everyNarrowEq "every
// element has". They are functions of their own, not inlined (a closure
// of a function inlined into its caller does not inline sliceAt), and
// compare the uint32 widened (compared as a uint32, the loop's return
// takes an instruction more).
//
//go:noinline
func existsNarrowEq(off, lenOff, size, eoff uintptr, c int64, neg bool) objPred {
	return func(e unsafe.Pointer) bool {
		if e == nil {
			return false
		}
		base, k := sliceAt(e, off, lenOff)
		for o := eoff; k > 0; k, o = k-1, o+size {
			if int64(*(*uint32)(unsafe.Add(base, o))) == c {
				return !neg
			}
		}
		return neg
	}
}

//go:noinline
func everyNarrowEq(off, lenOff, size, eoff uintptr, c int64, neg bool) objPred {
	return func(e unsafe.Pointer) bool {
		if e == nil {
			return false
		}
		base, k := sliceAt(e, off, lenOff)
		for o := eoff; k > 0; k, o = k-1, o+size {
			if int64(*(*uint32)(unsafe.Add(base, o))) != c {
				return neg
			}
		}
		return !neg
	}
}

// everyFn compiles "every element of the slice at off passes every test
// of ts", negated when neg.
func everyFn(off, lenOff, size uintptr, ts []elemTest, neg bool) objPred {
	if len(ts) == 1 && ts[0].intEq() {
		eoff, c := ts[0].off, ts[0].lo
		return func(e unsafe.Pointer) bool {
			if e == nil {
				return false
			}
			base, k := sliceAt(e, off, lenOff)
			for o := eoff; k > 0; k, o = k-1, o+size {
				if *(*int64)(unsafe.Add(base, o)) != c {
					return neg
				}
			}
			return !neg
		}
	}
	if len(ts) == 1 && ts[0].narrowEq() {
		return everyNarrowEq(off, lenOff, size, ts[0].off, ts[0].lo, neg)
	}
	if len(ts) == 1 && ts[0].intLeaf() {
		eoff, lo, hi, eneg := ts[0].off, ts[0].lo, ts[0].hi, ts[0].neg
		return func(e unsafe.Pointer) bool {
			if e == nil {
				return false
			}
			base, k := sliceAt(e, off, lenOff)
			for o := eoff; k > 0; k, o = k-1, o+size {
				v := *(*int64)(unsafe.Add(base, o))
				if (v >= lo && v <= hi) == eneg {
					return neg
				}
			}
			return !neg
		}
	}
	p := lowerAll(ts)
	return func(e unsafe.Pointer) bool {
		if e == nil {
			return false
		}
		base, k := sliceAt(e, off, lenOff)
		for i := range k {
			if !p(unsafe.Add(base, uintptr(i)*size)) {
				return neg
			}
		}
		return !neg
	}
}

// countFn compiles "the number of elements of the slice at off that pass
// every test of ts is within [lo, hi]", negated when neg.
func countFn(off, lenOff, size uintptr, ts []elemTest, lo, hi int64, neg bool) objPred {
	p := lowerAll(ts)
	return func(e unsafe.Pointer) bool {
		if e == nil {
			return false
		}
		base, k := sliceAt(e, off, lenOff)
		m := int64(countElems(base, k, size, p))
		return (m >= lo && m <= hi) != neg
	}
}

// countElems counts the elements p holds for.
func countElems(base unsafe.Pointer, k int, size uintptr, p objPred) int {
	m := 0
	for i := range k {
		if p(unsafe.Add(base, uintptr(i)*size)) {
			m++
		}
	}
	return m
}

// maxTests bounds the size of a fused test tree: longer predicates are
// rare, and the closure form handles them.
const maxTests = 16

// simpleTests returns the conjunction of tests that pred, evaluated with
// the element bound at scope, amounts to; false when pred reads anything
// but fields of that element (and members of its records), constants, and
// the element's own collections filtered by such tests.
func (c *compiler) simpleTests(pred typecheck.Node, scope int) ([]elemTest, bool) {
	if !c.opt {
		return nil, false
	}
	budget := maxTests
	ts, ok := c.subTests(pred, scope, &budget)
	if !ok {
		return nil, false
	}
	prepare(ts)
	return ts, true
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
		if t, ok := c.everyTest(n, scope, budget); ok {
			return t, true
		}
		t, ok := c.simpleTest(n.X, scope, budget)
		t.neg = !t.neg
		return t, ok
	case *typecheck.Field, *typecheck.Member:
		if n.Type().Kind != schema.Bool {
			return elemTest{}, false
		}
		t, g, ok := c.leafPath(n, scope)
		if !ok {
			return elemTest{}, false
		}
		if g.rep == repBool {
			t.kind = testBool
			return t, true
		}
		return elemTest{}, false
	case *typecheck.IsSet:
		t, _, ok := c.leafPath(n.X, scope)
		t.kind = testSet
		return t, ok
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
	case *typecheck.Exists:
		t, ok := c.subCollection(n.X, scope, budget)
		if !ok {
			return elemTest{}, false
		}
		if len(t.sub) == 0 {
			t.kind, t.op, t.k = testLen, ast.OpGt, 0
		} else {
			t.kind = testExists
		}
		return t, true
	case *typecheck.Compare:
		return c.simpleCompare(n, scope, budget)
	case *typecheck.Between:
		lo, lok := constOf(n.Lo)
		hi, hok := constOf(n.Hi)
		if !lok || !hok {
			return elemTest{}, false
		}
		a, ok := c.leafConst(n.X, n.Operand, ast.OpGe, lo, scope)
		if !ok {
			return elemTest{}, false
		}
		b, ok := c.leafConst(n.X, n.Operand, ast.OpLe, hi, scope)
		if !ok {
			return elemTest{}, false
		}
		return elemTest{kind: testAll, sub: []elemTest{a, b}}, true
	case *typecheck.Contains:
		k, ok := constOf(n.Sub)
		if !ok || !isText(k.T.Kind) {
			return elemTest{}, false
		}
		t, g, ok := c.leafPath(n.X, scope)
		if !ok || g.rep != repString {
			return elemTest{}, false
		}
		t.kind, t.s = testContains, k.S
		if n.Fold {
			needle := newFoldNeedle(k.S)
			t.needle = &needle
		}
		return t, true
	}
	return elemTest{}, false
}

// everyTest recognises the core form of "every element of C satisfies P",
// not Exists(C where (not P)) with C a collection of the element, and runs
// it as testEvery, which stops at the first element that fails P.
func (c *compiler) everyTest(n *typecheck.Not, scope int, budget *int) (elemTest, bool) {
	ex, ok := n.X.(*typecheck.Exists)
	if !ok {
		return elemTest{}, false
	}
	f, ok := ex.X.(*typecheck.Filter)
	if !ok || f.Kind != ast.Where {
		return elemTest{}, false
	}
	notP, ok := f.Pred.(*typecheck.Not)
	if !ok {
		return elemTest{}, false
	}
	if _, ok := f.X.(*typecheck.Field); !ok {
		return elemTest{}, false
	}
	t, ok := c.subCollection(f.X, scope, budget)
	if !ok || len(t.sub) > 0 {
		return elemTest{}, false
	}
	ts, ok := c.subTests(notP.X, f.Scope, budget)
	if !ok {
		return elemTest{}, false
	}
	t.kind, t.sub = testEvery, ts
	return t, true
}

// simpleCompare is simpleTest for a comparison: a count of a collection of
// the element, or a scalar of the element, with a constant.
func (c *compiler) simpleCompare(n *typecheck.Compare, scope int, budget *int) (elemTest, bool) {
	x, y, op := n.X, n.Y, n.Op
	if _, ok := constOf(x); ok {
		x, y, op = y, x, op.Mirror()
	}
	k, ok := constOf(y)
	if !ok {
		return elemTest{}, false
	}
	cnt, ok := x.(*typecheck.Count)
	if !ok {
		return c.leafConst(x, n.Operand, op, k, scope)
	}
	if k.T.Kind != schema.Int {
		return elemTest{}, false
	}
	t, ok := c.subCollection(cnt.X, scope, budget)
	if !ok {
		return elemTest{}, false
	}
	if len(t.sub) == 0 {
		t.kind, t.op, t.k = testLen, op, k.I
	} else {
		t.kind, t.op, t.k = testCount, op, k.I
	}
	return t, true
}

// leafConst is the leaf "x op k" for a scalar x of the element; `!=` is
// the negation of `=`.
func (c *compiler) leafConst(x typecheck.Node, operand schema.Kind, op ast.Op, k *typecheck.Const, scope int) (elemTest, bool) {
	if !isOrderOp(op) {
		return elemTest{}, false
	}
	t, g, ok := c.leafPath(x, scope)
	if !ok {
		return elemTest{}, false
	}
	switch {
	case (operand == schema.Int || operand == schema.Datetime || operand == schema.User) && g.rep == repInt &&
		(k.T.Kind == schema.Int || k.T.Kind == schema.Datetime || k.T.Kind == schema.User):
		t.kind, t.k = testInt, k.I
	case (operand == schema.Int || operand == schema.Datetime || operand == schema.User) && g.rep == repUint32 &&
		(k.T.Kind == schema.Int || k.T.Kind == schema.Datetime || k.T.Kind == schema.User) && !t.hop:
		t.kind, t.k, t.narrow = testInt, k.I, true
	case isText(operand) && g.rep == repString && isText(k.T.Kind):
		t.kind, t.s = testStr, k.S
	default:
		return elemTest{}, false
	}
	t.op = op
	if op == ast.OpNe {
		t.op, t.neg = ast.OpEq, true
	}
	return t, true
}

// leafPath locates a scalar of the element at scope: a field of it, or a
// field of one of its records (`id of file`). The returned test has the path set and no kind.
func (c *compiler) leafPath(x typecheck.Node, scope int) (elemTest, goField, bool) {
	switch x := x.(type) {
	case *typecheck.Field:
		if x.Scope != scope {
			return elemTest{}, goField{}, false
		}
		g, err := c.field(x)
		if err != nil || g.rep == repStruct || g.rep == repSlice {
			return elemTest{}, goField{}, false
		}
		return elemTest{off: g.off, ptr: g.ptr, mask: g.mask}, g, true
	case *typecheck.Member:
		rf, ok := x.X.(*typecheck.Field)
		if !ok || rf.Scope != scope || rf.F.Type.Kind != schema.Record {
			return elemTest{}, goField{}, false
		}
		rg, err := c.field(rf)
		if err != nil || rg.rep != repStruct {
			return elemTest{}, goField{}, false
		}
		g, err := c.member(x)
		if err != nil || g.rep == repStruct || g.rep == repSlice {
			return elemTest{}, goField{}, false
		}
		if rg.ptr {
			return elemTest{hop: true, hopOff: rg.off, off: g.off, ptr: g.ptr, mask: g.mask}, g, true
		}
		return elemTest{off: rg.off + g.off, ptr: g.ptr, mask: g.mask}, g, true
	}
	return elemTest{}, goField{}, false
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
		return elemTest{off: g.off, lenOff: g.lenOff, size: g.elemSize}, true
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

// elemsBool and elemsInt make a closure over the frame from body, a loop
// over the collection's elements: the closure reads the source inline when
// it is a slice field of a scope object (most are), so a collection costs
// one call, the body's.
func elemsBool(cl coll, body func(fr frame, base unsafe.Pointer, k int) bool) predFn {
	if cl.direct {
		s, off, lenOff := cl.directScope, cl.directOff, cl.directLenOff
		return func(fr frame) bool {
			base, k := sliceAt(fr[s], off, lenOff)
			if stop(fr, k) {
				return false
			}
			return body(fr, base, k)
		}
	}
	src := cl.src
	return func(fr frame) bool {
		base, k := src(fr)
		if stop(fr, k) {
			return false
		}
		return body(fr, base, k)
	}
}

func elemsInt(cl coll, body func(fr frame, base unsafe.Pointer, k int) int) func(frame) int {
	if cl.direct {
		s, off, lenOff := cl.directScope, cl.directOff, cl.directLenOff
		return func(fr frame) int {
			base, k := sliceAt(fr[s], off, lenOff)
			if stop(fr, k) {
				return 0
			}
			return body(fr, base, k)
		}
	}
	src := cl.src
	return func(fr frame) int {
		base, k := src(fr)
		if stop(fr, k) {
			return 0
		}
		return body(fr, base, k)
	}
}

// fusedExists is exists over a collection whose one stage is simple
// tests.
func fusedExists(cl coll, ts []elemTest) predFn {
	if cl.direct {
		s, p := cl.directScope, existsFn(cl.directOff, cl.directLenOff, cl.size, ts, false)
		return func(fr frame) bool { return p(fr[s]) }
	}
	p, size := lowerAll(ts), cl.size
	return elemsBool(cl, func(_ frame, base unsafe.Pointer, k int) bool {
		for i := range k {
			if p(unsafe.Add(base, uintptr(i)*size)) {
				return true
			}
		}
		return false
	})
}

// fusedCount counts the elements that pass the tests.
func fusedCount(cl coll, ts []elemTest) func(frame) int {
	p, size := lowerAll(ts), cl.size
	return elemsInt(cl, func(_ frame, base unsafe.Pointer, k int) int { return countElems(base, k, size, p) })
}
