package eval_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/croql/croql/demo"
	"github.com/croql/croql/eval"
	"github.com/croql/croql/schema"
)

// nested is the issue's H1 reproducer: depth levels of `count of
// translations where (...) > 0` around `text = "x"`. Inside where, a bare
// `translations` is the string's again, so it visits translations^depth
// elements.
func nested(depth int) string { return nestedOf(`text = "x"`, depth) }

// nestedOf is depth levels of `count of translations where (...) > 0`
// around q.
func nestedOf(q string, depth int) string {
	for range depth {
		q = "count of translations where (" + q + ") > 0"
	}
	return q
}

// costly is a string on which nested(8) visits 20^8 elements: no
// translation's text is "x", so no loop stops early.
func costly() *schema.SourceString {
	s := &schema.SourceString{ID: 1, Text: "x"}
	for i := range 20 {
		s.Translations = append(s.Translations, schema.Translation{StringID: 1, Language: "de", Text: "y", User: int64(11 + i%3)})
	}
	return s
}

// flipCtx is a context whose Err is nil for its first n calls and Canceled
// afterwards: cancellation at a known point of an evaluation, no clock.
type flipCtx struct {
	context.Context
	n, calls atomic.Int64
}

func (c *flipCtx) Err() error {
	if c.calls.Add(1) > c.n.Load() {
		return context.Canceled
	}
	return nil
}

func newFlip(n int64) *flipCtx {
	c := &flipCtx{Context: context.Background()}
	c.n.Store(n)
	return c
}

// TestMatchContextStopsNestedQuery: under a context cancelled during the
// evaluation, MatchContext returns the context's error after the next look
// at it, and looks no more: the 20^8 remaining visits are skipped.
func TestMatchContextStopsNestedQuery(t *testing.T) {
	p := compile(t, schema.New(), schema.CtxStrings, nested(8))
	for _, n := range []int64{1, 2, 5, 50} {
		ctx := newFlip(n)
		ok, err := p.MatchContext(ctx, costly())
		require.ErrorIs(t, err, context.Canceled, "after %d looks", n)
		assert.False(t, ok)
		assert.Equal(t, n+1, ctx.calls.Load(), "it stops at the first look that sees the cancellation")
	}
	// Done before it starts: no evaluation at all.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := p.MatchContext(ctx, costly())
	require.ErrorIs(t, err, context.Canceled)
}

// TestMatchContextDeadline is the acceptance for H1 with the
// budget raised: a 1 s deadline stops the 8-deep query, which would
// otherwise visit 2.6e10 elements. The bound on how long it may take is
// generous on purpose: the test asserts that it returns, with the
// deadline's error, not how fast.
func TestMatchContextDeadline(t *testing.T) {
	p := compile(t, schema.New(), schema.CtxStrings, nested(8))
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	done := make(chan error, 1)
	start := time.Now()
	go func() {
		_, err := p.MatchContext(ctx, costly())
		done <- err
	}()
	select {
	case err := <-done:
		require.ErrorIs(t, err, context.DeadlineExceeded)
		t.Logf("stopped %v after the start (deadline 1 s)", time.Since(start))
	case <-time.After(60 * time.Second):
		t.Fatal("MatchContext did not return within 60 s of a 1 s deadline")
	}
}

// TestFilterParallelStopsInsideAnObject: FilterParallel's workers stop
// inside one costly object's evaluation, not only between objects.
func TestFilterParallelStopsInsideAnObject(t *testing.T) {
	p := compile(t, schema.New(), schema.CtxStrings, nested(8))
	xs := []schema.SourceString{*costly(), *costly(), *costly()}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	done := make(chan error, 1)
	go func() {
		out, err := eval.FilterParallel(ctx, p, xs, 2)
		assert.Empty(t, out)
		done <- err
	}()
	select {
	case err := <-done:
		require.ErrorIs(t, err, context.DeadlineExceeded)
	case <-time.After(60 * time.Second):
		t.Fatal("FilterParallel did not return within 60 s of a 1 s deadline")
	}

	// Deterministically: a context cancelled after a few looks.
	flip := newFlip(3)
	_, err := eval.FilterParallel(flip, p, xs, 1)
	require.ErrorIs(t, err, context.Canceled)
}

// TestMatchContextAgreesWithMatch: with a live context, MatchContext
// answers what Match answers, on every benchmark pattern and demo string.
func TestMatchContextAgreesWithMatch(t *testing.T) {
	proj := demo.Default()
	ctx := context.Background()
	srcs := []string{nestedOf(`text contains "e"`, 2), nestedOf(`user = @user:"alice"`, 3), nestedOf(`text contains "e" and count of votes = 0`, 3)}
	for _, pt := range benchPatterns {
		srcs = append(srcs, pt.src)
	}
	for _, src := range srcs {
		q := check(t, schema.New(), schema.CtxStrings, src, checkOpts{users: proj.UserIDs()})
		p, err := eval.Compile(q, eval.WithUserRefs(proj.Users...))
		require.NoError(t, err)
		n := 0
		for i := range proj.Strings {
			s := &proj.Strings[i]
			got, err := p.MatchContext(ctx, s)
			require.NoError(t, err)
			require.Equal(t, p.Match(s), got, "%s on string %d", src, s.ID)
			if got {
				n++
			}
		}
		_, err = p.MatchContext(ctx, proj.Strings[0]) // not a pointer
		require.NoError(t, err)
		t.Logf("%d matches: %s", n, src)
	}
}

// TestMatchContextAllocatesNothing: an evaluation under a context that is
// not done allocates nothing, like Match.
func TestMatchContextAllocatesNothing(t *testing.T) {
	proj := demo.Default()
	ctx, cancel := context.WithTimeout(context.Background(), time.Hour)
	defer cancel()
	for _, src := range []string{nested(3), benchPatterns[6].src, benchPatterns[10].src} {
		q := check(t, schema.New(), schema.CtxStrings, src, checkOpts{users: proj.UserIDs()})
		p, err := eval.Compile(q, eval.WithUserRefs(proj.Users...))
		require.NoError(t, err)
		i := 0
		allocs := testing.AllocsPerRun(200, func() {
			if _, err := p.MatchContext(ctx, &proj.Strings[i%len(proj.Strings)]); err != nil {
				panic(err)
			}
			i++
		})
		assert.Zero(t, allocs, src)
	}
}
