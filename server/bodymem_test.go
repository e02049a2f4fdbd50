package server_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/croql/croql/server"
)

// TestBodyMemoryReadAll: a body of undeclared length reserves its
// memory 1 MiB at a time as it arrives and holds what it keeps; a body
// the budget cannot hold fails with a BodyMemoryError and holds nothing;
// one over its limit is ErrBodyTooLarge.
func TestBodyMemoryReadAll(t *testing.T) {
	ctx := context.Background()
	mem := server.NewBodyMemory(4<<20, time.Millisecond)
	body := bytes.Repeat([]byte("x"), 3<<19) // 1.5 MiB
	data, held, err := mem.ReadAll(ctx, io.MultiReader(bytes.NewReader(body)), -1, 2<<20)
	require.NoError(t, err)
	require.Equal(t, body, data)
	require.EqualValues(t, len(body), held)
	require.EqualValues(t, held, mem.Used())

	// 3 MiB more do not fit beside the first body.
	_, _, err = mem.ReadAll(ctx, bytes.NewReader(make([]byte, 3<<20)), 3<<20, 4<<20)
	var full *server.BodyMemoryError
	require.True(t, errors.As(err, &full), "%v", err)
	require.Contains(t, err.Error(), "--max-body-memory")
	_, _, err = mem.ReadAll(ctx, io.MultiReader(bytes.NewReader(make([]byte, 3<<20))), -1, 4<<20)
	require.True(t, errors.As(err, &full), "%v", err)
	require.EqualValues(t, held, mem.Used(), "a refused body holds nothing")

	_, _, err = mem.ReadAll(ctx, io.MultiReader(bytes.NewReader(body)), -1, 1<<20)
	require.ErrorIs(t, err, server.ErrBodyTooLarge)
	_, _, err = mem.ReadAll(ctx, bytes.NewReader(body), int64(len(body)), 1<<20)
	require.ErrorIs(t, err, server.ErrBodyTooLarge)

	mem.Release(held)
	require.Zero(t, mem.Used())
}

// TestQueryBodyWithinBodyMemory: a POST …/query body is read within the
// body memory budget too: one the budget cannot hold is a 503 naming
// --max-body-memory, one it can is answered, and none holds memory
// afterwards.
func TestQueryBodyWithinBodyMemory(t *testing.T) {
	hs := serve(t, "sqlite", server.Config{MaxBodyMemory: 1000}, demo(t))
	post := func(body string) (int, map[string]any) {
		req, err := http.NewRequest(http.MethodPost, hs.URL+"/api/v2/projects/1/strings/query", strings.NewReader(body))
		require.NoError(t, err)
		req.Header.Set("Authorization", "Bearer "+token)
		return do(t, hs, req)
	}
	status, body := post(`{"croql":"identifier contains \"a\"","limit":1}` + strings.Repeat(" ", 2000))
	require.Equal(t, http.StatusServiceUnavailable, status, "%v", body)
	require.Contains(t, fmt.Sprint(body), "--max-body-memory")
	// 40 bodies of 47 bytes, one after the other: each gives its memory
	// back, or the budget of 1,000 bytes would refuse the 22nd.
	for range 40 {
		status, body = post(`{"croql":"identifier contains \"a\"","limit":1}`)
		require.Equal(t, http.StatusOK, status, "%v", body)
	}
}
