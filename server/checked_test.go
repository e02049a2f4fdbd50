package server_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/croql/croql/server"
)

// A list request checks its croql query once: the admission's estimate,
// the page's SQL, the total's, the resident program and the error body
// share one check.
func TestListChecksQueryOnce(t *testing.T) {
	ctx := context.Background()
	st, err := server.LoadSQLite(ctx, t.TempDir(), demo(t))
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, st.Close()) })
	toks := &server.Tokens{}
	require.NoError(t, toks.Add(token))
	newServer := func(cfg server.Config) *server.Server {
		cfg.Storage, cfg.Tokens, cfg.Now = st, toks, clock
		srv, err := server.New(cfg)
		require.NoError(t, err)
		return srv
	}
	plain := newServer(server.Config{})
	resident := newServer(server.Config{ResidentMaxBytes: 1 << 30})
	n, err := resident.BuildResident(ctx)
	require.NoError(t, err)
	require.Equal(t, 1, n)
	costly := newServer(server.Config{MaxRequestCost: 1})

	const valid = `identifier contains "button" or count of translations > 0`
	get := func(path, src string) *http.Request {
		return httptest.NewRequest(http.MethodGet, path+"?"+url.Values{"croql": {src}, "withTotal": {"true"}}.Encode(), nil)
	}
	post := func(path, body string) *http.Request {
		r := httptest.NewRequest(http.MethodPost, path+"/query", strings.NewReader(body))
		r.Header.Set("Content-Type", "application/json")
		return r
	}
	strs, trs := "/api/v2/projects/1/strings", "/api/v2/projects/1/languages/de/translations"
	for _, c := range []struct {
		name   string
		srv    *server.Server
		req    *http.Request
		status int
		checks int
	}{
		{"strings", plain, get(strs, valid), http.StatusOK, 1},
		{"strings POST", plain, post(strs, `{"croql":`+jsonString(valid)+`,"withTotal":true}`), http.StatusOK, 1},
		{"translations", plain, get(trs, `count of approvals > 0 or text contains "a"`), http.StatusOK, 1},
		{"tm", plain, get("/api/v2/tms/1/segments", `count of records where (text contains "a") > 0`), http.StatusOK, 1},
		{"glossary", plain, get("/api/v2/glossaries/1/terms", `text contains "a"`), http.StatusOK, 1},
		{"resident strings", resident, get(strs, valid), http.StatusOK, 1},
		{"resident translations", resident, get(trs, `text contains "a"`), http.StatusOK, 1},
		{"invalid", plain, get(strs, `text contains`), http.StatusBadRequest, 1},
		{"too costly", costly, get(strs, valid), http.StatusBadRequest, 1},
		{"invalid UTF-8", plain, httptest.NewRequest(http.MethodGet, strs+"?croql=text+contains+%22%FF%22", nil), http.StatusBadRequest, 1},
		{"blank", plain, get(strs, " "), http.StatusOK, 0},
		{"duplicate croql", plain, httptest.NewRequest(http.MethodGet, strs+"?croql=a&croql=b", nil), http.StatusBadRequest, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			rctx, checks := server.CountChecks(ctx)
			r := c.req.WithContext(rctx)
			r.Header.Set("Authorization", "Bearer "+token)
			w := httptest.NewRecorder()
			served := server.ResidentServed(c.srv)
			c.srv.ServeHTTP(w, r)
			require.Equal(t, c.status, w.Code, w.Body.String())
			assert.Equal(t, c.checks, checks())
			if c.srv == resident && c.name == "resident strings" {
				assert.Greater(t, server.ResidentServed(c.srv), served, "the snapshot answers")
			}
		})
	}
}
