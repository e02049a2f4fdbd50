package main

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestServeUsage(t *testing.T) {
	t.Setenv("CROQL_TOKEN", "")
	code, _, stderr := runCLI("", "serve")
	require.Equal(t, 2, code)
	require.Contains(t, stderr, "needs a token")

	code, _, stderr = runCLI("", "serve", "--token", "t", "--dsn", "somewhere")
	require.Equal(t, 2, code)
	require.Contains(t, stderr, "no such SQLite file")

	code, _, _ = runCLI("", "serve", "--token", "t", "extra-argument")
	require.Equal(t, 2, code)
}

func TestServeFailsCleanly(t *testing.T) {
	// The demo project loads, the address cannot be listened on: exit 1
	// with the reason, and the SQLite files are gone.
	dir := t.TempDir()
	t.Setenv("CROQL_TOKEN", "from-env")
	code, _, stderr := runCLI("", "serve", "--listen", "256.0.0.1:1", "--dir", dir)
	require.Equal(t, 1, code, stderr)
	require.Contains(t, stderr, "listen")
	require.NotContains(t, stderr, "from-env")
	require.NoDirExists(t, dir+"/project-1.db")
	require.NoFileExists(t, dir+"/project-1.db")
}

// TestServeAppCredentialFlags: more client secrets or ids than apps, or
// an unknown jobType, stop croql serve before it listens, with the
// reason; the secret is not echoed.
func TestServeAppCredentialFlags(t *testing.T) {
	t.Setenv("CROQL_TOKEN", "t")
	code, _, stderr := runCLI("", "serve", "--dir", t.TempDir(), "--app-client-secret", "hidden-secret")
	require.Equal(t, 1, code, stderr)
	require.Contains(t, stderr, "0 --app-client-id and 1 --app-client-secret for 0 --app")
	require.NotContains(t, stderr, "hidden-secret")

	code, _, stderr = runCLI("", "serve", "--dir", t.TempDir(), "--job-type", "post-import")
	require.Equal(t, 1, code, stderr)
	require.Contains(t, stderr, `jobType "post-import" is neither "post-import-file" nor "file-post-import"`)
}

// TestServeAdminTokenFlags: an admin token that is also a read token, or
// an admin token file that cannot be read, stops croql serve before it
// listens; the token is not echoed.
func TestServeAdminTokenFlags(t *testing.T) {
	t.Setenv("CROQL_TOKEN", "shared-secret-token")
	t.Setenv("CROQL_ADMIN_TOKEN", "")
	code, _, stderr := runCLI("", "serve", "--dir", t.TempDir(), "--listen", "127.0.0.1:0", "--admin-token", "shared-secret-token")
	require.Equal(t, 1, code, stderr)
	require.Contains(t, stderr, "an admin token is also a read token")
	require.NotContains(t, stderr, "shared-secret-token")

	code, _, stderr = runCLI("", "serve", "--dir", t.TempDir(), "--listen", "127.0.0.1:0", "--admin-token-file", t.TempDir()+"/missing")
	require.Equal(t, 1, code, stderr)
	require.Contains(t, stderr, "--admin-token-file")
}

// TestServeAdminListenFails: an admin listener that cannot listen stops
// croql serve with the reason.
func TestServeAdminListenFails(t *testing.T) {
	t.Setenv("CROQL_TOKEN", "t")
	code, _, stderr := runCLI("", "serve", "--dir", t.TempDir(), "--listen", "127.0.0.1:0", "--admin-listen", "256.0.0.1:1")
	require.Equal(t, 1, code, stderr)
	require.Contains(t, stderr, "admin listener")
}
