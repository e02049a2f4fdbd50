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
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// identity returns the job's strings unchanged.
var identity = ProcessorFunc(func(ctx context.Context, job *Job) ([]String, error) { return job.Strings, nil })

func quietLogger() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// testConfig allows fetching from httptest servers on 127.0.0.1.
func testConfig() Config {
	return Config{HTTPClient: &http.Client{}, Logger: quietLogger(), ErrorStatusPerCause: true}
}

func newHandler(t *testing.T, p Processor, cfg Config) http.Handler {
	t.Helper()
	h, err := NewHandler(p, cfg)
	require.NoError(t, err)
	return h
}

// jobJSON builds a request body around the given raw strings array.
func jobJSON(t *testing.T, mutate func(m map[string]any)) []byte {
	t.Helper()
	en, targets := langs()
	m := map[string]any{
		"jobType":         JobType,
		"organization":    map[string]any{"id": 1, "domain": "acme", "baseUrl": "https://acme.example", "apiBaseUrl": "https://acme.api.example"},
		"project":         map[string]any{"id": 7, "identifier": "demo", "name": "Demo"},
		"file":            map[string]any{"id": 3, "name": "strings.json", "content": base64.StdEncoding.EncodeToString([]byte(`{"hello":"world"}`))},
		"sourceLanguage":  en,
		"targetLanguages": targets,
		"strings":         json.RawMessage(`[` + strings.Join(wireStringsForJob, ",") + `]`),
	}
	if mutate != nil {
		mutate(m)
	}
	// Encode as a platform would, without HTML escaping (json.Marshal
	// would rewrite "<" inside the raw strings as "\u003c").
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	require.NoError(t, enc.Encode(m))
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}

// wireStringsForJob are wire strings valid against langs().
var wireStringsForJob = []string{
	wireStrings[0],
	wireStrings[1],
	wireStrings[2],
	`{"uniqId":"a1b2::4","identifier":"plain","text":"Plain","labels":null,"unknown":{"deep":[1,2,{"x":"<&>"}]}}`,
}

type answered struct {
	status int
	header http.Header
	raw    []byte
	resp   Response
}

func post(t *testing.T, h http.Handler, body []byte) answered {
	t.Helper()
	r := httptest.NewRequest(http.MethodPost, "/post-import", bytes.NewReader(body))
	r.Header.Set("Content-Type", "application/json")
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	a := answered{status: w.Code, header: w.Header(), raw: w.Body.Bytes()}
	if len(a.raw) > 0 {
		require.NoError(t, json.Unmarshal(a.raw, &a.resp), string(a.raw))
	}
	return a
}

func requireError(t *testing.T, a answered, status int, contains ...string) {
	t.Helper()
	assert.Equal(t, status, a.status, string(a.raw))
	require.NotNil(t, a.resp.Error, string(a.raw))
	assert.Nil(t, a.resp.Data)
	for _, c := range contains {
		assert.Contains(t, a.resp.Error.Message, c)
	}
}

// TestRoundTripIsByteIdentical is acceptance item 3: strings returned
// unchanged come back byte for byte (up to insignificant whitespace).
func TestRoundTripIsByteIdentical(t *testing.T) {
	h := newHandler(t, identity, testConfig())
	a := post(t, h, jobJSON(t, nil))
	require.Equal(t, http.StatusOK, a.status, string(a.raw))
	assert.Equal(t, "application/json", a.header.Get("Content-Type"))

	var body struct {
		Data struct {
			Strings []json.RawMessage `json:"strings"`
		} `json:"data"`
	}
	require.NoError(t, json.Unmarshal(a.raw, &body))
	require.Len(t, body.Data.Strings, len(wireStringsForJob))
	for i, w := range wireStringsForJob {
		assert.Equal(t, compactString(t, w), string(body.Data.Strings[i]))
	}
	// The whole answer is exactly the envelope around the compacted input.
	compacted := make([]string, len(wireStringsForJob))
	for i, w := range wireStringsForJob {
		compacted[i] = compactString(t, w)
	}
	assert.Equal(t, `{"data":{"strings":[`+strings.Join(compacted, ",")+`]}}`, string(a.raw))
}

