package postimport

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"syscall"
	"time"
)

// ErrForbiddenAddress is returned when a contentUrl or stringsUrl resolves
// to an address the handler refuses to connect to (loopback, private,
// link-local, ...), which guards against server-side request forgery.
var ErrForbiddenAddress = errors.New("refusing to connect to a non-public address")

// errTooLarge is returned when a fetched body exceeds its bound.
var errTooLarge = errors.New("exceeds the size limit")

// GuardedClient returns an HTTP client for fetching job URLs: no proxy, at
// most 5 redirects, only http(s), and connections only to public unicast
// addresses (checked after DNS resolution, on every connection, so DNS
// rebinding and redirects cannot reach internal services).
func GuardedClient() *http.Client {
	dialer := &net.Dialer{
		Timeout:   10 * time.Second,
		KeepAlive: 30 * time.Second,
		Control: func(network, address string, _ syscall.RawConn) error {
			ap, err := netip.ParseAddrPort(address)
			if err != nil {
				return fmt.Errorf("%w: %s", ErrForbiddenAddress, address)
			}
			if !publicAddr(ap.Addr()) {
				return fmt.Errorf("%w: %s", ErrForbiddenAddress, ap.Addr())
			}
			return nil
		},
	}
	tr := &http.Transport{
		Proxy:                 nil,
		DialContext:           dialer.DialContext,
		ForceAttemptHTTP2:     true,
		MaxIdleConns:          16,
		IdleConnTimeout:       90 * time.Second,
		TLSHandshakeTimeout:   10 * time.Second,
		ResponseHeaderTimeout: 30 * time.Second,
	}
	return &http.Client{Transport: tr, CheckRedirect: checkRedirect}
}

var cgnat = netip.MustParsePrefix("100.64.0.0/10")

func publicAddr(a netip.Addr) bool {
	a = a.Unmap()
	return a.IsValid() && a.IsGlobalUnicast() && !a.IsPrivate() && !a.IsLoopback() &&
		!a.IsLinkLocalUnicast() && !cgnat.Contains(a)
}

func checkRedirect(req *http.Request, via []*http.Request) error {
	if len(via) >= 5 {
		return errors.New("stopped after 5 redirects")
	}
	return checkScheme(req.URL)
}

func checkScheme(u *url.URL) error {
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("only absolute http(s) URLs are fetched, not %q", redact(u))
	}
	return nil
}

// redact drops the query and user info of a URL (signed URLs carry
// credentials there) for messages shown to users and logs.
func redact(u *url.URL) string {
	if u == nil {
		return ""
	}
	c := *u
	c.RawQuery, c.Fragment, c.User = "", "", nil
	return c.String()
}

type fetcher struct {
	client  *http.Client
	timeout time.Duration
	allow   func(*url.URL) error
}

// get opens a URL for reading. The returned cancel must be called after the
// body is consumed.
func (f *fetcher) get(ctx context.Context, what, raw string) (io.ReadCloser, context.CancelFunc, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return nil, nil, fmt.Errorf("%s is not a URL", what)
	}
	if err := checkScheme(u); err != nil {
		return nil, nil, fmt.Errorf("%s: %w", what, err)
	}
	if f.allow != nil {
		if err := f.allow(u); err != nil {
			return nil, nil, fmt.Errorf("%s %s is not allowed: %w", what, redact(u), err)
		}
	}
	ctx, cancel := context.WithTimeout(ctx, f.timeout)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		cancel()
		return nil, nil, fmt.Errorf("%s: %w", what, err)
	}
	resp, err := f.client.Do(req)
	if err != nil {
		cancel()
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // the url.Error repeats the full (signed) URL
		}
		return nil, nil, fmt.Errorf("%s %s could not be fetched: %w", what, redact(u), err)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		_ = resp.Body.Close()
		cancel()
		return nil, nil, fmt.Errorf("%s %s answered HTTP %d", what, redact(u), resp.StatusCode)
	}
	return resp.Body, cancel, nil
}

// fetchAll reads a whole body of at most limit bytes.
func (f *fetcher) fetchAll(ctx context.Context, what, raw string, limit int64) ([]byte, error) {
	body, cancel, err := f.get(ctx, what, raw)
	if err != nil {
		return nil, err
	}
	defer cancel()
	defer body.Close()
	b, err := io.ReadAll(io.LimitReader(body, limit+1))
	if err != nil {
		return nil, fmt.Errorf("%s: reading: %w", what, err)
	}
	if int64(len(b)) > limit {
		return nil, fmt.Errorf("%s %w of %d bytes", what, errTooLarge, limit)
	}
	return b, nil
}

// limitedReader fails once more than n bytes were read.
type limitedReader struct {
	r io.Reader
	n int64
}

func (l *limitedReader) Read(p []byte) (int, error) {
	if l.n < 0 {
		return 0, errTooLarge
	}
	if int64(len(p)) > l.n+1 {
		p = p[:l.n+1]
	}
	n, err := l.r.Read(p)
	l.n -= int64(n)
	if l.n < 0 {
		return n, errTooLarge
	}
	return n, err
}

// ndjsonError reports a bad line of an NDJSON stream.
type ndjsonError struct {
	line int
	err  error
}

func (e *ndjsonError) Error() string { return fmt.Sprintf("line %d: %v", e.line, e.err) }
func (e *ndjsonError) Unwrap() error { return e.err }

// DecodeNDJSON reads newline-delimited string objects (blank lines and
// "\r\n" endings are accepted) with bounds on the line length and the total
// size; 0 means no bound.
func DecodeNDJSON(r io.Reader, maxLine int, maxTotal int64) ([]String, error) {
	var lr *limitedReader
	if maxTotal > 0 {
		lr = &limitedReader{r: r, n: maxTotal}
		r = lr
	}
	tooLarge := func() error { return fmt.Errorf("the strings %w of %d bytes", errTooLarge, maxTotal) }
	if maxLine <= 0 {
		maxLine = 1 << 30
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, min(maxLine, 64<<10)), maxLine)
	var out []String
	line := 0
	for sc.Scan() {
		line++
		b := bytes.TrimSpace(sc.Bytes())
		if len(b) == 0 {
			continue
		}
		var s String
		if err := json.Unmarshal(b, &s); err != nil {
			if lr != nil && lr.n < 0 {
				return nil, tooLarge() // the line was cut by the bound
			}
			return nil, &ndjsonError{line: line, err: err}
		}
		out = append(out, s)
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return nil, &ndjsonError{line: line + 1, err: fmt.Errorf("longer than %d bytes", maxLine)}
		}
		if errors.Is(err, errTooLarge) {
			return nil, tooLarge()
		}
		return nil, err
	}
	if lr != nil && lr.n < 0 {
		return nil, tooLarge()
	}
	if out == nil {
		out = []String{}
	}
	return out, nil
}

// EncodeNDJSON writes one compact string object per line.
func EncodeNDJSON(w io.Writer, strs []String) error {
	bw := bufio.NewWriter(w)
	for i, s := range strs {
		b, err := s.MarshalJSON()
		if err != nil {
			return fmt.Errorf("string %d: %w", i+1, err)
		}
		if _, err := bw.Write(b); err != nil {
			return err
		}
		if err := bw.WriteByte('\n'); err != nil {
			return err
		}
	}
	return bw.Flush()
}
