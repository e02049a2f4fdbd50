package platform_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/croql/croql/server/platform"
)

// TestStorageCapsConfigured: the storages' caps are Config fields (and
// flags): past MaxOwnerStorages the owner's oldest goes; a storage that
// would take all owners' storages past MaxStorageBytes is a 503 naming
// --max-storage-bytes.
func TestStorageCapsConfigured(t *testing.T) {
	hs, _ := startServe(t, platform.Config{MaxOwnerStorages: 2, MaxOwnerStorageBytes: 10_000, MaxStorageBytes: 1000})
	add := func(size int) (*http.Response, string) {
		resp := post(t, hs.URL+"/api/v2/storages", "a.json", bytes.NewReader(bytes.Repeat([]byte(" "), size)), int64(size))
		b, _ := io.ReadAll(resp.Body)
		return resp, string(b)
	}
	for range 3 {
		resp, body := add(100)
		require.Equal(t, http.StatusCreated, resp.StatusCode, body)
	}
	status, body := do(t, http.MethodGet, hs.URL+"/api/v2/storages", nil, nil)
	require.Equal(t, http.StatusOK, status)
	var list struct {
		Data []any `json:"data"`
	}
	require.NoError(t, json.Unmarshal(body, &list))
	require.Len(t, list.Data, 2, "the owner's oldest went")

	resp, msg := add(2000)
	require.Equal(t, http.StatusServiceUnavailable, resp.StatusCode, msg)
	require.NotEmpty(t, resp.Header.Get("Retry-After"))
	require.True(t, strings.Contains(msg, "--max-storage-bytes"), msg)
}
