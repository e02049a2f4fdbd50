package platformclient_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/crowdin/crowdin-api-client-go/crowdin"
	"github.com/crowdin/crowdin-api-client-go/crowdin/model"
	"github.com/stretchr/testify/require"

	"github.com/croql/croql"
	"github.com/croql/croql/internal/evaltest"
	"github.com/croql/croql/schema"
	"github.com/croql/croql/server"
)

func clock() time.Time { return time.Date(2024, 6, 15, 12, 0, 0, 0, time.UTC) }

// rewrite sends every request of the official client (whose base URL is
// fixed to https://api.crowdin.com/) to croql serve instead: v0.18.0 has
// no base URL option.
type rewrite struct {
	target *url.URL
	next   http.RoundTripper
}

func (r rewrite) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
	req.URL.Scheme, req.URL.Host, req.Host = r.target.Scheme, r.target.Host, r.target.Host
	return r.next.RoundTrip(req)
}

func evalIDs(t *testing.T, p *schema.Project, ctx, lang, src string) []int {
	t.Helper()
	env, err := croql.NewEnv(ctx, croql.WithUserIDs(p.UserIDs()), croql.WithClock(clock))
	require.NoError(t, err)
	q, diags := env.Compile(src)
	require.False(t, diags.HasErrors(), "%v", diags)
	var ids []int
	for _, o := range p.Objects(q.Context()) {
		if tr, ok := o.(*schema.Translation); ok && lang != "" && tr.Language != lang {
			continue
		}
		hit, err := q.Match(o)
		require.NoError(t, err)
		if hit {
			id, _ := schema.ObjectID(o)
			ids = append(ids, int(id))
		}
	}
	slices.Sort(ids)
	return ids
}

func TestOfficialClientAgainstCroqlServe(t *testing.T) {
	f, err := os.Open(filepath.Join("..", "..", "testdata", "demo", "project.json"))
	require.NoError(t, err)
	p, err := schema.ReadProject(f)
	f.Close()
	require.NoError(t, err)
	st, err := server.LoadSQLite(context.Background(), t.TempDir(), p)
	require.NoError(t, err)
	defer st.Close()
	toks := &server.Tokens{}
	require.NoError(t, toks.Add("official"))
	srv, err := server.New(server.Config{Storage: st, Tokens: toks, Now: clock})
	require.NoError(t, err)
	hs := httptest.NewServer(srv)
	defer hs.Close()
	target, err := url.Parse(hs.URL)
	require.NoError(t, err)
	c, err := crowdin.NewClient("official", crowdin.WithHTTPClient(&http.Client{Transport: rewrite{target, hs.Client().Transport}}))
	require.NoError(t, err)
	ctx := context.Background()
	all := model.ListOptions{Limit: 500}

	// The Go model's text is a string: a plural string's text (an object
	// of plural forms, as the platform sends it) does not decode, so the
	// list leaves plural strings out.
	q := `count of translations where (count of approvals > 0) > 0 and not (type is plural)`
	strs, _, err := c.SourceStrings.List(ctx, 1, &model.SourceStringsListOptions{CroQL: q, ListOptions: all})
	require.NoError(t, err)
	var ids []int
	for _, s := range strs {
		ids = append(ids, s.ID)
		require.Equal(t, 1, s.ProjectID)
		require.NotEmpty(t, s.Identifier)
		require.NotNil(t, s.CreatedAt)
	}
	require.Equal(t, evalIDs(t, p, croql.Strings, "", q), ids)

	q = `count of votes where (is up) >= 1`
	trs, _, err := c.StringTranslations.ListLanguageTranslations(ctx, 1, "de", &model.LanguageTranslationsListOptions{CroQL: q, ListOptions: all})
	require.NoError(t, err)
	ids = nil
	for _, tr := range trs {
		require.NotZero(t, tr.StringID)
		if tr.Plurals != nil {
			for _, pl := range tr.Plurals {
				ids = append(ids, pl.TranslationID)
			}
			continue
		}
		require.NotNil(t, tr.TranslationID)
		require.NotNil(t, tr.User)
		ids = append(ids, *tr.TranslationID)
	}
	// One object per string: its top translation among the matches.
	slices.Sort(ids)
	want := evalIDs(t, p, croql.Translations, "de", q)
	var want64 []int64
	for _, id := range want {
		want64 = append(want64, int64(id))
	}
	var top []int
	for _, id := range evaltest.TopTranslations(p, "de", want64) {
		top = append(top, int(id))
	}
	require.Equal(t, top, ids)

	q = `count of records where (usageCount > 5) > 0`
	segs, _, err := c.TranslationMemory.ListTMSegments(ctx, 1, &model.TMSegmentsListOptions{CroQL: q, ListOptions: all})
	require.NoError(t, err)
	ids = nil
	for _, s := range segs {
		require.NotEmpty(t, s.Records)
		ids = append(ids, s.ID)
	}
	require.Equal(t, evalIDs(t, p, croql.TM, "", q), ids)

	q = `status = "preferred"`
	terms, _, err := c.Glossaries.ListTerms(ctx, 1, &model.TermsListOptions{CroQL: q, ListOptions: all})
	require.NoError(t, err)
	ids = nil
	for _, x := range terms {
		require.Equal(t, "preferred", x.Status) // the API's spelling is CroQL's for this value
		ids = append(ids, x.ID)
	}
	require.Equal(t, evalIDs(t, p, croql.Glossary, "", q), ids)

	// A 400 under croql is the official client's validation error.
	_, _, err = c.SourceStrings.List(ctx, 1, &model.SourceStringsListOptions{CroQL: `is hiden`})
	var ve *model.ValidationErrorResponse
	require.True(t, errors.As(err, &ve), "%T %v", err, err)
	require.Equal(t, http.StatusBadRequest, ve.Status)
	require.Equal(t, "croql", ve.Errors[0].ErrorDetail.Key)
	require.Equal(t, "croqlInvalidLogic", ve.Errors[0].ErrorDetail.Errors[0].Code)

	// 404 and 401 are its error responses.
	_, _, err = c.SourceStrings.List(ctx, 7, nil)
	var er *model.ErrorResponse
	require.True(t, errors.As(err, &er), "%T %v", err, err)
	require.Equal(t, 404, er.Err.Code)
}
