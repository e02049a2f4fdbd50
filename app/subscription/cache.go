package subscription

import (
	"context"
	"fmt"
	"sync"
	"time"
)

// Default lifetimes of cache entries.
const (
	// DefaultRestrictedTTL is how long an Unpaid or NotFound answer (or an
	// Active one whose expires has already passed) is reused before the
	// platform is asked again. Short, so a user who just paid gets in soon
	// even without an Invalidate call.
	DefaultRestrictedTTL = time.Minute
	// DefaultMaxEntries bounds the number of cached keys.
	DefaultMaxEntries = 100_000
)

// Key identifies a cache entry.
type Key struct {
	Organization string
	App          string
}

// CacheOptions configures a Cache. The zero value is usable.
type CacheOptions struct {
	// Clock returns the current moment (default time.Now). It is consulted
	// on every hit, so an Active entry stops granting access the moment its
	// expires passes, whatever its remaining lifetime.
	Clock func() time.Time
	// RestrictedTTL is the lifetime of Unpaid, NotFound and already-expired
	// answers (default DefaultRestrictedTTL). Negative disables caching them.
	RestrictedTTL time.Duration
	// MaxActiveAge, when positive, caps how long an Active answer is reused
	// even though its expires lies further ahead. Zero (the default) keeps
	// it until expires, which is what the seed asks: "keep that date in the
	// app to reduce requests".
	MaxActiveAge time.Duration
	// MaxEntries bounds the number of keys (default DefaultMaxEntries); when
	// full, stale entries are dropped first, then arbitrary ones.
	MaxEntries int
}

// Cache is a Checker that remembers answers per organization and app. Failed
// checks are never cached. Concurrent misses for one key share a single
// request to the platform. It is safe for concurrent use.
type Cache struct {
	next Checker
	opts CacheOptions

	mu       sync.Mutex
	entries  map[Key]cacheEntry
	inflight map[Key]*call
	gen      map[Key]uint64
}

type cacheEntry struct {
	res        Result
	validUntil time.Time
}

type call struct {
	done chan struct{}
	res  Result
	err  error
}

// NewCache returns a cache in front of next (usually a *Client).
func NewCache(next Checker, opts CacheOptions) *Cache {
	if opts.Clock == nil {
		opts.Clock = time.Now
	}
	if opts.RestrictedTTL == 0 {
		opts.RestrictedTTL = DefaultRestrictedTTL
	}
	if opts.MaxEntries <= 0 {
		opts.MaxEntries = DefaultMaxEntries
	}
	return &Cache{
		next:     next,
		opts:     opts,
		entries:  make(map[Key]cacheEntry),
		inflight: make(map[Key]*call),
		gen:      make(map[Key]uint64),
	}
}

// KeyOf returns the cache key of req.
func KeyOf(req Request) Key { return Key{Organization: req.Organization, App: req.AppIdentifier} }

// Check answers from the cache when a valid entry exists and asks next
// otherwise. The returned Result's Expires is always compared with the
// clock by the caller (see Decide); the cache itself drops an Active entry
// once expires has passed and asks the platform again.
func (c *Cache) Check(ctx context.Context, req Request) (Result, error) {
	if req.Organization == "" || req.AppIdentifier == "" {
		return Result{}, &CheckError{Err: fmt.Errorf("%w: cache key needs organization and app identifier", ErrInvalidRequest)}
	}
	key := KeyOf(req)
	c.mu.Lock()
	now := c.opts.Clock()
	if e, ok := c.entries[key]; ok {
		if now.Before(e.validUntil) {
			c.mu.Unlock()
			return e.res, nil
		}
		delete(c.entries, key)
	}
	cl, ok := c.inflight[key]
	if !ok {
		cl = &call{done: make(chan struct{})}
		c.inflight[key] = cl
		gen := c.gen[key]
		c.mu.Unlock()
		// The shared request must not die with the first caller's context;
		// the client's timeouts and retry budget bound it.
		go c.fetch(context.WithoutCancel(ctx), key, gen, req, cl)
	} else {
		c.mu.Unlock()
	}
	select {
	case <-cl.done:
		return cl.res, cl.err
	case <-ctx.Done():
		return Result{}, &CheckError{Err: fmt.Errorf("%w: %w", ErrUnavailable, ctx.Err())}
	}
}

func (c *Cache) fetch(ctx context.Context, key Key, gen uint64, req Request, cl *call) {
	defer close(cl.done)
	defer func() {
		if r := recover(); r != nil {
			cl.res, cl.err = Result{}, &CheckError{Err: fmt.Errorf("%w: checker panicked: %v", ErrUnexpectedResponse, r)}
			c.mu.Lock()
			delete(c.inflight, key)
			c.mu.Unlock()
		}
	}()
	res, err := c.next.Check(ctx, req)
	cl.res, cl.err = res, err
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.inflight, key)
	if err != nil || c.gen[key] != gen {
		// Failures are not cached; an answer that raced an Invalidate is
		// returned to its waiters but not stored.
		return
	}
	now := c.opts.Clock()
	if until, ok := c.validUntil(res, now); ok {
		c.makeRoom(now)
		c.entries[key] = cacheEntry{res: res, validUntil: until}
	}
}

func (c *Cache) validUntil(res Result, now time.Time) (time.Time, bool) {
	if res.State == Active && now.Before(res.Expires) {
		until := res.Expires
		if c.opts.MaxActiveAge > 0 && now.Add(c.opts.MaxActiveAge).Before(until) {
			until = now.Add(c.opts.MaxActiveAge)
		}
		return until, true
	}
	if c.opts.RestrictedTTL < 0 {
		return time.Time{}, false
	}
	return now.Add(c.opts.RestrictedTTL), true
}

// makeRoom is called with mu held.
func (c *Cache) makeRoom(now time.Time) {
	if len(c.entries) < c.opts.MaxEntries {
		return
	}
	for k, e := range c.entries {
		if !now.Before(e.validUntil) {
			delete(c.entries, k)
		}
	}
	for k := range c.entries {
		if len(c.entries) < c.opts.MaxEntries {
			break
		}
		delete(c.entries, k)
	}
}

// Invalidate forgets the entry of one organization and app, e.g. when the
// platform reports that a subscription was paid. A request in flight for
// that key still answers its waiters but is not stored.
func (c *Cache) Invalidate(organization, app string) {
	key := Key{Organization: organization, App: app}
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.entries, key)
	if _, ok := c.inflight[key]; ok {
		c.gen[key]++
	} else {
		delete(c.gen, key)
	}
}

// InvalidateAll forgets every entry.
func (c *Cache) InvalidateAll() {
	c.mu.Lock()
	defer c.mu.Unlock()
	clear(c.entries)
	for k := range c.inflight {
		c.gen[k]++
	}
}

// Len returns the number of stored entries, stale ones included.
func (c *Cache) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.entries)
}
