package server

import (
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/klauspost/compress/gzhttp"
	"github.com/rs/cors"
)

// What a client or a browser notices on the wire besides the answers
// themselves: gzip when a request asks for it, CORS for the origins the
// server is given (none by default), and a 405 with Allow for a method a
// known route does not take.

// methods are the methods the API's routes take.
var methods = [...]string{http.MethodGet, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete}

// wire wraps h, the server's handler, with gzip (klauspost/compress's
// gzhttp: an answer of at least 1 KiB is compressed when the request's
// Accept-Encoding takes gzip) and, when cfg.CORSOrigins names origins,
// CORS for them (rs/cors: the preflight answered, the headers a browser
// build of an API client needs allowed and shown).
func wire(cfg Config, h http.Handler) (http.Handler, error) {
	gz, err := gzhttp.NewWrapper(gzhttp.MinSize(1024))
	if err != nil {
		return nil, fmt.Errorf("server: gzip: %w", err)
	}
	out := http.Handler(gz(h))
	if len(cfg.CORSOrigins) > 0 {
		c := cors.New(cors.Options{
			AllowedOrigins: cfg.CORSOrigins,
			AllowedMethods: methods[:],
			AllowedHeaders: []string{"Authorization", "Content-Type", "Accept", "Accept-Encoding"},
			ExposedHeaders: []string{"Retry-After", "Content-Length", "Content-Encoding", "Server-Timing"},
			MaxAge:         600,
		})
		out = c.Handler(out)
	}
	return out, nil
}

// allowed lists the methods of the routes other than the catch-all
// routes that match r's path.
func (s *Server) allowed(r *http.Request) []string {
	var out []string
	for _, m := range methods {
		probe := r.Clone(r.Context())
		probe.Method = m
		if _, pattern := s.mux.Handler(probe); pattern != "" && pattern != "/api/" && pattern != "/" {
			out = append(out, m)
		}
	}
	return out
}

// unrouted answers an API path no route takes with its method: a 405
// with Allow where the path is a route's with other methods (GET also
// allows HEAD), the platform's 404 otherwise.
func (s *Server) unrouted(w http.ResponseWriter, r *http.Request) {
	allow := s.allowed(r)
	if len(allow) == 0 {
		writeError(w, notFound("Resource"))
		return
	}
	if slices.Contains(allow, http.MethodGet) {
		allow = append(allow, http.MethodHead)
	}
	w.Header().Set("Allow", strings.Join(allow, ", "))
	writeError(w, &httpError{status: http.StatusMethodNotAllowed, message: "Method Not Allowed"})
}