func TestProcessorSeesTheJob(t *testing.T) {
	var got *Job
	h := newHandler(t, ProcessorFunc(func(ctx context.Context, job *Job) ([]String, error) {
		got = job
		_, hasDeadline := ctx.Deadline()
		assert.True(t, hasDeadline)
		return job.Strings, nil
	}), testConfig())
	a := post(t, h, jobJSON(t, nil))
	require.Equal(t, http.StatusOK, a.status, string(a.raw))
	require.NotNil(t, got)
	assert.Equal(t, int64(7), got.Project.ID)
	assert.Equal(t, "acme", got.Organization.Domain)
	assert.Equal(t, "strings.json", got.File.Name)
	assert.Equal(t, `{"hello":"world"}`, string(got.File.Data))
	assert.Equal(t, []string{"one", "few", "many", "other"}, got.TargetLanguages[1].PluralCategoryNames)
	require.Len(t, got.Strings, 4)
	assert.Equal(t, "welcome", got.Strings[0].Identifier)
}

func TestEditedStringsAreAnswered(t *testing.T) {
	h := newHandler(t, ProcessorFunc(func(ctx context.Context, job *Job) ([]String, error) {
		out := job.Strings[:0:0]
		for _, s := range job.Strings {
			if s.Identifier == "bye" {
				continue // removed
			}
			if !s.HasPlurals {
				s.Text.Plain = strings.ToUpper(s.Text.Plain)
			}
			out = append(out, s)
		}
		out = append(out, String{UniqID: "new::1", Identifier: "added", Text: PlainText("Added")})
		return out, nil
	}), testConfig())
	a := post(t, h, jobJSON(t, nil))
	require.Equal(t, http.StatusOK, a.status, string(a.raw))
	require.NotNil(t, a.resp.Data)
	got := a.resp.Data.Strings
	require.Len(t, got, 4)
	assert.Equal(t, "WELCOME <B>HOME</B> & ÉTÉ", got[0].Text.Plain)
	assert.Equal(t, "items", got[1].Identifier)
	assert.Equal(t, "PLAIN", got[2].Text.Plain)
	assert.Equal(t, "added", got[3].Identifier)
	assert.Contains(t, string(a.raw), `"unknown":{"deep":[1,2,{"x":"<&>"}]}`, "unknown members of an edited string pass through")
}

func TestRejectsNonPost(t *testing.T) {
	h := newHandler(t, identity, testConfig())
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/post-import", nil))
	assert.Equal(t, http.StatusMethodNotAllowed, w.Code)
	assert.Equal(t, http.MethodPost, w.Header().Get("Allow"))
	assert.Contains(t, w.Body.String(), `"error":{"message":"The post-import module accepts POST requests only."}`)
}

func TestOversizeRequest(t *testing.T) {
	var called atomic.Bool
	h := newHandler(t, ProcessorFunc(func(ctx context.Context, job *Job) ([]String, error) {
		called.Store(true)
		return job.Strings, nil
	}), testConfig())
	big := jobJSON(t, func(m map[string]any) {
		m["padding"] = strings.Repeat("x", MaxRequestBytes)
	})
	require.Greater(t, len(big), MaxRequestBytes)

	t.Run("with Content-Length", func(t *testing.T) {
		a := post(t, h, big)
		requireError(t, a, http.StatusRequestEntityTooLarge, "larger than the 5 MiB limit")
	})
	t.Run("streamed without Content-Length", func(t *testing.T) {
		r := httptest.NewRequest(http.MethodPost, "/post-import", io.MultiReader(bytes.NewReader(big)))
		r.ContentLength = -1
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		assert.Equal(t, http.StatusRequestEntityTooLarge, w.Code)
		assert.Contains(t, w.Body.String(), "larger than the 5 MiB limit")
	})
	t.Run("exactly at the limit is read", func(t *testing.T) {
		body := jobJSON(t, nil)
		body = append(body, bytes.Repeat([]byte(" "), MaxRequestBytes-len(body))...)
		require.Len(t, body, MaxRequestBytes)
		a := post(t, h, body)
		assert.Equal(t, http.StatusOK, a.status)
	})
	assert.True(t, called.Load())
}

