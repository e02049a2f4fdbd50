package eval

import (
	"context"
	"fmt"
	"math/bits"
	"reflect"
	"runtime"
	"sync"
	"unsafe"
)

// elemMode tells how Filter reaches the root object from a slice element.
type elemMode uint8

const (
	elemNone  elemMode = iota // T is not the root type: nothing matches
	elemValue                 // T is the root type: match &xs[i]
	elemPtr                   // T is a pointer to the root type: match xs[i]
)

func (p *Program) modeOf(t reflect.Type) elemMode {
	switch {
	case p == nil:
		return elemNone
	case t == p.rootType:
		return elemValue
	case t.Kind() == reflect.Pointer && t.Elem() == p.rootType:
		return elemPtr
	}
	return elemNone
}

// at is the root object of element i of xs.
func at[T any](mode elemMode, xs []T, i int) unsafe.Pointer {
	if mode == elemPtr {
		return *(*unsafe.Pointer)(unsafe.Pointer(&xs[i]))
	}
	return unsafe.Pointer(&xs[i])
}

// Filter returns the elements of xs the program matches, in order. T is the
// context's root type (each element is matched in place, through a pointer
// to it) or a pointer to it (nil pointers never match). For any other T the
// result is empty. xs is not modified.
func Filter[T any](p *Program, xs []T) []T {
	mode := p.modeOf(reflect.TypeFor[T]())
	if mode == elemNone {
		return nil
	}
	// Mark the matches in a bitmap, then copy them into a result of the
	// exact size: growing the result by appends would copy every kept
	// element several times.
	marks := make([]uint64, (len(xs)+63)/64)
	n := 0
	for i := range xs {
		if p.run(at(mode, xs, i)) {
			marks[i/64] |= 1 << (i % 64)
			n++
		}
	}
	return gather(xs, marks, n)
}

// gather copies the elements of xs whose bit is set, n of them, in order.
func gather[T any](xs []T, marks []uint64, n int) []T {
	if n == 0 {
		return nil
	}
	out := make([]T, 0, n)
	for w, word := range marks {
		for word != 0 {
			i := w*64 + bits.TrailingZeros64(word)
			out = append(out, xs[i])
			word &= word - 1
		}
	}
	return out
}

// checkEvery is how many elements a FilterParallel worker matches between
// two looks at the context.
const checkEvery = 1024

// FilterParallel is Filter spread over workers goroutines (GOMAXPROCS when
// workers <= 0). The order of xs is kept. When ctx is cancelled before the
// work is done, it stops early and returns the context's error and no
// elements: the workers look at the context between objects and, inside
// one object's evaluation, between elements of the collections it visits
// (as MatchContext does), so even a single costly object stops promptly.
func FilterParallel[T any](ctx context.Context, p *Program, xs []T, workers int) ([]T, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("eval: filter: %w", err)
	}
	mode := p.modeOf(reflect.TypeFor[T]())
	if mode == elemNone || len(xs) == 0 {
		return nil, nil
	}
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	// Chunks several times smaller than a worker's share balance uneven
	// costs; a shared counter hands them out. They are multiples of 64
	// elements, so each worker owns whole words of the bitmap of matches.
	chunk := (max(checkEvery, len(xs)/(workers*8)) + 63) &^ 63
	nchunks := (len(xs) + chunk - 1) / chunk
	workers = min(workers, nchunks)
	marks := make([]uint64, (len(xs)+63)/64)
	var (
		next   int64
		mu     sync.Mutex
		wg     sync.WaitGroup
		cancel error
	)
	take := func() int {
		mu.Lock()
		defer mu.Unlock()
		if cancel != nil || next >= int64(nchunks) {
			return -1
		}
		next++
		return int(next - 1)
	}
	for range workers {
		wg.Go(func() {
			// The guard stops an evaluation that runs long inside one
			// object (nested loops over large collections); the look
			// every checkEvery objects stops many short ones.
			g := &guard{ctx: ctx, next: guardEvery}
			stopped := func(err error) {
				mu.Lock()
				cancel = err
				mu.Unlock()
			}
			for {
				c := take()
				if c < 0 {
					return
				}
				lo, hi := c*chunk, min((c+1)*chunk, len(xs))
				for i := lo; i < hi; i++ {
					if (i-lo)%checkEvery == 0 && ctx.Err() != nil {
						stopped(ctx.Err())
						return
					}
					if obj := at(mode, xs, i); obj != nil && p.guarded(hide(obj), unsafe.Pointer(g)) {
						marks[i/64] |= 1 << (i % 64)
					}
					if err := g.err; err != nil {
						stopped(err)
						return
					}
				}
			}
		})
	}
	wg.Wait()
	if cancel != nil {
		return nil, fmt.Errorf("eval: filter: %w", cancel)
	}
	n := 0
	for _, w := range marks {
		n += bits.OnesCount64(w)
	}
	return gather(xs, marks, n), nil
}
