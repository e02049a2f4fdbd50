package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/croql/croql/app/subscription"
	"github.com/croql/croql/schema"
	"github.com/croql/croql/server"
	serveplatform "github.com/croql/croql/server/platform"
)

// TestEndToEnd runs croql serve (server.Run, as `croql serve --app … --app
// …` does, on SQLite), this example app and an app that uses the
// subscription middleware, all on loopback listeners: a file uploaded to
// croql serve is split by this app and the parts are seen through the
// strings endpoint with a croql query; the subscription flips to unpaid and
// the middleware restricts; paying sends the "subscription paid" event and
// the middleware grants again without waiting for its cache.
func TestEndToEnd(t *testing.T) {
	const token = "e2e-token"
	splitter := startApp(t, config{})
	checker := startCheckerApp(t, "checker")

	subs := serveplatform.NewSubscriptions()
	subs.MapToken(token, "42")
	const adminToken = "e2e-admin-token"
	admin := &server.Tokens{}
	require.NoError(t, admin.Add(adminToken))
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan string, 1)
	done := make(chan error, 1)
	go func() {
		done <- server.Run(ctx, server.RunOptions{
			Demo:   &schema.Project{Name: "e2e", SourceLanguage: "en", TargetLanguages: []string{"de"}},
			Listen: "127.0.0.1:0", Token: token, Dir: t.TempDir(),
			Setup: func(s *server.Server) error {
				p, err := serveplatform.New(ctx, serveplatform.Config{Apps: []string{splitter.URL, checker.URL}, Subscriptions: subs, AdminTokens: admin})
				if err != nil {
					return err
				}
				p.Register(s)
				return nil
			},
			Ready: func(addr string) { ready <- addr },
		})
	}()
	t.Cleanup(func() {
		cancel()
		require.NoError(t, <-done)
	})
	var base string
	select {
	case addr := <-ready:
		base = "http://" + addr
	case err := <-done:
		t.Fatalf("croql serve did not start: %v", err)
	}
	checker.setPlatform(base)
	api := func(method, path string, body io.Reader, contentType string) (int, string) {
		req, err := http.NewRequest(method, base+path, body)
		require.NoError(t, err)
		if strings.HasPrefix(path, "/admin/") {
			req.Header.Set("Authorization", "Bearer "+adminToken)
		} else {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		if contentType != "" {
			req.Header.Set("Content-Type", contentType)
		}
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		return resp.StatusCode, string(b)
	}

	// 1. Upload a file: the splitter's module (fileName \.(md|txt|json)$)
	// splits the two-paragraph string.
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	fw, err := mw.CreateFormFile("file", "intro.json")
	require.NoError(t, err)
	_, _ = io.WriteString(fw, `{"intro":"First paragraph.\n\nSecond paragraph.","title":"Welcome"}`)
	require.NoError(t, mw.Close())
	status, body := api(http.MethodPost, "/api/v2/projects/1/files", &buf, mw.FormDataContentType())
	require.Equal(t, http.StatusCreated, status, body)
	require.Contains(t, body, `"module":"paragraph-splitter/paragraph-splitter"`)

	// 2. The parts, through the strings endpoint with a croql query.
	status, body = api(http.MethodGet, "/api/v2/projects/1/strings?croql="+url.QueryEscape(`identifier contains "intro"`), nil, "")
	require.Equal(t, http.StatusOK, status, body)
	require.Equal(t, []string{"intro.1=First paragraph.", "intro.2=Second paragraph."}, identifiersAndTexts(t, body))
	status, body = api(http.MethodGet, "/api/v2/projects/1/strings?croql="+url.QueryEscape(`name of file = "intro.json" and not identifier contains "intro"`), nil, "")
	require.Equal(t, http.StatusOK, status, body)
	require.Equal(t, []string{"title=Welcome"}, identifiersAndTexts(t, body))

	// 3. Subscription: active, then unpaid. The app keeps an active answer
	// until its expires date (seed: "keep that date"), so it restricts
	// once that date has passed and the platform answers 402.
	setSubscription := func(row map[string]string) string {
		b, _ := json.Marshal(row)
		status, body := api(http.MethodPut, "/admin/applications/checker/organizations/42/subscription", bytes.NewReader(b), "application/json")
		require.Equal(t, http.StatusOK, status, body)
		return body
	}
	now := checker.clock()
	setSubscription(map[string]string{"status": "active", "expires": now.Add(time.Hour).Format(schema.Layout)})
	status, body = checker.call(t, token)
	require.Equal(t, http.StatusOK, status, body)
	setSubscription(map[string]string{"status": "unpaid", "subscribeLink": "https://pay.example/checker"})
	checker.advance(2 * time.Hour)
	status, body = checker.call(t, token)
	require.Equal(t, http.StatusPaymentRequired, status, body)
	require.Contains(t, body, `"subscribe_link":"https://pay.example/checker"`)

	// Paid behind the app's back (no event): the cached 402 stands.
	_, err = subs.Set(serveplatform.Subscription{Organization: "42", App: "checker", Status: serveplatform.Active, Expires: checker.clock().Add(30 * 24 * time.Hour).Format(schema.Layout)})
	require.NoError(t, err)
	status, _ = checker.call(t, token)
	require.Equal(t, http.StatusPaymentRequired, status)
	_, err = subs.Set(serveplatform.Subscription{Organization: "42", App: "checker", Status: serveplatform.Unpaid})
	require.NoError(t, err)

	// 4. Pay through the platform: the event reaches the app (204) and the
	// next request is granted at once (the clock has not moved).
	body = setSubscription(map[string]string{"status": "active", "expires": checker.clock().Add(30 * 24 * time.Hour).Format(schema.Layout)})
	require.Contains(t, body, `"status":204`)
	status, body = checker.call(t, token)
	require.Equal(t, http.StatusOK, status, body)
	require.Equal(t, "granted: active", body)
}

