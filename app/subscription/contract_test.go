package subscription

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The default base URL is the one the platform's SDK calls
// (@crowdin/app-project-module 3.2.2, out/util/app-functions/crowdin.js).
func TestDefaultBaseURLIsThePlatformSDKs(t *testing.T) {
	u, err := URL(Request{BaseURL: mustBase(t, Standard, ""), AppIdentifier: "my-app"})
	require.NoError(t, err)
	assert.Equal(t, "https://crowdin.com/api/v2/applications/my-app/subscription", u)
	u, err = URL(Request{BaseURL: mustBase(t, Enterprise, "acme"), AppIdentifier: "my-app"})
	require.NoError(t, err)
	assert.Equal(t, "https://acme.api.crowdin.com/api/v2/applications/my-app/subscription", u)
}

func mustBase(t *testing.T, e Edition, domain string) string {
	t.Helper()
	b, err := Endpoints{}.BaseURL(e, domain)
	require.NoError(t, err)
	return b
}

// Trial (issue 15): a 402 with initializedAt grants until initializedAt +
// the trial length of the edition, then restricts with the link.
func TestTrialGrantsUntilInitializedAtPlusLength(t *testing.T) {
	body := `{"subscribeLink":"https://pay.example/c","initializedAt":"2026-01-01 00:00:00"}`
	f := newMW(t, MiddlewareConfig{Trial: Trial{StandardDays: 7, EnterpriseDays: 30}}, answer{status: 402, body: body})
	f.clock.Set(mustTime(t, "2026-01-07 23:59:59"))
	w := f.do(false)
	assert.Equal(t, 200, w.Code, w.Body.String())
	assert.Equal(t, "ok:trial", w.Body.String())

	f.clock.Set(mustTime(t, "2026-01-08 00:00:00")) // 7 days later: over
	w = f.do(false)
	assert.Equal(t, http.StatusPaymentRequired, w.Code)
	b := decodeDenied(t, w)
	assert.Equal(t, "unpaid", b.State)
	assert.Equal(t, "https://pay.example/c", b.SubscribeLink)
}

func TestTrialLengthPerEditionAndDefault(t *testing.T) {
	res := Result{State: Unpaid, InitializedAt: mustTime(t, "2026-01-01 00:00:00")}
	end, ok := res.TrialEnds(Trial{}, Standard)
	require.True(t, ok)
	assert.Equal(t, mustTime(t, "2026-01-15 00:00:00"), end, "14 days by default")
	end, _ = res.TrialEnds(Trial{}, Enterprise)
	assert.Equal(t, mustTime(t, "2026-01-15 00:00:00"), end)
	end, _ = res.TrialEnds(Trial{Days: 10, EnterpriseDays: 30}, Enterprise)
	assert.Equal(t, mustTime(t, "2026-01-31 00:00:00"), end)
	end, _ = res.TrialEnds(Trial{Days: 10, EnterpriseDays: 30}, Standard)
	assert.Equal(t, mustTime(t, "2026-01-11 00:00:00"), end)
	_, ok = res.TrialEnds(Trial{Days: -1}, Standard)
	assert.False(t, ok, "negative disables")
	_, ok = Result{State: Unpaid}.TrialEnds(Trial{}, Standard)
	assert.False(t, ok, "no initializedAt, no trial")

	// The edition comes from the subject.
	d := Rules{Trial: Trial{StandardDays: 1, EnterpriseDays: 30}}.Decide(res, nil, mustTime(t, "2026-01-10 00:00:00"), Enterprise)
	assert.True(t, d.Allow)
	assert.Equal(t, ReasonTrial, d.Reason)
	assert.Equal(t, mustTime(t, "2026-01-31 00:00:00"), d.TrialEnds)
	d = Rules{Trial: Trial{StandardDays: 1, EnterpriseDays: 30}}.Decide(res, nil, mustTime(t, "2026-01-10 00:00:00"), Standard)
	assert.False(t, d.Allow)
	assert.Equal(t, ReasonUnpaid, d.Reason)
}

