// Package client calls the platform's list endpoints that take a CroQL
// expression, on the platform itself or on `croql serve`:
//
//	c, err := client.New("http://127.0.0.1:8080", token)
//	strs, err := c.Strings(ctx, 1, `count of translations > 0`)
//
// Before a request leaves, the query is checked with croql (a *QueryError
// with caret diagnostics instead of a round trip). A 400 under the key
// croql comes back as the same *QueryError, whether croql serve (with
// spans) or the platform (code and message only) sent it. A GET whose URL
// would exceed the length budget (DefaultMaxURL) is split when the query is
// an `or` chain: each batch is a request of its own and the answers are
// merged by id, which is exact because `a or b` matches what either
// matches. A page croql serve refuses as larger than its byte budget
// (--max-page-bytes, a 400 pageTooLarge) is asked again, by All and the
// typed lists, with the smaller limit the answer advises (PageFit).
// docs/serve.md says why the client does not wrap
// github.com/crowdin/crowdin-api-client-go.
package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/croql/croql"
	"github.com/croql/croql/ast"
	"github.com/croql/croql/diag"
	"github.com/croql/croql/parser"
)

// DefaultMaxURL is the default URL length budget in bytes: 8 KiB, what
// common proxies and servers accept in a request line.
const DefaultMaxURL = 8 << 10

// MaxLimit is the platform's largest page.
const MaxLimit = 500

// Client calls one API base URL with one token. It is safe for concurrent
// use.
type Client struct {
	base   *url.URL
	token  string
	http   *http.Client
	maxURL int
	check  []croql.Option
	lint   bool
}

// Option configures a Client.
type Option func(*Client)

// WithHTTPClient sets the HTTP client (http.DefaultClient otherwise).
func WithHTTPClient(h *http.Client) Option { return func(c *Client) { c.http = h } }

// WithMaxURL sets the URL length budget in bytes.
func WithMaxURL(n int) Option { return func(c *Client) { c.maxURL = n } }

// WithCheck sets the facade options queries are linted with (the edition,
// the user directory for @user mentions, the language codes).
func WithCheck(opts ...croql.Option) Option {
	return func(c *Client) { c.check = append([]croql.Option{}, opts...) }
}

// WithoutLint sends queries unchecked (to see the server's own answer).
func WithoutLint() Option { return func(c *Client) { c.lint = false } }

// New returns a client of the API at baseURL ("https://api.crowdin.com",
// "https://ORG.api.crowdin.com", or croql serve's "http://127.0.0.1:8080").
func New(baseURL, token string, opts ...Option) (*Client, error) {
	u, err := url.Parse(strings.TrimSuffix(baseURL, "/"))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("client: %q is not an http(s) base URL", baseURL)
	}
	if token == "" {
		return nil, errors.New("client: empty token")
	}
	c := &Client{base: u, token: token, http: http.DefaultClient, maxURL: DefaultMaxURL, lint: true}
	for _, o := range opts {
		o(c)
	}
	return c, nil
}

// Endpoint is one list endpoint: its path and its CroQL context.
type Endpoint struct {
	Path    string
	Context string
	// idKey is the JSON field of the objects' id.
	idKey string
}

// StringsOf is /api/v2/projects/{projectId}/strings.
func StringsOf(projectID int64) Endpoint {
	return Endpoint{"/api/v2/projects/" + strconv.FormatInt(projectID, 10) + "/strings", croql.Strings, "id"}
}

// TranslationsOf is /api/v2/projects/{projectId}/languages/{languageId}/translations.
func TranslationsOf(projectID int64, languageID string) Endpoint {
	return Endpoint{"/api/v2/projects/" + strconv.FormatInt(projectID, 10) + "/languages/" + url.PathEscape(languageID) + "/translations", croql.Translations, "stringId"}
}

// SegmentsOf is /api/v2/tms/{tmId}/segments.
func SegmentsOf(tmID int64) Endpoint {
	return Endpoint{"/api/v2/tms/" + strconv.FormatInt(tmID, 10) + "/segments", croql.TM, "id"}
}

// TermsOf is /api/v2/glossaries/{glossaryId}/terms.
func TermsOf(glossaryID int64) Endpoint {
	return Endpoint{"/api/v2/glossaries/" + strconv.FormatInt(glossaryID, 10) + "/terms", croql.Glossary, "id"}
}

// Page is one page of a list.
type Page struct {
	// Data are the objects, as the server wrote them.
	Data   []json.RawMessage
	Offset int64
	Limit  int64
	// Total is set by croql serve when asked for (ListOptions.WithTotal).
	Total *int64
}

