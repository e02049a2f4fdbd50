package server

import (
	"context"
	"crypto/sha256"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestLaneTokensTakeTurns: in a lane of one place, a token holding it
// has three more requests waiting when another token's arrives; the
// place goes to the tokens in turn (A, B, A, A), not in arrival order
// (A, A, A, B).
func TestLaneTokensTakeTurns(t *testing.T) {
	l := newLane("test", 1, 10, 0, time.Second, nil)
	a, b := sha256.Sum256([]byte("a")), sha256.Sum256([]byte("b"))
	ctx := context.Background()
	first, err := l.acquire(ctx, a)
	require.NoError(t, err)
	type got struct {
		name    string
		release func()
	}
	order := make(chan got)
	wait := func(name string, tok [sha256.Size]byte, queued int64) {
		go func() {
			rel, err := l.acquire(ctx, tok)
			assert.NoError(t, err)
			order <- got{name, rel}
		}()
		require.Eventually(t, func() bool { return l.waiting.Load() == queued }, 10*time.Second, time.Millisecond)
	}
	wait("a1", a, 1)
	wait("a2", a, 2)
	wait("a3", a, 3)
	wait("b1", b, 4)
	first()
	var names []string
	for range 4 {
		g := <-order
		names = append(names, g.name)
		g.release()
	}
	assert.Equal(t, []string{"a1", "b1", "a2", "a3"}, names)
	assert.Zero(t, l.running())
	assert.Zero(t, l.waiting.Load())
	assert.Empty(t, l.inLane)
	assert.Empty(t, l.held)
}

// TestLaneKeepsItsLastPlace: with several tokens, a token that holds
// places waits rather than take the lane's last free one, which another
// token then takes at once; alone it may take every place.
func TestLaneKeepsItsLastPlace(t *testing.T) {
	several := true
	l := newLane("test", 2, 10, 0, time.Second, func() bool { return several })
	a, b := sha256.Sum256([]byte("a")), sha256.Sum256([]byte("b"))
	ctx := context.Background()
	relA, err := l.acquire(ctx, a)
	require.NoError(t, err)
	short, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
	defer cancel()
	_, err = l.acquire(short, a)
	require.ErrorIs(t, err, errLaneWait, "the last place is kept for another token")
	relB, err := l.acquire(ctx, b)
	require.NoError(t, err, "another token takes the last place at once")
	relB()
	several = false
	relA2, err := l.acquire(ctx, a)
	require.NoError(t, err, "a token alone takes every place")
	relA2()
	relA()
	assert.Zero(t, l.running())
}

// TestLaneInProcessShare: while the server has several tokens, one token
// holds at most cpuShare places for in-process work (SQLite), free
// places or not, and its next such request waits until one of its own
// is released; its other work, another token's, and a token alone are
// not bounded.
func TestLaneInProcessShare(t *testing.T) {
	several := true
	l := newLane("test", 4, 10, 0, time.Second, func() bool { return several })
	l.cpuShare = 1
	a, b := sha256.Sum256([]byte("a")), sha256.Sum256([]byte("b"))
	ctx := context.Background()
	relA, queued, err := l.acquireFor(ctx, a, true)
	require.NoError(t, err)
	require.False(t, queued)
	short, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
	defer cancel()
	_, queued, err = l.acquireFor(short, a, true)
	require.ErrorIs(t, err, errLaneWait, "a second place for in-process work waits, three places free")
	require.True(t, queued)
	relB, queued, err := l.acquireFor(ctx, b, true)
	require.NoError(t, err, "another token's in-process work takes a place at once")
	require.False(t, queued, "another token's in-process work takes a place at once")
	relOther, queued, err := l.acquireFor(ctx, a, false)
	require.NoError(t, err, "work on a server engine is not bounded by the share")
	require.False(t, queued, "work on a server engine is not bounded by the share")
	relOther()

	got := make(chan func())
	go func() {
		rel, queued, err := l.acquireFor(ctx, a, true)
		assert.NoError(t, err)
		assert.True(t, queued, "it waited for its own place")
		got <- rel
	}()
	require.Eventually(t, func() bool { return l.waiting.Load() == 1 }, time.Second, time.Millisecond)
	relA()
	relA2 := <-got // its own place released, the waiting request takes it
	relA2()
	relB()

	several = false
	rels := []func(){}
	for range 3 {
		rel, queued, err := l.acquireFor(ctx, a, true)
		require.NoError(t, err, "a token alone is not bounded")
		require.False(t, queued, "a token alone is not bounded")
		rels = append(rels, rel)
	}
	for _, rel := range rels {
		rel()
	}
	assert.Zero(t, l.running())
}
