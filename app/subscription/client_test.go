package subscription

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCheckActiveSendsTheContractRequest(t *testing.T) {
	p := newPlatform(t, answer{status: 200, body: `{"expires":"2026-12-31 23:59:59"}`})
	clock := newClock(mustTime(t, "2026-06-01 00:00:00"))
	c := NewClient(WithClock(clock.Now))

	res, err := c.Check(context.Background(), p.req("org1"))
	require.NoError(t, err)

	assert.Equal(t, Active, res.State)
	assert.True(t, res.Expires.Equal(time.Date(2026, 12, 31, 23, 59, 59, 0, time.UTC)), res.Expires)
	assert.Equal(t, 200, res.StatusCode)
	assert.True(t, res.CheckedAt.Equal(clock.Now()))

	require.Equal(t, 1, p.count())
	r := p.request(0)
	assert.Equal(t, http.MethodGet, r.Method)
	assert.Equal(t, "/api/v2/applications/my-app/subscription", r.URL.Path)
	assert.Equal(t, "bearer tok-org1", r.Header.Get("Authorization"))
	assert.Equal(t, "application/json", r.Header.Get("Content-Type"))
}

func TestCheckOutcomes(t *testing.T) {
	tests := []struct {
		name    string
		status  int
		body    string
		want    State
		link    string
		message string
	}{
		{"active in data envelope", 200, `{"data":{"expires":"2030-01-02 03:04:05"}}`, Active, "", ""},
		{"unpaid snake_case", 402, `{"subscribe_link":"https://pay.example/checkout?app=1"}`, Unpaid, "https://pay.example/checkout?app=1", ""},
		{"unpaid camelCase", 402, `{"subscribeLink":"https://pay.example/c2"}`, Unpaid, "https://pay.example/c2", ""},
		{"unpaid with both spellings (croql serve)", 402, `{"subscribe_link":"https://pay.example/both","subscribeLink":"https://pay.example/both","initializedAt":"2026-05-01 10:00:00"}`, Unpaid, "https://pay.example/both", ""},
		{"not found with message and error (croql serve)", 400, `{"message":"No subscription","error":{"code":400,"message":"No subscription"}}`, NotFound, "", "No subscription"},
		{"unpaid in data envelope", 402, `{"data":{"subscribe_link":"https://pay.example/c3"}}`, Unpaid, "https://pay.example/c3", ""},
		{"unpaid without usable body", 402, `not json`, Unpaid, "", ""},
		{"not found as 400", 400, `{"message":"Application not found"}`, NotFound, "", "Application not found"},
		{"not found as 404", 404, `{"message":"Subscription is not defined"}`, NotFound, "", "Subscription is not defined"},
		{"not found with error envelope", 404, `{"error":{"code":404,"message":"Not Found"}}`, NotFound, "", "Not Found"},
		{"not found with plain body", 400, `bad app`, NotFound, "", "bad app"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := newPlatform(t, answer{status: tc.status, body: tc.body})
			rec := &sleepRecorder{}
			c := NewClient(WithRetry(noJitter()), WithSleep(rec.sleep))
			res, err := c.Check(context.Background(), p.req("o"))
			require.NoError(t, err)
			assert.Equal(t, tc.want, res.State)
			assert.Equal(t, tc.link, res.SubscribeLink)
			assert.Equal(t, tc.message, res.Message)
			assert.Equal(t, tc.status, res.StatusCode)
			assert.Equal(t, 1, p.count(), "contract outcomes are never retried")
			assert.Empty(t, rec.got())
		})
	}
}

func TestCheckUnpaidReadsInitializedAt(t *testing.T) {
	p := newPlatform(t, answer{status: 402, body: `{"subscribeLink":"https://pay.example/x","initializedAt":"2026-05-01 10:00:00"}`})
	res, err := NewClient().Check(context.Background(), p.req("o"))
	require.NoError(t, err)
	assert.True(t, res.InitializedAt.Equal(time.Date(2026, 5, 1, 10, 0, 0, 0, time.UTC)))
}

