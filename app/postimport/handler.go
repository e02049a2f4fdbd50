package postimport

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Limits and defaults (seed section 8 and docs/app-contract.md).
const (
	// MaxRequestBytes is the seed's 5 MB request limit, read as 5 MiB (the
	// lenient reading: never reject what the platform may send).
	MaxRequestBytes = 5 << 20
	// MaxInlineResponseBytes is the largest answer sent inline: 5 MB read as
	// 5,000,000 bytes (the strict reading) minus a 5% safety margin. Larger
	// answers go out as data.stringsUrl.
	MaxInlineResponseBytes = 4_750_000
	// PlatformWait is how long the platform waits for the answer.
	PlatformWait = 2 * time.Minute
	// DefaultDeadline is when the processor's context ends, measured from
	// the request's arrival: the platform's wait minus a margin for storing
	// and sending the answer.
	DefaultDeadline = PlatformWait - 15*time.Second
	// DefaultFetchTimeout bounds each fetch of contentUrl or stringsUrl.
	DefaultFetchTimeout = 30 * time.Second
	// DefaultBodyTimeout bounds reading the request body (at most 5 MiB),
	// from the request's arrival.
	DefaultBodyTimeout = 30 * time.Second
	// DefaultMinBodyRate is the slowest a request body may arrive, on
	// average, once DefaultBodyGrace has passed since the request arrived.
	DefaultMinBodyRate = 8 << 10 // bytes per second
	// DefaultBodyGrace is the time a request body may take before
	// MinBodyRate applies.
	DefaultBodyGrace = 3 * time.Second
	// DefaultMaxFileBytes bounds a file fetched from contentUrl.
	DefaultMaxFileBytes = 32 << 20
	// DefaultMaxStringsBytes bounds the NDJSON fetched from stringsUrl.
	DefaultMaxStringsBytes = 32 << 20
	// DefaultMaxLineBytes bounds one NDJSON line (one string object).
	DefaultMaxLineBytes = 4 << 20
	// DefaultMaxConcurrentJobs bounds the jobs a handler runs at once; more
	// are answered 503 with Retry-After.
	DefaultMaxConcurrentJobs = 4
	// DefaultStoreTimeout bounds Store.Put.
	DefaultStoreTimeout = 10 * time.Second
)

