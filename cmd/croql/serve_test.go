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
