package subscription

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// PaymentModel is how the app is paid for (seed section 1).
type PaymentModel int

const (
	// ViaPlatform: the platform processes the subscription; requests are
	// checked. It is the zero value, so forgetting to configure the model
	// never opens a paid app.
	ViaPlatform PaymentModel = iota
	// OwnPaymentSystem: the app uses its own payment system; no check.
	OwnPaymentSystem
	// Free: the app is free; no check.
	Free
)

// Subject is who a request acts for, as the app's own authentication
// established it.
type Subject struct {
	// Organization identifies the organization (cache key).
	Organization string
	// BaseURL is the platform API base address for that organization.
	BaseURL string
	// Token is the access token for the subscription endpoint.
	Token string
	// Edition selects the trial length.
	Edition Edition
}

// PageMode is how restricted page views are answered.
type PageMode int

const (
	// RedirectPages answers 303 to the subscribe link (or
	// RestrictedPageURL); the default.
	RedirectPages PageMode = iota
	// HTMLPages answers 200 with an HTML page that explains the restriction
	// and links to the subscribe page, as the platform's SDK renders inside
	// its iframe (a redirect inside the platform's UI frame would load the
	// checkout page in the frame).
	HTMLPages
)

// ErrorReporter receives every failed check, whatever the policy decided.
type ErrorReporter func(ctx context.Context, req Request, d Decision)

// MiddlewareConfig configures Middleware.
type MiddlewareConfig struct {
	// Checker answers subscription checks, usually a *Cache in front of a
	// *Client. Required unless Payment is Free or OwnPaymentSystem.
	Checker Checker
	// AppIdentifier is the app's identifier. Required with ViaPlatform.
	AppIdentifier string
	// Payment is the app's payment model; only ViaPlatform checks.
	Payment PaymentModel
	// Identify returns the subject of a request. Required with ViaPlatform.
	// An error answers 401.
	Identify func(r *http.Request) (Subject, error)
	// OnError is the policy when the check fails (default Restrict). A
	// token the platform refuses (401/403) and a request that cannot be
	// formed restrict under every policy.
	OnError ErrorPolicy
	// Trial is the trial length after a 402 with initializedAt (default
	// DefaultTrialDays in both editions).
	Trial Trial
	// Pages selects how restricted page views are answered (default
	// RedirectPages).
	Pages PageMode
	// Report is called for every failed check (default: a warning on
	// slog.Default()). Failures are never silent, whatever OnError says.
	Report ErrorReporter
	// IsPage reports whether a request is a page view, answered with a
	// redirect, rather than an API call, answered with JSON. Default: GET or
	// HEAD whose Accept header mentions text/html.
	IsPage func(r *http.Request) bool
	// RestrictedPageURL, when set, is where page views go when there is no
	// subscribe link to send them to (not found, expired, check failed).
	// When empty they get a plain-text page with the status code.
	RestrictedPageURL string
	// Clock returns the current moment (default time.Now); used to compare
	// with expires.
	Clock func() time.Time
	// Deny, when set, writes every restricted answer instead of the default
	// JSON or redirect.
	Deny func(w http.ResponseWriter, r *http.Request, d Decision)
}

type ctxKey struct{}

// FromContext returns the Decision the middleware made for the request
// whose context is ctx.
func FromContext(ctx context.Context) (Decision, bool) {
	d, ok := ctx.Value(ctxKey{}).(Decision)
	return d, ok
}

// DeniedBody is the JSON body of a restricted API call.
type DeniedBody struct {
	// State is "unpaid", "expired", "not_found" or "check_failed".
	State string `json:"state"`
	// Message is a human-readable explanation.
	Message string `json:"message"`
	// SubscribeLink is the checkout URL (unpaid only).
	SubscribeLink string `json:"subscribe_link,omitempty"`
}

