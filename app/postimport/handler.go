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
	"net/http"
	"net/url"
	"runtime/debug"
	"strconv"
	"strings"
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
	// DefaultMaxFileBytes bounds a file fetched from contentUrl.
	DefaultMaxFileBytes = 100 << 20
	// DefaultMaxStringsBytes bounds the NDJSON fetched from stringsUrl.
	DefaultMaxStringsBytes = 100 << 20
	// DefaultMaxLineBytes bounds one NDJSON line (one string object).
	DefaultMaxLineBytes = 8 << 20
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
	// HTTPClient fetches contentUrl and stringsUrl. Default: GuardedClient(),
	// which refuses non-public addresses. A client set here is used as is.
	HTTPClient *http.Client
	// AllowURL, when set, vets every contentUrl and stringsUrl before it is
	// fetched (e.g. to allow only the platform's storage hosts).
	AllowURL func(*url.URL) error
	// Store receives answers larger than MaxInlineResponseBytes. Without
	// one, such answers fail with a message to the user.
	Store Store
	// StoreTimeout bounds Store.Put (default DefaultStoreTimeout).
	StoreTimeout time.Duration
	// Logger receives failures (default slog.Default()).
	Logger *slog.Logger
	// ExposeErrors shows the text of processor errors that are not
	// *UserError to the user instead of a generic message.
	ExposeErrors bool
	// ErrorStatus, when non-zero, is the HTTP status of every error answer
	// (e.g. 200 for a platform that reads bodies of successful answers
	// only). Zero uses a status per cause (400, 405, 413, 422, 500, 502,
	// 504).
	ErrorStatus int
}

// Handler serves the module URL: POST a job, get the answer.
type Handler struct {
	proc  Processor
	cfg   Config
	fetch fetcher
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
	if cfg.HTTPClient == nil {
		cfg.HTTPClient = GuardedClient()
	}
	if cfg.StoreTimeout <= 0 {
		cfg.StoreTimeout = DefaultStoreTimeout
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.ErrorStatus != 0 && (cfg.ErrorStatus < 200 || cfg.ErrorStatus > 599) {
		return nil, fmt.Errorf("postimport: ErrorStatus %d is not an HTTP status", cfg.ErrorStatus)
	}
	return &Handler{
		proc:  p,
		cfg:   cfg,
		fetch: fetcher{client: cfg.HTTPClient, timeout: cfg.FetchTimeout, allow: cfg.AllowURL},
	}, nil
}

// failure is an answer with error.message.
type failure struct {
	status  int
	message string
	cause   error
}

func fail(status int, cause error, format string, args ...any) *failure {
	return &failure{status: status, message: fmt.Sprintf(format, args...), cause: cause}
}

// ServeHTTP handles one job. See the package documentation for the steps.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		h.writeFailure(w, r, fail(http.StatusMethodNotAllowed, nil, "The post-import module accepts POST requests only."))
		return
	}
	ctx, cancel := context.WithDeadline(r.Context(), start.Add(h.cfg.Deadline))
	defer cancel()

	job, f := h.readJob(w, r)
	if f != nil {
		h.writeFailure(w, r, f)
		return
	}
	if f := h.load(ctx, job); f != nil {
		h.writeFailure(w, r, f)
		return
	}
	out, f := h.run(ctx, job)
	if f != nil {
		if f.status == http.StatusNotModified {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		h.writeFailure(w, r, f)
		return
	}
	if err := Validate(job, out); err != nil {
		h.writeFailure(w, r, fail(http.StatusInternalServerError, err, "The app produced invalid strings: %v", err))
		return
	}
	body, f := h.encode(r.Context(), out)
	if f != nil {
		h.writeFailure(w, r, f)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(body)
}

func (h *Handler) readJob(w http.ResponseWriter, r *http.Request) (*Job, *failure) {
	limit := h.cfg.MaxRequestBytes
	tooLarge := func() *failure {
		return fail(http.StatusRequestEntityTooLarge, nil,
			"The import request is larger than the %s limit of the post-import module.", humanBytes(limit))
	}
	if r.ContentLength > limit {
		return nil, tooLarge()
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, limit))
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return nil, tooLarge()
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
	if job.JobType != JobType {
		return nil, fail(http.StatusBadRequest, nil, "The job type %q is not %q.", job.JobType, JobType)
	}
	return job, nil
}

