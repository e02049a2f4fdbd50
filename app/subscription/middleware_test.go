package subscription

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type mwFixture struct {
	platform *fakePlatform
	clock    *fakeClock
	handler  http.Handler
	reached  int
	reports  []Decision
	mu       sync.Mutex
}

func newMW(t *testing.T, cfg MiddlewareConfig, answers ...answer) *mwFixture {
	t.Helper()
	f := &mwFixture{platform: newPlatform(t, answers...), clock: newClock(mustTime(t, "2026-01-01 00:00:00"))}
	if cfg.Checker == nil {
		rec := &sleepRecorder{}
		cfg.Checker = NewCache(NewClient(WithClock(f.clock.Now), WithRetry(noJitter()), WithSleep(rec.sleep)), CacheOptions{Clock: f.clock.Now})
	}
	if cfg.AppIdentifier == "" {
		cfg.AppIdentifier = "my-app"
	}
	if cfg.Identify == nil {
		cfg.Identify = func(r *http.Request) (Subject, error) {
			org := r.Header.Get("X-Org")
			if org == "" {
				return Subject{}, errors.New("no organization")
			}
			return Subject{Organization: org, BaseURL: f.platform.srv.URL, Token: "tok"}, nil
		}
	}
	cfg.Clock = f.clock.Now
	cfg.Report = func(ctx context.Context, req Request, d Decision) {
		f.mu.Lock()
		defer f.mu.Unlock()
		f.reports = append(f.reports, d)
	}
	mw, err := Middleware(cfg)
	require.NoError(t, err)
	f.handler = mw(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.reached++
		d, ok := FromContext(r.Context())
		if !ok {
			http.Error(w, "no decision", 500)
			return
		}
		_, _ = w.Write([]byte("ok:" + d.Reason.String()))
	}))
	return f
}

func (f *mwFixture) do(page bool) *httptest.ResponseRecorder {
	r := httptest.NewRequest(http.MethodGet, "/app/thing", nil)
	r.Header.Set("X-Org", "org1")
	if page {
		r.Header.Set("Accept", "text/html,application/xhtml+xml")
	} else {
		r.Header.Set("Accept", "application/json")
	}
	w := httptest.NewRecorder()
	f.handler.ServeHTTP(w, r)
	return w
}

func decodeDenied(t *testing.T, w *httptest.ResponseRecorder) DeniedBody {
	t.Helper()
	assert.Contains(t, w.Header().Get("Content-Type"), "application/json")
	var b DeniedBody
	require.NoError(t, json.Unmarshal(w.Body.Bytes(), &b), w.Body.String())
	return b
}

func TestMiddlewareActiveGrants(t *testing.T) {
	f := newMW(t, MiddlewareConfig{}, answer{status: 200, body: `{"expires":"2026-01-02 00:00:00"}`})
	w := f.do(false)
	assert.Equal(t, 200, w.Code)
	assert.Equal(t, "ok:active", w.Body.String())
	assert.Equal(t, "bearer tok", f.platform.request(0).Header.Get("Authorization"))
}

func TestMiddlewareUnpaidAPIAnswers402WithLink(t *testing.T) {
	f := newMW(t, MiddlewareConfig{}, answer{status: 402, body: `{"subscribeLink":"https://pay.example/checkout"}`})
	w := f.do(false)
	assert.Equal(t, http.StatusPaymentRequired, w.Code)
	b := decodeDenied(t, w)
	assert.Equal(t, "unpaid", b.State)
	assert.Equal(t, "https://pay.example/checkout", b.SubscribeLink)
	assert.NotEmpty(t, b.Message)
	assert.Equal(t, 0, f.reached)
}

func TestMiddlewareUnpaidPageRedirects(t *testing.T) {
	f := newMW(t, MiddlewareConfig{}, answer{status: 402, body: `{"subscribe_link":"https://pay.example/checkout"}`})
	w := f.do(true)
	assert.Equal(t, http.StatusSeeOther, w.Code)
	assert.Equal(t, "https://pay.example/checkout", w.Header().Get("Location"))
	assert.Equal(t, 0, f.reached)
}

func TestMiddlewareUnsafeLinkIsNotFollowed(t *testing.T) {
	f := newMW(t, MiddlewareConfig{}, answer{status: 402, body: `{"subscribe_link":"javascript:alert(1)"}`})
	w := f.do(true)
	assert.Equal(t, http.StatusPaymentRequired, w.Code)
	assert.Empty(t, w.Header().Get("Location"))
	w = f.do(false)
	assert.Empty(t, decodeDenied(t, w).SubscribeLink)
}

func TestMiddlewareNotFound(t *testing.T) {
	for _, status := range []int{400, 404} {
		f := newMW(t, MiddlewareConfig{RestrictedPageURL: "/no-subscription"}, answer{status: status, body: `{"message":"app removed"}`})
		w := f.do(false)
		assert.Equal(t, http.StatusForbidden, w.Code)
		b := decodeDenied(t, w)
		assert.Equal(t, "not_found", b.State)
		assert.Contains(t, b.Message, "app removed")

		w = f.do(true)
		assert.Equal(t, http.StatusSeeOther, w.Code)
		assert.Equal(t, "/no-subscription", w.Header().Get("Location"))
		assert.Equal(t, 0, f.reached)
	}
}

