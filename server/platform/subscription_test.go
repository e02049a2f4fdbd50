package platform_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/croql/croql/app/subscription"
	"github.com/croql/croql/server/platform"
)

// clock is a settable clock shared by an app's client, cache and
// middleware.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time      { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) add(d time.Duration) { c.mu.Lock(); c.t = c.t.Add(d); c.mu.Unlock() }

// subApp is an app using the subscription middleware against croql serve
// (filled in once croql serve listens): its API answers "ok" when the
// middleware grants, its PaidHandler serves the "subscription paid" event.
type subApp struct {
	*httptest.Server
	platformURL string
	clk         *clock
	reports     *atomic.Int32
}

func startSubApp(t *testing.T, id string, pages subscription.PageMode) *subApp {
	t.Helper()
	a := &subApp{reports: &atomic.Int32{}, clk: &clock{t: time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)}}
	var handler http.Handler
	a.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { handler.ServeHTTP(w, r) }))
	t.Cleanup(a.Close)
	client := subscription.NewClient(subscription.WithClock(a.clk.now), subscription.WithRetry(subscription.RetryPolicy{MaxAttempts: 1}))
	cache := subscription.NewCache(client, subscription.CacheOptions{Clock: a.clk.now})
	mw, err := subscription.Middleware(subscription.MiddlewareConfig{
		Checker: cache, AppIdentifier: id, Pages: pages, Clock: a.clk.now,
		Report: func(context.Context, subscription.Request, subscription.Decision) { a.reports.Add(1) },
		// The app's session would say who the user is; here headers do.
		Identify: func(r *http.Request) (subscription.Subject, error) {
			return subscription.Subject{Organization: r.Header.Get("X-Org"), BaseURL: a.platformURL, Token: r.Header.Get("X-Token")}, nil
		},
	})
	require.NoError(t, err)
	mux := http.NewServeMux()
	mux.HandleFunc("GET /manifest.json", func(w http.ResponseWriter, r *http.Request) {
		_ = json.NewEncoder(w).Encode(map[string]any{"identifier": id, "baseUrl": a.URL,
			"events": map[string]string{"subscription_paid": "/subscription-paid"}})
	})
	mux.Handle("POST /subscription-paid", subscription.PaidHandler(cache, nil))
	mux.Handle("/", mw(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		d, _ := subscription.FromContext(r.Context())
		_, _ = io.WriteString(w, "ok "+d.Reason.String())
	})))
	handler = mux
	return a
}

// call asks the app for path as organization org with token tok.
func (a *subApp) call(t *testing.T, org, tok string, html bool) (int, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, a.URL+"/api/thing", nil)
	require.NoError(t, err)
	req.Header.Set("X-Org", org)
	req.Header.Set("X-Token", tok)
	if html {
		req.Header.Set("Accept", "text/html")
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func setSub(t *testing.T, base, app, org string, row map[string]string) map[string]any {
	t.Helper()
	b, _ := json.Marshal(row)
	status, body := do(t, http.MethodPut, base+"/admin/applications/"+app+"/organizations/"+org+"/subscription", strings.NewReader(string(b)), asAdmin)
	require.Equal(t, http.StatusOK, status, string(body))
	var out map[string]any
	require.NoError(t, json.Unmarshal(body, &out))
	return out
}

// TestSubscriptionEndpointOutcomes: the seed's three answers, the
// organization decided by the bearer token.
func TestSubscriptionEndpointOutcomes(t *testing.T) {
	subs, err := platform.ReadSubscriptions(strings.NewReader(`{"organizations":{"` + token + `":"42"},
	  "subscriptions":[{"organization":"42","app":"a","status":"active","expires":"2030-01-02 03:04:05"},
	    {"organization":"42","app":"b","status":"unpaid","subscribeLink":"https://pay.example/b","initializedAt":"2026-11-20 00:00:00"},
	    {"organization":"1","app":"a","status":"unpaid","subscribeLink":"https://pay.example/a"}]}`))
	require.NoError(t, err)
	base, _ := startServe(t, platform.Config{Subscriptions: subs})
	get := func(app string) (int, string) {
		status, body := do(t, http.MethodGet, base.URL+"/api/v2/applications/"+app+"/subscription", nil, nil)
		return status, strings.TrimSpace(string(body))
	}
	status, body := get("a")
	require.Equal(t, http.StatusOK, status)
	require.JSONEq(t, `{"expires":"2030-01-02 03:04:05"}`, body)
	status, body = get("b")
	require.Equal(t, http.StatusPaymentRequired, status)
	require.JSONEq(t, `{"subscribe_link":"https://pay.example/b","subscribeLink":"https://pay.example/b","initializedAt":"2026-11-20 00:00:00"}`, body)
	status, body = get("c")
	require.Equal(t, http.StatusBadRequest, status)
	msg := "No subscription is defined for the app c in this organization"
	require.JSONEq(t, `{"message":"`+msg+`","error":{"code":400,"message":"`+msg+`"}}`, body)

	// Without a valid token: 401 (croql serve's token check).
	resp, err := http.Get(base.URL + "/api/v2/applications/a/subscription")
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusUnauthorized, resp.StatusCode)

	// Refused rows.
	for _, bad := range []string{`{"subscriptions":[{"organization":"1","app":"a","status":"paid"}]}`,
		`{"subscriptions":[{"organization":"1","app":"a","status":"active","expires":"soon"}]}`,
		`{"subscriptions":[{"organization":"1","app":"a","status":"unpaid","subscribeLink":"javascript:x"}]}`,
		`{"subscription":[]}`} {
		_, err := platform.ReadSubscriptions(strings.NewReader(bad))
		require.Error(t, err, bad)
	}
}