// load fills job.Strings from stringsUrl and job.File.Data from contentUrl
// or content. A URL wins over the inline form when both are present.
func (h *Handler) load(ctx context.Context, job *Job) *failure {
	if job.StringsURL != "" {
		body, cancel, err := h.fetch.get(ctx, "stringsUrl", job.StringsURL)
		if err != nil {
			return h.fetchFailure(ctx, err)
		}
		strs, err := DecodeNDJSON(body, h.cfg.MaxLineBytes, h.cfg.MaxStringsBytes)
		_ = body.Close()
		cancel()
		if err != nil {
			var ne *ndjsonError
			if errors.As(err, &ne) {
				return fail(http.StatusUnprocessableEntity, err, "The strings file (stringsUrl) is not valid newline-delimited JSON: %v", err)
			}
			if errors.Is(err, errTooLarge) {
				return fail(http.StatusUnprocessableEntity, err, "The strings file (stringsUrl) is larger than the %s limit.", humanBytes(h.cfg.MaxStringsBytes))
			}
			return h.fetchFailure(ctx, fmt.Errorf("stringsUrl: %w", err))
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
			return h.fetchFailure(ctx, err)
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

func (h *Handler) fetchFailure(ctx context.Context, err error) *failure {
	if ctx.Err() != nil {
		return fail(http.StatusGatewayTimeout, err, "The file or strings could not be downloaded in time: %v", err)
	}
	return fail(http.StatusBadGateway, err, "The file or strings could not be downloaded: %v", err)
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
func (h *Handler) run(ctx context.Context, job *Job) ([]String, *failure) {
	done := make(chan runResult, 1)
	go func() {
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
func (h *Handler) encode(ctx context.Context, strs []String) ([]byte, *failure) {
	var buf bytes.Buffer
	buf.WriteString(`{"data":{"strings":[`)
	for i, s := range strs {
		if i > 0 {
			buf.WriteByte(',')
		}
		b, err := s.MarshalJSON()
		if err != nil {
			return nil, fail(http.StatusInternalServerError, err, "The app produced a string that cannot be encoded: string %d: %v", i+1, err)
		}
		buf.Write(b)
		if int64(buf.Len()) > h.cfg.MaxInlineResponseBytes {
			return h.encodeStored(ctx, strs)
		}
	}
	buf.WriteString(`]}}`)
	if int64(buf.Len()) > h.cfg.MaxInlineResponseBytes {
		return h.encodeStored(ctx, strs)
	}
	return buf.Bytes(), nil
}

func (h *Handler) encodeStored(ctx context.Context, strs []String) ([]byte, *failure) {
	if h.cfg.Store == nil {
		return nil, fail(http.StatusInternalServerError, nil,
			"The result is larger than %s and the app has no storage configured for large results.", humanBytes(h.cfg.MaxInlineResponseBytes))
	}
	var nd bytes.Buffer
	if err := EncodeNDJSON(&nd, strs); err != nil {
		return nil, fail(http.StatusInternalServerError, err, "The app produced a string that cannot be encoded: %v", err)
	}
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), h.cfg.StoreTimeout)
	defer cancel()
	u, err := h.cfg.Store.Put(sctx, nd.Bytes())
	if err != nil {
		return nil, fail(http.StatusInternalServerError, err, "The result could not be stored for download.")
	}
	b, err := marshalPlain(map[string]map[string]string{"data": {"stringsUrl": u}})
	if err != nil {
		return nil, fail(http.StatusInternalServerError, err, "The answer could not be encoded.")
	}
	return b, nil
}

func (h *Handler) writeFailure(w http.ResponseWriter, r *http.Request, f *failure) {
	level := slog.LevelWarn
	if f.status >= 500 {
		level = slog.LevelError
	}
	h.cfg.Logger.Log(r.Context(), level, "post-import job failed", "status", f.status, "message", f.message, "error", f.cause)
	status := f.status
	if h.cfg.ErrorStatus != 0 {
		status = h.cfg.ErrorStatus
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
