package postimport

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// docsExample is the request payload example of the platform's
// documentation (File Post-Import Processing Module, "Request to the File
// Processing App", with its "strings": [...] filled with the page's
// "Strings Array Structure" example), with the comments removed.
func docsExample(t *testing.T) []byte {
	t.Helper()
	b, err := os.ReadFile("testdata/docs-example-job.json")
	require.NoError(t, err)
	return b
}

// platformHosts is a transport that sends requests for the platform's
// storage hosts of the documentation example to a local server.
type platformHosts struct {
	local *url.URL
	hosts map[string]bool
	hits  atomic.Int32
}

func (p *platformHosts) RoundTrip(r *http.Request) (*http.Response, error) {
	if !p.hosts[r.URL.Host] {
		return nil, fmt.Errorf("unexpected host %s", r.URL.Host)
	}
	p.hits.Add(1)
	r = r.Clone(r.Context())
	r.URL.Scheme, r.URL.Host = p.local.Scheme, p.local.Host
	return http.DefaultTransport.RoundTrip(r)
}

// docsPlatform serves the example's contentUrl and stringsUrl: the file,
// and the example's strings as NDJSON separated by "\n\r", the way the
// platform's SDK writes NDJSON (out/modules/file-processing/handlers/
// pre-post-process.js: strings.map(JSON.stringify).join('\n\r')).
func docsPlatform(t *testing.T, job []byte) (*http.Client, *platformHosts) {
	t.Helper()
	var parsed struct {
		Strings []json.RawMessage `json:"strings"`
	}
	require.NoError(t, json.Unmarshal(job, &parsed))
	lines := make([]string, len(parsed.Strings))
	for i, s := range parsed.Strings {
		lines[i] = compactString(t, string(s))
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /1/file.xml", func(w http.ResponseWriter, r *http.Request) { _, _ = io.WriteString(w, "This is file content") })
	mux.HandleFunc("GET /strings.ndjson", func(w http.ResponseWriter, r *http.Request) { _, _ = io.WriteString(w, strings.Join(lines, "\n\r")) })
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	u, _ := url.Parse(srv.URL)
	ph := &platformHosts{local: u, hosts: map[string]bool{"crowdin-tmp.downloads.crowdin.com": true, "tmp.downloads.crowdin.com": true}}
	return &http.Client{Transport: ph}, ph
}

// Acceptance 1 (issue 15): the documentation's example job, through an
// identity processor, comes back 200 with its strings byte for byte, with
// both jobType spellings.
func TestDocumentationExampleJobRoundTrips(t *testing.T) {
	doc := docsExample(t)
	var parsed struct {
		Strings []json.RawMessage `json:"strings"`
	}
	require.NoError(t, json.Unmarshal(doc, &parsed))
	want := make([]string, len(parsed.Strings))
	for i, s := range parsed.Strings {
		want[i] = compactString(t, string(s))
	}
	wantAnswer := `{"data":{"strings":[` + strings.Join(want, ",") + `]}}`

	for _, jobType := range []string{"file-post-import", "post-import-file"} {
		t.Run(jobType, func(t *testing.T) {
			body := bytes.Replace(doc, []byte(`"jobType": "file-post-import"`), []byte(`"jobType": "`+jobType+`"`), 1)
			client, hosts := docsPlatform(t, body)
			var file string
			var n int
			h := newHandler(t, ProcessorFunc(func(ctx context.Context, job *Job) ([]String, error) {
				file, n = string(job.File.Data), len(job.Strings)
				return job.Strings, nil
			}), Config{HTTPClient: client, Logger: quietLogger()})
			a := post(t, h, body)
			require.Equal(t, http.StatusOK, a.status, string(a.raw))
			assert.Equal(t, wantAnswer, string(a.raw))
			assert.Equal(t, "This is file content", file, "contentUrl wins over content")
			assert.Equal(t, 2, n)
			assert.Equal(t, int32(1), hosts.hits.Load(), "the inline strings win: stringsUrl is not fetched")
		})
	}

	t.Run("strings from stringsUrl", func(t *testing.T) {
		var m map[string]json.RawMessage
		require.NoError(t, json.Unmarshal(doc, &m))
		delete(m, "strings")
		body, err := json.Marshal(m)
		require.NoError(t, err)
		client, hosts := docsPlatform(t, doc)
		h := newHandler(t, identity, Config{HTTPClient: client, Logger: quietLogger()})
		a := post(t, h, body)
		require.Equal(t, http.StatusOK, a.status, string(a.raw))
		assert.Equal(t, wantAnswer, string(a.raw))
		assert.Equal(t, int32(2), hosts.hits.Load())
	})

	t.Run("unknown members kept", func(t *testing.T) {
		body := bytes.Replace(doc, []byte(`"identifier": "string-key-2",`),
			[]byte(`"identifier": "string-key-2", "x-origin": {"line": 7, "tags": ["<b>", "\u00e9"]},`), 1)
		body = bytes.Replace(body, []byte(`"status": {`), []byte(`"reviewer": "anna", "status": {`), 1)
		body = bytes.Replace(body, []byte(`"jobType"`), []byte(`"jobId": "42", "jobType"`), 1)
		client, _ := docsPlatform(t, body)
		h := newHandler(t, identity, Config{HTTPClient: client, Logger: quietLogger()})
		a := post(t, h, body)
		require.Equal(t, http.StatusOK, a.status, string(a.raw))
		assert.Contains(t, string(a.raw), `"x-origin":{"line":7,"tags":["<b>","\u00e9"]}`)
		assert.Contains(t, string(a.raw), `"reviewer":"anna","status":{`)
	})
}

// Issue 15: an unknown jobType is a warning in the log, not a 400.
func TestUnknownJobTypeIsAWarning(t *testing.T) {
	cfg, logs := logConfig()
	h := newHandler(t, identity, cfg)
	a := post(t, h, jobJSON(t, func(m map[string]any) { m["jobType"] = "file-export" }))
	require.Equal(t, http.StatusOK, a.status, string(a.raw))
	require.NotNil(t, a.resp.Data)
	assert.Contains(t, logs.String(), "unknown jobType")
	assert.Contains(t, logs.String(), "file-export")
}

// Issue 15: a translation may hold a non-empty subset of the target
// language's categories; a source text whose keys differ from the source
// language's is passed through with a warning, not refused.
func TestPluralSubsetsAndForeignSourceKeys(t *testing.T) {
	doc := docsExample(t)
	client, _ := docsPlatform(t, doc)
	cfg := Config{HTTPClient: client}
	var logs syncBuffer
	cfg.Logger = slogText(&logs)
	// Ukrainian with its CLDR categories: the example's one/few/many is a
	// subset.
	body := bytes.Replace(doc, []byte(`"targetLanguages": [
    {
    }
  ]`), []byte(`"targetLanguages": [{"id": "uk", "pluralCategoryNames": ["one", "few", "many", "other"]}]`), 1)
	h := newHandler(t, ProcessorFunc(func(ctx context.Context, job *Job) ([]String, error) {
		s := job.Strings[1]
		uk := s.Translations["uk"]
		uk.Text.Plural["few"] = "%d файли" // an edit keeps the subset
		s.Translations["uk"] = uk
		job.Strings[1] = s
		return job.Strings, nil
	}), cfg)
	a := post(t, h, body)
	require.Equal(t, http.StatusOK, a.status, string(a.raw))
	assert.Contains(t, string(a.raw), `"text":{"one":"One file","few":"%d файли","many":"%d файлів"}`)
	assert.Contains(t, string(a.raw), `"text":{"one":"One file","other":"%d files"}`, "the source text (one/other for a language listing only one) passes")
	assert.Contains(t, logs.String(), `the source language \"es\" has categories [one]`, "and is logged")
}

// Issue 15: errors the app reports go back as HTTP 200 with error.message,
// as the platform's SDK answers them; 405 and 503 keep their status.
func TestErrorsAre200WithErrorMessage(t *testing.T) {
	h := newHandler(t, ProcessorFunc(func(ctx context.Context, job *Job) ([]String, error) {
		return nil, Errorf("The file has no paragraphs.")
	}), Config{Logger: quietLogger()})
	a := post(t, h, jobJSON(t, nil))
	requireError(t, a, http.StatusOK, "The file has no paragraphs.")
	a = post(t, h, []byte(`{`))
	requireError(t, a, http.StatusOK, "not valid JSON")

	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest(http.MethodPut, "/post-import", nil))
	assert.Equal(t, http.StatusMethodNotAllowed, w.Code)
}