// Config configures a Handler. The zero value is usable; every field has a
// default.
type Config struct {
	// Deadline is when the processor's context ends, from the request's
	// arrival (default DefaultDeadline). Loading the file and strings counts
	// against it.
	Deadline time.Duration
	// MaxRequestBytes bounds the request body (default MaxRequestBytes).
	MaxRequestBytes int64
	// MaxInlineResponseBytes is the largest inline answer (default
	// MaxInlineResponseBytes).
	MaxInlineResponseBytes int64
	// MaxFileBytes bounds a file fetched from contentUrl (default
	// DefaultMaxFileBytes).
	MaxFileBytes int64
	// MaxStringsBytes and MaxLineBytes bound the NDJSON at stringsUrl
	// (defaults DefaultMaxStringsBytes, DefaultMaxLineBytes).
	MaxStringsBytes int64
	MaxLineBytes    int
	// FetchTimeout bounds each fetch (default DefaultFetchTimeout).
	FetchTimeout time.Duration
	// BodyTimeout bounds reading the request body, from the request's
	// arrival (default DefaultBodyTimeout, never more than Deadline). It is
	// set as the connection's read deadline, so a client trickling the body
	// cannot hold the connection; the server's own ReadTimeout should be set
	// too.
	BodyTimeout time.Duration
	// MinBodyRate is the slowest average rate, in bytes per second, a
	// request body may arrive at once BodyGrace has passed since the
	// request's arrival (default DefaultMinBodyRate; negative: no rate,
	// only BodyTimeout). A slower body is answered 408. It is applied as
	// the connection's read deadline, moved on as bytes arrive.
	MinBodyRate int64
	// BodyGrace is the time before MinBodyRate applies (default
	// DefaultBodyGrace).
	BodyGrace time.Duration
	// MaxConcurrentJobs bounds the jobs processed at once (default
	// DefaultMaxConcurrentJobs); a job beyond it is answered 503 with
	// Retry-After once its body has arrived. A job's slot is taken only
	// after its body has been read, so clients trickling bodies hold no
	// slot.
	MaxConcurrentJobs int
	// HTTPClient fetches contentUrl and stringsUrl. Default: GuardedClient(),
	// which refuses non-public addresses. A client set here is used as is.
	HTTPClient *http.Client
	// AllowURL, when set, vets every contentUrl and stringsUrl before it is
	// fetched (e.g. to allow only the platform's storage hosts).
	AllowURL func(*url.URL) error
	// Store receives answers larger than MaxInlineResponseBytes. Default:
	// temporary files that the handler itself serves to GET requests on its
	// own URL (?result=<id>) for ResultTTL; see PublicURL.
	Store Store
	// PublicURL is the module's public address as the platform calls it
	// (e.g. "https://app.example.com/post-import"); result URLs of the
	// default store are built on it. Empty: derived from each job request
	// (https when the request came over TLS or with X-Forwarded-Proto:
	// https, its Host, its path).
	PublicURL string
	// ResultDir is where the default store writes (default: a new directory
	// under os.TempDir()); ResultTTL how long a result stays downloadable
	// (default 1 hour, the platform SDK's signed-URL lifetime);
	// MaxResultBytes bounds the bytes held (default 1 GiB).
	ResultDir      string
	ResultTTL      time.Duration
	MaxResultBytes int64
	// StoreTimeout bounds Store.Put (default DefaultStoreTimeout).
	StoreTimeout time.Duration
	// Logger receives failures (default slog.Default()).
	Logger *slog.Logger
	// ExposeErrors shows the text of processor errors that are not
	// *UserError to the user instead of a generic message.
	ExposeErrors bool
	// ErrorStatus is the HTTP status of answers that carry error.message
	// (default 200, as the platform's SDK answers them). With
	// ErrorStatusPerCause, each failure gets a status of its own instead
	// (400, 413, 422, 500, 502, 504). Transport answers keep theirs
	// whatever is set here: 405 (not POST), 503 (MaxConcurrentJobs
	// reached), 304 (ErrNotModified).
	ErrorStatus         int
	ErrorStatusPerCause bool
}

// Handler serves the module URL: POST a job, get the answer; GET
// ?result=<id> downloads a large answer kept by the default store.
type Handler struct {
	proc    Processor
	cfg     Config
	fetch   fetcher
	slots   chan struct{}
	results *resultStore // the default store; nil when Config.Store is set
}

