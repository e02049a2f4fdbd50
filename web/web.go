// Package web serves the croql browser playground: a static page with a
// CodeMirror 6 editor and croql compiled to WebAssembly, which lints,
// formats, completes, compiles to SQL and evaluates queries over the demo
// project in the browser itself.
//
// The page is built by web/build.sh into web/dist (the bundle and the
// WebAssembly module are build outputs, not part of the repository); the
// handler serves such a directory:
//
//	mux := http.NewServeMux()
//	web.Mount(mux.Handle, "/playground", "web/dist")
//
// The Go side of the page is package web/playground; the WebAssembly main
// package is web/wasm.
package web

import (
	"errors"
	"io/fs"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// DefaultDir is where web/build.sh writes the playground, relative to the
// repository root.
const DefaultDir = "web/dist"

// contentSecurityPolicy allows the page's own scripts, the compilation of
// its WebAssembly module and the style elements CodeMirror inserts, and
// nothing from elsewhere.
const contentSecurityPolicy = "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; " +
	"style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; " +
	"object-src 'none'; base-uri 'none'; frame-ancestors 'none'"

// Handler serves the built playground in dir at the root of its URL space:
// index.html at /, every other file by name. A file with a gzip sibling
// (croql.wasm.gz next to croql.wasm) is sent compressed to clients that
// accept gzip. Directories are not listed. When dir holds no index.html
// the handler answers 503 with how to build the playground.
func Handler(dir string) http.Handler {
	return &handler{dir: dir}
}

// Mount serves the playground in dir under prefix (such as "/playground")
// through handle, a route registrar such as (*http.ServeMux).Handle or a
// server's method for routes without authentication. It registers the
// subtree prefix + "/"; an http.ServeMux redirects prefix itself there.
func Mount(handle func(pattern string, h http.Handler), prefix, dir string) {
	prefix = "/" + strings.Trim(prefix, "/")
	handle(prefix+"/", http.StripPrefix(prefix, Handler(dir)))
}

type handler struct{ dir string }

func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	hdr := w.Header()
	hdr.Set("X-Content-Type-Options", "nosniff")
	hdr.Set("Content-Security-Policy", contentSecurityPolicy)
	hdr.Set("Referrer-Policy", "no-referrer")
	// The files change with every build and carry no version in their
	// names: revalidate each time (Last-Modified makes that cheap).
	hdr.Set("Cache-Control", "no-cache")

	name := path.Clean("/" + r.URL.Path)
	if name == "/" {
		name = "/index.html"
	}
	if strings.HasSuffix(name, ".gz") {
		http.NotFound(w, r) // compressed siblings are sent only by negotiation
		return
	}
	full := filepath.Join(h.dir, filepath.FromSlash(name))
	if _, err := os.Stat(filepath.Join(h.dir, "index.html")); err != nil {
		http.Error(w, "the croql playground is not built: run web/build.sh, which writes "+h.dir+
			" (it needs Go, Node.js and npm)", http.StatusServiceUnavailable)
		return
	}
	st, err := os.Stat(full)
	switch {
	case errors.Is(err, fs.ErrNotExist) || (err == nil && st.IsDir()):
		http.NotFound(w, r)
		return
	case err != nil:
		http.Error(w, "cannot read the file", http.StatusInternalServerError)
		return
	}
	hdr.Add("Vary", "Accept-Encoding")
	if acceptsGzip(r) {
		if f, err := os.Open(full + ".gz"); err == nil {
			defer f.Close()
			if gst, err := f.Stat(); err == nil && !gst.ModTime().Before(st.ModTime()) {
				if ct := contentType(name); ct != "" {
					hdr.Set("Content-Type", ct)
				}
				hdr.Set("Content-Encoding", "gzip")
				http.ServeContent(w, r, name, gst.ModTime(), f)
				return
			}
		}
	}
	f, err := os.Open(full)
	if err != nil {
		http.Error(w, "cannot read the file", http.StatusInternalServerError)
		return
	}
	defer f.Close()
	if ct := contentType(name); ct != "" {
		hdr.Set("Content-Type", ct)
	}
	http.ServeContent(w, r, name, st.ModTime(), f)
}

// contentType is the type of the playground's files by extension; others
// are left to http.ServeContent.
func contentType(name string) string {
	switch path.Ext(name) {
	case ".html":
		return "text/html; charset=utf-8"
	case ".js", ".mjs":
		return "text/javascript; charset=utf-8"
	case ".css":
		return "text/css; charset=utf-8"
	case ".wasm":
		return "application/wasm"
	case ".json":
		return "application/json"
	case ".png":
		return "image/png"
	case ".svg":
		return "image/svg+xml"
	}
	return ""
}

func acceptsGzip(r *http.Request) bool {
	for _, part := range strings.Split(r.Header.Get("Accept-Encoding"), ",") {
		enc, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		if strings.EqualFold(strings.TrimSpace(enc), "gzip") {
			q := strings.ReplaceAll(strings.TrimSpace(params), " ", "")
			return q != "q=0" && q != "q=0.0" && q != "q=0.00" && q != "q=0.000"
		}
	}
	return false
}