// Issue 15: the zero Config passes a ~5 MB job through; the answer goes out
// as data.stringsUrl, served by the handler itself.
func TestZeroConfigPassesAFiveMegabyteJobThrough(t *testing.T) {
	en, targets := langs()
	var lines []string
	size := 0
	for i := 0; size < 4_990_000; i++ {
		l := fmt.Sprintf(`{"uniqId":"5mb::%d","identifier":"key.%d","context":"ctx %d","labels":["a"],"text":"Some source text number %d that is long enough","translations":{"de":{"text":"Ein Text Nummer %d","status":"approved"}},"x":{"n":%d}}`, i, i, i, i, i, i)
		lines = append(lines, l)
		size += len(l) + 1
	}
	head, err := json.Marshal(map[string]any{"jobType": JobTypeSDK, "sourceLanguage": en, "targetLanguages": targets, "file": map[string]any{"id": 1, "name": "big.json"}})
	require.NoError(t, err)
	body := append(head[:len(head)-1], `,"strings":[`+strings.Join(lines, ",")+`]}`...)
	require.Greater(t, len(body), 4_990_000)
	require.LessOrEqual(t, len(body), MaxRequestBytes)

	h, err := NewHandler(identity, Config{Logger: quietLogger()})
	require.NoError(t, err)
	t.Cleanup(func() { _ = h.Close() })
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	resp, err := http.Post(srv.URL+"/post-import", "application/json", bytes.NewReader(body))
	require.NoError(t, err)
	var r Response
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&r))
	resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.Nil(t, r.Error)
	require.NotNil(t, r.Data)
	require.NotEmpty(t, r.Data.StringsURL)

	dl, err := http.Get(r.Data.StringsURL)
	require.NoError(t, err)
	got, err := io.ReadAll(dl.Body)
	dl.Body.Close()
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, dl.StatusCode)
	assert.Equal(t, strings.Join(lines, "\n")+"\n", string(got), "byte for byte")

	// Unknown ids and expired results are 404.
	dl, err = http.Get(srv.URL + "/post-import?result=0123456789abcdef0123456789abcdef")
	require.NoError(t, err)
	dl.Body.Close()
	assert.Equal(t, http.StatusNotFound, dl.StatusCode)
	h.results.mu.Lock()
	h.results.now = func() time.Time { return time.Now().Add(2 * time.Hour) }
	h.results.mu.Unlock()
	dl, err = http.Get(r.Data.StringsURL)
	require.NoError(t, err)
	dl.Body.Close()
	assert.Equal(t, http.StatusNotFound, dl.StatusCode)
	require.NoError(t, h.Close())
}

