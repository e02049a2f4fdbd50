package subscription

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// Default base addresses of the public platform, as the platform's own app
// SDK (@crowdin/app-project-module 3.2.2, out/util/app-functions/crowdin.js,
// getSubscription) builds the subscription URL: the standard edition asks
// https://crowdin.com/api/v2/applications/{id}/subscription, the enterprise
// edition https://{organization}.api.crowdin.com/api/v2/... Both can be
// replaced with [Endpoints]; the enterprise one is a template in which
// "{organization_domain}" is replaced with the organization's domain.
const (
	DefaultStandardBaseURL    = "https://crowdin.com"
	DefaultEnterpriseTemplate = "https://{organization_domain}.api.crowdin.com"
)

// ExpiresLayout is the layout of `expires` in the 200 answer (seed 2.1).
const ExpiresLayout = "2006-01-02 15:04:05"

// Defaults of the client.
const (
	DefaultTimeout        = 10 * time.Second
	DefaultMaxAttempts    = 3
	DefaultInitialBackoff = 200 * time.Millisecond
	DefaultMaxBackoff     = 2 * time.Second
	// maxBodyBytes bounds how much of an answer is read.
	maxBodyBytes = 64 << 10
)

// Sentinel errors, matched with errors.Is.
var (
	// ErrUnavailable: the platform could not be reached or answered 5xx (or
	// 429) on every attempt, or the attempts timed out.
	ErrUnavailable = errors.New("subscription endpoint unavailable")
	// ErrUnexpectedResponse: the platform answered with a status or a body
	// the contract does not describe (e.g. 401, or a 200 without a valid
	// `expires`). Not retried.
	ErrUnexpectedResponse = errors.New("unexpected subscription response")
	// ErrInvalidRequest: the Request itself is unusable (empty identifier,
	// base URL that is not http(s) or not allowed, ...).
	ErrInvalidRequest = errors.New("invalid subscription request")
	// ErrUnauthorized: the platform refused the token (401 or 403). It also
	// wraps ErrUnexpectedResponse. Decide restricts on it under every
	// ErrorPolicy: a token the platform refuses never opens a paid app.
	ErrUnauthorized = errors.New("the platform refused the access token")
)

// Edition selects the platform edition whose base address is used.
type Edition int

const (
	// Standard is the shared edition with one API host.
	Standard Edition = iota
	// Enterprise uses an organization-specific API host.
	Enterprise
)

// Endpoints holds the base addresses of both editions.
type Endpoints struct {
	// Standard is the standard edition's base URL; empty means
	// DefaultStandardBaseURL.
	Standard string
	// EnterpriseTemplate contains "{organization_domain}"; empty means
	// DefaultEnterpriseTemplate.
	EnterpriseTemplate string
}

var domainLabel = regexp.MustCompile(`^(?i)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$`)

// BaseURL returns the base address of the edition. For Enterprise the
// organization domain must be a single DNS label, so that it cannot change
// the host the token is sent to.
func (e Endpoints) BaseURL(edition Edition, organizationDomain string) (string, error) {
	switch edition {
	case Standard:
		if e.Standard == "" {
			return DefaultStandardBaseURL, nil
		}
		return e.Standard, nil
	case Enterprise:
		if !domainLabel.MatchString(organizationDomain) {
			return "", fmt.Errorf("%w: organization domain %q is not a DNS label", ErrInvalidRequest, organizationDomain)
		}
		tpl := e.EnterpriseTemplate
		if tpl == "" {
			tpl = DefaultEnterpriseTemplate
		}
		if !strings.Contains(tpl, "{organization_domain}") {
			return "", fmt.Errorf("%w: enterprise template %q lacks {organization_domain}", ErrInvalidRequest, tpl)
		}
		return strings.ReplaceAll(tpl, "{organization_domain}", strings.ToLower(organizationDomain)), nil
	default:
		return "", fmt.Errorf("%w: unknown edition %d", ErrInvalidRequest, edition)
	}
}

