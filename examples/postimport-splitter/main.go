// Command postimport-splitter is a runnable example of a file post-import
// app built on croql's app/postimport package.
//
// After the platform parses a file, it calls the app with the strings. The
// app splits every non-plural string whose text has several paragraphs
// (separated by a blank line) into one string per paragraph, splitting the
// translations the same way. A string is left exactly as it came when any
// of its translations has a different number of paragraphs, so nothing is
// lost; strings it does not split pass through byte for byte.
//
// Usage:
//
//	go run ./examples/postimport-splitter -addr :8080 -public-url https://splitter.example.com
//
// It serves:
//
//	GET  /manifest.json          the app descriptor with its file-post-import module
//	POST /post-import            the module URL
//	GET  /post-import?result=ID  large answers (NDJSON), referenced by data.stringsUrl
//	                             (the handler's default store: temporary files)
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/croql/croql/app/postimport"
)

// config configures the app.
type config struct {
	// publicURL is the app's public base address (for result URLs).
	publicURL string
	// allowPrivateFetch lets the app fetch contentUrl/stringsUrl from
	// private addresses (local development and tests only).
	allowPrivateFetch bool
	// maxInline overrides the inline answer limit (0: the package default).
	maxInline int64
	// deadline overrides the processing deadline (0: the package default).
	deadline time.Duration
	logger   *slog.Logger
}

// module is the app's single post-import module.
var module = postimport.Module{
	Key: "paragraph-splitter",
	URL: "/post-import",
	SignaturePatterns: &postimport.SignaturePatterns{
		FileName: `\.(md|txt|json)$`,
	},
}

// newApp returns the app's HTTP handler.
func newApp(cfg config) (http.Handler, error) {
	if err := module.Validate(); err != nil {
		return nil, err
	}
	pcfg := postimport.Config{
		// Large answers go to the handler's default store, served on the
		// module URL itself; PublicURL is where the platform reaches it.
		PublicURL:              strings.TrimSuffix(cfg.publicURL, "/") + module.URL,
		Logger:                 cfg.logger,
		MaxInlineResponseBytes: cfg.maxInline,
		Deadline:               cfg.deadline,
	}
	if cfg.allowPrivateFetch {
		pcfg.HTTPClient = &http.Client{}
	}
	h, err := postimport.NewHandler(postimport.ProcessorFunc(split), pcfg)
	if err != nil {
		return nil, err
	}
	mux := http.NewServeMux()
	mux.Handle(module.URL, h)
	mux.HandleFunc("GET /manifest.json", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{
			"identifier": "paragraph-splitter",
			"name":       "Paragraph splitter",
			"baseUrl":    cfg.publicURL,
			"modules":    postimport.Modules{FilePostImport: []postimport.Module{module}},
		})
	})
	return mux, nil
}

// split is the app's post-import function.
func split(ctx context.Context, job *postimport.Job) ([]postimport.String, error) {
	used := make(map[string]bool, len(job.Strings))
	for _, s := range job.Strings {
		used[s.UniqID] = true
	}
	out := make([]postimport.String, 0, len(job.Strings))
	for i, s := range job.Strings {
		if i%1000 == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		out = append(out, splitString(s, used)...)
	}
	return out, nil
}

// paragraphs splits a text on blank lines, dropping empty parts.
func paragraphs(text string) []string {
	text = strings.ReplaceAll(text, "\r\n", "\n")
	var parts []string
	for _, p := range strings.Split(text, "\n\n") {
		if p = strings.TrimSpace(p); p != "" {
			parts = append(parts, p)
		}
	}
	return parts
}

// splitString returns s unchanged or its parts.
func splitString(s postimport.String, used map[string]bool) []postimport.String {
	if s.HasPlurals {
		return []postimport.String{s}
	}
	parts := paragraphs(s.Text.Plain)
	if len(parts) < 2 {
		return []postimport.String{s}
	}
	translated := make(map[string][]string, len(s.Translations))
	for lang, t := range s.Translations {
		tp := paragraphs(t.Text.Plain)
		if t.Text.IsPlural() || len(tp) != len(parts) {
			return []postimport.String{s} // cannot split faithfully
		}
		translated[lang] = tp
	}
	hash, seq, ok := strings.Cut(s.UniqID, "::")
	if !ok {
		hash, seq = s.UniqID, "0"
	}
	out := make([]postimport.String, len(parts))
	for i, p := range parts {
		part := s.Clone() // keeps context, labels, maxLength, unknown members
		part.UniqID = uniqueID(fmt.Sprintf("%s-p%d", hash, i+1), seq, used)
		part.Identifier = fmt.Sprintf("%s.%d", s.Identifier, i+1)
		part.Text = postimport.PlainText(p)
		for lang, tps := range translated {
			t := part.Translations[lang]
			t.Text = postimport.PlainText(tps[i])
			part.Translations[lang] = t
		}
		out[i] = part
	}
	return out
}

// uniqueID returns hash::seq, varying the hash part until the id is unused,
// so new ids keep the platform's "hash::sequence" form.
func uniqueID(hash, seq string, used map[string]bool) string {
	candidate := hash + "::" + seq
	for n := 2; used[candidate]; n++ {
		candidate = fmt.Sprintf("%s-%d::%s", hash, n, seq)
	}
	used[candidate] = true
	return candidate
}

func main() {
	addr := flag.String("addr", ":8080", "listen address")
	publicURL := flag.String("public-url", "http://localhost:8080", "public base address of the app")
	allowPrivate := flag.Bool("allow-private-fetch", false, "allow fetching contentUrl/stringsUrl from private addresses (development only)")
	flag.Parse()

	logger := slog.New(slog.NewTextHandler(os.Stderr, nil))
	app, err := newApp(config{publicURL: *publicURL, allowPrivateFetch: *allowPrivate, logger: logger})
	if err != nil {
		logger.Error("configuration", "error", err)
		os.Exit(1)
	}
	srv := &http.Server{
		Addr:    *addr,
		Handler: app,
		// A job is at most 5 MiB: headers and body must arrive quickly,
		// so a client trickling bytes cannot hold a connection (the
		// handler also sets a read deadline on the body).
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       postimport.DefaultBodyTimeout,
		// The platform waits 2 minutes; the handler answers before that.
		WriteTimeout: postimport.PlatformWait,
		IdleTimeout:  time.Minute,
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() {
		<-ctx.Done()
		shutdown, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = srv.Shutdown(shutdown)
	}()
	logger.Info("listening", "addr", *addr, "module", module.URL)
	if err := srv.ListenAndServe(); err != nil && !errors.Is(err, http.ErrServerClosed) {
		logger.Error("server", "error", err)
		os.Exit(1)
	}
}