func TestResultURLFollowsPublicURLAndForwardedProto(t *testing.T) {
	h, err := NewHandler(identity, Config{Logger: quietLogger(), PublicURL: "https://app.example.com/hooks/post-import"})
	require.NoError(t, err)
	r := httptest.NewRequest(http.MethodPost, "http://internal:8080/post-import", nil)
	assert.Equal(t, "https://app.example.com/hooks/post-import?result=abc", h.resultURL(r, "abc"))

	h, err = NewHandler(identity, Config{Logger: quietLogger()})
	require.NoError(t, err)
	r = httptest.NewRequest(http.MethodPost, "http://app.example.com/post-import", nil)
	r.Header.Set("X-Forwarded-Proto", "https")
	assert.Equal(t, "https://app.example.com/post-import?result=abc", h.resultURL(r, "abc"))

	_, err = NewHandler(identity, Config{PublicURL: "ftp://x/y"})
	assert.Error(t, err)
}

// M1 (issue 16): the body deadline stops a client that trickles its body.
// Before, the handler waited for the body as long as the client kept
// sending (150 s for a 1-byte-per-20-s trickle).
func TestTrickledBodyIsCutAtTheBodyTimeout(t *testing.T) {
	cfg := testConfig()
	cfg.BodyTimeout = 300 * time.Millisecond
	cfg.ErrorStatusPerCause = false
	srv := httptest.NewServer(newHandler(t, identity, cfg))
	t.Cleanup(srv.Close)

	conn, err := net.Dial("tcp", srv.Listener.Addr().String())
	require.NoError(t, err)
	defer conn.Close()
	_, err = fmt.Fprintf(conn, "POST /post-import HTTP/1.1\r\nHost: app\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{")
	require.NoError(t, err)
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		for {
			select {
			case <-stop:
				return
			case <-time.After(50 * time.Millisecond):
				if _, err := conn.Write([]byte(" ")); err != nil {
					return
				}
			}
		}
	}()
	// The trickle would last 100000 × 50 ms; the answer must come long
	// before (the bound here only keeps a broken build from hanging).
	require.NoError(t, conn.SetReadDeadline(time.Now().Add(20*time.Second)))
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	require.NoError(t, err, "no answer while the client trickles")
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Contains(t, string(b), "The import request was not received within 300ms.")
}

