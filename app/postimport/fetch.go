package postimport

import (
	"bufio"
	"bytes"
	"context"
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

// errNoStrings is returned when stringsUrl answers a body without a single
// string: never read as "no strings" (a pass-through app would answer an
// empty list, which removes every string).
var errNoStrings = errors.New("the strings file holds no strings")

// errUnframed is returned when stringsUrl answers a body whose end cannot
// be told from a cut connection (HTTP/1.x with neither Content-Length nor
// chunked encoding, not compressed).
var errUnframed = errors.New("the strings file has no Content-Length or chunked framing, so a cut-short body cannot be detected")

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

// nonPublic are the ranges of the IANA special-purpose registries (IPv4
// and IPv6) that are not globally reachable, besides what netip classifies
// (loopback, private, link-local, multicast, unspecified).
var nonPublic = func() []netip.Prefix {
	var ps []netip.Prefix
	for _, s := range []string{
		"0.0.0.0/8",       // "this network"
		"100.64.0.0/10",   // shared address space (CGNAT)
		"192.0.0.0/24",    // IETF protocol assignments (incl. 192.0.0.192, DS-Lite, NAT64 discovery)
		"192.0.2.0/24",    // TEST-NET-1
		"192.88.99.0/24",  // deprecated 6to4 relay anycast
		"198.18.0.0/15",   // benchmarking
		"198.51.100.0/24", // TEST-NET-2
		"203.0.113.0/24",  // TEST-NET-3
		"240.0.0.0/4",     // reserved, incl. 255.255.255.255
		"::/96",           // IPv4-compatible (::a.b.c.d), deprecated
		"64:ff9b:1::/48",  // local-use IPv4/IPv6 translation
		"100::/64",        // discard-only
		"2001::/23",       // IETF protocol assignments (Teredo 2001::/32 hides an IPv4 address)
		"2001:db8::/32",   // documentation
		"3fff::/20",       // documentation
		"5f00::/16",       // segment routing SIDs
		"fec0::/10",       // site-local, deprecated
	} {
		ps = append(ps, netip.MustParsePrefix(s))
	}
	return ps
}()

var (
	nat64  = netip.MustParsePrefix("64:ff9b::/96")
	sixTo4 = netip.MustParsePrefix("2002::/16")
)

// publicAddr reports whether a is a public unicast address. IPv4 addresses
// embedded in IPv6 (IPv4-mapped ::ffff:a.b.c.d, NAT64 64:ff9b::a.b.c.d,
// 6to4 2002:aabb:ccdd::) are checked as the IPv4 address they carry.
func publicAddr(a netip.Addr) bool {
	if !a.IsValid() {
		return false
	}
	a = a.Unmap()
	if a.Is6() {
		b := a.As16()
		switch {
		case nat64.Contains(a):
			return publicAddr(netip.AddrFrom4([4]byte(b[12:16])))
		case sixTo4.Contains(a):
			return publicAddr(netip.AddrFrom4([4]byte(b[2:6])))
		}
	}
	if !a.IsGlobalUnicast() || a.IsPrivate() || a.IsLoopback() || a.IsLinkLocalUnicast() {
		return false
	}
	for _, p := range nonPublic {
		if p.Contains(a) {
			return false
		}
	}
	return true
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
	body, cancel, _, err := f.open(ctx, what, raw)
	return body, cancel, err
}

// open is get that also returns the response (for its framing).
func (f *fetcher) open(ctx context.Context, what, raw string) (io.ReadCloser, context.CancelFunc, *http.Response, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("%s is not a URL", what)
	}
	if err := checkScheme(u); err != nil {
		return nil, nil, nil, fmt.Errorf("%s: %w", what, err)
	}
	if f.allow != nil {
		if err := f.allow(u); err != nil {
			return nil, nil, nil, fmt.Errorf("%s %s is not allowed: %w", what, redact(u), err)
		}
	}
	ctx, cancel := context.WithTimeout(ctx, f.timeout)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		cancel()
		return nil, nil, nil, fmt.Errorf("%s: %w", what, err)
	}
	resp, err := f.client.Do(req)
	if err != nil {
		cancel()
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // the url.Error repeats the full (signed) URL
		}
		return nil, nil, nil, fmt.Errorf("%s %s could not be fetched: %w", what, redact(u), err)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		_ = resp.Body.Close()
		cancel()
		return nil, nil, nil, fmt.Errorf("%s %s answered HTTP %d", what, redact(u), resp.StatusCode)
	}
	return resp.Body, cancel, resp, nil
}

// strings fetches and decodes the NDJSON at stringsUrl. A body without
// framing, a cut-short body and a body without a string are errors.
func (f *fetcher) strings(ctx context.Context, raw string, maxLine int, maxTotal int64) ([]String, error) {
	body, cancel, resp, err := f.open(ctx, "stringsUrl", raw)
	if err != nil {
		return nil, err
	}
	defer cancel()
	defer body.Close()
	if resp.ProtoMajor == 1 && resp.ContentLength < 0 && len(resp.TransferEncoding) == 0 && !resp.Uncompressed {
		return nil, fmt.Errorf("stringsUrl %s: %w", redact(resp.Request.URL), errUnframed)
	}
	strs, err := DecodeNDJSON(body, maxLine, maxTotal)
	if err != nil {
		return nil, fmt.Errorf("stringsUrl: %w", err)
	}
	if len(strs) == 0 {
		return nil, fmt.Errorf("stringsUrl %s: %w", redact(resp.Request.URL), errNoStrings)
	}
	return strs, nil
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

// errRecorder remembers the first error of r other than io.EOF.
type errRecorder struct {
	r   io.Reader
	err error
}

func (e *errRecorder) Read(p []byte) (int, error) {
	n, err := e.r.Read(p)
	if err != nil && err != io.EOF && e.err == nil {
		e.err = err
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
	// A read error (a timeout, a cut connection) ends the scan with the
	// partial line as its last token: it is reported as what it is, not as
	// a bad line.
	rec := &errRecorder{r: r}
	r = rec
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
		if err := s.UnmarshalJSON(b); err != nil {
			if lr != nil && lr.n < 0 {
				return nil, tooLarge() // the line was cut by the bound
			}
			if rec.err != nil && !errors.Is(rec.err, errTooLarge) {
				return nil, fmt.Errorf("reading line %d: %w", line, rec.err)
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
func EncodeNDJSON(w io.Writer, strs []String) error { return encodeNDJSON(w, strs, nil) }

// encodeNDJSON is EncodeNDJSON where untouched[i] says that strs[i] is known
// to be unchanged: its wire bytes are written without comparing again.
func encodeNDJSON(w io.Writer, strs []String, untouched []bool) error {
	bw := bufio.NewWriter(w)
	for i, s := range strs {
		b, err := marshalKnown(&s, i, untouched)
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

// marshalKnown encodes strs[i], copying the wire bytes of a string known to
// be untouched.
func marshalKnown(s *String, i int, untouched []bool) ([]byte, error) {
	if i < len(untouched) && untouched[i] && s.wire != nil {
		return s.wire, nil
	}
	return s.MarshalJSON()
}