// TestSubscriptionModesAgainstServe drives an app that uses the
// subscription middleware against croql serve: trial, restriction when
// the active answer expires and the row is unpaid, the HTML page mode,
// and the "subscription paid" event that invalidates the app's cache.
func TestSubscriptionModesAgainstServe(t *testing.T) {
	app := startSubApp(t, "checker", subscription.HTMLPages)
	redirector := startSubApp(t, "redirector", subscription.RedirectPages)
	subs := platform.NewSubscriptions()
	subs.MapToken(token, "42")
	reports := app.reports
	base, _ := startServe(t, platform.Config{Apps: []string{app.URL}, Subscriptions: subs})
	app.platformURL = base.URL

	// Trial: 402 with initializedAt two days ago grants (14 days default).
	setSub(t, base.URL, "checker", "42", map[string]string{"status": "unpaid", "subscribeLink": "https://pay.example/checker",
		"initializedAt": app.clk.now().Add(-48 * time.Hour).Format("2006-01-02 15:04:05")})
	status, body := app.call(t, "42", token, false)
	require.Equal(t, http.StatusOK, status, body)
	require.Equal(t, "ok trial", body)
	// Fifteen days later the trial is over: the API restricts with 402
	// and the link, a page view gets the HTML page (200).
	app.clk.add(15 * 24 * time.Hour)
	status, body = app.call(t, "42", token, false)
	require.Equal(t, http.StatusPaymentRequired, status, body)
	require.Contains(t, body, `"subscribe_link":"https://pay.example/checker"`)
	status, body = app.call(t, "42", token, true)
	require.Equal(t, http.StatusOK, status)
	require.Contains(t, body, `href="https://pay.example/checker"`)

	// Paying: the admin endpoint flips the row and sends the event; the
	// app grants at once although its cache held the unpaid answer.
	out := setSub(t, base.URL, "checker", "42", map[string]string{"status": "active", "expires": app.clk.now().Add(30 * 24 * time.Hour).Format("2006-01-02 15:04:05")})
	require.Equal(t, []any{map[string]any{"app": "checker", "url": app.URL + "/subscription-paid", "status": float64(204)}}, out["notified"])
	status, body = app.call(t, "42", token, false)
	require.Equal(t, http.StatusOK, status, body)
	require.Equal(t, "ok active", body)

	// The other page mode: a page view of an unpaid organization is
	// redirected (303) to the subscribe link.
	setSub(t, base.URL, "redirector", "42", map[string]string{"status": "unpaid", "subscribeLink": "https://pay.example/redirector"})
	redirector.platformURL = base.URL
	req, err := http.NewRequest(http.MethodGet, redirector.URL+"/page", nil)
	require.NoError(t, err)
	req.Header.Set("X-Org", "42")
	req.Header.Set("X-Token", token)
	req.Header.Set("Accept", "text/html")
	resp, err := (&http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}).Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusSeeOther, resp.StatusCode)
	require.Equal(t, "https://pay.example/redirector", resp.Header.Get("Location"))

	// A token croql serve refuses (401) restricts: the app answers 503
	// check_failed under its default policy.
	status, body = app.call(t, "42", "forged", false)
	require.Equal(t, http.StatusServiceUnavailable, status, body)
	require.Contains(t, body, "check_failed")
	require.Equal(t, int32(1), reports.Load())
}