func TestInvalidJSON(t *testing.T) {
	h := newHandler(t, identity, testConfig())
	for _, body := range []string{``, `{`, `{"jobType":}`, `not json`, `{"jobType":"file-post-import"} trailing`} {
		a := post(t, h, []byte(body))
		requireError(t, a, http.StatusBadRequest, "not valid JSON")
	}
	a := post(t, h, []byte(`{"jobType":"file-post-import","strings":{"a":1}}`))
	requireError(t, a, http.StatusBadRequest, "does not have the post-import job format")
	a = post(t, h, []byte(`{"jobType":"file-post-import","strings":[{"uniqId":"a","maxLength":"ten"}]}`))
	requireError(t, a, http.StatusBadRequest, "maxLength")
}

func TestInvalidBase64(t *testing.T) {
	h := newHandler(t, identity, testConfig())
	a := post(t, h, jobJSON(t, func(m map[string]any) {
		m["file"] = map[string]any{"id": 1, "name": "f", "content": "not*base64!"}
	}))
	requireError(t, a, http.StatusUnprocessableEntity, "not valid base64")
}

func TestBase64Variants(t *testing.T) {
	var data []byte
	h := newHandler(t, ProcessorFunc(func(ctx context.Context, job *Job) ([]String, error) {
		data = job.File.Data
		return job.Strings, nil
	}), testConfig())
	want := []byte("hello, world?")
	for _, enc := range []string{
		base64.StdEncoding.EncodeToString(want),
		base64.RawStdEncoding.EncodeToString(want),
		"aGVsbG8s\r\nIHdvcmxk\nPw==",
	} {
		a := post(t, h, jobJSON(t, func(m map[string]any) { m["file"] = map[string]any{"name": "f", "content": enc} }))
		require.Equal(t, http.StatusOK, a.status, string(a.raw))
		assert.Equal(t, want, data, enc)
	}
}

// storage is an httptest server standing in for the platform's file storage.
type storage struct {
	srv  *httptest.Server
	mux  *http.ServeMux
	hits atomic.Int32
}

func newStorage(t *testing.T) *storage {
	s := &storage{mux: http.NewServeMux()}
	s.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.hits.Add(1)
		s.mux.ServeHTTP(w, r)
	}))
	t.Cleanup(s.srv.Close)
	return s
}

func (s *storage) serve(path, body string) string {
	s.mux.HandleFunc(path, func(w http.ResponseWriter, r *http.Request) { _, _ = io.WriteString(w, body) })
	return s.srv.URL + path
}

func TestContentURL(t *testing.T) {
	st := newStorage(t)
	fileURL := st.serve("/files/1", "FROM URL")
	var data string
	h := newHandler(t, ProcessorFunc(func(ctx context.Context, job *Job) ([]String, error) {
		data = string(job.File.Data)
		return job.Strings, nil
	}), testConfig())

	a := post(t, h, jobJSON(t, func(m map[string]any) {
		m["file"] = map[string]any{"name": "f", "contentUrl": fileURL, "content": base64.StdEncoding.EncodeToString([]byte("INLINE"))}
	}))
	require.Equal(t, http.StatusOK, a.status, string(a.raw))
	assert.Equal(t, "FROM URL", data, "contentUrl wins over content")
}

