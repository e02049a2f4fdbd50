// Package serveload is a load generator for `croql serve`: it generates a
// project (demo.Generate), loads it into SQLite or PostgreSQL, serves it
// on a loopback listener, and sends the seed's query patterns from many
// concurrent clients, checking every answer against the in-memory
// evaluator. It is bounded by a request count and a duration, and reports
// throughput and latency percentiles.
package serveload

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/croql/croql"
	"github.com/croql/croql/demo"
	"github.com/croql/croql/internal/corpus"
	"github.com/croql/croql/schema"
	"github.com/croql/croql/server"
)

// Options configure a run.
type Options struct {
	// Strings is the size of the generated project; Seed selects it.
	Strings int
	Seed    int64
	// Engine is "sqlite" or "postgres" (with DSN).
	Engine, DSN string
	// Clients is the number of concurrent clients.
	Clients int
	// Requests bounds the number of requests; Duration the time spent
	// sending them (the run stops at whichever comes first).
	Requests int
	Duration time.Duration
	// Limit is the page size of each request.
	Limit int
	// CorpusDir holds seed_patterns.txt.
	CorpusDir string
	// Log receives progress lines.
	Log io.Writer
}

// Result is what a run measured.
type Result struct {
	Engine        string
	Strings       int
	Clients       int
	Patterns      int
	Requests      int
	Elapsed       time.Duration
	Load          time.Duration
	Throughput    float64 // requests per second
	P50, P90, P99 time.Duration
	Max           time.Duration
	Checked       int // answers compared with the evaluator
	Mismatches    int
	Errors        int
	FirstErr      string
	PerPatternP50 map[string]time.Duration
	// CPU is the CPU time of this process (clients, server, and SQLite,
	// which runs in-process) during the load; PostgreSQL's own work is
	// in its processes, not here.
	CPU time.Duration
}

// pattern is one seed pattern with the evaluator's answer.
type pattern struct {
	name, ctx, query, path string
	ids                    []int64
	idKey                  string
}

var clock = func() time.Time { return time.Date(2024, 6, 15, 12, 0, 0, 0, time.UTC) }

// Run runs the load.
func Run(ctx context.Context, o Options) (*Result, error) {
	if o.Clients <= 0 || o.Requests <= 0 || o.Duration <= 0 || o.Limit <= 0 {
		return nil, errors.New("serveload: clients, requests, duration and limit must be positive")
	}
	logf := logger(o.Log)
	p, pats, err := generate(logf, o.Strings, o.Seed, o.CorpusDir)
	if err != nil {
		return nil, err
	}
	logf("loading into %s", o.Engine)
	start := time.Now()
	var st *server.Storage
	if o.Engine == "sqlite" {
		st, err = server.LoadSQLite(ctx, "", p)
	} else {
		st, err = server.LoadServer(ctx, o.Engine, o.DSN, p)
	}
	if err != nil {
		return nil, err
	}
	defer st.Close()
	load := time.Since(start)
	logf("loaded in %s", load.Round(time.Millisecond))
	toks := &server.Tokens{}
	const token = "load"
	if err := toks.Add(token); err != nil {
		return nil, err
	}
	srv, err := server.New(server.Config{Storage: st, Tokens: toks, Now: clock, Timeout: time.Minute})
	if err != nil {
		return nil, err
	}
	base, stop, err := listen(srv)
	if err != nil {
		return nil, err
	}
	defer stop()
	hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: o.Clients, MaxConnsPerHost: o.Clients}}

	type sample struct {
		pat int
		d   time.Duration
	}
	var (
		next     atomic.Int64
		mu       sync.Mutex
		samples  []sample
		checked  int
		mismatch int
		failures int
		firstErr string
		wg       sync.WaitGroup
	)
	runCtx, cancel := context.WithTimeout(ctx, o.Duration)
	defer cancel()
	logf("%d clients, at most %d requests or %s, %d patterns", o.Clients, o.Requests, o.Duration, len(pats))
	began := time.Now()
	cpu0 := cpuTime()
	for c := range o.Clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(o.Seed), uint64(c)))
			for runCtx.Err() == nil {
				n := next.Add(1)
				if n > int64(o.Requests) {
					return
				}
				i := int(n) % len(pats)
				pt := pats[i]
				// A page somewhere in the answer: the first one half of
				// the time, a random one otherwise.
				offset := 0
				if len(pt.ids) > o.Limit && rng.IntN(2) == 1 {
					offset = rng.IntN(len(pt.ids))
				}
				t0 := time.Now()
				got, err := fetch(runCtx, hc, base+pt.path, token, pt.query, o.Limit, offset, pt.idKey)
				d := time.Since(t0)
				mu.Lock()
				switch {
				case err != nil && runCtx.Err() != nil:
					// the time bound ended it: not counted
				case err != nil:
					failures++
					if firstErr == "" {
						firstErr = pt.name + ": " + err.Error()
					}
				default:
					samples = append(samples, sample{i, d})
					checked++
					want := pt.ids[min(offset, len(pt.ids)):min(offset+o.Limit, len(pt.ids))]
					if !slices.Equal(want, got) {
						mismatch++
						if firstErr == "" {
							firstErr = fmt.Sprintf("%s offset %d: got %d ids, want %d", pt.name, offset, len(got), len(want))
						}
					}
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(began)
	cpu := cpuTime() - cpu0
	r := &Result{Engine: o.Engine, Strings: o.Strings, Clients: o.Clients, Patterns: len(pats), Requests: len(samples),
		Elapsed: elapsed, Load: load, Checked: checked, Mismatches: mismatch, Errors: failures, FirstErr: firstErr,
		PerPatternP50: map[string]time.Duration{}, CPU: cpu}
	ds := make([]time.Duration, len(samples))
	per := map[int][]time.Duration{}
	for i, s := range samples {
		ds[i] = s.d
		per[s.pat] = append(per[s.pat], s.d)
	}
	slices.Sort(ds)
	if len(ds) > 0 {
		r.P50, r.P90, r.P99, r.Max = pct(ds, 50), pct(ds, 90), pct(ds, 99), ds[len(ds)-1]
		r.Throughput = float64(len(ds)) / elapsed.Seconds()
	}
	for i, d := range per {
		slices.Sort(d)
		r.PerPatternP50[pats[i].name] = pct(d, 50)
	}
	return r, nil
}

// logger is Printf to w with a newline, or nothing when w is nil.
func logger(w io.Writer) func(format string, a ...any) {
	return func(format string, a ...any) {
		if w != nil {
			fmt.Fprintf(w, format+"\n", a...)
		}
	}
}

// generate generates the project and reads the seed patterns with the
// evaluator's answers.
func generate(logf func(string, ...any), n int, seed int64, corpusDir string) (*schema.Project, []pattern, error) {
	logf("generating %d strings (seed %d)", n, seed)
	p := demo.Generate(demo.Options{Strings: n, Seed: seed})
	pats, err := patterns(corpusDir, p)
	return p, pats, err
}

// listen serves h on a loopback listener and returns its base URL and a
// function that stops it.
func listen(h http.Handler) (string, func(), error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0") // loopback only
	if err != nil {
		return "", nil, err
	}
	hs := &http.Server{Handler: h}
	go func() { _ = hs.Serve(ln) }()
	return "http://" + ln.Addr().String(), func() { hs.Close() }, nil
}

// cpuTime is the user and system CPU time of the process so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func pct(sorted []time.Duration, p int) time.Duration {
	i := (len(sorted)*p + 99) / 100
	return sorted[min(max(i-1, 0), len(sorted)-1)]
}

