package platform_test

import (
	"bytes"
	"io"
	"mime/multipart"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/croql/croql/internal/testdb"
	"github.com/croql/croql/server"
	"github.com/croql/croql/server/platform"
)

// TestJobURLsIgnoreTheHostHeader: without a public URL, the apiBaseUrl,
// baseUrl and contentUrl of a job name the address the upload arrived
// on, whatever Host header the uploader sent; with one, that URL.
func TestJobURLsIgnoreTheHostHeader(t *testing.T) {
	var raw atomic.Value
	app := startApp(t, "big", nil, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		raw.Store(string(b))
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"data":{"strings":[]}}`)
	}))
	content := `{"a":"` + strings.Repeat("x", 3000) + `"}`
	upload := func(base string) string {
		var buf bytes.Buffer
		mw := multipart.NewWriter(&buf)
		fw, err := mw.CreateFormFile("file", "big.json")
		require.NoError(t, err)
		_, _ = io.WriteString(fw, content)
		require.NoError(t, mw.Close())
		req, err := http.NewRequest(http.MethodPost, base+"/api/v2/projects/1/files", &buf)
		require.NoError(t, err)
		req.Host = "attacker.example:6666"
		req.Header.Set("Authorization", "Bearer "+token)
		req.Header.Set("Content-Type", mw.FormDataContentType())
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		require.Equal(t, http.StatusCreated, resp.StatusCode, string(b))
		return raw.Load().(string)
	}

	for _, engine := range testdb.Engines(t) {
		t.Run(engine, func(t *testing.T) {
			base, _ := startServeOn(t, engine, platform.Config{Apps: []string{app.URL}, MaxInlineJobBytes: 2000})
			job := upload(base.URL)
			require.NotContains(t, job, "attacker.example")
			require.Contains(t, job, `"apiBaseUrl":"`+base.URL+`"`)
			require.Contains(t, job, `"contentUrl":"`+base.URL+`/_platform/blobs/`)

			pub, _ := startServeOn(t, engine, platform.Config{Apps: []string{app.URL}, MaxInlineJobBytes: 2000, PublicURL: "https://croql.example/"})
			job = upload(pub.URL)
			require.NotContains(t, job, "attacker.example")
			require.Contains(t, job, `"apiBaseUrl":"https://croql.example"`)
			require.Contains(t, job, `"contentUrl":"https://croql.example/_platform/blobs/`)
		})
	}
}

// TestAdminRoutesNeedTheAdminToken: a read token, even one limited to a
// project, gets 403 on every admin route, no token 401, the admin token
// passes; without subscriptions and without an admin token the routes
// do not exist.
func TestAdminRoutesNeedTheAdminToken(t *testing.T) {
	for _, engine := range testdb.Engines(t) {
		t.Run(engine, func(t *testing.T) { testAdminRoutesNeedTheAdminToken(t, engine) })
	}
}

type route struct{ method, path, body string }

var adminRoutes = []route{
	{http.MethodPut, "/admin/applications/a/organizations/1/subscription", `{"status":"unpaid","subscribeLink":"https://pay.example/a"}`},
	{http.MethodPost, "/admin/applications/a/organizations/1/installation", ""},
	{http.MethodDelete, "/admin/applications/a/organizations/1/installation", ""},
}

func testAdminRoutesNeedTheAdminToken(t *testing.T, engine string) {
	routes := adminRoutes
	base, _, _ := startServeStorage(t, engine, platform.Config{Subscriptions: platform.NewSubscriptions()})
	srv := base.Config.Handler.(*server.Server)
	require.NoError(t, srv.Tokens().Add("project-one", 1))
	call := func(base, method, path, body, tok string) int {
		req, err := http.NewRequest(method, base+path, strings.NewReader(body))
		require.NoError(t, err)
		if tok != "" {
			req.Header.Set("Authorization", "Bearer "+tok)
		}
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		resp.Body.Close()
		return resp.StatusCode
	}
	for _, r := range routes {
		require.Equal(t, http.StatusForbidden, call(base.URL, r.method, r.path, r.body, "project-one"), r.path)
		require.Equal(t, http.StatusForbidden, call(base.URL, r.method, r.path, r.body, token), r.path)
		require.Equal(t, http.StatusUnauthorized, call(base.URL, r.method, r.path, r.body, ""), r.path)
		require.Equal(t, http.StatusUnauthorized, call(base.URL, r.method, r.path, r.body, "wrong"), r.path)
	}
	require.Equal(t, http.StatusOK, call(base.URL, routes[0].method, routes[0].path, routes[0].body, adminToken))
	// No app a: the installation routes answer, for the admin, 404 of
	// their own (the route exists).
	require.Equal(t, http.StatusNotFound, call(base.URL, routes[1].method, routes[1].path, "", adminToken))

	// The admin token is not a read token.
	require.Equal(t, http.StatusUnauthorized, call(base.URL, http.MethodGet, "/api/v2/projects", "", adminToken))

	bare, _ := startServeOn(t, engine, platform.Config{AdminTokens: &server.Tokens{}})
	for _, r := range routes {
		require.Equal(t, http.StatusNotFound, call(bare.URL, r.method, r.path, r.body, token), r.path)
		require.Equal(t, http.StatusNotFound, call(bare.URL, r.method, r.path, r.body, adminToken), r.path)
	}
}