// Allow reports whether baseURL is one of the base addresses e describes:
// the standard edition's, or the enterprise template filled with one DNS
// label. It is the allow-list for a base URL that comes from anywhere but the
// app's own configuration (for example a job's organization.apiBaseUrl,
// which an unauthenticated request can set to any host: the token must not
// follow it there). Scheme and host compare case-insensitively; a trailing
// slash is ignored.
func (e Endpoints) Allow(baseURL string) error {
	norm, err := NormalizeBaseURL(baseURL)
	if err != nil {
		return err
	}
	std, _ := e.BaseURL(Standard, "")
	if n, err := NormalizeBaseURL(std); err == nil && n == norm {
		return nil
	}
	tpl := e.EnterpriseTemplate
	if tpl == "" {
		tpl = DefaultEnterpriseTemplate
	}
	const sentinel = "organizationdomainsentinel"
	if n, err := NormalizeBaseURL(strings.ReplaceAll(tpl, "{organization_domain}", sentinel)); err == nil {
		if pre, post, ok := strings.Cut(n, sentinel); ok && len(norm) > len(pre)+len(post) &&
			strings.HasPrefix(norm, pre) && strings.HasSuffix(norm, post) {
			if label := norm[len(pre) : len(norm)-len(post)]; domainLabel.MatchString(label) {
				return nil
			}
		}
	}
	return fmt.Errorf("%w: base URL %q is not the platform's (allowed: %s, %s)", ErrInvalidRequest, baseURL, std, tpl)
}

// NormalizeBaseURL returns the canonical form of a base URL: lower-case
// scheme and host, no default port, no trailing slash. It fails for URLs
// that are not absolute http(s) without query, fragment or user info.
func NormalizeBaseURL(raw string) (string, error) {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil {
		return "", fmt.Errorf("%w: base URL: %w", ErrInvalidRequest, err)
	}
	u.Scheme = strings.ToLower(u.Scheme)
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" || u.User != nil || u.Opaque != "" {
		return "", fmt.Errorf("%w: base URL %q must be an absolute http(s) URL without query or user info", ErrInvalidRequest, raw)
	}
	host := strings.ToLower(u.Hostname())
	port := u.Port()
	if (u.Scheme == "http" && port == "80") || (u.Scheme == "https" && port == "443") {
		port = ""
	}
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	if port != "" {
		host += ":" + port
	}
	u.Host = host
	u.RawPath = ""
	u.Path = strings.TrimRight(u.Path, "/")
	return u.String(), nil
}

// Request identifies one subscription check.
type Request struct {
	// Organization identifies the organization; it is part of the cache key
	// (the client itself does not send it). Use the organization id the
	// platform sends in its events, so that [PaidHandler] finds the entries.
	Organization string
	// BaseURL is the platform API base address, from [Endpoints.BaseURL]. A
	// base URL from anywhere else (a job's organization.apiBaseUrl) must
	// pass [Endpoints.Allow] first, or the token goes wherever it says;
	// [WithAllowedBaseURLs] makes the client check it.
	BaseURL string
	// Edition selects the trial length (see [Trial]).
	Edition Edition
	// AppIdentifier is the app's identifier (path-escaped into the URL).
	AppIdentifier string
	// Token is the access token sent as `Authorization: bearer <token>`.
	Token string
}

// Checker checks a subscription. *Client and *Cache implement it.
type Checker interface {
	Check(ctx context.Context, req Request) (Result, error)
}

// RetryPolicy says how failed attempts are retried. Only network errors,
// attempt timeouts, 5xx and 429 answers are retried.
type RetryPolicy struct {
	// MaxAttempts is the total number of attempts, at least 1.
	MaxAttempts int
	// InitialBackoff is the wait after the first failed attempt; it doubles
	// after each further one.
	InitialBackoff time.Duration
	// MaxBackoff caps each wait, including a Retry-After sent by the platform.
	MaxBackoff time.Duration
	// Jitter, when true, waits a random duration in [backoff/2, backoff].
	Jitter bool
}

// DefaultRetryPolicy returns 3 attempts, 200 ms doubling up to 2 s, with jitter.
func DefaultRetryPolicy() RetryPolicy {
	return RetryPolicy{
		MaxAttempts:    DefaultMaxAttempts,
		InitialBackoff: DefaultInitialBackoff,
		MaxBackoff:     DefaultMaxBackoff,
		Jitter:         true,
	}
}

