package server_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/croql/croql/server"
)

// metricsText scrapes base's /metrics over loopback, with the tests'
// token.
func metricsText(t *testing.T, base string) string {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, base+"/metrics", nil)
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+token)
	res, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer res.Body.Close()
	require.Equal(t, http.StatusOK, res.StatusCode)
	b, err := io.ReadAll(res.Body)
	require.NoError(t, err)
	return string(b)
}

// sample is the value of the sample of metric name whose labels include
// every one of labels (`key="value"`), or -1 when there is none.
func sample(text, name string, labels ...string) float64 {
	for line := range strings.Lines(text) {
		rest, ok := strings.CutPrefix(line, name)
		if !ok || (rest[0] != '{' && rest[0] != ' ') {
			continue
		}
		match := true
		for _, l := range labels {
			match = match && strings.Contains(rest, l)
		}
		if !match {
			continue
		}
		f := strings.Fields(rest)
		v, err := strconv.ParseFloat(f[len(f)-1], 64)
		if err == nil {
			return v
		}
	}
	return -1
}

// TestMetrics: after some requests, /metrics counts them by route
// pattern (not by raw path) and status, with their latency and engine
// time, the lanes and each project's connection pool, on every engine.
func TestMetrics(t *testing.T) {
	p := demo(t)
	for _, eng := range engines(t) {
		t.Run(eng, func(t *testing.T) {
			hs := serve(t, eng, server.Config{}, p)
			for range 3 {
				status, _ := get(t, hs, "/api/v2/projects/1/strings", url.Values{"croql": {"is hidden"}})
				require.Equal(t, http.StatusOK, status)
			}
			status, _ := get(t, hs, "/api/v2/projects/99/strings", nil)
			require.Equal(t, http.StatusNotFound, status)
			status, _ = get(t, hs, "/api/v2/projects/1/strings", url.Values{"croql": {"is hiden"}})
			require.Equal(t, http.StatusBadRequest, status)
			m := metricsText(t, hs.URL)
			route := `route="GET /api/v2/projects/{projectId}/strings"`
			assert.Equal(t, 3.0, sample(m, "croql_http_requests_total", route, `code="200"`), m)
			assert.Equal(t, 1.0, sample(m, "croql_http_requests_total", route, `code="404"`))
			assert.Equal(t, 1.0, sample(m, "croql_http_requests_total", route, `code="400"`))
			assert.Equal(t, -1.0, sample(m, "croql_http_requests_total", `route="/api/v2/projects/1/strings"`), "no raw paths")
			assert.Equal(t, 5.0, sample(m, "croql_http_request_duration_seconds_count", route))
			assert.Equal(t, 3.0, sample(m, "croql_engine_seconds_count", route), "the three answered queries ran on the engine")
			assert.Positive(t, sample(m, "croql_engine_seconds_sum", route))
			for _, lane := range []string{"cheap", "expensive"} {
				assert.Equal(t, 0.0, sample(m, "croql_lane_running", `lane="`+lane+`"`))
				assert.Equal(t, 0.0, sample(m, "croql_lane_queued", `lane="`+lane+`"`))
				assert.Positive(t, sample(m, "croql_lane_size", `lane="`+lane+`"`))
			}
			assert.Positive(t, sample(m, "go_sql_max_open_connections", `db_name="project-1"`))
			assert.Positive(t, sample(m, "go_sql_open_connections", `db_name="project-1"`), "the pool holds the connections it opened")
			assert.Positive(t, sample(m, "go_goroutines"))
		})
	}
}

// TestPprofOnAdminOnly: the profiles answer on the admin handler and are
// a 404 on the public one; the admin handler has /metrics too, without a
// token, which the public port asks for.
func TestPprofOnAdminOnly(t *testing.T) {
	pub := serve(t, "sqlite", server.Config{}, demo(t))
	res, err := http.Get(pub.URL + "/debug/pprof/")
	require.NoError(t, err)
	res.Body.Close()
	assert.Equal(t, http.StatusNotFound, res.StatusCode, "no profiles on the public port")
	res, err = http.Get(pub.URL + "/metrics")
	require.NoError(t, err)
	res.Body.Close()
	assert.Equal(t, http.StatusUnauthorized, res.StatusCode, "no metrics on the public port without a token")

	_, srv, stop := runServer(t, server.RunOptions{Data: []string{writeDemo(t)}, Token: token})
	defer func() { require.NoError(t, stop()) }()
	admin := httptest.NewServer(srv.AdminHandler())
	defer admin.Close()
	for _, path := range []string{"/debug/pprof/", "/debug/pprof/goroutine?debug=1", "/debug/pprof/heap", "/metrics"} {
		res, err := http.Get(admin.URL + path)
		require.NoError(t, err)
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		assert.Equal(t, http.StatusOK, res.StatusCode, "%s: %.200s", path, b)
		assert.NotEmpty(t, b, path)
	}
}

