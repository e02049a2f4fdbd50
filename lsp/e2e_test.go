package lsp_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestNodeClient runs lsp/e2e/session.js: the session driven by
// vscode-jsonrpc and vscode-languageserver-protocol (the libraries of VS
// Code's language client) against the croql binary over stdio. It needs
// node and `npm ci` in lsp/e2e; without them it skips, unless
// CROQL_REQUIRE_NODE=1 (CI), where it fails.
func TestNodeClient(t *testing.T) {
	required := os.Getenv("CROQL_REQUIRE_NODE") == "1"
	missing := func(format string, args ...any) {
		t.Helper()
		if required {
			t.Fatalf(format+" (CROQL_REQUIRE_NODE=1)", args...)
		}
		t.Skipf(format+"; set CROQL_REQUIRE_NODE=1 to make this a failure", args...)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		missing("node is not installed")
	}
	dir, err := filepath.Abs("e2e")
	require.NoError(t, err)
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "vscode-languageserver-protocol")); err != nil {
		missing("the npm packages are not installed: run `npm ci` in lsp/e2e")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	bin := filepath.Join(t.TempDir(), "croql")
	if runtime.GOOS == "windows" {
		bin += ".exe"
	}
	gobin, err := exec.LookPath("go")
	require.NoError(t, err, "the go command builds the croql binary")
	build := exec.CommandContext(ctx, gobin, "build", "-o", bin, "../cmd/croql")
	out, err := build.CombinedOutput()
	require.NoError(t, err, "go build: %s", out)
	run := exec.CommandContext(ctx, node, "session.js", bin)
	run.Dir = dir
	out, err = run.CombinedOutput()
	require.NoError(t, err, "node session.js:\n%s", out)
	t.Logf("%s", out)
}