func TestCheckExpiresLocation(t *testing.T) {
	loc := time.FixedZone("UTC+2", 2*3600)
	p := newPlatform(t, answer{status: 200, body: `{"expires":"2026-01-01 12:00:00"}`})
	res, err := NewClient(WithLocation(loc)).Check(context.Background(), p.req("o"))
	require.NoError(t, err)
	assert.True(t, res.Expires.Equal(time.Date(2026, 1, 1, 10, 0, 0, 0, time.UTC)), res.Expires)
}

func TestCheckUnexpectedAnswersAreErrorsWithoutRetry(t *testing.T) {
	tests := []struct {
		name   string
		status int
		body   string
	}{
		{"200 without expires", 200, `{}`},
		{"200 with malformed expires", 200, `{"expires":"31/12/2026"}`},
		{"200 with non-JSON body", 200, `<html>`},
		{"401 invalid token", 401, `{"error":{"message":"Unauthorized"}}`},
		{"403", 403, `{}`},
		{"302", 302, ``},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := newPlatform(t, answer{status: tc.status, body: tc.body})
			rec := &sleepRecorder{}
			c := NewClient(WithRetry(noJitter()), WithSleep(rec.sleep),
				WithHTTPClient(&http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}))
			_, err := c.Check(context.Background(), p.req("o"))
			require.Error(t, err)
			assert.ErrorIs(t, err, ErrUnexpectedResponse)
			var ce *CheckError
			require.ErrorAs(t, err, &ce)
			assert.Equal(t, 1, ce.Attempts)
			assert.Equal(t, tc.status, ce.StatusCode)
			assert.Equal(t, 1, p.count())
			assert.Empty(t, rec.got())
		})
	}
}

func TestRetryOn5xxThenSuccess(t *testing.T) {
	p := newPlatform(t,
		answer{status: 503, body: `{}`},
		answer{status: 500, body: `{}`},
		answer{status: 200, body: `{"expires":"2030-01-01 00:00:00"}`},
	)
	rec := &sleepRecorder{}
	c := NewClient(WithRetry(noJitter()), WithSleep(rec.sleep))
	res, err := c.Check(context.Background(), p.req("o"))
	require.NoError(t, err)
	assert.Equal(t, Active, res.State)
	assert.Equal(t, 3, p.count())
	assert.Equal(t, []time.Duration{100 * time.Millisecond, 200 * time.Millisecond}, rec.got(), "exponential backoff")
}

func TestRetryGivesUpAfterMaxAttempts(t *testing.T) {
	p := newPlatform(t, answer{status: 502, body: `bad gateway`})
	rec := &sleepRecorder{}
	policy := noJitter()
	policy.MaxAttempts = 4
	c := NewClient(WithRetry(policy), WithSleep(rec.sleep))
	_, err := c.Check(context.Background(), p.req("o"))
	require.Error(t, err)
	assert.ErrorIs(t, err, ErrUnavailable)
	var ce *CheckError
	require.ErrorAs(t, err, &ce)
	assert.Equal(t, 4, ce.Attempts)
	assert.Equal(t, 502, ce.StatusCode)
	assert.Equal(t, 4, p.count())
	assert.Equal(t, []time.Duration{100 * time.Millisecond, 200 * time.Millisecond, 400 * time.Millisecond}, rec.got())
}

func TestRetryHonoursRetryAfterUpToMaxBackoff(t *testing.T) {
	p := newPlatform(t,
		answer{status: 429, body: `{}`, header: map[string]string{"Retry-After": "1"}},
		answer{status: 503, body: `{}`, header: map[string]string{"Retry-After": "3600"}},
		answer{status: 200, body: `{"expires":"2030-01-01 00:00:00"}`},
	)
	rec := &sleepRecorder{}
	policy := noJitter()
	policy.MaxBackoff = 5 * time.Second
	c := NewClient(WithRetry(policy), WithSleep(rec.sleep))
	_, err := c.Check(context.Background(), p.req("o"))
	require.NoError(t, err)
	assert.Equal(t, []time.Duration{time.Second, 5 * time.Second}, rec.got())
}