// Paid invalidation (issue 15): POST /subscription-paid forgets the
// organization's entries (every app, base URL and token) and answers 204;
// the next request asks the platform again without waiting for the TTL.
func TestPaidHandlerInvalidatesTheOrganization(t *testing.T) {
	p := newPlatform(t,
		answer{status: 402, body: `{"subscribe_link":"https://pay.example/c"}`},
		answer{status: 200, body: `{"expires":"2027-01-01 00:00:00"}`})
	clock := newClock(mustTime(t, "2026-01-01 00:00:00"))
	cache := newCachedClient(p, clock, CacheOptions{})
	req := p.req("1234")
	res, err := cache.Check(context.Background(), req)
	require.NoError(t, err)
	assert.Equal(t, Unpaid, res.State)
	p2 := newPlatform(t, answer{status: 402, body: `{}`})
	_, err = cache.Check(context.Background(), p2.req("999"))
	require.NoError(t, err)
	assert.Equal(t, 2, cache.Len())

	for _, tc := range []struct {
		name string
		r    *http.Request
	}{
		{"query", httptest.NewRequest(http.MethodPost, "/subscription-paid?organization_id=1234", nil)},
		{"json number", jsonReq(`{"organization_id":1234}`)},
		{"json string", jsonReq(`{"organization_id":"1234"}`)},
		{"form", formReq(url.Values{"organization_id": {"1234"}})},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := cache.Check(context.Background(), req) // refill
			require.NoError(t, err)
			w := httptest.NewRecorder()
			PaidHandler(cache, nil).ServeHTTP(w, tc.r)
			assert.Equal(t, http.StatusNoContent, w.Code)
			assert.Equal(t, 1, cache.Len(), "only organization 999 is left")
		})
	}
	res, err = cache.Check(context.Background(), req)
	require.NoError(t, err)
	assert.Equal(t, Active, res.State, "asked again at once")

	w := httptest.NewRecorder()
	PaidHandler(cache, nil).ServeHTTP(w, httptest.NewRequest(http.MethodPost, "/subscription-paid", nil))
	assert.Equal(t, http.StatusBadRequest, w.Code)
	w = httptest.NewRecorder()
	PaidHandler(cache, nil).ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/subscription-paid?organization_id=1", nil))
	assert.Equal(t, http.StatusMethodNotAllowed, w.Code)
	w = httptest.NewRecorder()
	PaidHandler(cache, func(*http.Request) error { return errors.New("bad signature") }).ServeHTTP(w, jsonReq(`{"organization_id":999}`))
	assert.Equal(t, http.StatusUnauthorized, w.Code)
	assert.Equal(t, 2, cache.Len(), "an unverified event invalidates nothing")
}

func jsonReq(body string) *http.Request {
	r := httptest.NewRequest(http.MethodPost, "/subscription-paid", strings.NewReader(body))
	r.Header.Set("Content-Type", "application/json")
	return r
}

func formReq(v url.Values) *http.Request {
	r := httptest.NewRequest(http.MethodPost, "/subscription-paid", strings.NewReader(v.Encode()))
	r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	return r
}

// The HTML page mode (issue 15) answers page views 200 with a page that
// links to the checkout, escaping what the platform sent.
func TestMiddlewareHTMLPageMode(t *testing.T) {
	f := newMW(t, MiddlewareConfig{Pages: HTMLPages}, answer{status: 402, body: `{"subscribe_link":"https://pay.example/c?a=1&b=\"x\""}`})
	w := f.do(true)
	assert.Equal(t, http.StatusOK, w.Code)
	assert.Contains(t, w.Header().Get("Content-Type"), "text/html")
	assert.Equal(t, "unpaid", w.Header().Get("X-Subscription-State"))
	assert.Contains(t, w.Body.String(), `href="https://pay.example/c?a=1&amp;b=%22x%22"`)
	assert.Contains(t, w.Body.String(), "Subscription required")
	assert.Equal(t, 0, f.reached)
	// API calls keep their JSON answer.
	w = f.do(false)
	assert.Equal(t, http.StatusPaymentRequired, w.Code)

	f = newMW(t, MiddlewareConfig{Pages: HTMLPages}, answer{status: 402, body: `{"subscribe_link":"javascript:alert(1)"}`})
	w = f.do(true)
	assert.Equal(t, http.StatusOK, w.Code)
	assert.NotContains(t, w.Body.String(), "javascript")
	assert.NotContains(t, w.Body.String(), "<a ")
}

