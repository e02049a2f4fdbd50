package postimport

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
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

// resultStore is the handler's default store: temporary files, served by
// the handler itself (GET {module URL}?result=<id>) until they expire, as
// the platform's SDK keeps large answers in files it serves under the app's
// URL (@crowdin/app-project-module 3.2.2,
// out/modules/file-processing/handlers/pre-post-process.js and
// file-download.js). Ids are 128-bit random, so a URL is its own
// credential.
type resultStore struct {
	dirOpt string
	ttl    time.Duration
	max    int64
	now    func() time.Time

	mu     sync.Mutex
	dir    string
	ownDir bool
	items  map[string]resultItem
	size   int64
}

type resultItem struct {
	path    string
	size    int64
	expires time.Time
}

// Defaults of the default store.
const (
	defaultResultTTL      = time.Hour
	defaultMaxResultBytes = 1 << 30
)

func newResultStore(dir string, ttl time.Duration, max int64) *resultStore {
	if ttl <= 0 {
		ttl = defaultResultTTL
	}
	if max <= 0 {
		max = defaultMaxResultBytes
	}
	return &resultStore{dirOpt: dir, ttl: ttl, max: max, now: time.Now, items: make(map[string]resultItem)}
}

// ensureDir is called with mu held.
func (s *resultStore) ensureDir() error {
	if s.dir != "" {
		return nil
	}
	if s.dirOpt == "" {
		d, err := os.MkdirTemp("", "postimport-results-")
		if err != nil {
			return err
		}
		s.dir, s.ownDir = d, true
		return nil
	}
	if err := os.MkdirAll(s.dirOpt, 0o700); err != nil {
		return err
	}
	s.dir = s.dirOpt
	return nil
}

// sweep drops expired results; called with mu held.
func (s *resultStore) sweep(now time.Time) {
	for id, it := range s.items {
		if !now.Before(it.expires) {
			_ = os.Remove(it.path)
			s.size -= it.size
			delete(s.items, id)
		}
	}
}

// put writes a result and returns its id.
func (s *resultStore) put(write func(io.Writer) error) (string, error) {
	var idb [16]byte
	if _, err := rand.Read(idb[:]); err != nil {
		return "", fmt.Errorf("result store: %w", err)
	}
	id := hex.EncodeToString(idb[:])
	s.mu.Lock()
	s.sweep(s.now())
	if err := s.ensureDir(); err != nil {
		s.mu.Unlock()
		return "", fmt.Errorf("result store: %w", err)
	}
	path := filepath.Join(s.dir, id+".ndjson")
	room := s.max - s.size
	s.mu.Unlock()
	if room <= 0 {
		return "", fmt.Errorf("result store: %w", ErrStoreFull)
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return "", fmt.Errorf("result store: %w", err)
	}
	cw := &capWriter{w: f, room: room}
	bw := bufio.NewWriterSize(cw, 64<<10)
	err = write(bw)
	if err == nil {
		err = bw.Flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		_ = os.Remove(path)
		return "", fmt.Errorf("result store: %w", err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.size+cw.n > s.max {
		_ = os.Remove(path)
		return "", fmt.Errorf("result store: %w", ErrStoreFull)
	}
	s.items[id] = resultItem{path: path, size: cw.n, expires: s.now().Add(s.ttl)}
	s.size += cw.n
	return id, nil
}

// capWriter fails once more than room bytes are written.
type capWriter struct {
	w    io.Writer
	room int64
	n    int64
}

func (c *capWriter) Write(p []byte) (int, error) {
	if c.n+int64(len(p)) > c.room {
		return 0, ErrStoreFull
	}
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// serve answers GET/HEAD ?result=<id>.
func (s *resultStore) serve(w http.ResponseWriter, r *http.Request, id string) {
	s.mu.Lock()
	now := s.now()
	it, ok := s.items[id]
	if ok && !now.Before(it.expires) {
		_ = os.Remove(it.path)
		s.size -= it.size
		delete(s.items, id)
		ok = false
	}
	var f *os.File
	var err error
	if ok {
		// Opened under the lock, so a concurrent sweep cannot remove the
		// file in between (an open file stays readable after removal).
		f, err = os.Open(it.path)
	}
	s.mu.Unlock()
	if !ok || err != nil {
		http.NotFound(w, r)
		return
	}
	defer f.Close()
	w.Header().Set("Content-Type", "application/x-ndjson")
	w.Header().Set("Cache-Control", "no-store")
	http.ServeContent(w, r, "", time.Time{}, f)
}

// close removes the results (and the directory when the store made it).
func (s *resultStore) close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	var errs []error
	for id, it := range s.items {
		if err := os.Remove(it.path); err != nil && !errors.Is(err, os.ErrNotExist) {
			errs = append(errs, err)
		}
		delete(s.items, id)
	}
	s.size = 0
	if s.ownDir && s.dir != "" {
		errs = append(errs, os.RemoveAll(s.dir))
		s.dir = ""
	}
	return errors.Join(errs...)
}
