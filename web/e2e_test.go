package web

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestPlaygroundInChromium serves the built playground (web/dist) over
// loopback with Mount, as `croql serve` does, and runs test/e2e.mjs: real
// headless Chromium, driven by playwright-core, types a misspelled field,
// applies the fix, accepts a completion and checks the match counts.
// Screenshots land in web/test-results (CROQL_PLAYGROUND_ARTIFACTS
// overrides).
//
// It needs an up-to-date build (web/build.sh), node, web/node_modules and
// Chromium (/usr/bin/chromium or CROQL_CHROMIUM). Without them, or when
// web/dist is older than its sources, it skips, saying why; with
// CROQL_REQUIRE_PLAYGROUND=1 (as .ci/run sets) it fails instead.
func TestPlaygroundInChromium(t *testing.T) {
	if testing.Short() && os.Getenv("CROQL_REQUIRE_PLAYGROUND") == "" {
		t.Skip("-short: the browser test is left out")
	}
	chromium := os.Getenv("CROQL_CHROMIUM")
	if chromium == "" {
		chromium = "/usr/bin/chromium"
	}
	var missing []string
	for _, f := range []string{"dist/index.html", "dist/main.js", "dist/croql.wasm", "dist/wasm_exec.js",
		"node_modules/playwright-core/package.json", chromium} {
		if _, err := os.Stat(f); err != nil {
			missing = append(missing, f)
		}
	}
	node, err := exec.LookPath("node")
	if err != nil {
		missing = append(missing, "node")
	}
	if len(missing) > 0 {
		msg := "the playground test needs " + strings.Join(missing, ", ") +
			" (run web/build.sh; apt-get install chromium)"
		if os.Getenv("CROQL_REQUIRE_PLAYGROUND") != "" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	// The build must be newer than its sources, or the test would check an
	// old page: a stale build is treated like a missing one.
	if stale := staleBuild(t); stale != "" {
		msg := "web/dist is older than " + stale + ": run web/build.sh"
		if os.Getenv("CROQL_REQUIRE_PLAYGROUND") != "" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}

	mux := http.NewServeMux()
	Mount(mux.Handle, "/playground", "dist")
	srv := httptest.NewServer(mux) // 127.0.0.1, a free port
	defer srv.Close()

	artifacts := os.Getenv("CROQL_PLAYGROUND_ARTIFACTS")
	if artifacts == "" {
		artifacts = "test-results"
	}
	artifacts, err = filepath.Abs(artifacts)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, "test/e2e.mjs", srv.URL+"/playground/", artifacts)
	cmd.WaitDelay = 10 * time.Second
	out, err := cmd.CombinedOutput()
	t.Logf("node test/e2e.mjs:\n%s", out)
	if err != nil {
		t.Fatalf("the browser test failed: %v", err)
	}
	if _, err := os.Stat(filepath.Join(artifacts, "playground.png")); err != nil {
		t.Errorf("no screenshot: %v", err)
	}
}

// staleBuild returns a source of the build changed after the build, or "".
func staleBuild(t *testing.T) string {
	t.Helper()
	cmd := exec.Command("go", "list", "-deps", "-f",
		"{{if not .Standard}}{{range .GoFiles}}{{$.Dir}}/{{.}}\n{{end}}{{end}}", "./wasm")
	cmd.Env = append(os.Environ(), "GOOS=js", "GOARCH=wasm")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list the wasm build: %v", err)
	}
	goFiles := strings.Fields(string(out))
	if len(goFiles) == 0 {
		t.Fatal("go list found no Go file of the wasm build")
	}
	pageFiles, err := filepath.Glob("src/*")
	if err != nil {
		t.Fatal(err)
	}
	pageFiles = append(pageFiles, "index.html", "package-lock.json")
	for _, c := range []struct {
		built   string
		sources []string
	}{{"dist/croql.wasm", goFiles}, {"dist/main.js", pageFiles}} {
		st, err := os.Stat(c.built)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range c.sources {
			if src, err := os.Stat(f); err == nil && src.ModTime().After(st.ModTime()) {
				return f
			}
		}
	}
	return ""
}