func TestUnreachableContentURL(t *testing.T) {
	dead := httptest.NewServer(http.NotFoundHandler())
	deadURL := dead.URL + "/file?signature=SECRET"
	dead.Close()
	st := newStorage(t)
	st.mux.HandleFunc("/missing", http.NotFound)

	cfg, logs := logConfig()
	h := newHandler(t, identity, cfg)
	a := post(t, h, jobJSON(t, func(m map[string]any) { m["file"] = map[string]any{"name": "f", "contentUrl": deadURL} }))
	requireError(t, a, http.StatusBadGateway, "The file could not be downloaded.")
	assert.Contains(t, logs.String(), "contentUrl", "details go to the log")
	assert.NotContains(t, logs.String(), "SECRET", "signed URLs are redacted, in the log too")

	a = post(t, h, jobJSON(t, func(m map[string]any) {
		m["file"] = map[string]any{"name": "f", "contentUrl": st.srv.URL + "/missing?sig=SECRET"}
	}))
	requireError(t, a, http.StatusBadGateway, "The file could not be downloaded.")
	assert.Contains(t, logs.String(), "answered HTTP 404")
	assert.NotContains(t, logs.String(), "SECRET")

	for _, bad := range []string{"file:///etc/passwd", "ftp://example.com/x", "/relative", "gopher://x"} {
		a = post(t, h, jobJSON(t, func(m map[string]any) { m["file"] = map[string]any{"name": "f", "contentUrl": bad} }))
		requireError(t, a, http.StatusBadGateway, "The file could not be downloaded.")
		assert.Contains(t, logs.String(), "only absolute http(s) URLs")
	}
}

// logConfig is testConfig with the log captured.
func logConfig() (Config, *syncBuffer) {
	var buf syncBuffer
	cfg := testConfig()
	cfg.Logger = slog.New(slog.NewTextHandler(&buf, nil))
	return cfg, &buf
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func TestContentURLTooLarge(t *testing.T) {
	st := newStorage(t)
	u := st.serve("/big", strings.Repeat("x", 2048))
	cfg := testConfig()
	cfg.MaxFileBytes = 1024
	h := newHandler(t, identity, cfg)
	a := post(t, h, jobJSON(t, func(m map[string]any) { m["file"] = map[string]any{"name": "f", "contentUrl": u} }))
	requireError(t, a, http.StatusUnprocessableEntity, "The file is larger than the 1 KiB limit")
}

func TestContentURLSlowFetchTimesOut(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	st := newStorage(t)
	st.mux.HandleFunc("/slow", func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	})
	cfg := testConfig()
	cfg.FetchTimeout = 50 * time.Millisecond
	h := newHandler(t, identity, cfg)
	a := post(t, h, jobJSON(t, func(m map[string]any) { m["file"] = map[string]any{"name": "f", "contentUrl": st.srv.URL + "/slow"} }))
	requireError(t, a, http.StatusBadGateway, "could not be downloaded")
}

func TestGuardedClientRefusesInternalAddresses(t *testing.T) {
	st := newStorage(t)
	u := st.serve("/file", "secret internal data")
	cfg, logs := logConfig()
	cfg.HTTPClient = nil // the default, guarded client
	h := newHandler(t, identity, cfg)
	a := post(t, h, jobJSON(t, func(m map[string]any) { m["file"] = map[string]any{"name": "f", "contentUrl": u} }))
	requireError(t, a, http.StatusBadGateway, "The file could not be downloaded.")
	assert.Contains(t, logs.String(), "non-public address")
	assert.Equal(t, int32(0), st.hits.Load())

	a = post(t, h, jobJSON(t, func(m map[string]any) { delete(m, "strings"); m["stringsUrl"] = u }))
	requireError(t, a, http.StatusBadGateway, "The strings file could not be downloaded.")
	assert.Equal(t, int32(0), st.hits.Load())
}

func TestAllowURLHook(t *testing.T) {
	st := newStorage(t)
	u := st.serve("/file", "data")
	cfg, logs := logConfig()
	cfg.AllowURL = func(u *url.URL) error {
		if u.Host != "storage.platform.example" {
			return errors.New("not the platform's storage")
		}
		return nil
	}
	h := newHandler(t, identity, cfg)
	a := post(t, h, jobJSON(t, func(m map[string]any) { m["file"] = map[string]any{"name": "f", "contentUrl": u} }))
	requireError(t, a, http.StatusBadGateway, "The file could not be downloaded.")
	assert.Contains(t, logs.String(), "not the platform's storage")
	assert.Equal(t, int32(0), st.hits.Load())
}

