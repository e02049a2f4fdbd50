package pull

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/crowdin/crowdin-api-client-go/crowdin"
)

// PageSize is the limit of every list request: the platform's largest.
const PageSize = 500

// DefaultRetries is how many times one request is retried after a 429 or
// a 503.
const DefaultRetries = 8

// maxWait caps one wait between retries.
const maxWait = 60 * time.Second

// transport sends the official client's requests (to its fixed base URL)
// to base, and retries a request answered 429 Too Many Requests or 503
// Service Unavailable after the answer's Retry-After (else a doubling
// back-off from one second), at most retries times.
type transport struct {
	base    *url.URL
	next    http.RoundTripper
	retries int
	// waited is told of each wait (for the progress line); may be nil.
	waited func(status int, d time.Duration)
	// sent, when set, counts the requests sent.
	sent *atomic.Int64
}

func (t *transport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.URL.Scheme, r.URL.Host, r.Host = t.base.Scheme, t.base.Host, t.base.Host
	if p := strings.TrimSuffix(t.base.Path, "/"); p != "" {
		r.URL.Path = p + r.URL.Path
		r.URL.RawPath = ""
	}
	for attempt := 0; ; attempt++ {
		if t.sent != nil {
			t.sent.Add(1)
		}
		resp, err := t.next.RoundTrip(r)
		if err != nil {
			return nil, err
		}
		if resp.StatusCode != http.StatusTooManyRequests && resp.StatusCode != http.StatusServiceUnavailable || attempt >= t.retries {
			return resp, nil
		}
		d := retryAfter(resp.Header.Get("Retry-After"), attempt, time.Now())
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<16))
		resp.Body.Close()
		if t.waited != nil {
			t.waited(resp.StatusCode, d)
		}
		timer := time.NewTimer(d)
		select {
		case <-timer.C:
		case <-r.Context().Done():
			timer.Stop()
			return nil, r.Context().Err()
		}
	}
}

// retryAfter is the wait a Retry-After value asks for (seconds or an HTTP
// date), else 1s, 2s, 4s, … for the attempt; never more than maxWait.
func retryAfter(v string, attempt int, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if n, err := strconv.Atoi(v); err == nil && n >= 0 {
		return min(time.Duration(n)*time.Second, maxWait)
	}
	if at, err := http.ParseTime(v); err == nil {
		return min(max(at.Sub(now), 0), maxWait)
	}
	return min(time.Second<<min(attempt, 6), maxWait)
}

// newClient is the official Go client, its requests sent to base.
func newClient(o *Options, waited func(status int, d time.Duration), sent *atomic.Int64) (*crowdin.Client, error) {
	base, err := url.Parse(strings.TrimSuffix(strings.TrimSuffix(o.URL, "/"), "/api/v2"))
	if err != nil {
		return nil, fmt.Errorf("pull: --url %q: %w", o.URL, err)
	}
	if base.Scheme != "http" && base.Scheme != "https" || base.Host == "" {
		return nil, fmt.Errorf("pull: --url %q is not an http(s) address such as https://api.crowdin.com", o.URL)
	}
	next := http.DefaultTransport
	if o.Transport != nil {
		next = o.Transport
	}
	retries := o.Retries
	if retries == 0 {
		retries = DefaultRetries
	}
	t := &transport{base: base, next: next, retries: max(retries, 0), waited: waited, sent: sent}
	c, err := crowdin.NewClient(o.Token, crowdin.WithHTTPClient(&http.Client{Transport: t}))
	if err != nil {
		return nil, fmt.Errorf("pull: %w", err)
	}
	return c, nil
}

// query is a list request's parameters, as the client's Get takes them.
type query url.Values

func (q query) Values() (url.Values, bool) { return url.Values(q), len(q) > 0 }

// page is one page of a list: the platform wraps each object in "data".
type page[T any] struct {
	Data []struct {
		Data T `json:"data"`
	} `json:"data"`
}

// each reads the list at path page by page (limit PageSize, offset) and
// calls fn with each object in order.
func each[T any](ctx context.Context, c *crowdin.Client, path string, q url.Values, fn func(*T) error) error {
	if q == nil {
		q = url.Values{}
	}
	for offset := 0; ; offset += PageSize {
		q.Set("limit", strconv.Itoa(PageSize))
		q.Set("offset", strconv.Itoa(offset))
		var pg page[T]
		if err := getJSON(ctx, c, path, query(q), &pg); err != nil {
			return fmt.Errorf("GET %s?%s: %w", path, q.Encode(), err)
		}
		for i := range pg.Data {
			if err := fn(&pg.Data[i].Data); err != nil {
				return err
			}
		}
		if len(pg.Data) < PageSize {
			return nil
		}
	}
}

// get reads the one object at path.
func get[T any](ctx context.Context, c *crowdin.Client, path string, v *T) error {
	var one struct {
		Data *T `json:"data"`
	}
	one.Data = v
	if err := getJSON(ctx, c, path, nil, &one); err != nil {
		return fmt.Errorf("GET %s: %w", path, err)
	}
	return nil
}

// getJSON is the client's Get of path into v. A failed send is told
// without the client's own base address (the transport sent the request
// to the --url's): the caller names the request.
func getJSON(ctx context.Context, c *crowdin.Client, path string, q query, v any) error {
	var qv crowdin.ListOptionsProvider
	if q != nil {
		qv = q
	}
	_, err := c.Get(ctx, path, qv, v)
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}
