package client_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/croql/croql"
	"github.com/croql/croql/client"
	"github.com/croql/croql/internal/evaltest"
	"github.com/croql/croql/schema"
	"github.com/croql/croql/server"
)

const token = "client-test"

func clock() time.Time { return time.Date(2024, 6, 15, 12, 0, 0, 0, time.UTC) }

// readDemo reads a fresh copy of the demo project.
func readDemo() (*schema.Project, error) {
	_, file, _, _ := runtime.Caller(0)
	f, err := os.Open(filepath.Join(filepath.Dir(filepath.Dir(filepath.Dir(file))), "testdata", "demo", "project.json"))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return schema.ReadProject(f)
}

var demoProject = sync.OnceValues(readDemo)

// serve starts croql serve's handler over the demo project on loopback.
func serve(t testing.TB) (*httptest.Server, *schema.Project) {
	t.Helper()
	p, err := demoProject()
	require.NoError(t, err)
	return serveProject(t, server.Config{}, p), p
}

// serveProject starts croql serve's handler over p on loopback, with
// cfg's limits.
func serveProject(t testing.TB, cfg server.Config, p *schema.Project) *httptest.Server {
	t.Helper()
	st, err := server.LoadSQLite(context.Background(), t.TempDir(), p)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, st.Close()) })
	toks := &server.Tokens{}
	require.NoError(t, toks.Add(token))
	cfg.Storage, cfg.Tokens, cfg.Now = st, toks, clock
	srv, err := server.New(cfg)
	require.NoError(t, err)
	hs := httptest.NewServer(srv)
	t.Cleanup(hs.Close)
	return hs
}

// recorder counts the requests and keeps their URLs.
type recorder struct {
	mu   sync.Mutex
	urls []string
	next http.RoundTripper
}

func (r *recorder) RoundTrip(req *http.Request) (*http.Response, error) {
	r.mu.Lock()
	r.urls = append(r.urls, req.URL.String())
	r.mu.Unlock()
	return r.next.RoundTrip(req)
}

func newClient(t testing.TB, hs *httptest.Server, opts ...client.Option) (*client.Client, *recorder) {
	t.Helper()
	rec := &recorder{next: hs.Client().Transport}
	opts = append([]client.Option{client.WithHTTPClient(&http.Client{Transport: rec})}, opts...)
	c, err := client.New(hs.URL, token, opts...)
	require.NoError(t, err)
	return c, rec
}

func evalIDs(t testing.TB, p *schema.Project, ctx, lang, src string) []int64 {
	t.Helper()
	env, err := croql.NewEnv(ctx, croql.WithUserIDs(p.UserIDs()), croql.WithClock(clock))
	require.NoError(t, err)
	q, diags := env.Compile(src)
	require.False(t, diags.HasErrors(), "%v", diags)
	ids := []int64{}
	for _, o := range p.Objects(q.Context()) {
		if tr, ok := o.(*schema.Translation); ok && lang != "" && tr.Language != lang {
			continue
		}
		hit, err := q.Match(o)
		require.NoError(t, err)
		if hit {
			id, _ := schema.ObjectID(o)
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	return ids
}

// topTranslations is what the translations list answers for the
// matching translations ids (evaltest.TopTranslations).
func topTranslations(p *schema.Project, lang string, ids []int64) []int64 {
	return evaltest.TopTranslations(p, lang, ids)
}

func TestLintBeforeSend(t *testing.T) {
	hs, _ := serve(t)
	c, rec := newClient(t, hs)
	_, err := c.Strings(context.Background(), 1, `is hiden and fileId = 5`)
	var qe *client.QueryError
	require.ErrorAs(t, err, &qe)
	require.False(t, qe.Remote)
	require.Len(t, qe.Diags, 2)
	require.Contains(t, qe.Format(), "^^^^^^^^")
	require.Empty(t, rec.urls, "nothing is sent")
}

func TestServerErrorsMapped(t *testing.T) {
	hs, _ := serve(t)
	c, rec := newClient(t, hs, client.WithoutLint())
	src := `count of translations where (usageCount > 0) > 0`
	_, err := c.List(context.Background(), client.StringsOf(1), src, client.ListOptions{})
	var qe *client.QueryError
	require.ErrorAs(t, err, &qe)
	require.True(t, qe.Remote)
	require.Len(t, rec.urls, 1)
	require.Equal(t, "croqlInvalidLogic", qe.Diags[0].Code)
	require.Equal(t, "unknown-field", qe.Diags[0].Rule)
	require.Equal(t, "usageCount", src[qe.Diags[0].Span.Start:qe.Diags[0].Span.End])
	require.Contains(t, qe.Format(), "^^^^^^^^^^")

	// Other errors are APIErrors with the status and, for a 400, the key.
	_, err = c.List(context.Background(), client.StringsOf(1), "", client.ListOptions{Limit: 501})
	var ae *client.APIError
	require.ErrorAs(t, err, &ae)
	require.Equal(t, http.StatusBadRequest, ae.Status)
	require.Equal(t, "limit", ae.Key)
	_, err = c.List(context.Background(), client.StringsOf(42), "", client.ListOptions{})
	require.ErrorAs(t, err, &ae)
	require.Equal(t, http.StatusNotFound, ae.Status)
	bad, err := client.New(hs.URL, "wrong", client.WithHTTPClient(hs.Client()))
	require.NoError(t, err)
	_, err = bad.List(context.Background(), client.StringsOf(1), "", client.ListOptions{})
	require.ErrorAs(t, err, &ae)
	require.Equal(t, http.StatusUnauthorized, ae.Status)
}

// TestPlatformErrorMapped: the platform's 400 (code and message, no span;
// docs/serve.md quotes the documented example) maps to a diagnostic over
// the whole query.
func TestPlatformErrorMapped(t *testing.T) {
	platform := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		_, _ = w.Write([]byte(`{"errors":[{"error":{"key":"croql","errors":[{"code":"croqlInvalidLogic","message":"Identifier 'apply' is undefined"}]}}]}`))
	}))
	defer platform.Close()
	c, err := client.New(platform.URL, token, client.WithoutLint(), client.WithHTTPClient(platform.Client()))
	require.NoError(t, err)
	_, err = c.List(context.Background(), client.StringsOf(1), "apply", client.ListOptions{})
	var qe *client.QueryError
	require.ErrorAs(t, err, &qe)
	require.True(t, qe.Remote)
	require.Equal(t, "croqlInvalidLogic", qe.Diags[0].Code)
	require.Equal(t, "platform", qe.Diags[0].Rule)
	require.Equal(t, "Identifier 'apply' is undefined", qe.Diags[0].Message)
	require.Equal(t, 0, qe.Diags[0].Span.Start)
	require.Equal(t, len("apply"), qe.Diags[0].Span.End)
}