func TestPublicAddr(t *testing.T) {
	for _, tc := range []struct {
		addr string
		ok   bool
	}{
		{"8.8.8.8", true}, {"2001:4860:4860::8888", true},
		{"127.0.0.1", false}, {"10.1.2.3", false}, {"192.168.0.1", false}, {"172.16.5.4", false},
		{"169.254.169.254", false}, {"100.64.0.1", false}, {"0.0.0.0", false}, {"::1", false},
		{"fe80::1", false}, {"fc00::1", false}, {"::ffff:127.0.0.1", false}, {"224.0.0.1", false},
	} {
		addr, err := netip.ParseAddr(tc.addr)
		require.NoError(t, err)
		assert.Equal(t, tc.ok, publicAddr(addr), tc.addr)
	}
}

func ndjson(lines ...string) string { return strings.Join(lines, "\n") + "\n" }

func TestStringsURL(t *testing.T) {
	st := newStorage(t)
	u := st.serve("/strings", "\r\n"+wireStringsForJob[0]+"\r\n\n"+compactString(t, wireStringsForJob[1])+"\n"+wireStringsForJob[3])
	var n int
	h := newHandler(t, ProcessorFunc(func(ctx context.Context, job *Job) ([]String, error) {
		n = len(job.Strings)
		return job.Strings, nil
	}), testConfig())
	a := post(t, h, jobJSON(t, func(m map[string]any) { delete(m, "strings"); m["stringsUrl"] = u }))
	require.Equal(t, http.StatusOK, a.status, string(a.raw))
	assert.Equal(t, 3, n, "blank lines and CRLF are accepted")
	assert.Contains(t, string(a.raw), compactString(t, wireStringsForJob[3]))

	// Inline strings win when the job carries some: stringsUrl is not
	// fetched at all.
	hits := st.hits.Load()
	a = post(t, h, jobJSON(t, func(m map[string]any) { m["stringsUrl"] = u }))
	require.Equal(t, http.StatusOK, a.status, string(a.raw))
	assert.Equal(t, 4, n)
	assert.Equal(t, hits, st.hits.Load())
	// An empty inline array does not stand for "no strings" when a URL is
	// given.
	a = post(t, h, jobJSON(t, func(m map[string]any) { m["strings"] = []any{}; m["stringsUrl"] = u }))
	require.Equal(t, http.StatusOK, a.status, string(a.raw))
	assert.Equal(t, 3, n)
}

func TestStringsURLBadLine(t *testing.T) {
	st := newStorage(t)
	u := st.serve("/strings", ndjson(wireStringsForJob[0], wireStringsForJob[3], `{"uniqId":"x", oops}`, wireStringsForJob[2]))
	h := newHandler(t, identity, testConfig())
	a := post(t, h, jobJSON(t, func(m map[string]any) { delete(m, "strings"); m["stringsUrl"] = u }))
	requireError(t, a, http.StatusUnprocessableEntity, "not valid newline-delimited JSON", "line 3")

	u = st.serve("/strings2", ndjson(wireStringsForJob[0], `["not an object"]`))
	a = post(t, h, jobJSON(t, func(m map[string]any) { delete(m, "strings"); m["stringsUrl"] = u }))
	requireError(t, a, http.StatusUnprocessableEntity, "line 2")
}