func identifiersAndTexts(t *testing.T, body string) []string {
	t.Helper()
	var r struct {
		Data []struct {
			Data struct {
				Identifier string `json:"identifier"`
				Text       string `json:"text"`
			} `json:"data"`
		} `json:"data"`
	}
	require.NoError(t, json.Unmarshal([]byte(body), &r))
	var out []string
	for _, d := range r.Data {
		out = append(out, d.Data.Identifier+"="+d.Data.Text)
	}
	sort.Strings(out)
	return out
}

// checkerApp is an app that uses the subscription middleware (with its
// cache and the "subscription paid" handler) against croql serve; its
// clock is the test's.
type checkerApp struct {
	*httptest.Server
	mu       sync.Mutex
	now      time.Time
	platform string
}

func (a *checkerApp) clock() time.Time { a.mu.Lock(); defer a.mu.Unlock(); return a.now }
func (a *checkerApp) advance(d time.Duration) {
	a.mu.Lock()
	a.now = a.now.Add(d)
	a.mu.Unlock()
}
func (a *checkerApp) setPlatform(u string) { a.mu.Lock(); a.platform = u; a.mu.Unlock() }

func startCheckerApp(t *testing.T, id string) *checkerApp {
	t.Helper()
	a := &checkerApp{now: time.Now().UTC().Truncate(time.Second)}
	client := subscription.NewClient(subscription.WithClock(a.clock), subscription.WithRetry(subscription.RetryPolicy{MaxAttempts: 1}))
	cache := subscription.NewCache(client, subscription.CacheOptions{Clock: a.clock})
	mw, err := subscription.Middleware(subscription.MiddlewareConfig{
		Checker: cache, AppIdentifier: id, Clock: a.clock,
		Identify: func(r *http.Request) (subscription.Subject, error) {
			a.mu.Lock()
			defer a.mu.Unlock()
			tok := r.Header.Get("X-Platform-Token")
			if tok == "" {
				return subscription.Subject{}, errors.New("no session")
			}
			return subscription.Subject{Organization: "42", BaseURL: a.platform, Token: tok}, nil
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
		_, _ = io.WriteString(w, "granted: "+d.Reason.String())
	})))
	a.Server = httptest.NewServer(mux)
	t.Cleanup(a.Close)
	return a
}

// call asks the app's API as the organization whose platform token is tok.
func (a *checkerApp) call(t *testing.T, tok string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, a.URL+"/api/report", nil)
	require.NoError(t, err)
	req.Header.Set("X-Platform-Token", tok)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}
