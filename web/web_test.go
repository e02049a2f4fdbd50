package web

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func writeFile(t *testing.T, name string, data []byte, mod time.Time) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(name, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(name, mod, mod); err != nil {
		t.Fatal(err)
	}
}

func get(t *testing.T, url string, hdr map[string]string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	// A transport that neither asks for nor decodes gzip by itself.
	res, err := (&http.Transport{DisableCompression: true}).RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return res, string(b)
}

func TestHandlerServesTheBuiltPage(t *testing.T) {
	dir := t.TempDir()
	then := time.Now().Add(-time.Hour)
	writeFile(t, filepath.Join(dir, "index.html"), []byte("<!doctype html><title>croql</title>"), then)
	wasm := bytes.Repeat([]byte("\x00asm"), 1000)
	writeFile(t, filepath.Join(dir, "croql.wasm"), wasm, then)
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(wasm)
	zw.Close()
	writeFile(t, filepath.Join(dir, "croql.wasm.gz"), gz.Bytes(), then)
	writeFile(t, filepath.Join(dir, "main.js"), []byte("console.log(1)"), then)
	writeFile(t, filepath.Join(dir, "sub", "x.js"), []byte("x"), then)
	writeFile(t, filepath.Join(filepath.Dir(dir), "secret.txt"), []byte("no"), then)

	mux := http.NewServeMux()
	Mount(mux.Handle, "/playground", dir)
	srv := httptest.NewServer(mux)
	defer srv.Close()
	base := srv.URL + "/playground"

	res, body := get(t, base+"/", nil)
	if res.StatusCode != 200 || !strings.Contains(body, "<title>croql</title>") ||
		res.Header.Get("Content-Type") != "text/html; charset=utf-8" {
		t.Errorf("index: %d %q %v", res.StatusCode, body, res.Header)
	}
	if csp := res.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "'wasm-unsafe-eval'") {
		t.Errorf("CSP %q does not allow compiling WebAssembly", csp)
	}

	res, body = get(t, base+"/croql.wasm", nil)
	if res.StatusCode != 200 || body != string(wasm) || res.Header.Get("Content-Type") != "application/wasm" ||
		res.Header.Get("Content-Encoding") != "" {
		t.Errorf("wasm without gzip: %d, %d bytes, %v", res.StatusCode, len(body), res.Header)
	}
	res, body = get(t, base+"/croql.wasm", map[string]string{"Accept-Encoding": "br, gzip;q=0.8"})
	if res.StatusCode != 200 || body != gz.String() || res.Header.Get("Content-Encoding") != "gzip" ||
		res.Header.Get("Content-Type") != "application/wasm" {
		t.Errorf("wasm with gzip: %d, %d bytes, %v", res.StatusCode, len(body), res.Header)
	}
	if res, _ := get(t, base+"/croql.wasm", map[string]string{"Accept-Encoding": "gzip;q=0"}); res.Header.Get("Content-Encoding") != "" {
		t.Errorf("gzip;q=0 got %v", res.Header)
	}
	// The compressed sibling is stale once the file is newer.
	writeFile(t, filepath.Join(dir, "croql.wasm"), wasm[:8], time.Now())
	if res, body := get(t, base+"/croql.wasm", map[string]string{"Accept-Encoding": "gzip"}); res.Header.Get("Content-Encoding") != "" || len(body) != 8 {
		t.Errorf("stale gzip sibling served: %v, %d bytes", res.Header, len(body))
	}

	for _, p := range []string{"/nothing.js", "/sub/", "/sub", "/croql.wasm.gz"} {
		if res, body := get(t, base+p, nil); res.StatusCode != 404 {
			t.Errorf("%s: %d %q, want 404", p, res.StatusCode, body)
		}
	}
	// Paths that climb out of the directory, given to the handler as they
	// come (a ServeMux would clean them first).
	for _, p := range []string{"/../secret.txt", "/sub/../../secret.txt"} {
		rec := httptest.NewRecorder()
		req := httptest.NewRequest(http.MethodGet, "/", nil)
		req.URL.Path = p
		Handler(dir).ServeHTTP(rec, req)
		if rec.Code != 404 {
			t.Errorf("%s: %d %q, want 404", p, rec.Code, rec.Body)
		}
	}
	if res, _ := get(t, base, nil); res.StatusCode/100 != 3 || res.Header.Get("Location") != "/playground/" {
		t.Errorf("/playground: %d %v", res.StatusCode, res.Header)
	}
	req, _ := http.NewRequest(http.MethodPost, base+"/", nil)
	if res, err := http.DefaultClient.Do(req); err != nil || res.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("POST: %v %v", res, err)
	}
}

func TestHandlerSaysHowToBuild(t *testing.T) {
	srv := httptest.NewServer(Handler(filepath.Join(t.TempDir(), "dist")))
	defer srv.Close()
	res, body := get(t, srv.URL+"/", nil)
	if res.StatusCode != http.StatusServiceUnavailable || !strings.Contains(body, "web/build.sh") {
		t.Errorf("unbuilt: %d %q", res.StatusCode, body)
	}
}