func TestStringsURLBounds(t *testing.T) {
	st := newStorage(t)
	long := fmt.Sprintf(`{"uniqId":"l::1","identifier":"l","text":%q}`, strings.Repeat("y", 4000))
	u := st.serve("/long", ndjson(wireStringsForJob[0], long))
	cfg := testConfig()
	cfg.MaxLineBytes = 1024
	h := newHandler(t, identity, cfg)
	a := post(t, h, jobJSON(t, func(m map[string]any) { delete(m, "strings"); m["stringsUrl"] = u }))
	requireError(t, a, http.StatusUnprocessableEntity, "line 2", "longer than 1024 bytes")

	many := make([]string, 100)
	for i := range many {
		many[i] = fmt.Sprintf(`{"uniqId":"m::%d","identifier":"m%d","text":"t"}`, i, i)
	}
	u = st.serve("/many", ndjson(many...))
	cfg = testConfig()
	cfg.MaxStringsBytes = 2048
	h = newHandler(t, identity, cfg)
	a = post(t, h, jobJSON(t, func(m map[string]any) { delete(m, "strings"); m["stringsUrl"] = u }))
	requireError(t, a, http.StatusUnprocessableEntity, "larger than the 2 KiB limit")
}

func TestPluralMismatchInTheAppsResult(t *testing.T) {
	h := newHandler(t, ProcessorFunc(func(ctx context.Context, job *Job) ([]String, error) {
		s := job.Strings[1] // the plural string
		s.Text = PluralText(map[string]string{"few": "few is not English", "other": "x"})
		uk := s.Translations["uk"]
		uk.Text = PluralText(map[string]string{"one": "a", "two": "b"})
		s.Translations["uk"] = uk
		return []String{s}, nil
	}), testConfig())
	a := post(t, h, jobJSON(t, nil))
	requireError(t, a, http.StatusInternalServerError,
		"The app produced invalid strings",
		`text has plural forms [few] that language "en" does not have (its categories: [one other])`,
		`translations["uk"].text has plural forms [two] that language "uk" does not have (its categories: [one few many other])`)
}

func TestDuplicateUniqIDInTheAppsResult(t *testing.T) {
	h := newHandler(t, ProcessorFunc(func(ctx context.Context, job *Job) ([]String, error) {
		return append(job.Strings, job.Strings[0]), nil
	}), testConfig())
	a := post(t, h, jobJSON(t, nil))
	requireError(t, a, http.StatusInternalServerError, "uniqId repeats string 1")
}

func TestSlowAppHitsTheDeadline(t *testing.T) {
	t.Run("app honouring its context", func(t *testing.T) {
		cfg := testConfig()
		cfg.Deadline = 50 * time.Millisecond
		h := newHandler(t, ProcessorFunc(func(ctx context.Context, job *Job) ([]String, error) {
			<-ctx.Done()
			return nil, ctx.Err()
		}), cfg)
		a := post(t, h, jobJSON(t, nil))
		requireError(t, a, http.StatusGatewayTimeout, "did not finish processing the file within 50ms")
	})
	t.Run("app ignoring its context is abandoned", func(t *testing.T) {
		release := make(chan struct{})
		defer close(release)
		cfg := testConfig()
		cfg.Deadline = 50 * time.Millisecond
		h := newHandler(t, ProcessorFunc(func(ctx context.Context, job *Job) ([]String, error) {
			<-release
			return job.Strings, nil
		}), cfg)
		a := post(t, h, jobJSON(t, nil))
		requireError(t, a, http.StatusGatewayTimeout, "did not finish")
	})
	t.Run("default deadline ends before the platform stops waiting", func(t *testing.T) {
		var deadline time.Time
		h := newHandler(t, ProcessorFunc(func(ctx context.Context, job *Job) ([]String, error) {
			deadline, _ = ctx.Deadline()
			return job.Strings, nil
		}), testConfig())
		before := time.Now()
		a := post(t, h, jobJSON(t, nil))
		after := time.Now()
		require.Equal(t, http.StatusOK, a.status)
		assert.False(t, deadline.Before(before.Add(DefaultDeadline)), deadline)
		assert.False(t, deadline.After(after.Add(DefaultDeadline)), deadline)
		assert.Less(t, DefaultDeadline, PlatformWait)
	})
}

// bigStrings makes strings whose encoding exceeds 6 MB.
func bigStrings() []String {
	out := make([]String, 0, 700)
	text := strings.Repeat("lorem ipsum ", 800) // ~9.6 KB
	for i := range 700 {
		out = append(out, String{UniqID: fmt.Sprintf("big::%d", i), Identifier: fmt.Sprintf("k%d", i), Text: PlainText(text)})
	}
	return out
}

