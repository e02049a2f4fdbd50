package platform_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/croql/croql/schema"
	"github.com/croql/croql/server"
	"github.com/croql/croql/server/platform"
)

// serveWithBodyMemory is serveStorage (SQLite) with a body memory
// budget of max bytes; it returns the server to read the budget's use.
func serveWithBodyMemory(t *testing.T, max int64) (*httptest.Server, *server.Server) {
	t.Helper()
	ctx := context.Background()
	st, err := server.LoadSQLite(ctx, t.TempDir(), &schema.Project{Name: "demo", SourceLanguage: "en", TargetLanguages: []string{"uk"}})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, st.Close()) })
	tokens := &server.Tokens{}
	require.NoError(t, tokens.Add(token))
	srv, err := server.New(server.Config{Storage: st, Tokens: tokens, MaxBodyMemory: max})
	require.NoError(t, err)
	p, err := platform.New(ctx, platform.Config{})
	require.NoError(t, err)
	p.Register(srv)
	hs := httptest.NewServer(srv)
	t.Cleanup(hs.Close)
	return hs, srv
}

// post sends body (of declared length n) to url as the raw file name
// and returns the answer.
func post(t *testing.T, url, name string, body io.Reader, n int64) *http.Response {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, body)
	require.NoError(t, err)
	req.ContentLength = n
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Crowdin-API-FileName", name)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

// TestBodyMemoryBudget: a body reserves its memory as it arrives; one
// that cannot get it is answered 503 with Retry-After naming
// --max-body-memory, a kept storage holds its memory until it is
// deleted, and once every request is over the budget holds nothing.
func TestBodyMemoryBudget(t *testing.T) {
	const size = 700 << 10
	hs, srv := serveWithBodyMemory(t, 1<<20)
	mem := srv.BodyMemory()

	// A storage whose body is still arriving holds its memory.
	pr, pw := io.Pipe()
	req, err := http.NewRequest(http.MethodPost, hs.URL+"/api/v2/storages", pr)
	require.NoError(t, err)
	req.ContentLength = size
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Crowdin-API-FileName", "a.json")
	type answer struct {
		resp *http.Response
		err  error
	}
	first := make(chan answer, 1)
	go func() {
		resp, err := http.DefaultClient.Do(req)
		first <- answer{resp, err}
	}()
	_, err = pw.Write(bytes.Repeat([]byte(" "), 1024))
	require.NoError(t, err)
	require.Eventually(t, func() bool { return mem.Used() == size }, 10*time.Second, 5*time.Millisecond)

	// Two more bodies that would pass the budget: refused, holding none.
	for _, url := range []string{hs.URL + "/api/v2/storages", hs.URL + "/api/v2/projects/1/files"} {
		resp := post(t, url, "b.json", bytes.NewReader(make([]byte, size)), size)
		msg, _ := io.ReadAll(resp.Body)
		require.Equal(t, http.StatusServiceUnavailable, resp.StatusCode, string(msg))
		require.Equal(t, "1", resp.Header.Get("Retry-After"))
		require.Contains(t, string(msg), "--max-body-memory")
		require.EqualValues(t, size, mem.Used(), "the refused body holds nothing")
	}

	// The first arrives whole and is kept: its memory stays held.
	_, err = pw.Write(append(bytes.Repeat([]byte(" "), size-1024-2), '{', '}'))
	require.NoError(t, err)
	require.NoError(t, pw.Close())
	a := <-first
	require.NoError(t, a.err)
	t.Cleanup(func() { a.resp.Body.Close() })
	resp := a.resp
	require.Equal(t, http.StatusCreated, resp.StatusCode)
	require.EqualValues(t, size, mem.Used(), "a kept storage holds its body's memory")
	var created struct {
		Data struct {
			ID int64 `json:"id"`
		} `json:"data"`
	}
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&created))

	// Deleting it gives the memory back; a one-step upload holds its
	// body's memory (and its import's) only while it is handled.
	status, body := do(t, http.MethodDelete, hs.URL+"/api/v2/storages/"+strconv.FormatInt(created.Data.ID, 10), nil, nil)
	require.Equal(t, http.StatusNoContent, status, string(body))
	require.Zero(t, mem.Used())
	file := []byte(`{"hello":"Hello"}`)
	resp = post(t, hs.URL+"/api/v2/projects/1/files", "app.json", bytes.NewReader(file), int64(len(file)))
	require.Equal(t, http.StatusCreated, resp.StatusCode)
	// Released as the handler returns, which may follow the answer.
	require.Eventually(t, func() bool { return mem.Used() == 0 }, 10*time.Second, 5*time.Millisecond)
}