// H3 (issue 16): a job semaphore answers 503 when full.
func TestJobsBeyondTheLimitGet503(t *testing.T) {
	release := make(chan struct{})
	started := make(chan struct{}, 1)
	cfg := testConfig()
	cfg.MaxConcurrentJobs = 1
	h := newHandler(t, ProcessorFunc(func(ctx context.Context, job *Job) ([]String, error) {
		started <- struct{}{}
		<-release
		return job.Strings, nil
	}), cfg)
	done := make(chan answered)
	go func() { done <- post(t, h, jobJSON(t, nil)) }()
	<-started
	a := post(t, h, jobJSON(t, nil))
	requireError(t, a, http.StatusServiceUnavailable, "busy")
	assert.NotEmpty(t, a.header.Get("Retry-After"))
	close(release)
	assert.Equal(t, http.StatusOK, (<-done).status)
	assert.Equal(t, http.StatusOK, func() int {
		go func() { <-started }()
		return post(t, h, jobJSON(t, nil)).status
	}(), "the slot is free again")
}

// H3 (issue 16): the stream caps are tens of MiB by default, and configurable.
func TestDefaultStreamCaps(t *testing.T) {
	h, err := NewHandler(identity, Config{})
	require.NoError(t, err)
	assert.LessOrEqual(t, h.cfg.MaxStringsBytes, int64(64<<20))
	assert.LessOrEqual(t, h.cfg.MaxFileBytes, int64(64<<20))
	assert.Equal(t, int64(DefaultMaxStringsBytes), h.cfg.MaxStringsBytes)

	// A stream over the default cap is refused while streaming.
	var served atomic.Int64
	st := newStorage(t)
	line := []byte(`{"uniqId":"x::1","identifier":"k","text":"` + strings.Repeat("a", 1000) + `"}` + "\n")
	st.mux.HandleFunc("/huge", func(w http.ResponseWriter, r *http.Request) {
		for served.Load() < 100<<20 {
			if _, err := w.Write(line); err != nil {
				return
			}
			served.Add(int64(len(line)))
		}
	})
	cfg := testConfig()
	h2 := newHandler(t, identity, cfg)
	a := post(t, h2, jobJSON(t, func(m map[string]any) { delete(m, "strings"); m["stringsUrl"] = st.srv.URL + "/huge" }))
	requireError(t, a, http.StatusUnprocessableEntity, "larger than the 32 MiB limit")
	assert.Less(t, served.Load(), int64(40<<20), "the download stopped near the cap")
}