// TestRunAdminListen: croql serve's --admin-listen serves the profiles on
// a listener of its own, which is off by default.
func TestRunAdminListen(t *testing.T) {
	adminc := make(chan string, 1)
	addr, _, stop := runServer(t, server.RunOptions{Data: []string{writeDemo(t)}, Token: token,
		AdminListen: "127.0.0.1:0", AdminReady: func(a string) { adminc <- a }})
	defer func() { require.NoError(t, stop()) }()
	admin := <-adminc
	require.NotEqual(t, addr, admin)
	res, err := http.Get("http://" + admin + "/debug/pprof/cmdline")
	require.NoError(t, err)
	res.Body.Close()
	assert.Equal(t, http.StatusOK, res.StatusCode)
	res, err = http.Get("http://" + addr + "/debug/pprof/cmdline")
	require.NoError(t, err)
	res.Body.Close()
	assert.Equal(t, http.StatusNotFound, res.StatusCode)
	assert.Contains(t, metricsText(t, "http://"+admin), "croql_http_requests_total")
}

// TestPublicMetricsNameOnlyTheTokensProjects: on the public port a
// token limited to project 2 sees the connection pool of project 2 and
// no word of project 1; the admin listener sees both.
func TestPublicMetricsNameOnlyTheTokensProjects(t *testing.T) {
	tokens := &server.Tokens{}
	require.NoError(t, tokens.Add(token, 2))
	hs := serve(t, "sqlite", server.Config{Tokens: tokens}, demo(t), demo(t))
	m := metricsText(t, hs.URL)
	assert.Contains(t, m, `db_name="project-2"`)
	assert.NotContains(t, m, `"project-1"`, "a token that reads project 2 only must not learn of project 1")
	srv, err := server.New(server.Config{Storage: hs.Config.Handler.(*server.Server).Storage(), Tokens: tokens})
	require.NoError(t, err)
	admin := httptest.NewServer(srv.AdminHandler())
	defer admin.Close()
	all := metricsText(t, admin.URL)
	assert.Contains(t, all, `db_name="project-1"`)
	assert.Contains(t, all, `db_name="project-2"`)
}

// TestPprofCmdlineRedactsSecrets: the admin listener's
// /debug/pprof/cmdline shows the command line with the values of the
// flags that carry secrets (client secrets, tokens, DSNs) redacted, in
// both flag forms.
func TestPprofCmdlineRedactsSecrets(t *testing.T) {
	saved := os.Args
	defer func() { os.Args = saved }()
	os.Args = []string{"croql", "serve", "--app-client-secret", "s3cret-one", "--token=tok-two", "--admin-token", "tok-three",
		"--dsn", "postgres://u:pw-four@h/db", "--data", "demo.json", "--app-client-id", "client-1"}
	hs := serve(t, "sqlite", server.Config{}, demo(t))
	admin := httptest.NewServer(hs.Config.Handler.(*server.Server).AdminHandler())
	defer admin.Close()
	res, err := http.Get(admin.URL + "/debug/pprof/cmdline")
	require.NoError(t, err)
	b, err := io.ReadAll(res.Body)
	res.Body.Close()
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, res.StatusCode)
	for _, secret := range []string{"s3cret-one", "tok-two", "tok-three", "pw-four"} {
		assert.NotContains(t, string(b), secret)
	}
	assert.Equal(t, "croql\x00serve\x00--app-client-secret\x00REDACTED\x00--token=REDACTED\x00--admin-token\x00REDACTED\x00"+
		"--dsn\x00REDACTED\x00--data\x00demo.json\x00--app-client-id\x00client-1", string(b))
}