func TestBatchesLongOrChains(t *testing.T) {
	hs, p := serve(t)
	const budget = 2000
	c, rec := newClient(t, hs, client.WithMaxURL(budget))
	var terms []string
	for i, s := range p.Strings {
		if i%2 == 0 {
			terms = append(terms, `identifier = "`+s.Identifier+`"`)
		}
	}
	for i := range 40 { // identifiers that match nothing
		terms = append(terms, `identifier = "missing.key.`+strings.Repeat("x", i)+`"`)
	}
	src := strings.Join(terms, " or ")
	require.Greater(t, len(src), budget)
	_, err := c.List(context.Background(), client.StringsOf(1), src, client.ListOptions{})
	require.ErrorIs(t, err, client.ErrURLTooLong)
	require.Empty(t, rec.urls)

	strs, err := c.Strings(context.Background(), 1, src)
	require.NoError(t, err)
	var got []int64
	for _, s := range strs {
		got = append(got, s.ID)
	}
	require.Equal(t, evalIDs(t, p, croql.Strings, "", src), got)
	require.Greater(t, len(rec.urls), 2, "split into several requests")
	for _, u := range rec.urls {
		require.LessOrEqual(t, len(u), budget)
	}

	// The POST extension takes the whole chain at once.
	rec.urls = nil
	page, err := c.Query(context.Background(), client.StringsOf(1), src, client.ListOptions{Limit: 500, WithTotal: true})
	require.NoError(t, err)
	require.Len(t, rec.urls, 1)
	require.Equal(t, int64(len(got)), *page.Total)
	require.Len(t, page.Data, len(got))

	// A long query that is not an or-chain cannot be split.
	_, err = c.Strings(context.Background(), 1, "is hidden and ("+src+")")
	require.ErrorIs(t, err, client.ErrURLTooLong)
}

func TestTypedLists(t *testing.T) {
	hs, p := serve(t)
	c, _ := newClient(t, hs)
	ctx := context.Background()
	q := `count of translations where (count of votes > 0) > 0`
	strs, err := c.Strings(ctx, 1, q)
	require.NoError(t, err)
	var ids []int64
	for _, s := range strs {
		ids = append(ids, s.ID)
		require.Equal(t, int64(1), s.ProjectID)
	}
	require.Equal(t, evalIDs(t, p, croql.Strings, "", q), ids)

	trs, err := c.Translations(ctx, 1, "de", `count of votes where (is up) >= 1`)
	require.NoError(t, err)
	ids = nil
	for _, tr := range trs {
		require.NotZero(t, tr.StringID)
		if len(tr.Plurals) > 0 {
			for _, pl := range tr.Plurals {
				ids = append(ids, pl.TranslationID)
			}
			continue
		}
		require.NotNil(t, tr.User)
		ids = append(ids, tr.TranslationID)
	}
	slices.Sort(ids)
	require.Equal(t, topTranslations(p, "de", evalIDs(t, p, croql.Translations, "de", `count of votes where (is up) >= 1`)), ids)

	segs, err := c.Segments(ctx, 1, `count of records where (usageCount > 5) > 0`)
	require.NoError(t, err)
	ids = nil
	for _, s := range segs {
		ids = append(ids, s.ID)
		require.NotEmpty(t, s.Records)
		for _, r := range s.Records {
			require.NotEmpty(t, r.LanguageID, "segment %d record %d", s.ID, r.ID)
		}
	}
	require.Equal(t, evalIDs(t, p, croql.TM, "", `count of records where (usageCount > 5) > 0`), ids)

	terms, err := c.Terms(ctx, 1, `text contains "e"`)
	require.NoError(t, err)
	ids = nil
	for _, x := range terms {
		ids = append(ids, x.ID)
	}
	require.Equal(t, evalIDs(t, p, croql.Glossary, "", `text contains "e"`), ids)
}

func TestNewRejects(t *testing.T) {
	_, err := client.New("ftp://x", token)
	require.Error(t, err)
	_, err = client.New("http://127.0.0.1:1", "")
	require.Error(t, err)
	require.False(t, errors.Is(err, client.ErrURLTooLong))
}