// Backoff returns the wait after the failed attempt number attempt (1-based).
func (p RetryPolicy) Backoff(attempt int) time.Duration {
	d := p.InitialBackoff
	for i := 1; i < attempt && d < p.MaxBackoff; i++ {
		d *= 2
	}
	if p.MaxBackoff > 0 && d > p.MaxBackoff {
		d = p.MaxBackoff
	}
	if p.Jitter && d > 1 {
		d = d/2 + rand.N(d/2+1)
	}
	return d
}

// Option configures a Client.
type Option func(*Client)

// WithHTTPClient sets the HTTP client (default: a client with no overall
// timeout; attempts are bounded by WithTimeout). The client is copied and
// its CheckRedirect replaced: redirects are never followed (the token would
// travel with them, and the final answer would not be the platform's).
func WithHTTPClient(hc *http.Client) Option { return func(c *Client) { c.http = hc } }

// WithAllowedBaseURLs makes the client refuse (ErrInvalidRequest, no
// request made) every base URL that e does not allow (see
// [Endpoints.Allow]).
func WithAllowedBaseURLs(e Endpoints) Option { return func(c *Client) { c.allow = e.Allow } }

// WithTimeout bounds each attempt (default DefaultTimeout).
func WithTimeout(d time.Duration) Option { return func(c *Client) { c.timeout = d } }

// WithRetry sets the retry policy (default DefaultRetryPolicy).
func WithRetry(p RetryPolicy) Option { return func(c *Client) { c.retry = p } }

// WithClock sets the clock used for Result.CheckedAt (default time.Now).
func WithClock(now func() time.Time) Option { return func(c *Client) { c.now = now } }

// WithSleep replaces the wait between attempts (default: a timer that
// returns early with ctx.Err() when ctx ends). Tests use it to observe
// backoffs without waiting.
func WithSleep(sleep func(ctx context.Context, d time.Duration) error) Option {
	return func(c *Client) { c.sleep = sleep }
}

// WithLocation sets the timezone `expires` is read in (default UTC; the seed
// does not show it).
func WithLocation(loc *time.Location) Option { return func(c *Client) { c.loc = loc } }

// Client calls the platform's subscription endpoint. It is safe for
// concurrent use.
type Client struct {
	http    *http.Client
	timeout time.Duration
	retry   RetryPolicy
	now     func() time.Time
	sleep   func(context.Context, time.Duration) error
	loc     *time.Location
	allow   func(string) error
}

