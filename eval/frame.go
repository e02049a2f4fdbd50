package eval

import "unsafe"

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
