package eval

import (
	"context"
	"unsafe"
)

// MatchVisits is MatchContext under a live context, returning the elements
// of the collections whose loops the evaluation entered (the guard's
// count): the tests compare it with the cost estimate.
func MatchVisits(p *Program, obj any) (bool, uint64) {
	e := (*eface)(unsafe.Pointer(&obj))
	if e.typ != p.rootWord || e.data == nil {
		return false, 0
	}
	g := &guard{ctx: context.Background(), next: guardEvery}
	ok := p.guarded(hide(e.data), unsafe.Pointer(g))
	return ok, g.visits
}
