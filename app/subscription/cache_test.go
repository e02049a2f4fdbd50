package subscription

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func newCachedClient(p *fakePlatform, clock *fakeClock, opts CacheOptions) *Cache {
	rec := &sleepRecorder{}
	opts.Clock = clock.Now
	return NewCache(NewClient(WithClock(clock.Now), WithRetry(noJitter()), WithSleep(rec.sleep)), opts)
}

func TestCacheKeepsActiveUntilExpiresAndRechecksOnEveryHit(t *testing.T) {
	p := newPlatform(t,
		answer{status: 200, body: `{"expires":"2026-01-01 12:00:00"}`},
		answer{status: 402, body: `{"subscribe_link":"https://pay.example/renew"}`},
	)
	clock := newClock(mustTime(t, "2026-01-01 10:00:00"))
	c := newCachedClient(p, clock, CacheOptions{})
	ctx := context.Background()

	res, err := c.Check(ctx, p.req("org"))
	require.NoError(t, err)
	assert.True(t, Decide(res, err, clock.Now(), Restrict).Allow)
	assert.Equal(t, 1, p.count())

	// Hours later but before expires: answered from the cache.
	clock.Set(mustTime(t, "2026-01-01 11:59:59"))
	res, err = c.Check(ctx, p.req("org"))
	require.NoError(t, err)
	assert.True(t, Decide(res, err, clock.Now(), Restrict).Allow)
	assert.Equal(t, 1, p.count(), "cached")

	// The subscription expires between two calls: the hit notices it and
	// the platform is asked again, which now says unpaid.
	clock.Set(mustTime(t, "2026-01-01 12:00:00"))
	res, err = c.Check(ctx, p.req("org"))
	require.NoError(t, err)
	d := Decide(res, err, clock.Now(), Restrict)
	assert.False(t, d.Allow)
	assert.Equal(t, ReasonUnpaid, d.Reason)
	assert.Equal(t, "https://pay.example/renew", res.SubscribeLink)
	assert.Equal(t, 2, p.count())
}

func TestCacheIsKeyedByOrganizationAndApp(t *testing.T) {
	p := newPlatform(t, answer{status: 200, body: `{"expires":"2030-01-01 00:00:00"}`})
	clock := newClock(mustTime(t, "2026-01-01 00:00:00"))
	c := newCachedClient(p, clock, CacheOptions{})
	ctx := context.Background()

	for range 3 {
		for _, org := range []string{"a", "b"} {
			_, err := c.Check(ctx, p.req(org))
			require.NoError(t, err)
		}
		other := p.req("a")
		other.AppIdentifier = "other-app"
		_, err := c.Check(ctx, other)
		require.NoError(t, err)
	}
	assert.Equal(t, 3, p.count())
	assert.Equal(t, 3, c.Len())
	assert.Equal(t, "/api/v2/applications/other-app/subscription", p.request(2).URL.Path)
}

func TestCacheRestrictedAnswersLiveForTTL(t *testing.T) {
	p := newPlatform(t,
		answer{status: 402, body: `{"subscribe_link":"https://pay.example/x"}`},
		answer{status: 200, body: `{"expires":"2030-01-01 00:00:00"}`},
	)
	clock := newClock(mustTime(t, "2026-01-01 00:00:00"))
	c := newCachedClient(p, clock, CacheOptions{RestrictedTTL: 30 * time.Second})
	ctx := context.Background()

	res, err := c.Check(ctx, p.req("o"))
	require.NoError(t, err)
	assert.Equal(t, Unpaid, res.State)
	clock.Advance(29 * time.Second)
	res, _ = c.Check(ctx, p.req("o"))
	assert.Equal(t, Unpaid, res.State)
	assert.Equal(t, 1, p.count())

	clock.Advance(time.Second)
	res, _ = c.Check(ctx, p.req("o"))
	assert.Equal(t, Active, res.State)
	assert.Equal(t, 2, p.count())
}

func TestCacheAlreadyExpiredActiveIsTreatedAsRestricted(t *testing.T) {
	p := newPlatform(t, answer{status: 200, body: `{"expires":"2025-01-01 00:00:00"}`})
	clock := newClock(mustTime(t, "2026-01-01 00:00:00"))
	c := newCachedClient(p, clock, CacheOptions{RestrictedTTL: time.Minute})
	for range 3 {
		res, err := c.Check(context.Background(), p.req("o"))
		require.NoError(t, err)
		assert.Equal(t, ReasonExpired, Decide(res, err, clock.Now(), Restrict).Reason)
	}
	assert.Equal(t, 1, p.count(), "an answer that is already expired is not re-fetched on every hit")
}

func TestCacheNegativeTTLDisablesRestrictedCaching(t *testing.T) {
	p := newPlatform(t, answer{status: 400, body: `{"message":"gone"}`})
	clock := newClock(mustTime(t, "2026-01-01 00:00:00"))
	c := newCachedClient(p, clock, CacheOptions{RestrictedTTL: -1})
	for range 3 {
		_, err := c.Check(context.Background(), p.req("o"))
		require.NoError(t, err)
	}
	assert.Equal(t, 3, p.count())
}