// M2 (issue 16): the cache key covers the base URL and the token. Before,
// a second base URL or token got the first one's answer.
func TestCacheKeyCoversBaseURLAndToken(t *testing.T) {
	active := newPlatform(t, answer{status: 200, body: `{"expires":"2027-01-01 00:00:00"}`})
	unpaid := newPlatform(t, answer{status: 402, body: `{}`})
	clock := newClock(mustTime(t, "2026-01-01 00:00:00"))
	cache := newCachedClient(active, clock, CacheOptions{})

	res, err := cache.Check(context.Background(), Request{Organization: "o", BaseURL: active.srv.URL, AppIdentifier: "a", Token: "t1"})
	require.NoError(t, err)
	assert.Equal(t, Active, res.State)
	res, err = cache.Check(context.Background(), Request{Organization: "o", BaseURL: unpaid.srv.URL, AppIdentifier: "a", Token: "t1"})
	require.NoError(t, err)
	assert.Equal(t, Unpaid, res.State, "another base URL is asked, not served the first one's answer")

	// An attacker's token caches Unpaid; the victim's token is still asked.
	victim := newPlatform(t, answer{status: 402, body: `{}`}, answer{status: 200, body: `{"expires":"2027-01-01 00:00:00"}`})
	res, err = cache.Check(context.Background(), Request{Organization: "victim", BaseURL: victim.srv.URL, AppIdentifier: "a", Token: "attacker"})
	require.NoError(t, err)
	assert.Equal(t, Unpaid, res.State)
	res, err = cache.Check(context.Background(), Request{Organization: "victim", BaseURL: victim.srv.URL, AppIdentifier: "a", Token: "victim"})
	require.NoError(t, err)
	assert.Equal(t, Active, res.State)
	assert.Equal(t, 2, victim.count())

	// Spellings of one base URL share an entry.
	n := active.count()
	for _, b := range []string{active.srv.URL + "/", strings.Replace(active.srv.URL, "http://", "HTTP://", 1)} {
		res, err = cache.Check(context.Background(), Request{Organization: "o", BaseURL: b, AppIdentifier: "a", Token: "t1"})
		require.NoError(t, err)
		assert.Equal(t, Active, res.State)
	}
	assert.Equal(t, n, active.count())
}

func TestNormalizeBaseURL(t *testing.T) {
	for in, want := range map[string]string{
		"https://Crowdin.COM/":         "https://crowdin.com",
		"HTTPS://crowdin.com:443":      "https://crowdin.com",
		"http://h:80/x/":               "http://h/x",
		"http://127.0.0.1:8080":        "http://127.0.0.1:8080",
		"https://[::1]:443/":           "https://[::1]",
		"https://acme.api.crowdin.com": "https://acme.api.crowdin.com",
	} {
		got, err := NormalizeBaseURL(in)
		require.NoError(t, err, in)
		assert.Equal(t, want, got, in)
	}
	for _, bad := range []string{"", "ftp://x", "https://u:p@x", "https://x?q=1", "https://x#f", "//x", "x"} {
		_, err := NormalizeBaseURL(bad)
		assert.ErrorIs(t, err, ErrInvalidRequest, bad)
	}
}

// M4 (issue 16): a base URL from a job must pass the allow-list; the token
// is never sent elsewhere.
func TestEndpointsAllowAndClientAllowList(t *testing.T) {
	e := Endpoints{}
	for _, ok := range []string{"https://crowdin.com", "https://crowdin.com/", "https://acme.api.crowdin.com", "https://ACME-2.api.crowdin.com:443"} {
		assert.NoError(t, e.Allow(ok), ok)
	}
	for _, bad := range []string{
		"https://evil.com", "https://crowdin.com.evil.com", "https://a.b.api.crowdin.com", "https://.api.crowdin.com",
		"http://acme.api.crowdin.com", "https://acme.api.crowdin.com.evil", "https://acme.api.crowdin.com/x",
		"https://evil.com/acme.api.crowdin.com", "https://crowdin.com@evil.com", "https://api.crowdin.com.",
	} {
		assert.Error(t, e.Allow(bad), bad)
	}

	evil := newPlatform(t, answer{status: 200, body: `{"expires":"2027-01-01 00:00:00"}`})
	c := NewClient(WithAllowedBaseURLs(Endpoints{}))
	_, err := c.Check(context.Background(), Request{Organization: "o", BaseURL: evil.srv.URL, AppIdentifier: "a", Token: "secret"})
	assert.ErrorIs(t, err, ErrInvalidRequest)
	assert.Equal(t, 0, evil.count(), "the token never left")

	local := Endpoints{Standard: evil.srv.URL}
	c = NewClient(WithAllowedBaseURLs(local))
	res, err := c.Check(context.Background(), Request{Organization: "o", BaseURL: evil.srv.URL + "/", AppIdentifier: "a", Token: "secret"})
	require.NoError(t, err)
	assert.Equal(t, Active, res.State)
}