// M3 (issue 16): empty, unframed and cut-short stringsUrl bodies are
// errors, never "no strings". Before, a pass-through app answered
// "strings": [] (remove every string).
func TestStringsURLBodiesThatAreNotStrings(t *testing.T) {
	st := newStorage(t)
	st.mux.HandleFunc("/empty", func(w http.ResponseWriter, r *http.Request) { w.Header().Set("Content-Length", "0") })
	st.mux.HandleFunc("/blank", func(w http.ResponseWriter, r *http.Request) { _, _ = io.WriteString(w, "\n\r\n \n") })
	raw := func(resp string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			conn, buf, err := http.NewResponseController(w).Hijack()
			if err != nil {
				return
			}
			_, _ = buf.WriteString(resp)
			_ = buf.Flush()
			_ = conn.Close()
		}
	}
	full := compactString(t, wireStringsForJob[0]) + "\n" + compactString(t, wireStringsForJob[3]) + "\n"
	st.mux.HandleFunc("/unframed", raw("HTTP/1.1 200 OK\r\nContent-Type: application/x-ndjson\r\nConnection: close\r\n\r\n"+full))
	st.mux.HandleFunc("/cut-length", raw(fmt.Sprintf("HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n", len(full)+500)+full))
	st.mux.HandleFunc("/cut-chunked", raw(fmt.Sprintf("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n%x\r\n%s\r\n", len(full), full)))
	st.mux.HandleFunc("/framed", raw(fmt.Sprintf("HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n", len(full))+full))

	h := newHandler(t, identity, testConfig())
	for path, want := range map[string]string{
		"/empty":       "The strings file (stringsUrl) is empty",
		"/blank":       "The strings file (stringsUrl) is empty",
		"/unframed":    "could not be downloaded completely",
		"/cut-length":  "The strings file could not be downloaded.",
		"/cut-chunked": "The strings file could not be downloaded.",
	} {
		a := post(t, h, jobJSON(t, func(m map[string]any) { delete(m, "strings"); m["stringsUrl"] = st.srv.URL + path }))
		requireError(t, a, http.StatusBadGateway, want)
		assert.NotContains(t, string(a.raw), `"strings"`, path)
	}
	a := post(t, h, jobJSON(t, func(m map[string]any) { delete(m, "strings"); m["stringsUrl"] = st.srv.URL + "/framed" }))
	require.Equal(t, http.StatusOK, a.status, string(a.raw))
	assert.Len(t, a.resp.Data.Strings, 2)
}

// SSRF (audit category, issue 16 Low): the ranges the audit found missing,
// and IPv4 embedded in IPv6, are refused.
func TestPublicAddrSpecialRanges(t *testing.T) {
	for _, tc := range []struct {
		addr string
		ok   bool
	}{
		{"0.1.2.3", false}, {"192.0.0.192", false}, {"192.0.0.8", false}, {"198.18.0.1", false}, {"198.19.255.254", false},
		{"240.0.0.1", false}, {"255.255.255.255", false}, {"192.0.2.1", false}, {"203.0.113.9", false},
		{"::127.0.0.1", false}, {"::10.0.0.1", false}, {"::8.8.8.8", false},
		{"64:ff9b::127.0.0.1", false}, {"64:ff9b::a9fe:a9fe", false}, {"64:ff9b::8.8.8.8", true}, {"64:ff9b:1::1", false},
		{"2002:7f00:1::", false}, {"2002:a9fe:a9fe::1", false}, {"2002:808:808::1", true},
		{"fec0::1", false}, {"2001:db8::1", false}, {"2001::1", false}, {"100::1", false},
		{"::ffff:169.254.169.254", false}, {"::ffff:8.8.8.8", true},
		{"1.1.1.1", true}, {"2606:4700:4700::1111", true}, {"198.20.0.1", true}, {"192.0.1.1", true},
	} {
		addr, err := netip.ParseAddr(tc.addr)
		require.NoError(t, err, tc.addr)
		assert.Equal(t, tc.ok, publicAddr(addr), tc.addr)
	}
}

// The guarded client refuses the special ranges on the wire too (the
// connection is never attempted).
func TestGuardedClientRefusesSpecialRanges(t *testing.T) {
	c := GuardedClient()
	for _, host := range []string{"0.0.0.0", "192.0.0.192", "198.18.0.1", "240.0.0.1", "[::127.0.0.1]", "[64:ff9b::7f00:1]", "[2002:7f00:1::]", "[fec0::1]"} {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+host+":9/", nil)
		require.NoError(t, err)
		_, err = c.Do(req)
		cancel()
		assert.ErrorIs(t, err, ErrForbiddenAddress, host)
	}
}