// patterns reads the seed patterns and computes the evaluator's ids.
func patterns(dir string, p *schema.Project) ([]pattern, error) {
	cases, err := corpus.LoadFile(filepath.Join(dir, "seed_patterns.txt"))
	if err != nil {
		return nil, err
	}
	var out []pattern
	for _, c := range cases {
		if c.Has("diag") || c.Get("stage") == "parse" || c.Edition() == "enterprise" {
			continue
		}
		pt := pattern{name: c.Name, ctx: c.Context(), query: c.Query(), idKey: "id"}
		lang := ""
		switch pt.ctx {
		case croql.Strings:
			pt.path = "/api/v2/projects/1/strings"
		case croql.Translations:
			lang = "de"
			// One object per string (its top translation), in string
			// order: the ids compared are the strings'.
			pt.path, pt.idKey = "/api/v2/projects/1/languages/de/translations", "stringId"
		case croql.TM:
			pt.path = "/api/v2/tms/1/segments"
		default:
			continue
		}
		env, err := croql.NewEnv(pt.ctx, croql.WithUserIDs(p.UserIDs()), croql.WithClock(clock))
		if err != nil {
			return nil, err
		}
		q, diags := env.Compile(pt.query)
		if diags.HasErrors() {
			return nil, fmt.Errorf("serveload: %s: %v", c.Name, diags)
		}
		pt.ids = []int64{}
		for _, obj := range p.Objects(q.Context()) {
			if tr, ok := obj.(*schema.Translation); ok && tr.Language != lang {
				continue
			}
			hit, err := q.Match(obj)
			if err != nil {
				return nil, fmt.Errorf("serveload: %s: %w", c.Name, err)
			}
			if hit {
				id, _ := schema.ObjectID(obj)
				if tr, ok := obj.(*schema.Translation); ok {
					id = tr.StringID
				}
				pt.ids = append(pt.ids, id)
			}
		}
		slices.Sort(pt.ids)
		pt.ids = slices.Compact(pt.ids)
		out = append(out, pt)
	}
	if len(out) == 0 {
		return nil, errors.New("serveload: no seed pattern")
	}
	return out, nil
}

// fetch GETs one page and returns its ids.
func fetch(ctx context.Context, hc *http.Client, path, token, query string, limit, offset int, idKey string) ([]int64, error) {
	q := url.Values{"croql": {query}, "limit": {strconv.Itoa(limit)}, "offset": {strconv.Itoa(offset)}}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, path+"?"+q.Encode(), nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := hc.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("status %d: %.200s", resp.StatusCode, b)
	}
	var body struct {
		Data []struct {
			Data map[string]json.RawMessage `json:"data"`
		} `json:"data"`
	}
	if err := json.Unmarshal(b, &body); err != nil {
		return nil, err
	}
	ids := make([]int64, 0, len(body.Data))
	for _, d := range body.Data {
		var id int64
		if err := json.Unmarshal(d.Data[idKey], &id); err != nil {
			return nil, fmt.Errorf("no %s: %w", idKey, err)
		}
		ids = append(ids, id)
	}
	return ids, nil
}
