package eval

import (
	"context"
	"unsafe"
)

// MatchVisits is Match that also counts the elements of the collections
// whose loops the evaluation entered: the work the query's cost estimate
// (typecheck.Query.Cost) bounds. A tool measuring queries on real data
// compares the two; obj must be what Match takes, else the result is
// (false, 0).
func (p *Program) MatchVisits(obj any) (bool, uint64) {
	x := p.unpack(obj)
	if x == nil {
		return false, 0
	}
	g := &guard{ctx: context.Background(), next: guardEvery}
	ok := p.guarded(hide(x), unsafe.Pointer(g))
	return ok, g.visits
}
