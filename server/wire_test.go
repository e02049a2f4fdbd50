package server_test

import (
	"compress/gzip"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/croql/croql/server"
)

// TestWire: a known route's other method is a 405 with Allow (an unknown
// path stays a 404); gzip when the request asks for it, the same JSON
// inside; a POST …/query body is read as JSON whatever its Content-Type
// (curl -d); CORS is off by default and answers the configured origins.
func TestWire(t *testing.T) {
	p := freshDemo(t)
	hs := serve(t, "sqlite", server.Config{}, p)
	do := func(method, path, body string, h map[string]string) *http.Response {
		t.Helper()
		req, err := http.NewRequest(method, hs.URL+path, strings.NewReader(body))
		require.NoError(t, err)
		req.Header.Set("Authorization", "Bearer "+token)
		for k, v := range h {
			req.Header.Set(k, v)
		}
		// The transport must not add or undo gzip on its own.
		resp, err := (&http.Transport{DisableCompression: true}).RoundTrip(req)
		require.NoError(t, err)
		t.Cleanup(func() { resp.Body.Close() })
		return resp
	}
	strs := "/api/v2/projects/1/strings"

	resp := do(http.MethodDelete, strs, "", nil)
	assert.Equal(t, http.StatusMethodNotAllowed, resp.StatusCode)
	assert.Equal(t, "GET, HEAD", resp.Header.Get("Allow"))
	resp = do(http.MethodPut, "/api/v2/nothing/here", "", nil)
	assert.Equal(t, http.StatusNotFound, resp.StatusCode)

	plain := do(http.MethodGet, strs+"?limit=50", "", nil)
	require.Equal(t, http.StatusOK, plain.StatusCode)
	assert.Empty(t, plain.Header.Get("Content-Encoding"))
	want, err := io.ReadAll(plain.Body)
	require.NoError(t, err)
	zipped := do(http.MethodGet, strs+"?limit=50", "", map[string]string{"Accept-Encoding": "gzip"})
	require.Equal(t, http.StatusOK, zipped.StatusCode)
	assert.Equal(t, "gzip", zipped.Header.Get("Content-Encoding"))
	zr, err := gzip.NewReader(zipped.Body)
	require.NoError(t, err)
	got, err := io.ReadAll(zr)
	require.NoError(t, err)
	assert.Equal(t, string(want), string(got))

	resp = do(http.MethodPost, strs+"/query", `{"croql":"is hidden","limit":2}`, map[string]string{"Content-Type": "application/x-www-form-urlencoded"})
	require.Equal(t, http.StatusOK, resp.StatusCode)
	var page struct{ Data []any }
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&page))
	assert.Len(t, page.Data, 2)
	resp = do(http.MethodPost, strs+"/query", `croql=is+hidden`, map[string]string{"Content-Type": "application/x-www-form-urlencoded"})
	assert.Equal(t, http.StatusBadRequest, resp.StatusCode)

	pre := map[string]string{"Origin": "https://app.example", "Access-Control-Request-Method": "GET", "Access-Control-Request-Headers": "authorization"}
	resp = do(http.MethodOptions, strs, "", pre)
	assert.Empty(t, resp.Header.Get("Access-Control-Allow-Origin"), "CORS is off by default")
	cors := serve(t, "sqlite", server.Config{CORSOrigins: []string{"https://app.example"}}, p)
	hs = cors
	resp = do(http.MethodOptions, strs, "", pre)
	assert.Equal(t, "https://app.example", resp.Header.Get("Access-Control-Allow-Origin"))
	resp = do(http.MethodGet, strs+"?limit=1", "", map[string]string{"Origin": "https://app.example"})
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Equal(t, "https://app.example", resp.Header.Get("Access-Control-Allow-Origin"))
	resp = do(http.MethodGet, strs+"?limit=1", "", map[string]string{"Origin": "https://other.example"})
	assert.Empty(t, resp.Header.Get("Access-Control-Allow-Origin"))
}