// ListOptions are the parameters of one page.
type ListOptions struct {
	Limit, Offset int64
	// OrderBy and WithTotal are croql serve's extensions.
	OrderBy   string
	WithTotal bool
}

// QueryError is a query with errors: found by the lint before sending,
// or sent back by the server under the key croql.
type QueryError struct {
	Source string
	Diags  diag.List
	// Remote is true when the server reported it.
	Remote bool
}

func (e *QueryError) Error() string {
	where := "croql"
	if e.Remote {
		where = "croql (server)"
	}
	if len(e.Diags) == 0 {
		return where + ": invalid query"
	}
	return where + ": " + e.Diags[0].Message
}

// Format renders every diagnostic with the source line and a caret.
func (e *QueryError) Format() string {
	s := diag.NewSource(e.Source)
	var b strings.Builder
	for _, d := range e.Diags {
		b.WriteString(s.Format(d))
	}
	return b.String()
}

// APIError is any other error answer.
type APIError struct {
	Status int
	// Key and Code are set for a validation error (400) of a parameter.
	Key, Code string
	Message   string
	// Fit, for croql serve's pageTooLarge, is how many objects of the
	// page fit its page budget (0 when the answer does not say).
	Fit int64
}

func (e *APIError) Error() string {
	if e.Key != "" {
		return fmt.Sprintf("client: %d %s: %s (%s)", e.Status, e.Key, e.Message, e.Code)
	}
	return fmt.Sprintf("client: %d %s", e.Status, e.Message)
}

// ErrURLTooLong is returned (wrapped) for a GET over the URL budget that
// cannot be split.
var ErrURLTooLong = errors.New("the request URL is longer than the budget")

// Lint checks src for ep's context with the client's options.
func (c *Client) Lint(ep Endpoint, src string) error {
	if !c.lint || strings.TrimSpace(src) == "" {
		return nil
	}
	env, err := croql.NewEnv(ep.Context, c.check...)
	if err != nil {
		return fmt.Errorf("client: %w", err)
	}
	if _, diags := env.Check(src); diags.HasErrors() {
		return &QueryError{Source: src, Diags: diags.Errors()}
	}
	return nil
}

// List fetches one page of ep for src: a GET within the URL budget.
func (c *Client) List(ctx context.Context, ep Endpoint, src string, o ListOptions) (*Page, error) {
	if err := c.Lint(ep, src); err != nil {
		return nil, err
	}
	u := c.listURL(ep, src, o)
	if len(u) > c.maxURL {
		return nil, fmt.Errorf("client: %w: %d bytes > %d; use All (which splits or-chains) or Query (POST, croql serve only)", ErrURLTooLong, len(u), c.maxURL)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, fmt.Errorf("client: %w", err)
	}
	return c.do(req, src)
}

