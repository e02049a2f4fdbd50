package subscription

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"
)

// fakePlatform is an httptest platform whose answers a test scripts. Each
// request pops the next answer; the last one repeats.
type fakePlatform struct {
	t   *testing.T
	srv *httptest.Server

	mu       sync.Mutex
	answers  []answer
	requests []*http.Request
}

type answer struct {
	status int
	body   string
	header map[string]string
	// block, when set, holds the answer until the request's context ends
	// or block is closed.
	block chan struct{}
}

func newPlatform(t *testing.T, answers ...answer) *fakePlatform {
	t.Helper()
	p := &fakePlatform{t: t, answers: answers}
	p.srv = httptest.NewServer(http.HandlerFunc(p.serve))
	t.Cleanup(p.srv.Close)
	return p
}

func (p *fakePlatform) serve(w http.ResponseWriter, r *http.Request) {
	p.mu.Lock()
	p.requests = append(p.requests, r.Clone(context.Background()))
	a := answer{status: http.StatusInternalServerError, body: `{"message":"no answer scripted"}`}
	if len(p.answers) > 0 {
		a = p.answers[0]
		if len(p.answers) > 1 {
			p.answers = p.answers[1:]
		}
	}
	p.mu.Unlock()
	if a.block != nil {
		select {
		case <-a.block:
		case <-r.Context().Done():
			return
		}
	}
	for k, v := range a.header {
		w.Header().Set(k, v)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(a.status)
	_, _ = w.Write([]byte(a.body))
}

func (p *fakePlatform) count() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.requests)
}

func (p *fakePlatform) request(i int) *http.Request {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.requests[i]
}

func (p *fakePlatform) req(org string) Request {
	return Request{Organization: org, BaseURL: p.srv.URL, AppIdentifier: "my-app", Token: "tok-" + org}
}

// fakeClock is a settable clock.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func newClock(t time.Time) *fakeClock { return &fakeClock{now: t} }

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = t
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// sleepRecorder records the waits between attempts without waiting.
type sleepRecorder struct {
	mu    sync.Mutex
	waits []time.Duration
}

func (s *sleepRecorder) sleep(ctx context.Context, d time.Duration) error {
	s.mu.Lock()
	s.waits = append(s.waits, d)
	s.mu.Unlock()
	return ctx.Err()
}

func (s *sleepRecorder) got() []time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]time.Duration(nil), s.waits...)
}

func noJitter() RetryPolicy {
	return RetryPolicy{MaxAttempts: 3, InitialBackoff: 100 * time.Millisecond, MaxBackoff: time.Second}
}

func mustTime(t *testing.T, s string) time.Time {
	t.Helper()
	tm, err := time.ParseInLocation(ExpiresLayout, s, time.UTC)
	if err != nil {
		t.Fatal(err)
	}
	return tm
}
