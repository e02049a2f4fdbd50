package eval

import (
	"context"
	"unsafe"
)

// frame holds the object bound at each scope of a query during one
// evaluation: frame[0] is the root object, frame[n] the element or object
// that the n-th enclosing where/with binds. Every slot points to a value of
// the scope object's Go type (or is nil before it is bound).
//
// A frame lives on the stack of the closure that created it (see framed):
// the closures of a Program read and write its slots and never keep it, so
// an evaluation allocates nothing.
type frame []unsafe.Pointer

// hide returns p unchanged, hidden from escape analysis.
//
// Calling a func value makes the compiler assume that every pointer passed
// to it escapes, which would move the frame of every evaluation, and the
// caller's root object, to the heap. Neither escapes: the closures of a
// Program only read the object and read and write the frame's slots during
// the call, and never store either anywhere. So Program.run hides the root
// object and framed the address of its stack array, laundered through a
// uintptr the way the runtime's own noescape does. This is the only such
// conversion in the package; TestLocalRootDoesNotEscape checks the root,
// TestFrameSurvivesStackGrowthAndGC exercises the frame under stack growth
// and garbage collection, and the race detector (which enables checkptr)
// runs every test.
func hide(p unsafe.Pointer) unsafe.Pointer {
	x := uintptr(p)
	return *(*unsafe.Pointer)(unsafe.Pointer(&x))
}

// guardEvery is how many collection elements an evaluation under a guard
// visits between two looks at its context.
const guardEvery = 1024

// guard is the state of one evaluation under a context (MatchContext,
// FilterParallel). It lives on the heap (a program's pool recycles them);
// the last slot of the frame points to it, or is nil when there is no guard
// (Match, Filter).
//
// Every loop over a collection that runs frame closures per element enters
// the guard with the collection's length before it starts: the guard counts
// the elements and looks at the context every guardEvery of them. Once the
// context is done, every loop entered afterwards is skipped, so the
// evaluation unwinds in about as many steps as it has nested loops, and its
// (meaningless) result is discarded. The loops of fused element tests (see
// fuse.go) do not enter it: they read only an object's own collections and
// theirs, at most maxTests of them, so their work is bounded by the data.
type guard struct {
	ctx    context.Context
	visits uint64 // elements of the loops entered so far
	next   uint64 // the count of visits at which to look at ctx again
	err    error  // the context's error, once seen
}

// stop enters the guard of fr, if any, with a loop over k elements, and
// reports whether the loop must be skipped because the context is done.
func stop(fr frame, k int) bool {
	g := (*guard)(fr[len(fr)-1])
	return g != nil && g.enter(k)
}

func (g *guard) enter(k int) bool {
	if g.err != nil {
		return true
	}
	g.visits += uint64(k)
	if g.visits >= g.next {
		g.next = g.visits + guardEvery
		if err := g.ctx.Err(); err != nil {
			g.err = err
			return true
		}
	}
	return false
}
