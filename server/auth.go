package server

import (
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"net/http"
	"slices"
	"strings"
	"sync"
)

// Tokens are the bearer tokens a server accepts, each with the projects
// it may read. Tokens are kept as SHA-256 digests and compared in
// constant time (every configured token is compared on every request, so
// the time does not tell which one, or how much of one, matched); they
// never appear in a log line or an error message. Tokens is safe for
// concurrent use: tokens may be added and removed while the server runs
// (the platform side's OAuth endpoint issues them).
type Tokens struct {
	mu      sync.RWMutex
	entries []tokenEntry
}

type tokenEntry struct {
	digest [sha256.Size]byte
	all    bool
	ids    []int64
}

// Grant is what a token may read.
type Grant struct {
	all bool
	ids []int64
}

// Reads reports whether the grant covers project id.
func (g Grant) Reads(id int64) bool { return g.all || slices.Contains(g.ids, id) }

// Add accepts token for the projects ids, or for every project when ids
// is empty. An empty token is an error.
func (t *Tokens) Add(token string, ids ...int64) error {
	if token == "" {
		return errors.New("server: empty token")
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.entries = append(t.entries, tokenEntry{digest: sha256.Sum256([]byte(token)), all: len(ids) == 0, ids: slices.Clone(ids)})
	return nil
}

// Remove stops accepting token; it reports whether the token was
// accepted.
func (t *Tokens) Remove(token string) bool {
	d := sha256.Sum256([]byte(token))
	t.mu.Lock()
	defer t.mu.Unlock()
	n := len(t.entries)
	t.entries = slices.DeleteFunc(t.entries, func(e tokenEntry) bool {
		return subtle.ConstantTimeCompare(d[:], e.digest[:]) == 1
	})
	return len(t.entries) < n
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

// authenticate returns the grant of the request's bearer token.
func (t *Tokens) authenticate(r *http.Request) (Grant, bool) {
	tok := Bearer(r)
	if tok == "" || t == nil {
		return Grant{}, false
	}
	d := sha256.Sum256([]byte(tok))
	t.mu.RLock()
	defer t.mu.RUnlock()
	match := -1
	for i := range t.entries {
		if subtle.ConstantTimeCompare(d[:], t.entries[i].digest[:]) == 1 && match < 0 {
			match = i
		}
	}
	if match < 0 {
		return Grant{}, false
	}
	e := t.entries[match]
	return Grant{all: e.all, ids: e.ids}, true
}