// Low (issue 16): redirects are not followed, whatever client is given.
// Before, the token followed the redirect and the final answer was trusted.
func TestClientDoesNotFollowRedirects(t *testing.T) {
	var hits atomic.Int32
	target := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"expires":"2099-01-01 00:00:00"}`))
	}))
	t.Cleanup(target.Close)
	for _, code := range []int{301, 302, 303, 307, 308} {
		p := newPlatform(t, answer{status: code, header: map[string]string{"Location": target.URL + "/api/v2/applications/a/subscription"}})
		for _, c := range []*Client{NewClient(), NewClient(WithHTTPClient(&http.Client{}))} {
			_, err := c.Check(context.Background(), p.req("o"))
			require.Error(t, err)
			assert.ErrorIs(t, err, ErrUnexpectedResponse)
		}
	}
	assert.Zero(t, hits.Load())
}

// Low (issue 16): 401/403 restrict under every policy. Before, Grant let
// a refused token in.
func TestUnauthorizedRestrictsUnderEveryPolicy(t *testing.T) {
	for _, status := range []int{401, 403} {
		for _, policy := range []ErrorPolicy{Restrict, Grant} {
			f := newMW(t, MiddlewareConfig{OnError: policy}, answer{status: status, body: `{"error":{"message":"Unauthorized"}}`})
			w := f.do(false)
			assert.Equal(t, http.StatusServiceUnavailable, w.Code, "%d under %s", status, policy)
			assert.Equal(t, 0, f.reached)
			require.Len(t, f.reports, 1)
			assert.ErrorIs(t, f.reports[0].Err, ErrUnauthorized)
		}
	}
	// Other unexpected answers still follow the policy.
	f := newMW(t, MiddlewareConfig{OnError: Grant}, answer{status: 418, body: `{}`})
	assert.Equal(t, 200, f.do(false).Code)
}

// Stampede (audit category): 1,000 concurrent requests of one subject make
// one platform request.
func TestStampedeMakesOnePlatformRequest(t *testing.T) {
	block := make(chan struct{})
	p := newPlatform(t, answer{status: 200, body: `{"expires":"2027-01-01 00:00:00"}`, block: block})
	clock := newClock(mustTime(t, "2026-01-01 00:00:00"))
	cache := newCachedClient(p, clock, CacheOptions{})
	const n = 1000
	errs := make(chan error, n)
	for range n {
		go func() {
			res, err := cache.Check(context.Background(), p.req("o"))
			if err == nil && res.State != Active {
				err = errors.New(res.String())
			}
			errs <- err
		}()
	}
	time.Sleep(50 * time.Millisecond) // let them pile up behind the blocked answer
	close(block)
	for range n {
		require.NoError(t, <-errs)
	}
	assert.Equal(t, 1, p.count())
}

// Paid invalidation end to end (issue 15): restricted, then the platform's
// event, then granted at once — without waiting for the restricted TTL.
func TestPaidEventGrantsAgainWithoutWaiting(t *testing.T) {
	p := newPlatform(t,
		answer{status: 402, body: `{"subscribe_link":"https://pay.example/c"}`},
		answer{status: 200, body: `{"expires":"2027-01-01 00:00:00"}`})
	clock := newClock(mustTime(t, "2026-01-01 00:00:00"))
	cache := NewCache(NewClient(WithClock(clock.Now)), CacheOptions{Clock: clock.Now})
	mw, err := Middleware(MiddlewareConfig{
		Checker: cache, AppIdentifier: "my-app", Clock: clock.Now, Trial: Trial{Days: -1},
		Identify: func(r *http.Request) (Subject, error) {
			return Subject{Organization: "1234", BaseURL: p.srv.URL, Token: "tok"}, nil
		},
	})
	require.NoError(t, err)
	mux := http.NewServeMux()
	mux.Handle("POST /subscription-paid", PaidHandler(cache, nil))
	mux.Handle("/", mw(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = io.WriteString(w, "ok") })))
	app := httptest.NewServer(mux)
	t.Cleanup(app.Close)

	get := func() int {
		resp, err := http.Get(app.URL + "/api/thing")
		require.NoError(t, err)
		resp.Body.Close()
		return resp.StatusCode
	}
	assert.Equal(t, http.StatusPaymentRequired, get())
	assert.Equal(t, http.StatusPaymentRequired, get(), "cached")
	assert.Equal(t, 1, p.count())
	resp, err := http.Post(app.URL+"/subscription-paid?organization_id=1234", "application/json", nil)
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusNoContent, resp.StatusCode)
	assert.Equal(t, http.StatusOK, get(), "granted again at once")
	assert.Equal(t, 2, p.count())
}