func TestRetryOnNetworkError(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	base := srv.URL
	srv.Close() // nothing listens there any more
	rec := &sleepRecorder{}
	c := NewClient(WithRetry(noJitter()), WithSleep(rec.sleep))
	_, err := c.Check(context.Background(), Request{Organization: "o", BaseURL: base, AppIdentifier: "a", Token: "t"})
	require.Error(t, err)
	assert.ErrorIs(t, err, ErrUnavailable)
	var ce *CheckError
	require.ErrorAs(t, err, &ce)
	assert.Equal(t, 3, ce.Attempts)
	assert.Equal(t, 0, ce.StatusCode)
	assert.Len(t, rec.got(), 2)
}

func TestAttemptTimeoutIsRetried(t *testing.T) {
	block := make(chan struct{})
	defer close(block)
	p := newPlatform(t,
		answer{status: 200, body: `{"expires":"2030-01-01 00:00:00"}`, block: block},
		answer{status: 200, body: `{"expires":"2030-01-01 00:00:00"}`},
	)
	rec := &sleepRecorder{}
	c := NewClient(WithRetry(noJitter()), WithSleep(rec.sleep), WithTimeout(50*time.Millisecond))
	res, err := c.Check(context.Background(), p.req("o"))
	require.NoError(t, err)
	assert.Equal(t, Active, res.State)
	assert.Equal(t, 2, p.count())
	assert.Len(t, rec.got(), 1)
}

func TestCallerCancellationStopsRetrying(t *testing.T) {
	p := newPlatform(t, answer{status: 500, body: `{}`})
	ctx, cancel := context.WithCancel(context.Background())
	sleeps := 0
	c := NewClient(WithRetry(RetryPolicy{MaxAttempts: 10, InitialBackoff: time.Millisecond}), WithSleep(func(ctx context.Context, d time.Duration) error {
		sleeps++
		cancel()
		return ctx.Err()
	}))
	_, err := c.Check(ctx, p.req("o"))
	require.Error(t, err)
	assert.ErrorIs(t, err, context.Canceled)
	assert.ErrorIs(t, err, ErrUnavailable)
	assert.Equal(t, 1, sleeps)
	assert.Equal(t, 1, p.count())
}

func TestInvalidRequestsMakeNoCall(t *testing.T) {
	p := newPlatform(t, answer{status: 200, body: `{"expires":"2030-01-01 00:00:00"}`})
	good := p.req("o")
	tests := map[string]func(r *Request){
		"empty app":       func(r *Request) { r.AppIdentifier = " " },
		"empty token":     func(r *Request) { r.Token = "" },
		"ftp base":        func(r *Request) { r.BaseURL = "ftp://example.com" },
		"relative base":   func(r *Request) { r.BaseURL = "/api" },
		"base with query": func(r *Request) { r.BaseURL = p.srv.URL + "?x=1" },
	}
	for name, mutate := range tests {
		t.Run(name, func(t *testing.T) {
			r := good
			mutate(&r)
			_, err := NewClient().Check(context.Background(), r)
			assert.ErrorIs(t, err, ErrInvalidRequest)
		})
	}
	assert.Equal(t, 0, p.count())
}

func TestAppIdentifierIsPathEscaped(t *testing.T) {
	u, err := URL(Request{BaseURL: "https://api.example.com/", AppIdentifier: "a b/../c"})
	require.NoError(t, err)
	assert.Equal(t, "https://api.example.com/api/v2/applications/a%20b%2F..%2Fc/subscription", u)
}

func TestEndpointsBaseURL(t *testing.T) {
	var e Endpoints
	got, err := e.BaseURL(Standard, "")
	require.NoError(t, err)
	assert.Equal(t, DefaultStandardBaseURL, got)

	got, err = e.BaseURL(Enterprise, "Acme-Corp")
	require.NoError(t, err)
	assert.Equal(t, "https://acme-corp.api.crowdin.com", got)

	for _, bad := range []string{"", "evil.com/x", "a.b", "-a", "a_b", strings.Repeat("a", 64), "x@y"} {
		_, err := e.BaseURL(Enterprise, bad)
		assert.ErrorIs(t, err, ErrInvalidRequest, bad)
	}
	_, err = Endpoints{EnterpriseTemplate: "https://fixed.example"}.BaseURL(Enterprise, "acme")
	assert.ErrorIs(t, err, ErrInvalidRequest)
	_, err = e.BaseURL(Edition(9), "acme")
	assert.ErrorIs(t, err, ErrInvalidRequest)
}

