package postimport

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Store keeps answers too large to send inline. The handler puts the NDJSON
// form of the strings and answers data.stringsUrl with the returned URL,
// which the platform must be able to fetch.
type Store interface {
	Put(ctx context.Context, ndjson []byte) (url string, err error)
}

// StoreFunc adapts a function to Store.
type StoreFunc func(ctx context.Context, ndjson []byte) (string, error)

// Put calls f.
func (f StoreFunc) Put(ctx context.Context, ndjson []byte) (string, error) { return f(ctx, ndjson) }

// MemoryStore is a Store that keeps bodies in memory and serves them itself:
// mount it (it is an http.Handler) at the path of its base URL. Entries are
// addressed by 128-bit random ids and expire after a TTL. It suits a single
// instance; several instances behind a load balancer need a shared store
// (object storage with signed URLs).
type MemoryStore struct {
	base     string
	ttl      time.Duration
	maxBytes int64
	now      func() time.Time

	mu    sync.Mutex
	items map[string]memItem
	size  int64
}

type memItem struct {
	body    []byte
	expires time.Time
}

// MemoryStoreOptions configures a MemoryStore.
type MemoryStoreOptions struct {
	// TTL is how long a body stays available (default 15 minutes).
	TTL time.Duration
	// MaxBytes bounds the memory held (default 256 MiB).
	MaxBytes int64
	// Clock returns the current moment (default time.Now).
	Clock func() time.Time
}

// NewMemoryStore returns a store whose URLs are baseURL + "/" + id; baseURL
// is the public address where the store is mounted.
func NewMemoryStore(baseURL string, opts MemoryStoreOptions) *MemoryStore {
	if opts.TTL <= 0 {
		opts.TTL = 15 * time.Minute
	}
	if opts.MaxBytes <= 0 {
		opts.MaxBytes = 256 << 20
	}
	if opts.Clock == nil {
		opts.Clock = time.Now
	}
	return &MemoryStore{
		base:     strings.TrimSuffix(baseURL, "/"),
		ttl:      opts.TTL,
		maxBytes: opts.MaxBytes,
		now:      opts.Clock,
		items:    make(map[string]memItem),
	}
}

// ErrStoreFull is returned when a body does not fit in the store.
var ErrStoreFull = errors.New("store is full")

// Put stores a body.
func (m *MemoryStore) Put(_ context.Context, body []byte) (string, error) {
	var idb [16]byte
	if _, err := rand.Read(idb[:]); err != nil {
		return "", fmt.Errorf("memory store: %w", err)
	}
	id := hex.EncodeToString(idb[:])
	m.mu.Lock()
	defer m.mu.Unlock()
	now := m.now()
	for k, it := range m.items {
		if !now.Before(it.expires) {
			m.size -= int64(len(it.body))
			delete(m.items, k)
		}
	}
	if m.size+int64(len(body)) > m.maxBytes {
		return "", fmt.Errorf("memory store: %w (%d bytes held, %d more asked)", ErrStoreFull, m.size, len(body))
	}
	m.items[id] = memItem{body: body, expires: now.Add(m.ttl)}
	m.size += int64(len(body))
	return m.base + "/" + id, nil
}

// ServeHTTP serves GET {base}/{id} with the stored NDJSON.
func (m *MemoryStore) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	id := r.URL.Path[strings.LastIndexByte(r.URL.Path, '/')+1:]
	m.mu.Lock()
	it, ok := m.items[id]
	if ok && !m.now().Before(it.expires) {
		m.size -= int64(len(it.body))
		delete(m.items, id)
		ok = false
	}
	m.mu.Unlock()
	if !ok {
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Type", "application/x-ndjson")
	w.Header().Set("Content-Length", strconv.Itoa(len(it.body)))
	w.Header().Set("Cache-Control", "no-store")
	if r.Method == http.MethodHead {
		return
	}
	_, _ = w.Write(it.body)
}

// Len returns the number of stored bodies (expired ones included until the
// next Put).
func (m *MemoryStore) Len() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.items)
}