// Middleware returns net/http middleware that checks the subscription of
// every request and restricts access per the seed's section 3: API calls get
// a JSON answer (402 with the subscribe link when unpaid or expired, 403 when
// not found, 503 when the check failed under Restrict); page views are
// redirected to the subscribe link. Free apps and apps paid through their own
// system pass every request through without a check.
func Middleware(cfg MiddlewareConfig) (func(http.Handler) http.Handler, error) {
	if cfg.Payment == Free || cfg.Payment == OwnPaymentSystem {
		return func(next http.Handler) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				d := Decision{Allow: true, Reason: ReasonExempt}
				next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), ctxKey{}, d)))
			})
		}, nil
	}
	if cfg.Payment != ViaPlatform {
		return nil, fmt.Errorf("subscription: unknown payment model %d", cfg.Payment)
	}
	if cfg.Checker == nil || cfg.Identify == nil || cfg.AppIdentifier == "" {
		return nil, errors.New("subscription: middleware needs Checker, Identify and AppIdentifier")
	}
	if cfg.OnError != Restrict && cfg.OnError != Grant {
		return nil, fmt.Errorf("subscription: unknown error policy %d", cfg.OnError)
	}
	if cfg.Pages != RedirectPages && cfg.Pages != HTMLPages {
		return nil, fmt.Errorf("subscription: unknown page mode %d", cfg.Pages)
	}
	rules := Rules{OnError: cfg.OnError, Trial: cfg.Trial}
	if cfg.Report == nil {
		cfg.Report = func(ctx context.Context, req Request, d Decision) {
			slog.Default().WarnContext(ctx, "subscription check failed",
				"organization", req.Organization, "app", req.AppIdentifier,
				"policy", cfg.OnError.String(), "allow", d.Allow, "error", d.Err)
		}
	}
	if cfg.IsPage == nil {
		cfg.IsPage = isPage
	}
	if cfg.Clock == nil {
		cfg.Clock = time.Now
	}
	if cfg.Deny == nil {
		cfg.Deny = func(w http.ResponseWriter, r *http.Request, d Decision) { deny(w, r, d, &cfg) }
	}
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			subj, err := cfg.Identify(r)
			if err != nil {
				writeJSON(w, http.StatusUnauthorized, DeniedBody{State: "unauthenticated", Message: "The request could not be attributed to an organization."})
				return
			}
			req := Request{Organization: subj.Organization, BaseURL: subj.BaseURL, AppIdentifier: cfg.AppIdentifier, Token: subj.Token, Edition: subj.Edition}
			res, err := cfg.Checker.Check(r.Context(), req)
			d := rules.Decide(res, err, cfg.Clock(), subj.Edition)
			if d.Reason == ReasonCheckFailed {
				cfg.Report(r.Context(), req, d)
			}
			if !d.Allow {
				cfg.Deny(w, r, d)
				return
			}
			next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), ctxKey{}, d)))
		})
	}, nil
}

func isPage(r *http.Request) bool {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		return false
	}
	return strings.Contains(strings.ToLower(r.Header.Get("Accept")), "text/html")
}

// safeLink returns link when it is an absolute http(s) URL.
func safeLink(link string) (string, bool) {
	u, err := url.Parse(link)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", false
	}
	return u.String(), true
}

func deny(w http.ResponseWriter, r *http.Request, d Decision, cfg *MiddlewareConfig) {
	body := DeniedBody{State: d.Reason.String()}
	status := http.StatusForbidden
	switch d.Reason {
	case ReasonUnpaid:
		status = http.StatusPaymentRequired
		body.Message = "An active subscription is required to use this app."
		if link, ok := safeLink(d.Result.SubscribeLink); ok {
			body.SubscribeLink = link
		}
	case ReasonExpired:
		status = http.StatusPaymentRequired
		body.Message = "The subscription to this app has expired."
	case ReasonNotFound:
		body.Message = "This app has no subscription in this organization."
		if d.Result.Message != "" {
			body.Message += " " + d.Result.Message
		}
	case ReasonCheckFailed:
		status = http.StatusServiceUnavailable
		body.Message = "The subscription could not be verified. Please try again later."
	default:
		body.Message = "Access to this app is restricted."
	}
	if cfg.IsPage(r) && cfg.Pages == HTMLPages {
		writePage(w, r, body)
		return
	}
	if cfg.IsPage(r) {
		switch {
		case body.SubscribeLink != "":
			http.Redirect(w, r, body.SubscribeLink, http.StatusSeeOther)
		case cfg.RestrictedPageURL != "":
			http.Redirect(w, r, cfg.RestrictedPageURL, http.StatusSeeOther)
		default:
			w.Header().Set("Content-Type", "text/plain; charset=utf-8")
			w.Header().Set("X-Content-Type-Options", "nosniff")
			w.WriteHeader(status)
			_, _ = fmt.Fprintln(w, body.Message)
		}
		return
	}
	if status == http.StatusServiceUnavailable {
		w.Header().Set("Retry-After", "30")
	}
	writeJSON(w, status, body)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_, _ = w.Write(append(b, '\n'))
}