// Low (issue 16): error.message is generic for download failures: no
// resolver or peer addresses, and a refused connection reads the same as a
// timeout (no port-scan oracle). Details go to the log.
func TestDownloadFailuresReadTheSame(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	st := newStorage(t)
	// The refused port is freed after the storage server took its own, and
	// nothing listens afterwards, so the port stays closed (made before it,
	// the storage server could get the same port back).
	refused := httptest.NewServer(http.NotFoundHandler())
	refusedURL := refused.URL + "/f"
	refused.Close()
	st.mux.HandleFunc("/slow", func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	})
	cfg, logs := logConfig()
	cfg.FetchTimeout = 100 * time.Millisecond
	h := newHandler(t, identity, cfg)
	var msgs []string
	for _, u := range []string{refusedURL, st.srv.URL + "/slow", "http://no-such-host.invalid/f", st.srv.URL + "/404"} {
		a := post(t, h, jobJSON(t, func(m map[string]any) { m["file"] = map[string]any{"name": "f", "contentUrl": u} }))
		require.NotNil(t, a.resp.Error, u)
		msgs = append(msgs, a.resp.Error.Message)
		assert.NotContains(t, a.resp.Error.Message, "127.0.0.1")
		assert.NotContains(t, a.resp.Error.Message, "refused")
		assert.NotContains(t, a.resp.Error.Message, "timeout")
	}
	for _, m := range msgs {
		assert.Equal(t, "The file could not be downloaded.", m)
	}
	assert.Contains(t, logs.String(), "refused", "the log keeps the details")
}

// Upstream behaviours (audit category): whatever the storage answers, the
// job fails with a message or succeeds with the real strings; it never
// answers an empty list.
func TestUpstreamBehaviours(t *testing.T) {
	st := newStorage(t)
	full := ndjson(compactString(t, wireStringsForJob[0]), compactString(t, wireStringsForJob[3]))
	handlers := map[string]http.HandlerFunc{
		"404":  http.NotFound,
		"500":  func(w http.ResponseWriter, r *http.Request) { http.Error(w, "boom", 500) },
		"204":  func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(204) },
		"html": func(w http.ResponseWriter, r *http.Request) { _, _ = io.WriteString(w, "<html>login</html>") },
		"json array": func(w http.ResponseWriter, r *http.Request) {
			_, _ = io.WriteString(w, `[`+compactString(t, wireStringsForJob[0])+`]`)
		},
		"redirect":     func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/ok", http.StatusFound) },
		"redirect ftp": func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "ftp://x/y", http.StatusFound) },
		"loop":         func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/loop", http.StatusFound) },
		"null":         func(w http.ResponseWriter, r *http.Request) { _, _ = io.WriteString(w, "null\n") },
		"ok":           func(w http.ResponseWriter, r *http.Request) { _, _ = io.WriteString(w, full) },
		"gzip":         func(w http.ResponseWriter, r *http.Request) { _, _ = io.WriteString(w, full) },
	}
	for name, fn := range handlers {
		st.mux.HandleFunc("/"+strings.ReplaceAll(name, " ", "-"), fn)
	}
	h := newHandler(t, identity, testConfig())
	for name := range handlers {
		a := post(t, h, jobJSON(t, func(m map[string]any) {
			delete(m, "strings")
			m["stringsUrl"] = st.srv.URL + "/" + strings.ReplaceAll(name, " ", "-")
		}))
		switch name {
		case "ok", "gzip", "redirect":
			require.Equal(t, http.StatusOK, a.status, name)
			require.NotNil(t, a.resp.Data, name)
			assert.Len(t, a.resp.Data.Strings, 2, name)
		default:
			assert.NotNil(t, a.resp.Error, "%s: %s", name, a.raw)
			assert.Nil(t, a.resp.Data, name)
		}
	}
}