// NewHandler returns a handler that runs p on every job.
func NewHandler(p Processor, cfg Config) (*Handler, error) {
	if p == nil {
		return nil, errors.New("postimport: nil processor")
	}
	if cfg.Deadline <= 0 {
		cfg.Deadline = DefaultDeadline
	}
	if cfg.MaxRequestBytes <= 0 {
		cfg.MaxRequestBytes = MaxRequestBytes
	}
	if cfg.MaxInlineResponseBytes <= 0 {
		cfg.MaxInlineResponseBytes = MaxInlineResponseBytes
	}
	if cfg.MaxFileBytes <= 0 {
		cfg.MaxFileBytes = DefaultMaxFileBytes
	}
	if cfg.MaxStringsBytes <= 0 {
		cfg.MaxStringsBytes = DefaultMaxStringsBytes
	}
	if cfg.MaxLineBytes <= 0 {
		cfg.MaxLineBytes = DefaultMaxLineBytes
	}
	if cfg.FetchTimeout <= 0 {
		cfg.FetchTimeout = DefaultFetchTimeout
	}
	if cfg.BodyTimeout <= 0 {
		cfg.BodyTimeout = DefaultBodyTimeout
	}
	cfg.BodyTimeout = min(cfg.BodyTimeout, cfg.Deadline)
	if cfg.MinBodyRate == 0 {
		cfg.MinBodyRate = DefaultMinBodyRate
	}
	if cfg.BodyGrace <= 0 {
		cfg.BodyGrace = DefaultBodyGrace
	}
	if cfg.MaxConcurrentJobs <= 0 {
		cfg.MaxConcurrentJobs = DefaultMaxConcurrentJobs
	}
	if cfg.HTTPClient == nil {
		cfg.HTTPClient = GuardedClient()
	}
	if cfg.StoreTimeout <= 0 {
		cfg.StoreTimeout = DefaultStoreTimeout
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.ErrorStatus == 0 {
		cfg.ErrorStatus = http.StatusOK
	}
	if cfg.ErrorStatus < 200 || cfg.ErrorStatus > 599 {
		return nil, fmt.Errorf("postimport: ErrorStatus %d is not an HTTP status", cfg.ErrorStatus)
	}
	if cfg.PublicURL != "" {
		u, err := url.Parse(cfg.PublicURL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" {
			return nil, fmt.Errorf("postimport: PublicURL %q must be an absolute http(s) URL without query", cfg.PublicURL)
		}
	}
	h := &Handler{
		proc:  p,
		cfg:   cfg,
		fetch: fetcher{client: cfg.HTTPClient, timeout: cfg.FetchTimeout, allow: cfg.AllowURL},
		slots: make(chan struct{}, cfg.MaxConcurrentJobs),
	}
	if cfg.Store == nil {
		h.results = newResultStore(cfg.ResultDir, cfg.ResultTTL, cfg.MaxResultBytes)
	}
	return h, nil
}

// Close removes the default store's files. Results not yet downloaded are
// lost; call it when the server has shut down.
func (h *Handler) Close() error {
	if h.results == nil {
		return nil
	}
	return h.results.close()
}

// failure is an answer with error.message. status is the per-cause status
// (see Config.ErrorStatusPerCause); transport failures keep theirs.
type failure struct {
	status    int
	message   string
	cause     error
	transport bool
}

func fail(status int, cause error, format string, args ...any) *failure {
	return &failure{status: status, message: fmt.Sprintf(format, args...), cause: cause}
}

// ServeHTTP handles one job. See the package documentation for the steps.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	if (r.Method == http.MethodGet || r.Method == http.MethodHead) && h.results != nil && r.URL.Query().Has("result") {
		h.results.serve(w, r, r.URL.Query().Get("result"))
		return
	}
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		h.writeFailure(w, r, &failure{status: http.StatusMethodNotAllowed, transport: true, message: "The post-import module accepts POST requests only."})
		return
	}
	// The body is read before a slot is taken: a client trickling its
	// body (bounded by BodyTimeout and MinBodyRate) holds no slot.
	ctx, cancel := context.WithDeadline(r.Context(), start.Add(h.cfg.Deadline))
	defer cancel()
	job, f := h.readJob(ctx, w, r, start)
	if f != nil {
		h.writeFailure(w, r, f)
		return
	}
	select {
	case h.slots <- struct{}{}:
		// The slot is released when the job is answered, or, when the
		// processor ignored its deadline and was abandoned, when it returns:
		// a runaway processor keeps counting against MaxConcurrentJobs.
		release := func() { <-h.slots }
		defer func() {
			if release != nil {
				release()
			}
		}()
		h.serveJob(ctx, w, r, job, func() (rel func()) { rel, release = release, nil; return rel })
		return
	default:
		w.Header().Set("Retry-After", "5")
		w.Header().Set("Connection", "close")
		h.writeFailure(w, r, &failure{status: http.StatusServiceUnavailable, transport: true,
			message: "The app is busy with other files. Please try again in a moment.",
			cause:   fmt.Errorf("%d jobs already running", h.cfg.MaxConcurrentJobs)})
	}
}

