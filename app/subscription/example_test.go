package subscription_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"time"

	"github.com/croql/croql/app/subscription"
)

// platform stands in for the platform API in the examples.
func platform(status int, body string) *httptest.Server {
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(status)
		_, _ = io.WriteString(w, body)
	}))
}

func ExampleClient_Check() {
	srv := platform(http.StatusPaymentRequired, `{"subscribe_link":"https://pay.example/checkout"}`)
	defer srv.Close()

	c := subscription.NewClient(subscription.WithTimeout(5 * time.Second))
	res, err := c.Check(context.Background(), subscription.Request{
		Organization:  "acme",
		BaseURL:       srv.URL,
		AppIdentifier: "my-app",
		Token:         "access-token",
	})
	if err != nil {
		fmt.Println("check failed:", err)
		return
	}
	fmt.Println(res.State, res.SubscribeLink)
	// Output: unpaid https://pay.example/checkout
}

func ExampleCache() {
	calls := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls++
		_, _ = io.WriteString(w, `{"expires":"2026-01-01 12:00:00"}`)
	}))
	defer srv.Close()

	now := time.Date(2026, 1, 1, 11, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	cache := subscription.NewCache(subscription.NewClient(), subscription.CacheOptions{Clock: clock})
	req := subscription.Request{Organization: "acme", BaseURL: srv.URL, AppIdentifier: "my-app", Token: "t"}

	for _, at := range []string{"11:00", "11:59", "12:00"} {
		now, _ = time.Parse("2006-01-02 15:04", "2026-01-01 "+at)
		res, err := cache.Check(context.Background(), req)
		d := subscription.Decide(res, err, now, subscription.Restrict)
		fmt.Printf("%s allow=%v reason=%s platform calls=%d\n", at, d.Allow, d.Reason, calls)
	}
	// Output:
	// 11:00 allow=true reason=active platform calls=1
	// 11:59 allow=true reason=active platform calls=1
	// 12:00 allow=false reason=expired platform calls=2
}

func ExampleMiddleware() {
	srv := platform(http.StatusPaymentRequired, `{"subscribeLink":"https://pay.example/checkout"}`)
	defer srv.Close()

	mw, err := subscription.Middleware(subscription.MiddlewareConfig{
		Checker:       subscription.NewCache(subscription.NewClient(), subscription.CacheOptions{}),
		AppIdentifier: "my-app",
		Identify: func(r *http.Request) (subscription.Subject, error) {
			// A real app reads these from its verified session.
			return subscription.Subject{Organization: "acme", BaseURL: srv.URL, Token: "t"}, nil
		},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	h := mw(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = io.WriteString(w, "welcome") }))

	api := httptest.NewRecorder()
	h.ServeHTTP(api, httptest.NewRequest(http.MethodPost, "/api/run", nil))
	fmt.Println(api.Code, strings.TrimSpace(api.Body.String()))

	page := httptest.NewRecorder()
	r := httptest.NewRequest(http.MethodGet, "/", nil)
	r.Header.Set("Accept", "text/html")
	h.ServeHTTP(page, r)
	fmt.Println(page.Code, page.Header().Get("Location"))
	// Output:
	// 402 {"state":"unpaid","message":"An active subscription is required to use this app.","subscribe_link":"https://pay.example/checkout"}
	// 303 https://pay.example/checkout
}

func ExampleFirstPayment() {
	// A 9.99 app (999 cents), 30-day cycle, 10 days left: 333 cents.
	cents, _ := subscription.FirstPayment(999, 30, 10)
	fmt.Println(cents)
	// Subscribing on 15 January, next cycle on 1 February: 17 days.
	days := subscription.ProrateDays(
		time.Date(2026, 1, 15, 9, 0, 0, 0, time.UTC),
		time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC))
	cents, _ = subscription.FirstPayment(1000, 31, days)
	fmt.Println(days, cents)
	// Output:
	// 333
	// 17 548
}

func ExampleEndpoints_BaseURL() {
	var e subscription.Endpoints
	std, _ := e.BaseURL(subscription.Standard, "")
	ent, _ := e.BaseURL(subscription.Enterprise, "acme")
	fmt.Println(std)
	fmt.Println(ent)
	// Output:
	// https://crowdin.com
	// https://acme.api.crowdin.com
}

func ExampleEndpoints_Allow() {
	// A job's organization.apiBaseUrl is untrusted: allow-list it before
	// the app's token goes there.
	var e subscription.Endpoints
	for _, base := range []string{"https://acme.api.crowdin.com", "https://crowdin.com/", "https://attacker.example"} {
		fmt.Println(base, e.Allow(base) == nil)
	}
	// Output:
	// https://acme.api.crowdin.com true
	// https://crowdin.com/ true
	// https://attacker.example false
}

func ExampleRules_Decide() {
	// A 402 with initializedAt: a trial, 14 days by default, 30 in the
	// enterprise edition here.
	res := subscription.Result{State: subscription.Unpaid, InitializedAt: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	rules := subscription.Rules{Trial: subscription.Trial{EnterpriseDays: 30}}
	now := time.Date(2026, 1, 20, 0, 0, 0, 0, time.UTC)
	for _, ed := range []subscription.Edition{subscription.Standard, subscription.Enterprise} {
		d := rules.Decide(res, nil, now, ed)
		fmt.Println(d.Allow, d.Reason)
	}
	// Output:
	// false unpaid
	// true trial
}

func ExamplePaidHandler() {
	cache := subscription.NewCache(subscription.NewClient(), subscription.CacheOptions{})
	mux := http.NewServeMux()
	// The platform posts the "subscription paid" event here; the
	// organization's cached answers are dropped.
	mux.Handle("POST /subscription-paid", subscription.PaidHandler(cache, nil))

	w := httptest.NewRecorder()
	mux.ServeHTTP(w, httptest.NewRequest(http.MethodPost, "/subscription-paid", strings.NewReader(`{"organization_id":1234}`)))
	fmt.Println(w.Code)
	// Output: 204
}
