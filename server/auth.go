package server

import (
	"crypto/sha256"
	"errors"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Tokens are the bearer tokens a server accepts, each with the projects
// it may read and, for an issued token, when it expires. Tokens are kept
// as SHA-256 digests in a map keyed by the digest, so authenticating a
// request costs the same with ten tokens as with a hundred thousand; a
// lookup by digest tells a caller nothing about the tokens (it cannot
// choose a digest). Tokens never appear in a log line or an error
// message. Tokens is safe for concurrent use: tokens may be added and
// removed while the server runs (the platform side's OAuth endpoint
// issues them).
type Tokens struct {
	mu      sync.RWMutex
	entries map[[sha256.Size]byte]tokenEntry
	// now is the clock of expiring tokens (time.Now when nil).
	now func() time.Time
}

type tokenEntry struct {
	all bool
	ids []int64
	// expires is when the token stops being accepted (never when zero).
	expires time.Time
}

// Grant is what a token may read.
type Grant struct {
	all bool
	ids []int64
}

// Reads reports whether the grant covers project id.
func (g Grant) Reads(id int64) bool { return g.all || slices.Contains(g.ids, id) }

// Key names what the grant covers: "*" for every project, else its
// project ids in ascending order, separated by commas. Two grants with
// the same key read the same projects.
func (g Grant) Key() string {
	if g.all {
		return "*"
	}
	ids := slices.Clone(g.ids)
	slices.Sort(ids)
	ids = slices.Compact(ids)
	var b strings.Builder
	for i, id := range ids {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.FormatInt(id, 10))
	}
	return b.String()
}

// Add accepts token for the projects ids, or for every project when ids
// is empty, until it is removed. An empty token is an error. Adding a
// token again replaces its projects.
func (t *Tokens) Add(token string, ids ...int64) error {
	return t.add(token, time.Time{}, ids)
}

// AddFor is Add for a token that expires: it is accepted for lifetime
// from now (by the clock of SetClock) and refused after. A lifetime of
// zero or less is an error.
func (t *Tokens) AddFor(token string, lifetime time.Duration, ids ...int64) error {
	if lifetime <= 0 {
		return errors.New("server: a token's lifetime must be positive")
	}
	return t.add(token, t.clock()().Add(lifetime), ids)
}

func (t *Tokens) add(token string, expires time.Time, ids []int64) error {
	if token == "" {
		return errors.New("server: empty token")
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.entries == nil {
		t.entries = map[[sha256.Size]byte]tokenEntry{}
	}
	t.entries[sha256.Sum256([]byte(token))] = tokenEntry{all: len(ids) == 0, ids: slices.Clone(ids), expires: expires}
	return nil
}

// SetClock sets the clock that expiring tokens (AddFor) are read
// against: time.Now until it is set.
func (t *Tokens) SetClock(now func() time.Time) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.now = now
}

func (t *Tokens) clock() func() time.Time {
	t.mu.RLock()
	defer t.mu.RUnlock()
	if t.now == nil {
		return time.Now
	}
	return t.now
}

// Remove stops accepting token; it reports whether the token was
// accepted (an expired token still counts until it is removed).
func (t *Tokens) Remove(token string) bool {
	d := sha256.Sum256([]byte(token))
	t.mu.Lock()
	defer t.mu.Unlock()
	_, ok := t.entries[d]
	delete(t.entries, d)
	return ok
}

// Len is the number of tokens.
func (t *Tokens) Len() int {
	if t == nil {
		return 0
	}
	t.mu.RLock()
	defer t.mu.RUnlock()
	return len(t.entries)
}

// Bearer is the token of the request's Authorization header: the text
// after the scheme "Bearer" (in any case), trimmed; empty when the header
// is missing or of another scheme. Every route that reads a token reads
// it here.
func Bearer(r *http.Request) string {
	scheme, tok, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	if !ok || !strings.EqualFold(scheme, "bearer") {
		return ""
	}
	return strings.TrimSpace(tok)
}

// authenticate returns the grant of the request's bearer token: one
// map lookup by its digest, whatever the number of tokens.
func (t *Tokens) authenticate(r *http.Request) (Grant, bool) {
	tok := Bearer(r)
	if tok == "" || t == nil {
		return Grant{}, false
	}
	d := sha256.Sum256([]byte(tok))
	now := t.clock()
	t.mu.RLock()
	e, ok := t.entries[d]
	t.mu.RUnlock()
	if !ok || (!e.expires.IsZero() && !now().Before(e.expires)) {
		return Grant{}, false
	}
	return Grant{all: e.all, ids: e.ids}, true
}