func TestCacheMaxActiveAge(t *testing.T) {
	p := newPlatform(t, answer{status: 200, body: `{"expires":"2030-01-01 00:00:00"}`})
	clock := newClock(mustTime(t, "2026-01-01 00:00:00"))
	c := newCachedClient(p, clock, CacheOptions{MaxActiveAge: time.Hour})
	_, _ = c.Check(context.Background(), p.req("o"))
	clock.Advance(59 * time.Minute)
	_, _ = c.Check(context.Background(), p.req("o"))
	assert.Equal(t, 1, p.count())
	clock.Advance(time.Minute)
	_, _ = c.Check(context.Background(), p.req("o"))
	assert.Equal(t, 2, p.count())
}

func TestCacheInvalidate(t *testing.T) {
	p := newPlatform(t,
		answer{status: 402, body: `{"subscribe_link":"https://pay.example/x"}`},
		answer{status: 200, body: `{"expires":"2030-01-01 00:00:00"}`},
	)
	clock := newClock(mustTime(t, "2026-01-01 00:00:00"))
	c := newCachedClient(p, clock, CacheOptions{RestrictedTTL: time.Hour})
	ctx := context.Background()
	res, _ := c.Check(ctx, p.req("o"))
	require.Equal(t, Unpaid, res.State)

	// The user pays; the app's "subscription paid" handler invalidates.
	c.Invalidate("o", "my-app")
	res, err := c.Check(ctx, p.req("o"))
	require.NoError(t, err)
	assert.Equal(t, Active, res.State)
	assert.Equal(t, 2, p.count())

	c.InvalidateAll()
	assert.Equal(t, 0, c.Len())
}

func TestCacheDoesNotCacheFailures(t *testing.T) {
	p := newPlatform(t,
		answer{status: 500, body: `{}`},
		answer{status: 500, body: `{}`},
		answer{status: 500, body: `{}`},
		answer{status: 200, body: `{"expires":"2030-01-01 00:00:00"}`},
	)
	clock := newClock(mustTime(t, "2026-01-01 00:00:00"))
	c := newCachedClient(p, clock, CacheOptions{})
	_, err := c.Check(context.Background(), p.req("o"))
	assert.ErrorIs(t, err, ErrUnavailable)
	res, err := c.Check(context.Background(), p.req("o"))
	require.NoError(t, err)
	assert.Equal(t, Active, res.State)
	assert.Equal(t, 4, p.count())
}

func TestCacheConcurrentMissesShareOneRequest(t *testing.T) {
	release := make(chan struct{})
	p := newPlatform(t, answer{status: 200, body: `{"expires":"2030-01-01 00:00:00"}`, block: release})
	clock := newClock(mustTime(t, "2026-01-01 00:00:00"))
	c := newCachedClient(p, clock, CacheOptions{})

	const n = 8
	var wg sync.WaitGroup
	results := make([]Result, n)
	errs := make([]error, n)
	for i := range n {
		wg.Go(func() { results[i], errs[i] = c.Check(context.Background(), p.req("o")) })
	}
	require.Eventually(t, func() bool { return p.count() == 1 }, 5*time.Second, time.Millisecond)
	close(release)
	wg.Wait()
	for i := range n {
		require.NoError(t, errs[i])
		assert.Equal(t, Active, results[i].State)
	}
	assert.Equal(t, 1, p.count())
}

func TestCacheWaiterHonoursItsContext(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	p := newPlatform(t, answer{status: 200, body: `{"expires":"2030-01-01 00:00:00"}`, block: release})
	clock := newClock(mustTime(t, "2026-01-01 00:00:00"))
	c := newCachedClient(p, clock, CacheOptions{})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := c.Check(ctx, p.req("o"))
	assert.ErrorIs(t, err, context.Canceled)
}

func TestCacheNeedsAKey(t *testing.T) {
	c := NewCache(NewClient(), CacheOptions{})
	_, err := c.Check(context.Background(), Request{AppIdentifier: "a", BaseURL: "http://x", Token: "t"})
	assert.ErrorIs(t, err, ErrInvalidRequest)
}

type panicky struct{}

func (panicky) Check(context.Context, Request) (Result, error) { panic("boom") }

func TestCacheSurvivesAPanickingChecker(t *testing.T) {
	c := NewCache(panicky{}, CacheOptions{})
	_, err := c.Check(context.Background(), Request{Organization: "o", AppIdentifier: "a"})
	assert.ErrorIs(t, err, ErrUnexpectedResponse)
	_, err = c.Check(context.Background(), Request{Organization: "o", AppIdentifier: "a"})
	assert.ErrorIs(t, err, ErrUnexpectedResponse, "the key is usable again after a panic")
}

func TestCacheBoundsEntries(t *testing.T) {
	p := newPlatform(t, answer{status: 200, body: `{"expires":"2030-01-01 00:00:00"}`})
	clock := newClock(mustTime(t, "2026-01-01 00:00:00"))
	c := newCachedClient(p, clock, CacheOptions{MaxEntries: 4})
	for _, org := range []string{"a", "b", "c", "d", "e", "f"} {
		_, err := c.Check(context.Background(), p.req(org))
		require.NoError(t, err)
	}
	assert.LessOrEqual(t, c.Len(), 4)
}