// Query fetches one page with croql serve's POST …/query extension: the
// query in a JSON body, no URL limit. The platform has no such endpoint.
func (c *Client) Query(ctx context.Context, ep Endpoint, src string, o ListOptions) (*Page, error) {
	if err := c.Lint(ep, src); err != nil {
		return nil, err
	}
	body := map[string]any{"croql": src}
	if o.Limit > 0 {
		body["limit"] = o.Limit
	}
	if o.Offset > 0 {
		body["offset"] = o.Offset
	}
	if o.OrderBy != "" {
		body["orderBy"] = o.OrderBy
	}
	if o.WithTotal {
		body["withTotal"] = true
	}
	b, err := json.Marshal(body)
	if err != nil {
		return nil, fmt.Errorf("client: %w", err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.base.String()+ep.Path+"/query", strings.NewReader(string(b)))
	if err != nil {
		return nil, fmt.Errorf("client: %w", err)
	}
	req.Header.Set("Content-Type", "application/json")
	return c.do(req, src)
}

func (c *Client) listURL(ep Endpoint, src string, o ListOptions) string {
	q := url.Values{}
	if src != "" {
		q.Set("croql", src)
	}
	if o.Limit > 0 {
		q.Set("limit", strconv.FormatInt(o.Limit, 10))
	}
	if o.Offset > 0 {
		q.Set("offset", strconv.FormatInt(o.Offset, 10))
	}
	if o.OrderBy != "" {
		q.Set("orderBy", o.OrderBy)
	}
	if o.WithTotal {
		q.Set("withTotal", "true")
	}
	u := c.base.String() + ep.Path
	if len(q) > 0 {
		u += "?" + q.Encode()
	}
	return u
}

func (c *Client) do(req *http.Request, src string) (*Page, error) {
	req.Header.Set("Authorization", "Bearer "+c.token)
	req.Header.Set("Accept", "application/json")
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, fmt.Errorf("client: %w", err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	if err != nil {
		return nil, fmt.Errorf("client: reading the answer: %w", err)
	}
	if resp.StatusCode != http.StatusOK {
		return nil, mapError(resp.StatusCode, b, src)
	}
	var body struct {
		Data []struct {
			Data json.RawMessage `json:"data"`
		} `json:"data"`
		Pagination struct {
			Offset int64  `json:"offset"`
			Limit  int64  `json:"limit"`
			Total  *int64 `json:"total"`
		} `json:"pagination"`
	}
	if err := json.Unmarshal(b, &body); err != nil {
		return nil, fmt.Errorf("client: the answer is not a list: %w", err)
	}
	p := &Page{Offset: body.Pagination.Offset, Limit: body.Pagination.Limit, Total: body.Pagination.Total}
	for _, d := range body.Data {
		p.Data = append(p.Data, d.Data)
	}
	return p, nil
}

// mapError turns an error answer into a *QueryError (400 under the key
// croql) or an *APIError.
func mapError(status int, body []byte, src string) error {
	var v struct {
		Errors []struct {
			Error struct {
				Key    string `json:"key"`
				Errors []struct {
					Code    string     `json:"code"`
					Message string     `json:"message"`
					Rule    string     `json:"rule"`
					Span    *diag.Span `json:"span"`
					Hint    string     `json:"hint"`
					Fixes   []diag.Fix `json:"fixes"`
					Fit     int64      `json:"fit"`
				} `json:"errors"`
			} `json:"error"`
		} `json:"errors"`
		Error *struct {
			Code    any    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal(body, &v); err != nil {
		return &APIError{Status: status, Message: strings.TrimSpace(string(body[:min(len(body), 200)]))}
	}
	for _, e := range v.Errors {
		if e.Error.Key != "croql" {
			continue
		}
		qe := &QueryError{Source: src, Remote: true}
		for _, x := range e.Error.Errors {
			span := diag.Span{Start: 0, End: len(src)}
			if x.Span != nil && 0 <= x.Span.Start && x.Span.Start <= x.Span.End && x.Span.End <= len(src) {
				span = *x.Span
			}
			rule := x.Rule
			if rule == "" {
				rule = "platform"
			}
			qe.Diags = append(qe.Diags, diag.Diagnostic{Severity: diag.Error, Code: x.Code, Rule: rule,
				Span: span, Message: x.Message, Hint: x.Hint, Fixes: x.Fixes})
		}
		return qe
	}
	if len(v.Errors) > 0 && len(v.Errors[0].Error.Errors) > 0 {
		e := v.Errors[0].Error
		return &APIError{Status: status, Key: e.Key, Code: e.Errors[0].Code, Message: e.Errors[0].Message, Fit: e.Errors[0].Fit}
	}
	if v.Error != nil {
		return &APIError{Status: status, Message: v.Error.Message}
	}
	return &APIError{Status: status, Message: http.StatusText(status)}
}

// All fetches every object of ep matching src, page by page (500 per
// page), in id order. A query whose GET would exceed the URL budget is
// split at its top-level `or`s into batches that fit; the batches' answers
// are merged by id. A page croql serve refuses as over its byte budget
// (--max-page-bytes) is asked again with the smaller limit the answer
// advises (see PageFit); one object alone over the budget is an error.
func (c *Client) All(ctx context.Context, ep Endpoint, src string) ([]json.RawMessage, error) {
	if err := c.Lint(ep, src); err != nil {
		return nil, err
	}
	batches, err := c.Batches(ep, src)
	if err != nil {
		return nil, err
	}
	if len(batches) > 1 && ep.Context == croql.Translations {
		// The translations list answers each string's top translation
		// among the matches: the top of an or-chain is not found from
		// the tops of its parts.
		return nil, fmt.Errorf("client: %w: a translations query cannot be split into batches (each string's top translation depends on the whole query); use Query (POST) on croql serve", ErrURLTooLong)
	}
	byID := map[int64]json.RawMessage{}
	for _, b := range batches {
		for off := int64(0); ; {
			p, limit, err := c.fittedPage(ctx, ep, b, off)
			if err != nil {
				return nil, err
			}
			for _, d := range p.Data {
				id, err := idOf(d, ep.idKey)
				if err != nil {
					return nil, err
				}
				byID[id] = d
			}
			if int64(len(p.Data)) < limit {
				break
			}
			off += int64(len(p.Data))
		}
	}
	ids := make([]int64, 0, len(byID))
	for id := range byID {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	out := make([]json.RawMessage, len(ids))
	for i, id := range ids {
		out[i] = byID[id]
	}
	return out, nil
}

// fittedPage fetches the page of src at offset off with the largest
// limit (MaxLimit), and, while croql serve answers that the page is over
// its byte budget (a 400 pageTooLarge under the key limit), again with
// the smaller limit the answer advises. It returns the page and the limit
// it was fetched with. A page whose first object alone is over the
// budget stays an error: the server's *APIError.
func (c *Client) fittedPage(ctx context.Context, ep Endpoint, src string, off int64) (*Page, int64, error) {
	limit := int64(MaxLimit)
	for {
		p, err := c.List(ctx, ep, src, ListOptions{Limit: limit, Offset: off})
		if err == nil {
			return p, limit, nil
		}
		fit, ok := PageFit(err)
		if !ok || fit >= limit {
			return nil, 0, err
		}
		limit = fit
	}
}

// pageFitRE finds the advice in the pageTooLarge message of a croql serve
// that does not send the fit field.
var pageFitRE = regexp.MustCompile(`ask for limit=([0-9]+) or less`)

// PageFit reports whether err is croql serve's answer to a page over its
// byte budget (--max-page-bytes) that names a smaller limit that fits,
// and that limit: the error's fit field, or for a server without it the
// advice in its message. A page whose first object alone is over the
// budget names none: PageFit reports false.
func PageFit(err error) (int64, bool) {
	var ae *APIError
	if !errors.As(err, &ae) || ae.Status != http.StatusBadRequest || ae.Key != "limit" || ae.Code != "pageTooLarge" {
		return 0, false
	}
	if ae.Fit > 0 {
		return ae.Fit, true
	}
	m := pageFitRE.FindStringSubmatch(ae.Message)
	if m == nil {
		return 0, false
	}
	n, perr := strconv.ParseInt(m[1], 10, 64)
	if perr != nil || n <= 0 {
		return 0, false
	}
	return n, true
}

func idOf(d json.RawMessage, key string) (int64, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(d, &m); err != nil {
		return 0, fmt.Errorf("client: an object is not JSON: %w", err)
	}
	var id int64
	if err := json.Unmarshal(m[key], &id); err != nil {
		return 0, fmt.Errorf("client: an object has no integer %q", key)
	}
	return id, nil
}

// Batches splits src into queries whose list URL (for a full page at
// the largest offset a caller is likely to page to) fits the budget: src
// itself when it fits, else the operands of its top-level `or` chain,
// greedily packed, each parenthesised. An operand that alone exceeds the
// budget is an error wrapping ErrURLTooLong.
func (c *Client) Batches(ep Endpoint, src string) ([]string, error) {
	fits := func(q string) bool {
		return len(c.listURL(ep, q, ListOptions{Limit: MaxLimit, Offset: 1 << 40})) <= c.maxURL
	}
	if fits(src) {
		return []string{src}, nil
	}
	tree, diags := parser.New(parser.Limits{MaxSource: len(src) + 1}).Parse(src)
	if diags.HasErrors() || tree == nil {
		return nil, &QueryError{Source: src, Diags: diags.Errors()}
	}
	var ops []string
	var walk func(e ast.Expr)
	walk = func(e ast.Expr) {
		if b, ok := e.(*ast.Binary); ok && b.Op == ast.OpOr {
			walk(b.X)
			walk(b.Y)
			return
		}
		sp := e.Span()
		ops = append(ops, "("+src[sp.Start:sp.End]+")")
	}
	walk(tree)
	if len(ops) < 2 {
		return nil, fmt.Errorf("client: %w (%d bytes) and the query is not an or-chain that could be split; use Query (POST) on croql serve", ErrURLTooLong, len(c.listURL(ep, src, ListOptions{})))
	}
	var out []string
	cur := ""
	for _, op := range ops {
		if !fits(op) {
			return nil, fmt.Errorf("client: %w: one operand of the or-chain alone is too long: %.60s…", ErrURLTooLong, op)
		}
		next := op
		if cur != "" {
			next = cur + " or " + op
		}
		if fits(next) {
			cur = next
			continue
		}
		out = append(out, cur)
		cur = op
	}
	return append(out, cur), nil
}