func TestMiddlewareExpiredBetweenRequests(t *testing.T) {
	f := newMW(t, MiddlewareConfig{},
		answer{status: 200, body: `{"expires":"2026-01-01 01:00:00"}`},
		answer{status: 402, body: `{"subscribe_link":"https://pay.example/renew"}`},
	)
	assert.Equal(t, 200, f.do(false).Code)
	f.clock.Advance(30 * 60e9)
	assert.Equal(t, 200, f.do(false).Code)
	assert.Equal(t, 1, f.platform.count())
	f.clock.Advance(30 * 60e9)
	w := f.do(false)
	assert.Equal(t, http.StatusPaymentRequired, w.Code)
	assert.Equal(t, "https://pay.example/renew", decodeDenied(t, w).SubscribeLink)
	assert.Equal(t, 2, f.platform.count())
}

func TestMiddlewareExpiredAnswerWithoutLink(t *testing.T) {
	f := newMW(t, MiddlewareConfig{}, answer{status: 200, body: `{"expires":"2025-12-31 00:00:00"}`})
	w := f.do(false)
	assert.Equal(t, http.StatusPaymentRequired, w.Code)
	assert.Equal(t, "expired", decodeDenied(t, w).State)
	w = f.do(true)
	assert.Equal(t, http.StatusPaymentRequired, w.Code)
	assert.Contains(t, w.Header().Get("Content-Type"), "text/plain")
}

func TestMiddlewareErrorPolicy(t *testing.T) {
	t.Run("restrict by default", func(t *testing.T) {
		f := newMW(t, MiddlewareConfig{}, answer{status: 503, body: `{}`})
		w := f.do(false)
		assert.Equal(t, http.StatusServiceUnavailable, w.Code)
		assert.Equal(t, "check_failed", decodeDenied(t, w).State)
		assert.NotEmpty(t, w.Header().Get("Retry-After"))
		assert.Equal(t, 3, f.platform.count(), "retried before deciding")
		require.Len(t, f.reports, 1)
		assert.False(t, f.reports[0].Allow)
		assert.ErrorIs(t, f.reports[0].Err, ErrUnavailable)
		assert.Equal(t, 0, f.reached)
	})
	t.Run("grant optionally, never silently", func(t *testing.T) {
		f := newMW(t, MiddlewareConfig{OnError: Grant}, answer{status: 500, body: `{}`})
		w := f.do(false)
		assert.Equal(t, 200, w.Code)
		assert.Equal(t, "ok:check_failed", w.Body.String())
		require.Len(t, f.reports, 1)
		assert.True(t, f.reports[0].Allow)
		assert.ErrorIs(t, f.reports[0].Err, ErrUnavailable)
	})
	t.Run("grant does not cover a request that cannot be formed", func(t *testing.T) {
		f := newMW(t, MiddlewareConfig{OnError: Grant, Identify: func(r *http.Request) (Subject, error) {
			return Subject{Organization: "o", BaseURL: "http://127.0.0.1:1"}, nil // no token
		}}, answer{status: 200, body: `{"expires":"2030-01-01 00:00:00"}`})
		assert.Equal(t, http.StatusServiceUnavailable, f.do(false).Code)
		require.Len(t, f.reports, 1)
		assert.ErrorIs(t, f.reports[0].Err, ErrInvalidRequest)
		assert.Equal(t, 0, f.platform.count())
	})
	t.Run("grant does not cover contract outcomes", func(t *testing.T) {
		f := newMW(t, MiddlewareConfig{OnError: Grant}, answer{status: 402, body: `{}`})
		assert.Equal(t, http.StatusPaymentRequired, f.do(false).Code)
		assert.Empty(t, f.reports)
	})
}

func TestMiddlewareExemptModelsMakeNoCall(t *testing.T) {
	for _, model := range []PaymentModel{Free, OwnPaymentSystem} {
		f := newMW(t, MiddlewareConfig{Payment: model}, answer{status: 402, body: `{}`})
		w := f.do(false)
		assert.Equal(t, 200, w.Code)
		assert.Equal(t, "ok:exempt", w.Body.String())
		assert.Equal(t, 0, f.platform.count())
	}
}

func TestMiddlewareUnidentifiedRequest(t *testing.T) {
	f := newMW(t, MiddlewareConfig{}, answer{status: 200, body: `{"expires":"2030-01-01 00:00:00"}`})
	r := httptest.NewRequest(http.MethodGet, "/", nil)
	w := httptest.NewRecorder()
	f.handler.ServeHTTP(w, r)
	assert.Equal(t, http.StatusUnauthorized, w.Code)
	assert.Equal(t, 0, f.platform.count())
}

func TestMiddlewareCustomDenyAndIsPage(t *testing.T) {
	var got Decision
	f := newMW(t, MiddlewareConfig{
		IsPage: func(*http.Request) bool { return true },
		Deny: func(w http.ResponseWriter, r *http.Request, d Decision) {
			got = d
			w.WriteHeader(http.StatusTeapot)
		},
	}, answer{status: 402, body: `{"subscribe_link":"https://pay.example/x"}`})
	w := f.do(false)
	assert.Equal(t, http.StatusTeapot, w.Code)
	assert.Equal(t, ReasonUnpaid, got.Reason)
	assert.Equal(t, "https://pay.example/x", got.Result.SubscribeLink)
}

func TestMiddlewareConfigValidation(t *testing.T) {
	_, err := Middleware(MiddlewareConfig{})
	assert.Error(t, err, "ViaPlatform is the zero value and needs a checker")
	_, err = Middleware(MiddlewareConfig{Payment: PaymentModel(7)})
	assert.Error(t, err)
	_, err = Middleware(MiddlewareConfig{Checker: NewClient(), AppIdentifier: "a", Identify: func(*http.Request) (Subject, error) { return Subject{}, nil }, OnError: ErrorPolicy(5)})
	assert.Error(t, err)
	_, err = Middleware(MiddlewareConfig{Payment: Free})
	assert.NoError(t, err)
}