func TestLargeAnswerGoesOutAsURL(t *testing.T) {
	storeMux := http.NewServeMux()
	storeSrv := httptest.NewServer(storeMux)
	defer storeSrv.Close()
	store := NewMemoryStore(storeSrv.URL+"/results", MemoryStoreOptions{})
	storeMux.Handle("/results/", store)

	want := bigStrings()
	cfg := testConfig()
	cfg.Store = store
	h := newHandler(t, ProcessorFunc(func(ctx context.Context, job *Job) ([]String, error) { return want, nil }), cfg)
	a := post(t, h, jobJSON(t, nil))
	require.Equal(t, http.StatusOK, a.status, string(a.raw))
	require.NotNil(t, a.resp.Data)
	assert.Empty(t, a.resp.Data.Strings)
	require.True(t, strings.HasPrefix(a.resp.Data.StringsURL, storeSrv.URL+"/results/"), a.resp.Data.StringsURL)
	assert.Less(t, len(a.raw), 1000)

	// The platform downloads the NDJSON.
	resp, err := http.Get(a.resp.Data.StringsURL)
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Equal(t, "application/x-ndjson", resp.Header.Get("Content-Type"))
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	assert.Greater(t, len(body), 6_000_000)
	got, err := DecodeNDJSON(bytes.NewReader(body), 0, 0)
	require.NoError(t, err)
	require.Len(t, got, len(want))
	for i := range want {
		assert.Equal(t, want[i].UniqID, got[i].UniqID)
		assert.Equal(t, want[i].Text, got[i].Text)
	}
}

// Without a Store, a large answer goes to the default store: a temporary
// file the handler serves on its own URL.
func TestLargeAnswerWithoutStore(t *testing.T) {
	want := bigStrings()
	h, err := NewHandler(ProcessorFunc(func(ctx context.Context, job *Job) ([]String, error) { return want, nil }), testConfig())
	require.NoError(t, err)
	t.Cleanup(func() { _ = h.Close() })
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	resp, err := http.Post(srv.URL+"/post-import", "application/json", bytes.NewReader(jobJSON(t, nil)))
	require.NoError(t, err)
	var r Response
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&r))
	resp.Body.Close()
	require.NotNil(t, r.Data)
	require.True(t, strings.HasPrefix(r.Data.StringsURL, srv.URL+"/post-import?result="), r.Data.StringsURL)
	resp, err = http.Get(r.Data.StringsURL)
	require.NoError(t, err)
	defer resp.Body.Close()
	assert.Equal(t, "application/x-ndjson", resp.Header.Get("Content-Type"))
	got, err := DecodeNDJSON(resp.Body, 0, 0)
	require.NoError(t, err)
	require.Len(t, got, len(want))
	assert.Equal(t, want[len(want)-1].Text, got[len(got)-1].Text)
}

func TestStoreFailure(t *testing.T) {
	cfg := testConfig()
	cfg.MaxInlineResponseBytes = 100
	cfg.Store = StoreFunc(func(ctx context.Context, b []byte) (string, error) { return "", errors.New("bucket down") })
	h := newHandler(t, identity, cfg)
	a := post(t, h, jobJSON(t, nil))
	requireError(t, a, http.StatusInternalServerError, "could not be stored")
}

func TestInlineThresholdIsConfigurable(t *testing.T) {
	var stored []byte
	cfg := testConfig()
	cfg.MaxInlineResponseBytes = 200
	cfg.Store = StoreFunc(func(ctx context.Context, b []byte) (string, error) {
		stored = b
		return "https://files.example/r1", nil
	})
	h := newHandler(t, identity, cfg)
	a := post(t, h, jobJSON(t, nil))
	require.Equal(t, http.StatusOK, a.status)
	assert.Equal(t, `{"data":{"stringsUrl":"https://files.example/r1"}}`, string(a.raw))
	lines := strings.Split(strings.TrimSuffix(string(stored), "\n"), "\n")
	require.Len(t, lines, len(wireStringsForJob))
	for i, w := range wireStringsForJob {
		assert.Equal(t, compactString(t, w), lines[i], "NDJSON lines are the untouched strings, byte for byte")
	}
}