// serveJob runs one job; takeRelease hands the job's slot release over to
// an abandoned processor.
func (h *Handler) serveJob(ctx context.Context, w http.ResponseWriter, r *http.Request, job *Job, takeRelease func() func()) {
	if f := h.load(ctx, job); f != nil {
		h.writeFailure(w, r, f)
		return
	}
	inputRepeats := repeatedIDs(job.Strings)
	if err := CheckJob(job); err != nil {
		// The platform's own input is never blamed on the app: problems
		// are logged, and strings passed through unchanged are accepted.
		h.cfg.Logger.WarnContext(r.Context(), "post-import job: the platform's strings do not follow the contract; passing them through", "problems", err)
	}
	out, f := h.run(ctx, job, takeRelease)
	if f != nil {
		if f.status == http.StatusNotModified {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		h.writeFailure(w, r, f)
		return
	}
	untouched, err := validate(job, out, inputRepeats)
	if err != nil {
		h.writeFailure(w, r, fail(http.StatusInternalServerError, err, "The app produced invalid strings: %v", err))
		return
	}
	body, f := h.encode(r, out, untouched)
	if f != nil {
		h.writeFailure(w, r, f)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(body)
}

// JobTypes are the jobType values of a post-import job: the documentation's
// spelling and the one the platform's SDK uses (@crowdin/app-project-module
// 3.2.2, out/modules/file-processing/types.js: POST_IMPORT =
// "post-import-file"). The module URL already selects the module, so any
// other value is logged as a warning and the job runs.
var JobTypes = []string{JobType, JobTypeSDK}

func (h *Handler) readJob(ctx context.Context, w http.ResponseWriter, r *http.Request, start time.Time) (*Job, *failure) {
	limit := h.cfg.MaxRequestBytes
	tooLarge := func() *failure {
		return fail(http.StatusRequestEntityTooLarge, nil,
			"The import request is larger than the %s limit of the post-import module.", humanBytes(limit))
	}
	if r.ContentLength > limit {
		return nil, tooLarge()
	}
	body, err := readBody(ctx, w, r, limit, start.Add(h.cfg.BodyTimeout), h.rate(start))
	if err != nil {
		var mbe *http.MaxBytesError
		switch {
		case errors.As(err, &mbe):
			return nil, tooLarge()
		case errors.Is(err, errTooSlow):
			return nil, fail(http.StatusRequestTimeout, err, "The import request arrived slower than %s/s.", humanBytes(h.cfg.MinBodyRate))
		case errors.Is(err, os.ErrDeadlineExceeded) || errors.Is(err, context.DeadlineExceeded) || isTimeout(err) || time.Now().After(start.Add(h.cfg.BodyTimeout)):
			if h.cfg.MinBodyRate > 0 && time.Now().Before(start.Add(h.cfg.BodyTimeout)) {
				return nil, fail(http.StatusRequestTimeout, err, "The import request arrived slower than %s/s.", humanBytes(h.cfg.MinBodyRate))
			}
			return nil, fail(http.StatusRequestTimeout, err, "The import request was not received within %s.", h.cfg.BodyTimeout)
		}
		return nil, fail(http.StatusBadRequest, err, "The import request could not be read.")
	}
	job, err := DecodeJob(body)
	if err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) || errors.Is(err, io.ErrUnexpectedEOF) || len(bytes.TrimSpace(body)) == 0 {
			return nil, fail(http.StatusBadRequest, err, "The import request is not valid JSON: %v", err)
		}
		return nil, fail(http.StatusBadRequest, err, "The import request does not have the post-import job format: %v", err)
	}
	if !slices.Contains(JobTypes, job.JobType) {
		h.cfg.Logger.WarnContext(r.Context(), "post-import job with an unknown jobType; the module URL selects the module, so it runs", "jobType", job.JobType, "known", JobTypes)
	}
	return job, nil
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// errTooSlow is a body that arrived slower than MinBodyRate.
var errTooSlow = errors.New("the request body arrives too slowly")

// rate returns, for a body that started arriving at start, the time by
// which n bytes must have arrived (the zero time: no rate applies).
func (h *Handler) rate(start time.Time) func(n int64) time.Time {
	if h.cfg.MinBodyRate <= 0 {
		return func(int64) time.Time { return time.Time{} }
	}
	return func(n int64) time.Time {
		return start.Add(h.cfg.BodyGrace + time.Duration(float64(n)/float64(h.cfg.MinBodyRate)*float64(time.Second)))
	}
}

// rateReader reads r, setting the connection's read deadline before each
// read to the earlier of deadline and by(bytes read so far).
type rateReader struct {
	r        io.Reader
	rc       *http.ResponseController
	deadline time.Time
	by       func(int64) time.Time
	n        int64
}

func (rr *rateReader) Read(p []byte) (int, error) {
	d := rr.deadline
	if b := rr.by(rr.n); !b.IsZero() && b.Before(d) {
		if !time.Now().Before(b) {
			return 0, errTooSlow
		}
		d = b
	}
	_ = rr.rc.SetReadDeadline(d)
	n, err := rr.r.Read(p)
	rr.n += int64(n)
	if err != nil && isTimeout(err) && d.Before(rr.deadline) {
		err = fmt.Errorf("%w: %w", errTooSlow, err)
	}
	return n, err
}

// readBody reads at most limit bytes of the body before deadline, and
// each byte by the time by gives for it (a minimum rate). The deadlines
// are set on the connection (http.ResponseController), so a client
// sending a byte now and then cannot hold it; where the writer does not
// support read deadlines, the read is abandoned at the deadline instead.
func readBody(ctx context.Context, w http.ResponseWriter, r *http.Request, limit int64, deadline time.Time, by func(int64) time.Time) (_ []byte, err error) {
	rc := http.NewResponseController(w)
	var body io.Reader = r.Body
	connDeadline := false
	if err := rc.SetReadDeadline(deadline); err == nil {
		connDeadline = true
		body = &rateReader{r: r.Body, rc: rc, deadline: deadline, by: by}
		// Lifted only after a complete read: after a failed one the
		// deadline stays, so the server's own draining of the unread body
		// cannot be held either.
		defer func() {
			if err == nil {
				_ = rc.SetReadDeadline(time.Time{})
			}
		}()
	}
	type result struct {
		b   []byte
		err error
	}
	done := make(chan result, 1)
	go func() {
		b, err := io.ReadAll(io.LimitReader(body, limit+1))
		if err == nil && int64(len(b)) > limit {
			b, err = nil, &http.MaxBytesError{Limit: limit}
		}
		done <- result{b, err}
	}()
	if connDeadline {
		// The connection's deadlines end the read; the server cancels
		// the request's context when a read fails, so waiting on the
		// context would hide why.
		res := <-done
		if res.err != nil {
			w.Header().Set("Connection", "close")
		}
		return res.b, res.err
	}
	rctx, cancel := context.WithDeadline(ctx, deadline)
	defer cancel()
	select {
	case res := <-done:
		if res.err != nil {
			w.Header().Set("Connection", "close")
		}
		return res.b, res.err
	case <-rctx.Done():
		w.Header().Set("Connection", "close")
		return nil, fmt.Errorf("reading the request body: %w", rctx.Err())
	}
}

// load fills job.Strings and job.File.Data. Inline strings win when the job
// carries a non-empty array; stringsUrl is fetched only otherwise, and an
// empty, unframed or cut-short body there is an error, never "no strings".
// contentUrl wins over content.
func (h *Handler) load(ctx context.Context, job *Job) *failure {
	if len(job.Strings) == 0 && job.StringsURL != "" {
		strs, err := h.fetch.strings(ctx, job.StringsURL, h.cfg.MaxLineBytes, h.cfg.MaxStringsBytes)
		if err != nil {
			var ne *ndjsonError
			switch {
			case errors.As(err, &ne):
				return fail(http.StatusUnprocessableEntity, err, "The strings file (stringsUrl) is not valid newline-delimited JSON: %v", ne)
			case errors.Is(err, errTooLarge):
				return fail(http.StatusUnprocessableEntity, err, "The strings file (stringsUrl) is larger than the %s limit.", humanBytes(h.cfg.MaxStringsBytes))
			case errors.Is(err, errNoStrings):
				return fail(http.StatusBadGateway, err, "The strings file (stringsUrl) is empty; no strings were imported.")
			case errors.Is(err, errUnframed):
				return fail(http.StatusBadGateway, err, "The strings file (stringsUrl) could not be downloaded completely.")
			}
			return h.fetchFailure(ctx, "strings file", err)
		}
		job.Strings = strs
	}
	if job.Strings == nil {
		job.Strings = []String{}
	}
	switch {
	case job.File.ContentURL != "":
		data, err := h.fetch.fetchAll(ctx, "contentUrl", job.File.ContentURL, h.cfg.MaxFileBytes)
		if err != nil {
			if errors.Is(err, errTooLarge) {
				return fail(http.StatusUnprocessableEntity, err, "The file is larger than the %s limit.", humanBytes(h.cfg.MaxFileBytes))
			}
			return h.fetchFailure(ctx, "file", err)
		}
		job.File.Data = data
	case job.File.Content != "":
		data, err := decodeBase64(job.File.Content)
		if err != nil {
			return fail(http.StatusUnprocessableEntity, err, "The file content is not valid base64: %v", err)
		}
		job.File.Data = data
	}
	return nil
}

// fetchFailure shows a generic message: the user sees neither resolver
// addresses nor whether a connection was refused or timed out (which would
// make the app a port scanner); the details go to the log.
func (h *Handler) fetchFailure(ctx context.Context, what string, err error) *failure {
	if ctx.Err() != nil {
		return fail(http.StatusGatewayTimeout, err, "The %s could not be downloaded before the app's time ran out.", what)
	}
	return fail(http.StatusBadGateway, err, "The %s could not be downloaded.", what)
}

// decodeBase64 accepts standard base64 with or without padding, and line
// breaks (MIME style).
func decodeBase64(s string) ([]byte, error) {
	s = strings.Map(func(r rune) rune {
		if r == '\n' || r == '\r' || r == ' ' || r == '\t' {
			return -1
		}
		return r
	}, s)
	if b, err := base64.StdEncoding.DecodeString(s); err == nil {
		return b, nil
	}
	b, err := base64.RawStdEncoding.DecodeString(strings.TrimRight(s, "="))
	if err != nil {
		return nil, err
	}
	return b, nil
}

type runResult struct {
	strs []String
	err  error
}

// run calls the processor and waits for it or for the deadline. A
// processor that ignores its context is abandoned: its result is dropped.
func (h *Handler) run(ctx context.Context, job *Job, takeRelease func() func()) ([]String, *failure) {
	done := make(chan runResult, 1)
	var mu sync.Mutex
	var finished bool
	var release func() // set when the processor is abandoned
	go func() {
		defer func() {
			mu.Lock()
			finished = true
			rel := release
			mu.Unlock()
			if rel != nil {
				rel()
			}
		}()
		defer func() {
			if p := recover(); p != nil {
				h.cfg.Logger.Error("post-import processor panicked", "panic", p, "stack", string(debug.Stack()))
				done <- runResult{err: fmt.Errorf("processor panicked: %v", p)}
			}
		}()
		strs, err := h.proc.Process(ctx, job)
		done <- runResult{strs: strs, err: err}
	}()
	var res runResult
	select {
	case res = <-done:
	case <-ctx.Done():
		res = runResult{err: ctx.Err()}
		mu.Lock()
		if !finished {
			release = takeRelease()
		}
		mu.Unlock()
	}
	switch {
	case res.err == nil && res.strs == nil:
		return nil, fail(http.StatusInternalServerError, errNilStrings, "The app returned no strings.")
	case res.err == nil:
		return res.strs, nil
	case errors.Is(res.err, ErrNotModified):
		return nil, &failure{status: http.StatusNotModified}
	}
	var ue *UserError
	switch {
	case errors.As(res.err, &ue):
		return nil, fail(http.StatusUnprocessableEntity, res.err, "%s", ue.Error())
	case errors.Is(res.err, context.DeadlineExceeded) && ctx.Err() != nil:
		return nil, fail(http.StatusGatewayTimeout, res.err, "The app did not finish processing the file within %s.", h.cfg.Deadline)
	case errors.Is(res.err, context.Canceled) && ctx.Err() != nil:
		return nil, fail(http.StatusServiceUnavailable, res.err, "The import request was cancelled.")
	case h.cfg.ExposeErrors:
		return nil, fail(http.StatusInternalServerError, res.err, "%v", res.err)
	default:
		return nil, fail(http.StatusInternalServerError, res.err, "The app failed to process the file.")
	}
}

// encode builds the answer, inline or through the store.
func (h *Handler) encode(r *http.Request, strs []String, untouched []bool) ([]byte, *failure) {
	var buf bytes.Buffer
	buf.WriteString(`{"data":{"strings":[`)
	for i, s := range strs {
		if i > 0 {
			buf.WriteByte(',')
		}
		b, err := marshalKnown(&s, i, untouched)
		if err != nil {
			return nil, fail(http.StatusInternalServerError, err, "The app produced a string that cannot be encoded: string %d: %v", i+1, err)
		}
		buf.Write(b)
		if int64(buf.Len()) > h.cfg.MaxInlineResponseBytes {
			buf = bytes.Buffer{}
			return h.encodeStored(r, strs, untouched)
		}
	}
	buf.WriteString(`]}}`)
	if int64(buf.Len()) > h.cfg.MaxInlineResponseBytes {
		return h.encodeStored(r, strs, untouched)
	}
	return buf.Bytes(), nil
}

func (h *Handler) encodeStored(r *http.Request, strs []String, untouched []bool) ([]byte, *failure) {
	sctx, cancel := context.WithTimeout(context.WithoutCancel(r.Context()), h.cfg.StoreTimeout)
	defer cancel()
	var u string
	if h.results != nil {
		id, err := h.results.put(func(w io.Writer) error { return encodeNDJSON(w, strs, untouched) })
		if err != nil {
			return nil, fail(http.StatusInternalServerError, err, "The result could not be stored for download.")
		}
		u = h.resultURL(r, id)
	} else {
		var nd bytes.Buffer
		if err := encodeNDJSON(&nd, strs, untouched); err != nil {
			return nil, fail(http.StatusInternalServerError, err, "The app produced a string that cannot be encoded: %v", err)
		}
		var err error
		if u, err = h.cfg.Store.Put(sctx, nd.Bytes()); err != nil {
			return nil, fail(http.StatusInternalServerError, err, "The result could not be stored for download.")
		}
	}
	b, err := marshalPlain(map[string]map[string]string{"data": {"stringsUrl": u}})
	if err != nil {
		return nil, fail(http.StatusInternalServerError, err, "The answer could not be encoded.")
	}
	return b, nil
}

// resultURL is the download address of a result of the default store: the
// module's public URL with ?result=<id>.
func (h *Handler) resultURL(r *http.Request, id string) string {
	base := h.cfg.PublicURL
	if base == "" {
		scheme := "http"
		if r.TLS != nil || strings.EqualFold(r.Header.Get("X-Forwarded-Proto"), "https") {
			scheme = "https"
		}
		base = (&url.URL{Scheme: scheme, Host: r.Host, Path: r.URL.Path}).String()
	}
	return base + "?result=" + url.QueryEscape(id)
}

func (h *Handler) writeFailure(w http.ResponseWriter, r *http.Request, f *failure) {
	level := slog.LevelWarn
	if f.status >= 500 {
		level = slog.LevelError
	}
	h.cfg.Logger.Log(r.Context(), level, "post-import job failed", "status", f.status, "message", f.message, "error", f.cause)
	status := h.cfg.ErrorStatus
	if f.transport || h.cfg.ErrorStatusPerCause {
		status = f.status
	}
	b, err := marshalPlain(Response{Error: &ResponseError{Message: f.message}})
	if err != nil {
		b = []byte(`{"error":{"message":"internal error"}}`)
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(b)))
	w.WriteHeader(status)
	_, _ = w.Write(b)
}

func humanBytes(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1_000_000:
		return fmt.Sprintf("%.2f MB", float64(n)/1e6)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	default:
		return fmt.Sprintf("%d bytes", n)
	}
}