// Low (issue 16): a download that times out in the middle of a line is a
// download failure, not "not valid NDJSON". Before, the cut line was
// reported as a bad line.
func TestTimeoutMidLineIsADownloadFailure(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	st := newStorage(t)
	st.mux.HandleFunc("/half", func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, compactString(t, wireStringsForJob[0])+"\n"+`{"uniqId":"cut::1","ident`)
		w.(http.Flusher).Flush()
		select {
		case <-release:
		case <-r.Context().Done():
		}
	})
	cfg, logs := logConfig()
	cfg.FetchTimeout = 200 * time.Millisecond
	h := newHandler(t, identity, cfg)
	a := post(t, h, jobJSON(t, func(m map[string]any) { delete(m, "strings"); m["stringsUrl"] = st.srv.URL + "/half" }))
	requireError(t, a, http.StatusBadGateway, "The strings file could not be downloaded.")
	assert.NotContains(t, a.resp.Error.Message, "newline-delimited")
	assert.Contains(t, logs.String(), "reading line 2")
}

// A processor that ignores its deadline is abandoned (the job is answered),
// but it keeps its slot until it returns: runaway processors cannot pile up
// past MaxConcurrentJobs.
func TestAbandonedProcessorKeepsItsSlot(t *testing.T) {
	release := make(chan struct{})
	returned := make(chan struct{}, 3)
	var calls atomic.Int32
	cfg := testConfig()
	cfg.MaxConcurrentJobs = 1
	cfg.Deadline = 300 * time.Millisecond
	h := newHandler(t, ProcessorFunc(func(ctx context.Context, job *Job) ([]String, error) {
		defer func() { returned <- struct{}{} }()
		if calls.Add(1) == 1 {
			<-release // ignores ctx
		}
		return job.Strings, nil
	}), cfg)
	a := post(t, h, jobJSON(t, nil))
	requireError(t, a, http.StatusGatewayTimeout, "did not finish")
	a = post(t, h, jobJSON(t, nil))
	requireError(t, a, http.StatusServiceUnavailable, "busy")
	close(release)
	<-returned
	require.Eventually(t, func() bool { return post(t, h, jobJSON(t, nil)).status == http.StatusOK }, 5*time.Second, 10*time.Millisecond)
}

func TestResultStoreBoundsAndDirectory(t *testing.T) {
	dir := t.TempDir()
	s := newResultStore(dir, time.Minute, 100)
	id, err := s.put(func(w io.Writer) error { _, err := io.WriteString(w, strings.Repeat("a", 60)); return err })
	require.NoError(t, err)
	_, err = os.Stat(dir + "/" + id + ".ndjson")
	require.NoError(t, err, "written in the given directory")
	_, err = s.put(func(w io.Writer) error { _, err := io.WriteString(w, strings.Repeat("b", 60)); return err })
	assert.ErrorIs(t, err, ErrStoreFull)
	entries, _ := os.ReadDir(dir)
	assert.Len(t, entries, 1, "a refused result leaves no file")

	w := httptest.NewRecorder()
	s.serve(w, httptest.NewRequest(http.MethodHead, "/post-import?result="+id, nil), id)
	assert.Equal(t, http.StatusOK, w.Code)
	assert.Equal(t, "60", w.Header().Get("Content-Length"))
	assert.Empty(t, w.Body.String())
	w = httptest.NewRecorder()
	s.serve(w, httptest.NewRequest(http.MethodGet, "/post-import", nil), "../../etc/passwd")
	assert.Equal(t, http.StatusNotFound, w.Code)

	// Expired results are swept on the next put, and their room is free.
	s.now = func() time.Time { return time.Now().Add(2 * time.Minute) }
	_, err = s.put(func(w io.Writer) error { _, err := io.WriteString(w, strings.Repeat("c", 60)); return err })
	require.NoError(t, err)
	entries, _ = os.ReadDir(dir)
	assert.Len(t, entries, 1)
	require.NoError(t, s.close())
	entries, _ = os.ReadDir(dir)
	assert.Empty(t, entries, "close removes the results")
	_, err = os.Stat(dir)
	assert.NoError(t, err, "but not a directory it did not make")
}