// NewClient returns a client with the given options.
func NewClient(opts ...Option) *Client {
	c := &Client{
		http:    &http.Client{},
		timeout: DefaultTimeout,
		retry:   DefaultRetryPolicy(),
		now:     time.Now,
		sleep:   sleepCtx,
		loc:     time.UTC,
	}
	for _, o := range opts {
		o(c)
	}
	if c.retry.MaxAttempts < 1 {
		c.retry.MaxAttempts = 1
	}
	if c.http == nil {
		c.http = &http.Client{}
	}
	hc := *c.http
	hc.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	c.http = &hc
	if c.now == nil {
		c.now = time.Now
	}
	if c.sleep == nil {
		c.sleep = sleepCtx
	}
	if c.loc == nil {
		c.loc = time.UTC
	}
	return c
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// CheckError describes a failed check.
type CheckError struct {
	// Attempts is the number of requests made.
	Attempts int
	// StatusCode is the last HTTP status (0 when no answer arrived).
	StatusCode int
	// Err is the underlying cause; it wraps ErrUnavailable,
	// ErrUnexpectedResponse or ErrInvalidRequest.
	Err error
}

func (e *CheckError) Error() string {
	if e.StatusCode != 0 {
		return fmt.Sprintf("subscription check failed after %d attempt(s), last status %d: %v", e.Attempts, e.StatusCode, e.Err)
	}
	return fmt.Sprintf("subscription check failed after %d attempt(s): %v", e.Attempts, e.Err)
}

func (e *CheckError) Unwrap() error { return e.Err }

// URL returns the subscription endpoint address for req.
func URL(req Request) (string, error) {
	if strings.TrimSpace(req.AppIdentifier) == "" {
		return "", fmt.Errorf("%w: empty app identifier", ErrInvalidRequest)
	}
	base, err := NormalizeBaseURL(req.BaseURL)
	if err != nil {
		return "", err
	}
	return base + "/api/v2/applications/" + url.PathEscape(req.AppIdentifier) + "/subscription", nil
}

// Check performs the request, retrying per the client's RetryPolicy. The
// three outcomes of the contract return a Result and a nil error; anything
// else returns a *CheckError.
func (c *Client) Check(ctx context.Context, req Request) (Result, error) {
	endpoint, err := URL(req)
	if err != nil {
		return Result{}, &CheckError{Err: err}
	}
	if req.Token == "" {
		return Result{}, &CheckError{Err: fmt.Errorf("%w: empty access token", ErrInvalidRequest)}
	}
	if c.allow != nil {
		if err := c.allow(req.BaseURL); err != nil {
			return Result{}, &CheckError{Err: err}
		}
	}
	var last attemptOutcome
	for attempt := 1; ; attempt++ {
		last = c.attempt(ctx, endpoint, req.Token)
		if last.err == nil {
			return last.res, nil
		}
		if !last.retryable || attempt >= c.retry.MaxAttempts || ctx.Err() != nil {
			return Result{}, &CheckError{Attempts: attempt, StatusCode: last.status, Err: last.err}
		}
		wait := c.retry.Backoff(attempt)
		if last.retryAfter > 0 {
			wait = last.retryAfter
			if c.retry.MaxBackoff > 0 && wait > c.retry.MaxBackoff {
				wait = c.retry.MaxBackoff
			}
		}
		if err := c.sleep(ctx, wait); err != nil {
			return Result{}, &CheckError{Attempts: attempt, StatusCode: last.status, Err: fmt.Errorf("%w: %w (while waiting to retry after: %w)", ErrUnavailable, err, last.err)}
		}
	}
}

type attemptOutcome struct {
	res        Result
	err        error
	status     int
	retryable  bool
	retryAfter time.Duration
}

func (c *Client) attempt(ctx context.Context, endpoint, token string) attemptOutcome {
	actx := ctx
	if c.timeout > 0 {
		var cancel context.CancelFunc
		actx, cancel = context.WithTimeout(ctx, c.timeout)
		defer cancel()
	}
	hreq, err := http.NewRequestWithContext(actx, http.MethodGet, endpoint, nil)
	if err != nil {
		return attemptOutcome{err: fmt.Errorf("%w: %w", ErrInvalidRequest, err)}
	}
	hreq.Header.Set("Authorization", "bearer "+token)
	hreq.Header.Set("Content-Type", "application/json")
	hreq.Header.Set("Accept", "application/json")
	resp, err := c.http.Do(hreq)
	if err != nil {
		// Network errors and attempt timeouts are retryable; the caller's
		// own cancellation stops the loop (it checks ctx.Err()).
		return attemptOutcome{err: fmt.Errorf("%w: %w", ErrUnavailable, err), retryable: true}
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxBodyBytes))
	if err != nil {
		return attemptOutcome{err: fmt.Errorf("%w: reading answer: %w", ErrUnavailable, err), status: resp.StatusCode, retryable: true}
	}
	now := c.now()
	out := attemptOutcome{status: resp.StatusCode}
	switch {
	case resp.StatusCode == http.StatusOK:
		out.res, out.err = parseActive(body, c.loc)
	case resp.StatusCode == http.StatusPaymentRequired:
		out.res, out.err = parseUnpaid(body, c.loc)
	case resp.StatusCode == http.StatusBadRequest || resp.StatusCode == http.StatusNotFound:
		out.res = Result{State: NotFound, Message: parseMessage(body)}
	case resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode >= 500:
		out.err = fmt.Errorf("%w: status %d", ErrUnavailable, resp.StatusCode)
		out.retryable = true
		out.retryAfter = parseRetryAfter(resp.Header.Get("Retry-After"), now)
	case resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden:
		out.err = fmt.Errorf("%w: %w: status %d: %s", ErrUnexpectedResponse, ErrUnauthorized, resp.StatusCode, snippet(body))
	default:
		out.err = fmt.Errorf("%w: status %d: %s", ErrUnexpectedResponse, resp.StatusCode, snippet(body))
	}
	if out.err == nil {
		out.res.StatusCode = resp.StatusCode
		out.res.CheckedAt = now
	}
	return out
}

