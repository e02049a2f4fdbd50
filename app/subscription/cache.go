package subscription

import (
	"context"
	"crypto/sha256"
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

// Key identifies a cache entry: the normalised base URL, the organization,
// the app and a SHA-256 of the token. An answer obtained through one base URL
// or one token is never served for another, so a second platform address
// cannot reuse the first one's Active answer, and a token cannot plant an
// Unpaid answer for requests made with another.
type Key struct {
	BaseURL      string
	Organization string
	App          string
	TokenHash    [sha256.Size]byte
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
}

type cacheEntry struct {
	res        Result
	validUntil time.Time
}

type call struct {
	done chan struct{}
	res  Result
	err  error
	// stale is set (under Cache.mu) when the key is invalidated while the
	// call is in flight: its answer goes to the waiters but is not stored.
	stale bool
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
	}
}

// KeyOf returns the cache key of req. A base URL that does not normalise is
// kept as given (the client refuses it anyway).
func KeyOf(req Request) Key {
	base, err := NormalizeBaseURL(req.BaseURL)
	if err != nil {
		base = req.BaseURL
	}
	return Key{BaseURL: base, Organization: req.Organization, App: req.AppIdentifier, TokenHash: sha256.Sum256([]byte(req.Token))}
}

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
		c.mu.Unlock()
		// The shared request must not die with the first caller's context;
		// the client's timeouts and retry budget bound it.
		go c.fetch(context.WithoutCancel(ctx), key, req, cl)
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

func (c *Cache) fetch(ctx context.Context, key Key, req Request, cl *call) {
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
	if err != nil || cl.stale {
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

// Invalidate forgets the entries of one organization and app (every base
// URL and token). A request in flight for them still answers its waiters but
// is not stored.
func (c *Cache) Invalidate(organization, app string) {
	c.invalidate(func(k Key) bool { return k.Organization == organization && k.App == app })
}

// InvalidateOrganization forgets every entry of an organization, whatever
// the app: what the platform's "subscription paid" event asks (see
// [PaidHandler]).
func (c *Cache) InvalidateOrganization(organization string) {
	c.invalidate(func(k Key) bool { return k.Organization == organization })
}

// InvalidateAll forgets every entry.
func (c *Cache) InvalidateAll() { c.invalidate(func(Key) bool { return true }) }

func (c *Cache) invalidate(match func(Key) bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for k := range c.entries {
		if match(k) {
			delete(c.entries, k)
		}
	}
	for k, cl := range c.inflight {
		if match(k) {
			cl.stale = true
		}
	}
}

// Len returns the number of stored entries, stale ones included.
func (c *Cache) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.entries)
}