func TestEnterpriseAddressReachesThePlatform(t *testing.T) {
	p := newPlatform(t, answer{status: 200, body: `{"expires":"2030-01-01 00:00:00"}`})
	e := Endpoints{Standard: p.srv.URL, EnterpriseTemplate: p.srv.URL + "/ent/{organization_domain}"}
	base, err := e.BaseURL(Enterprise, "acme")
	require.NoError(t, err)
	_, err = NewClient().Check(context.Background(), Request{Organization: "acme", BaseURL: base, AppIdentifier: "my-app", Token: "t"})
	require.NoError(t, err)
	assert.Equal(t, "/ent/acme/api/v2/applications/my-app/subscription", p.request(0).URL.Path)

	base, err = e.BaseURL(Standard, "")
	require.NoError(t, err)
	_, err = NewClient().Check(context.Background(), Request{Organization: "acme", BaseURL: base, AppIdentifier: "my-app", Token: "t"})
	require.NoError(t, err)
	assert.Equal(t, "/api/v2/applications/my-app/subscription", p.request(1).URL.Path)
}

func TestBackoffBounds(t *testing.T) {
	p := RetryPolicy{InitialBackoff: 100 * time.Millisecond, MaxBackoff: 700 * time.Millisecond}
	assert.Equal(t, 100*time.Millisecond, p.Backoff(1))
	assert.Equal(t, 200*time.Millisecond, p.Backoff(2))
	assert.Equal(t, 400*time.Millisecond, p.Backoff(3))
	assert.Equal(t, 700*time.Millisecond, p.Backoff(4))
	assert.Equal(t, 700*time.Millisecond, p.Backoff(60), "no overflow for large attempt numbers")

	p.Jitter = true
	for attempt := 1; attempt <= 6; attempt++ {
		full := RetryPolicy{InitialBackoff: p.InitialBackoff, MaxBackoff: p.MaxBackoff}.Backoff(attempt)
		for range 50 {
			d := p.Backoff(attempt)
			assert.GreaterOrEqual(t, d, full/2)
			assert.LessOrEqual(t, d, full)
		}
	}
}

func TestParseExpires(t *testing.T) {
	got, err := ParseExpires("2026-02-03 04:05:06", nil)
	require.NoError(t, err)
	assert.True(t, got.Equal(time.Date(2026, 2, 3, 4, 5, 6, 0, time.UTC)))

	got, err = ParseExpires("2026-02-03T04:05:06+01:00", nil)
	require.NoError(t, err)
	assert.True(t, got.Equal(time.Date(2026, 2, 3, 3, 5, 6, 0, time.UTC)))

	for _, bad := range []string{"", "2026-02-30 00:00:00", "tomorrow", "2026-02-03"} {
		_, err := ParseExpires(bad, time.UTC)
		assert.ErrorIs(t, err, ErrUnexpectedResponse, bad)
	}
}

func TestDecide(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	active := Result{State: Active, Expires: now.Add(time.Hour)}
	expired := Result{State: Active, Expires: now}
	fail := errors.New("boom")

	tests := []struct {
		name   string
		res    Result
		err    error
		policy ErrorPolicy
		allow  bool
		reason Reason
	}{
		{"active", active, nil, Restrict, true, ReasonActive},
		{"expires is exclusive", expired, nil, Grant, false, ReasonExpired},
		{"unpaid", Result{State: Unpaid}, nil, Grant, false, ReasonUnpaid},
		{"not found", Result{State: NotFound}, nil, Grant, false, ReasonNotFound},
		{"error restricted", Result{}, fail, Restrict, false, ReasonCheckFailed},
		{"error granted", Result{}, fail, Grant, true, ReasonCheckFailed},
		{"invalid request never granted", Result{}, &CheckError{Err: fmt.Errorf("%w: empty access token", ErrInvalidRequest)}, Grant, false, ReasonCheckFailed},
		{"stateless result restricted", Result{}, nil, Restrict, false, ReasonCheckFailed},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := Decide(tc.res, tc.err, now, tc.policy)
			assert.Equal(t, tc.allow, d.Allow)
			assert.Equal(t, tc.reason, d.Reason)
			if tc.reason == ReasonCheckFailed {
				assert.Error(t, d.Err)
			}
		})
	}
}
