package schema

import "math/bits"

// idSet is a set of int64 ids that stays small for the ids data files
// hold: runs of nearby numbers. Ids are grouped by their high 48 bits; a
// group holds its low 16 bits as a sorted array while it has at most
// arrayMax members, then as a 65,536-bit bitmap (8 KiB). A million dense
// ids take about 128 KiB; a million scattered ones about 10 MiB.
type idSet struct {
	groups map[int64]*idGroup
	n      int
}

const arrayMax = 4096

type idGroup struct {
	arr    []uint16
	bitmap *[1024]uint64
}

func newIDSet() *idSet { return &idSet{groups: map[int64]*idGroup{}} }

// add adds id and reports whether it was new.
func (s *idSet) add(id int64) bool {
	hi, lo := id>>16, uint16(id)
	g := s.groups[hi]
	if g == nil {
		g = &idGroup{}
		s.groups[hi] = g
	}
	if g.bitmap != nil {
		w, b := &g.bitmap[lo>>6], uint64(1)<<(lo&63)
		if *w&b != 0 {
			return false
		}
		*w |= b
		s.n++
		return true
	}
	i, found := searchU16(g.arr, lo)
	if found {
		return false
	}
	s.n++
	if len(g.arr) < arrayMax {
		g.arr = append(g.arr, 0)
		copy(g.arr[i+1:], g.arr[i:])
		g.arr[i] = lo
		return true
	}
	g.bitmap = new([1024]uint64)
	for _, v := range g.arr {
		g.bitmap[v>>6] |= 1 << (v & 63)
	}
	g.bitmap[lo>>6] |= 1 << (lo & 63)
	g.arr = nil
	return true
}

// has reports whether id is in the set.
func (s *idSet) has(id int64) bool {
	g := s.groups[id>>16]
	if g == nil {
		return false
	}
	lo := uint16(id)
	if g.bitmap != nil {
		return g.bitmap[lo>>6]&(1<<(lo&63)) != 0
	}
	_, found := searchU16(g.arr, lo)
	return found
}

// len is the number of ids in the set.
func (s *idSet) len() int { return s.n }

// searchU16 finds v in the sorted a: its index, or where it would go. The
// common case, ids in ascending order, is checked first.
func searchU16(a []uint16, v uint16) (int, bool) {
	n := len(a)
	if n == 0 || a[n-1] < v {
		return n, false
	}
	lo, hi := 0, n
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if a[m] < v {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo, lo < n && a[lo] == v
}

// popcount is here for tests: the number of ids of a bitmap group.
func (g *idGroup) popcount() int {
	if g.bitmap == nil {
		return len(g.arr)
	}
	n := 0
	for _, w := range g.bitmap {
		n += bits.OnesCount64(w)
	}
	return n
}