var restrictedPage = template.Must(template.New("restricted").Parse(`<!DOCTYPE html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Subscription required</title></head>
<body>
<main>
<h1>{{if eq .State "unpaid"}}Subscription required{{else}}Access restricted{{end}}</h1>
<p>{{.Message}}</p>
{{if .SubscribeLink}}<p><a href="{{.SubscribeLink}}" target="_blank" rel="noopener noreferrer">Subscribe</a></p>{{end}}
</main>
</body>
</html>
`))

// writePage answers 200 with the restricted page (HTMLPages).
func writePage(w http.ResponseWriter, r *http.Request, body DeniedBody) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("X-Subscription-State", body.State)
	w.WriteHeader(http.StatusOK)
	if r.Method == http.MethodHead {
		return
	}
	_ = restrictedPage.Execute(w, body)
}

// Invalidator forgets cached answers of an organization; *Cache implements
// it.
type Invalidator interface {
	InvalidateOrganization(organization string)
}

// PaidHandler serves the platform's "subscription paid" event (the
// platform's SDK registers it as POST /subscription-paid, event
// `subscription_paid`, and reads `organization_id` from the query or the
// body: @crowdin/app-project-module 3.2.2, out/modules/subscription-paid.js
// and out/modules/manifest.js). It forgets the organization's cached answers
// and answers 204, so the next request asks the platform again instead of
// waiting for the restricted TTL. verify, when non-nil, authenticates the
// request (an error answers 401); without it anyone can force an
// organization's next check, which costs one platform request and opens
// nothing.
func PaidHandler(inv Invalidator, verify func(*http.Request) error) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			w.Header().Set("Allow", http.MethodPost)
			writeJSON(w, http.StatusMethodNotAllowed, map[string]string{"message": "POST only"})
			return
		}
		if verify != nil {
			if err := verify(r); err != nil {
				writeJSON(w, http.StatusUnauthorized, map[string]string{"message": "unauthenticated"})
				return
			}
		}
		org, err := paidOrganization(r)
		if err != nil || org == "" {
			writeJSON(w, http.StatusBadRequest, map[string]string{"message": "organization_id is missing"})
			return
		}
		inv.InvalidateOrganization(org)
		w.WriteHeader(http.StatusNoContent)
	})
}

// paidOrganization reads organization_id from the query, a JSON body or a
// form body; a JSON number and a string are both accepted.
func paidOrganization(r *http.Request) (string, error) {
	if v := r.URL.Query().Get("organization_id"); v != "" {
		return v, nil
	}
	b, err := io.ReadAll(io.LimitReader(r.Body, maxBodyBytes))
	if err != nil {
		return "", err
	}
	if ct := r.Header.Get("Content-Type"); strings.HasPrefix(ct, "application/x-www-form-urlencoded") {
		q, err := url.ParseQuery(string(b))
		if err != nil {
			return "", err
		}
		return q.Get("organization_id"), nil
	}
	var body struct {
		OrganizationID json.RawMessage `json:"organization_id"`
	}
	if err := json.Unmarshal(b, &body); err != nil || len(body.OrganizationID) == 0 {
		return "", err
	}
	var n json.Number
	if err := json.Unmarshal(body.OrganizationID, &n); err == nil {
		return n.String(), nil
	}
	var str string
	if err := json.Unmarshal(body.OrganizationID, &str); err != nil {
		return "", err
	}
	return str, nil
}
