package schema

import (
	"math/rand"
	"testing"
)

// TestIDSet holds the set to a map over dense, sparse and negative ids,
// across the array-to-bitmap switch.
func TestIDSet(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	s, m := newIDSet(), map[int64]bool{}
	for i := range 30000 {
		var id int64
		switch i % 3 {
		case 0:
			id = int64(r.Intn(20000)) // dense, repeats
		case 1:
			id = r.Int63() - r.Int63() // anywhere
		default:
			id = -int64(r.Intn(100))
		}
		if got, want := s.add(id), !m[id]; got != want {
			t.Fatalf("add(%d) = %v, want %v", id, got, want)
		}
		m[id] = true
	}
	if s.len() != len(m) {
		t.Fatalf("len %d, want %d", s.len(), len(m))
	}
	for id := range m {
		if !s.has(id) {
			t.Fatalf("%d missing", id)
		}
	}
	for range 1000 {
		if id := r.Int63() + 1<<40; s.has(id) != m[id] {
			t.Fatalf("has(%d) wrong", id)
		}
	}
	bitmaps := 0
	for _, g := range s.groups {
		if g.bitmap != nil {
			bitmaps++
		}
		if g.popcount() == 0 {
			t.Fatal("empty group")
		}
	}
	if bitmaps == 0 {
		t.Fatal("the dense group never became a bitmap")
	}
}