func TestAppOutcomes(t *testing.T) {
	tests := []struct {
		name    string
		proc    ProcessorFunc
		expose  bool
		status  int
		message string
	}{
		{"user error", func(ctx context.Context, job *Job) ([]String, error) {
			return nil, Errorf("the file has %d unsupported sections", 2)
		}, false, http.StatusUnprocessableEntity, "the file has 2 unsupported sections"},
		{"wrapped user error", func(ctx context.Context, job *Job) ([]String, error) {
			return nil, fmt.Errorf("parse: %w", &UserError{Message: "Line 4 is not valid"})
		}, false, http.StatusUnprocessableEntity, "Line 4 is not valid"},
		{"internal error is hidden", func(ctx context.Context, job *Job) ([]String, error) {
			return nil, errors.New("db password wrong at 10.0.0.3")
		}, false, http.StatusInternalServerError, "The app failed to process the file."},
		{"internal error exposed", func(ctx context.Context, job *Job) ([]String, error) {
			return nil, errors.New("db unreachable")
		}, true, http.StatusInternalServerError, "db unreachable"},
		{"panic", func(ctx context.Context, job *Job) ([]String, error) {
			panic("the app has a bug")
		}, false, http.StatusInternalServerError, "The app failed to process the file."},
		{"nil strings", func(ctx context.Context, job *Job) ([]String, error) { return nil, nil },
			false, http.StatusInternalServerError, "The app returned no strings."},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg := testConfig()
			cfg.ExposeErrors = tc.expose
			a := post(t, newHandler(t, tc.proc, cfg), jobJSON(t, nil))
			requireError(t, a, tc.status)
			assert.Equal(t, tc.message, a.resp.Error.Message)
		})
	}
}

func TestNotModifiedAndEmptyResult(t *testing.T) {
	a := post(t, newHandler(t, ProcessorFunc(func(ctx context.Context, job *Job) ([]String, error) {
		return nil, ErrNotModified
	}), testConfig()), jobJSON(t, nil))
	assert.Equal(t, http.StatusNotModified, a.status)
	assert.Empty(t, a.raw)

	a = post(t, newHandler(t, ProcessorFunc(func(ctx context.Context, job *Job) ([]String, error) {
		return []String{}, nil
	}), testConfig()), jobJSON(t, nil))
	assert.Equal(t, http.StatusOK, a.status)
	assert.Equal(t, `{"data":{"strings":[]}}`, string(a.raw))
}

func TestUniformErrorStatus(t *testing.T) {
	cfg := testConfig()
	cfg.ErrorStatusPerCause = false
	cfg.ErrorStatus = http.StatusUnprocessableEntity
	a := post(t, newHandler(t, identity, cfg), []byte(`{`))
	requireError(t, a, http.StatusUnprocessableEntity, "not valid JSON")

	_, err := NewHandler(identity, Config{ErrorStatus: 42})
	assert.Error(t, err)
	_, err = NewHandler(nil, Config{})
	assert.Error(t, err)
}

func TestMissingStringsAndFile(t *testing.T) {
	var job *Job
	h := newHandler(t, ProcessorFunc(func(ctx context.Context, j *Job) ([]String, error) {
		job = j
		return j.Strings, nil
	}), testConfig())
	a := post(t, h, []byte(`{"jobType":"file-post-import","file":{"name":"x"}}`))
	require.Equal(t, http.StatusOK, a.status, string(a.raw))
	assert.NotNil(t, job.Strings)
	assert.Empty(t, job.Strings)
	assert.Nil(t, job.File.Data)
	assert.Equal(t, `{"data":{"strings":[]}}`, string(a.raw))
}

func slogText(w io.Writer) *slog.Logger { return slog.New(slog.NewTextHandler(w, nil)) }