// fields are the members the contract's answers carry.
type fields struct {
	Expires        *string `json:"expires"`
	SubscribeLink  *string `json:"subscribe_link"`
	SubscribeLink2 *string `json:"subscribeLink"`
	InitializedAt  *string `json:"initializedAt"`
	Message        *string `json:"message"`
}

// envelope accepts the members at the top level or under "data"; the
// message also under "error".
type envelope struct {
	fields
	Data  *fields `json:"data"`
	Error *struct {
		Message *string `json:"message"`
	} `json:"error"`
}

func first(ps ...*string) (string, bool) {
	for _, p := range ps {
		if p != nil {
			return *p, true
		}
	}
	return "", false
}

func decodeEnvelope(body []byte) (envelope, error) {
	var env envelope
	if err := json.Unmarshal(body, &env); err != nil {
		return env, fmt.Errorf("%w: body is not a JSON object: %w", ErrUnexpectedResponse, err)
	}
	if env.Data == nil {
		env.Data = &fields{}
	}
	return env, nil
}

// ParseExpires reads a `YYYY-MM-DD HH:MM:SS` moment in loc. As a tolerance
// it also accepts RFC 3339 (which carries its own offset).
func ParseExpires(s string, loc *time.Location) (time.Time, error) {
	if loc == nil {
		loc = time.UTC
	}
	s = strings.TrimSpace(s)
	if t, err := time.ParseInLocation(ExpiresLayout, s, loc); err == nil {
		return t, nil
	}
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t, nil
	}
	return time.Time{}, fmt.Errorf("%w: %q is not a datetime of the form YYYY-MM-DD HH:MM:SS", ErrUnexpectedResponse, s)
}

func parseActive(body []byte, loc *time.Location) (Result, error) {
	env, err := decodeEnvelope(body)
	if err != nil {
		return Result{}, err
	}
	s, ok := first(env.Expires, env.Data.Expires)
	if !ok {
		return Result{}, fmt.Errorf("%w: 200 without expires: %s", ErrUnexpectedResponse, snippet(body))
	}
	t, err := ParseExpires(s, loc)
	if err != nil {
		return Result{}, err
	}
	return Result{State: Active, Expires: t}, nil
}

func parseUnpaid(body []byte, loc *time.Location) (Result, error) {
	res := Result{State: Unpaid}
	env, err := decodeEnvelope(body)
	if err != nil {
		// A 402 is unambiguous even without a usable body: restrict, with
		// no link to show.
		return res, nil
	}
	res.SubscribeLink, _ = first(env.SubscribeLink, env.SubscribeLink2, env.Data.SubscribeLink, env.Data.SubscribeLink2)
	if s, ok := first(env.InitializedAt, env.Data.InitializedAt); ok {
		if t, err := ParseExpires(s, loc); err == nil {
			res.InitializedAt = t
		}
	}
	return res, nil
}

func parseMessage(body []byte) string {
	env, err := decodeEnvelope(body)
	if err != nil {
		return strings.TrimSpace(snippet(body))
	}
	var errMsg *string
	if env.Error != nil {
		errMsg = env.Error.Message
	}
	m, _ := first(env.Message, env.Data.Message, errMsg)
	return m
}

func parseRetryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if secs, err := strconv.Atoi(v); err == nil && secs >= 0 {
		return time.Duration(secs) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil {
		if d := t.Sub(now); d > 0 {
			return d
		}
	}
	return 0
}

func snippet(b []byte) string {
	const n = 200
	if len(b) > n {
		return string(b[:n]) + "..."
	}
	return string(b)
}
