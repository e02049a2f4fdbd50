package serveload

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/croql/croql"
	"github.com/croql/croql/compile"
	"github.com/croql/croql/diag"
	"github.com/croql/croql/mapping"
	"github.com/croql/croql/schema"
	"github.com/croql/croql/server"
	"github.com/croql/croql/store"
)

// CPUOptions configure a CPU-per-request run (CPU).
type CPUOptions struct {
	// Engine is "sqlite" or "postgres" (with DSN); Strings and Seed
	// select the generated project.
	Engine, DSN string
	Strings     int
	Seed        int64
	// CacheDir keeps the loaded stores between runs (a SQLite file per
	// size, seed and schema version; for PostgreSQL, a schema of that
	// name at DSN). Required.
	CacheDir string
	// CorpusDir holds seed_patterns.txt.
	CorpusDir string
	// ResidentMaxBytes is the server's resident snapshot budget
	// (server.Config.ResidentMaxBytes); 0: the database answers all.
	ResidentMaxBytes int64
	// Direct also measures the compiled SQL run directly on the engine.
	Direct bool
	// FirstOnly measures the first pages only (no withTotal, no offset
	// 50,000, no full pass of the evaluator).
	FirstOnly bool
	// SQLite sizes the server's SQLite connections (croql serve's
	// --sqlite-cache and --sqlite-mmap).
	SQLite store.SQLiteCache
	// Match, when set, keeps the patterns whose name it matches.
	Match *regexp.Regexp
	// Both measures the database path (no snapshot) beside the snapshot's
	// in the same run.
	Both bool
	// Timeout is the server's statement timeout (10 s when 0).
	Timeout time.Duration
	// Log receives progress lines.
	Log io.Writer
}

// CPURow is one pattern's CPU per request.
type CPURow struct {
	// Pattern is the seed pattern's name, Context its context.
	Pattern, Context string
	Matches          int
	// First, Total and Deep are the server's CPU (this process and the
	// database backends) for the first page (limit=25), the first page
	// withTotal, and the page at offset 50,000.
	First, Total, Deep time.Duration
	// SQLFirst, SQLCount and SQLDeep are the compiled SQL run directly on
	// the engine (keys only; COUNT(*)), when measured.
	SQLFirst, SQLCount, SQLDeep time.Duration
	// EvalFirst is the evaluator's CPU to find the first 25 matches;
	// EvalFull a full pass over the objects.
	EvalFirst, EvalFull time.Duration
	// Problem is the server's first non-200 answer or error, if any (a
	// 503 among them); DirectProblem the direct SQL's (a timeout).
	Problem, DirectProblem string
	// DB is the same requests on the database path (CPUOptions.Both).
	DB *CPURow
}

// FirstOK is acceptance 1: the first page costs at most max(2 ms, 3×
// the evaluator's time to find it).
func (r CPURow) FirstOK() bool {
	return r.Problem == "" && r.First <= max(2*time.Millisecond, 3*r.EvalFirst)
}

// DBFirstOK: the database path's first page costs at most max(2 ms, 3×
// the evaluator's time to find it).
func (r CPURow) DBFirstOK() bool {
	return r.DB != nil && r.DB.Problem == "" && r.DB.First <= max(2*time.Millisecond, 3*r.EvalFirst)
}

// DBTotalOK: the database path's withTotal costs at most 3× the
// evaluator's full pass.
func (r CPURow) DBTotalOK() bool {
	return r.DB != nil && r.DB.Problem == "" && r.EvalFull > 0 && r.DB.Total <= 3*r.EvalFull
}

// TranslationsListFirst is the bound of the translations list's own
// first page (its pattern without a query) on the database path.
const TranslationsListFirst = 5 * time.Millisecond

// PathFirstOK is the database path's bound of a first page, for a run
// without a snapshot (r is then the database path's): at most max(2 ms,
// 3× the evaluator's time to find it), and at most
// TranslationsListFirst for the translations list itself.
func (r CPURow) PathFirstOK() bool {
	bound := max(2*time.Millisecond, 3*r.EvalFirst)
	if r.Pattern == "translations-list" {
		bound = TranslationsListFirst
	}
	return r.Problem == "" && r.First <= bound
}

// PathTotalOK is the database path's bound of withTotal, for a run
// without a snapshot: at most 3× the evaluator's full pass.
func (r CPURow) PathTotalOK() bool {
	return r.Problem == "" && r.EvalFull > 0 && r.Total <= 3*r.EvalFull
}

// WholeOK is acceptance 3: withTotal and offset 50,000 cost at most 5×
// the evaluator's full pass.
func (r CPURow) WholeOK() bool {
	return r.Problem == "" && r.Total <= 5*r.EvalFull && r.Deep <= 5*r.EvalFull && r.EvalFull > 0
}

// CPUReport is a CPU-per-request run.
type CPUReport struct {
	Engine        string
	Strings       int
	Resident      bool
	ResidentBytes int64
	// LiveHeap and RSS are what building the snapshot added to the live
	// heap and to the resident set (after a collection); RSSPeak is the
	// most the resident set grew while it was built.
	LiveHeap, RSS, RSSPeak int64
	// Ready is the snapshot's build time (wall), ReadyCPU its CPU.
	Ready, ReadyCPU time.Duration
	Load            time.Duration
	Rows            []CPURow
}

// SumFirst is the sum of the source-string patterns' first pages' CPU,
// and how many there are.
func (r *CPUReport) SumFirst() (time.Duration, int) {
	var s time.Duration
	n := 0
	for _, x := range r.Rows {
		if x.Context == croql.Strings {
			s += x.First
			n++
		}
	}
	return s, n
}

// CPU measures CPU per request for every seed pattern (the source
// strings', the TM's and the translations').
func CPU(ctx context.Context, o CPUOptions) (*CPUReport, error) {
	if o.CacheDir == "" || o.Strings <= 0 {
		return nil, errors.New("serveload: a cache directory and a positive size are needed")
	}
	if o.Timeout <= 0 {
		o.Timeout = server.DefaultTimeout
	}
	logf := logger(o.Log)
	p, pats, err := generate(logf, o.Strings, o.Seed, o.CorpusDir)
	if err != nil {
		return nil, err
	}
	// Beside the seed: the translations list without a query, and a
	// range that matches nothing (an index finds that at once).
	pats = append(pats,
		pattern{name: "translations-list", ctx: croql.Translations, path: "/api/v2/projects/1/languages/de/translations", idKey: "stringId"},
		pattern{name: "updated-after-2100", ctx: croql.Strings, query: "updated > '2100-01-01 00:00:00'", path: "/api/v2/projects/1/strings", idKey: "id"})
	if o.Match != nil {
		pats = slices.DeleteFunc(pats, func(pt pattern) bool { return !o.Match.MatchString(pt.name) })
	}
	began := time.Now()
	d0, err := compile.DialectByName(o.Engine)
	if err != nil {
		return nil, err
	}
	dsn, err := cachedStore(ctx, o, p, logf)
	if err != nil {
		return nil, err
	}
	rep := &CPUReport{Engine: o.Engine, Strings: o.Strings, Load: time.Since(began)}
	app := fmt.Sprintf("serveload_%d", os.Getpid())
	serveDSN := dsn
	if o.Engine == "postgres" {
		serveDSN = withParam(dsn, "application_name", app)
	} else {
		serveDSN = o.SQLite.DSN(dsn)
	}
	st, err := server.OpenExisting(ctx, o.Engine, serveDSN, "serveload")
	if err != nil {
		return nil, err
	}
	defer st.Close()
	proj, _ := st.Project(1)
	// The snapshot is read from the project's NDJSON file, as croql
	// serve --data reads it (the generated objects stay apart, for the
	// evaluator).
	file, err := cachedFile(o, p, d0)
	if err != nil {
		return nil, err
	}
	proj.SourceFile = file
	toks := &server.Tokens{}
	const token = "cpu"
	if err := toks.Add(token); err != nil {
		return nil, err
	}
	srv, err := server.New(server.Config{Storage: st, Tokens: toks, Now: clock, Timeout: o.Timeout, ResidentMaxBytes: o.ResidentMaxBytes})
	if err != nil {
		return nil, err
	}
	// The baseline holds no garbage the system could take back (the
	// generation's, the load's), as the server's build gives back its own.
	debug.FreeOSMemory()
	heap0, rss0 := liveHeap(), rss()
	// The peak resident set from here on (a write of 5 resets VmHWM).
	_ = os.WriteFile("/proc/self/clear_refs", []byte("5"), 0)
	began = time.Now()
	cpu0 := processCPU()
	if n, err := srv.BuildResident(ctx); err != nil {
		return nil, err
	} else if n > 0 {
		rep.Resident, rep.ResidentBytes = true, srv.ResidentBytes(1)
		rep.Ready, rep.ReadyCPU = time.Since(began), processCPU()-cpu0
		rep.RSSPeak = peakRSS() - rss0
		rep.LiveHeap, rep.RSS = liveHeap()-heap0, rss()-rss0
		logf("resident snapshot: %d MB estimated, %d MB live heap, %d MB RSS, ready in %s", rep.ResidentBytes>>20, rep.LiveHeap>>20, rep.RSS>>20, rep.Ready.Round(time.Millisecond))
	}
	base, stop, err := listen(srv)
	if err != nil {
		return nil, err
	}
	defer stop()
	// Beside it, with -both: the database path (no snapshot) on the same
	// store.
	baseDB := ""
	if o.Both {
		dbSrv, err := server.New(server.Config{Storage: st, Tokens: toks, Now: clock, Timeout: o.Timeout})
		if err != nil {
			return nil, err
		}
		var stopDB func()
		if baseDB, stopDB, err = listen(dbSrv); err != nil {
			return nil, err
		}
		defer stopDB()
	}
	hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 4}}

	// The database backends' CPU: PostgreSQL's backends of this
	// process's connections (by application name); SQLite runs in this
	// process.
	serverCPU := meter{proc: processCPU}
	var direct *sql.DB
	directCPU := meter{proc: processCPU}
	if o.Engine == "postgres" {
		medb, err := store.OpenDSN(ctx, withParam(dsn, "application_name", app+"_monitor"))
		if err != nil {
			return nil, err
		}
		defer medb.Close()
		mon := medb.SQL
		mon.SetMaxOpenConns(1)
		serverCPU.back = func() time.Duration { return pgBackendCPU(ctx, mon, app) }
		if o.Direct {
			dedb, err := store.OpenDSN(ctx, withParam(dsn, "application_name", app+"_direct"))
			if err != nil {
				return nil, err
			}
			defer dedb.Close()
			direct = dedb.SQL
			direct.SetMaxOpenConns(1)
			directCPU.back = func() time.Duration { return pgBackendCPU(ctx, mon, app+"_direct") }
		}
	} else {
		if o.Direct {
			edb, err := store.OpenDSN(ctx, dsn)
			if err != nil {
				return nil, err
			}
			defer edb.Close()
			direct = edb.SQL
			direct.SetMaxOpenConns(1)
		}
	}
	d, err := compile.DialectByName(o.Engine)
	if err != nil {
		return nil, err
	}
	mapping := mapping.Default(schema.New())
	objsOf := map[string][]any{}
	for _, name := range []string{croql.Strings, croql.TM, croql.Translations} {
		c, _ := schema.New().Context(name)
		objsOf[name] = p.Objects(c)
	}
	// The translations list is of one language: the evaluator sees its
	// translations only.
	objsOf[croql.Translations] = slices.DeleteFunc(objsOf[croql.Translations], func(o any) bool {
		tr, ok := o.(*schema.Translation)
		return ok && tr.Language != "de"
	})
	for _, pt := range pats {
		// Each pattern starts from a collected heap, as a Go benchmark
		// does: the garbage of the set-up and of the pattern before is not
		// its cost (its own garbage is).
		runtime.GC()
		row := CPURow{Pattern: pt.name, Context: pt.ctx, Matches: len(pt.ids)}
		req := func(q url.Values) func() error {
			return func() error {
				q.Set("croql", pt.query)
				return fetchStatus(ctx, hc, base+pt.path+"?"+q.Encode(), token)
			}
		}
		var perr error
		row.First, perr = measure(serverCPU, req(url.Values{"limit": {"25"}}))
		if perr == nil && !o.FirstOnly {
			row.Total, perr = measure(serverCPU, req(url.Values{"limit": {"25"}, "withTotal": {"true"}}))
		}
		if perr == nil && !o.FirstOnly {
			row.Deep, perr = measure(serverCPU, req(url.Values{"limit": {"25"}, "offset": {"50000"}}))
		}
		if perr != nil {
			row.Problem = perr.Error()
		}
		if baseDB != "" {
			row.DB = &CPURow{}
			at := func(q url.Values) func() error {
				return func() error {
					q.Set("croql", pt.query)
					return fetchStatus(ctx, hc, baseDB+pt.path+"?"+q.Encode(), token)
				}
			}
			row.DB.First, perr = measure(serverCPU, at(url.Values{"limit": {"25"}}))
			if perr == nil && !o.FirstOnly {
				row.DB.Total, perr = measure(serverCPU, at(url.Values{"limit": {"25"}, "withTotal": {"true"}}))
			}
			if perr != nil {
				row.DB.Problem = perr.Error()
			}
		}
		objs := objsOf[pt.ctx]
		env, err := croql.NewEnv(pt.ctx, croql.WithUserIDs(proj.Users), croql.WithClock(clock), croql.WithLanguages(proj.Languages...))
		if err != nil {
			return nil, err
		}
		var q *croql.Query
		if pt.query != "" {
			var diags diag.List
			if q, diags = env.Compile(pt.query); diags.HasErrors() {
				return nil, fmt.Errorf("serveload: %s: %v", pt.name, diags)
			}
		}
		if pt.ids == nil {
			row.Matches = evalCount(ctx, q, objs)
		}
		// The evaluator's CPU is the process's, as the server's is: its
		// garbage collection included.
		row.EvalFirst, _ = measure(meter{proc: processCPU}, func() error { return evalPass(ctx, q, objs, 25) })
		if !o.FirstOnly {
			row.EvalFull, _ = measure(meter{proc: processCPU}, func() error { return evalPass(ctx, q, objs, len(objs)+1) })
		}
		if direct != nil && q != nil {
			c, diags := env.SQLMapped(pt.query, d, mapping)
			if c == nil {
				return nil, fmt.Errorf("serveload: %s: %v", pt.name, diags)
			}
			dcpu := directCPU
			run := func(query string, args []any) func() error {
				return func() error {
					qctx, cancel := context.WithTimeout(ctx, o.Timeout)
					defer cancel()
					rows, err := direct.QueryContext(qctx, query, args...)
					if err != nil {
						return err
					}
					defer rows.Close()
					for rows.Next() {
					}
					return rows.Err()
				}
			}
			first, fargs := c.SelectLimit(25)
			deepArgs := append(append([]any(nil), c.Args...), int64(25), int64(50000))
			deep := c.Select() + d.Limit(d.Param(len(deepArgs)-1, schema.Int)) + " OFFSET " + d.Param(len(deepArgs), schema.Int)
			count := "SELECT COUNT(*) FROM " + c.From + " WHERE " + c.Where
			var e1, e2, e3 error
			row.SQLFirst, e1 = measure(dcpu, run(first, fargs))
			if !o.FirstOnly {
				row.SQLCount, e2 = measure(dcpu, run(count, c.Args))
				row.SQLDeep, e3 = measure(dcpu, run(deep, deepArgs))
			}
			if err := errors.Join(e1, e2, e3); err != nil {
				row.DirectProblem = "direct SQL: " + err.Error()
			}
		}
		logf("%-55s first %8s total %8s deep %8s eval %8s/%8s", pt.name, ms(row.First), ms(row.Total), ms(row.Deep), ms(row.EvalFirst), ms(row.EvalFull))
		rep.Rows = append(rep.Rows, row)
	}
	return rep, nil
}

// cachedFile writes p as NDJSON beside its cached store, once.
func cachedFile(o CPUOptions, p *schema.Project, d compile.Dialect) (string, error) {
	if err := os.MkdirAll(o.CacheDir, 0o700); err != nil {
		return "", fmt.Errorf("serveload: %w", err)
	}
	file := filepath.Join(o.CacheDir, storeKey(o, p, d)+".ndjson")
	if _, err := os.Stat(file); err == nil {
		return file, nil
	}
	f, err := os.Create(file + ".tmp")
	if err != nil {
		return "", fmt.Errorf("serveload: %w", err)
	}
	if err := errors.Join(p.WriteNDJSON(f), f.Close()); err != nil {
		return "", fmt.Errorf("serveload: %w", err)
	}
	return file, os.Rename(file+".tmp", file)
}

// liveHeap is the heap's live bytes after a collection.
func liveHeap() int64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapAlloc)
}

// rss and peakRSS are this process's resident set now and at its peak
// (VmRSS and VmHWM of /proc/self/status; 0 where there is none).
func rss() int64     { return procStatus("VmRSS:") }
func peakRSS() int64 { return procStatus("VmHWM:") }

func procStatus(field string) int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, field); ok {
			kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			return kb << 10
		}
	}
	return 0
}

// evalCount is how many of objs q matches (all for a nil q).
func evalCount(ctx context.Context, q *croql.Query, objs []any) int {
	n := 0
	for _, o := range objs {
		if q == nil {
			n++
		} else if ok, err := q.Program().MatchContext(ctx, o); err == nil && ok {
			n++
		}
	}
	return n
}

// evalPass matches objs in order until n matches (a nil q matches all).
func evalPass(ctx context.Context, q *croql.Query, objs []any, n int) error {
	hits := 0
	for _, o := range objs {
		ok := q == nil
		if !ok {
			var err error
			if ok, err = q.Program().MatchContext(ctx, o); err != nil {
				return err
			}
		}
		if ok {
			if hits++; hits >= n {
				return nil
			}
		}
	}
	return nil
}

// meter reads CPU time: the process's own and, when back is set, the
// database backends'. Reading back runs a query: it is read outside the
// process's interval so that its own cost is not counted.
type meter struct {
	proc, back func() time.Duration
}

func (m meter) interval(fn func() error) (time.Duration, error) {
	var b0, b1 time.Duration
	if m.back != nil {
		b0 = m.back()
	}
	p0 := m.proc()
	err := fn()
	p1 := m.proc()
	if m.back != nil {
		b1 = m.back()
	}
	return p1 - p0 + b1 - b0, err
}

// measure runs fn once to warm up, then as often as fits in about 50 ms
// of CPU (at least 5 times, at most 25), and returns the median CPU of a
// run; a first run over 500 ms is the figure itself. Where that median
// is 0 (a run too short for the CPU clock, whose reading moves in steps),
// runs are measured in batches of 16 or more that take at least a
// millisecond, each batch's CPU divided by its runs.
func measure(m meter, fn func() error) (time.Duration, error) {
	one, err := m.interval(fn)
	if err != nil {
		return 0, err
	}
	if one > 500*time.Millisecond {
		// A slow one: its first run is the figure.
		return one, nil
	}
	med, err := medianRun(m, fn, 1, one)
	for k := 16; med == 0 && err == nil && k <= 1<<16; k *= 16 {
		b := func() error {
			for range k {
				if err := fn(); err != nil {
					return err
				}
			}
			return nil
		}
		if one, err = m.interval(b); err == nil && one >= time.Millisecond {
			med, err = medianRun(m, b, k, one)
		}
	}
	return med, err
}

// medianRun is the median CPU of a run of fn, which runs k runs and took
// one for a first run: run as often as fits in about 50 ms of CPU (at
// least 5 times, at most 25), each reading divided by k.
func medianRun(m meter, fn func() error, k int, one time.Duration) (time.Duration, error) {
	n := 25
	if one > 0 {
		n = int(min(25, max(5, int64(50*time.Millisecond/one))))
	}
	runs := make([]time.Duration, n)
	for i := range runs {
		d, err := m.interval(fn)
		if err != nil {
			return 0, err
		}
		runs[i] = d / time.Duration(k)
	}
	slices.Sort(runs)
	return runs[n/2], nil
}

// processCPU is this process's user and system CPU time.
func processCPU() time.Duration { return rusage(syscall.RUSAGE_SELF) }

func rusage(who int) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(who, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// pgBackendCPU is the CPU time of the PostgreSQL backends whose
// application name is app, from /proc/PID/schedstat (nanoseconds on a
// CPU); the server runs on this machine.
func pgBackendCPU(ctx context.Context, mon *sql.DB, app string) time.Duration {
	if mon == nil {
		return 0
	}
	rows, err := mon.QueryContext(ctx, "SELECT pid FROM pg_stat_activity WHERE application_name = $1", app)
	if err != nil {
		return 0
	}
	defer rows.Close()
	var total time.Duration
	for rows.Next() {
		var pid int
		if rows.Scan(&pid) != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/schedstat")
		if err != nil {
			continue
		}
		f := strings.Fields(string(b))
		if len(f) > 0 {
			n, _ := strconv.ParseInt(f[0], 10, 64)
			total += time.Duration(n)
		}
	}
	return total
}

// fetchStatus GETs u and reads the whole answer; a status other than 200
// is an error.
func fetchStatus(ctx context.Context, hc *http.Client, u, token string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := hc.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("status %d: %.120s", resp.StatusCode, b)
	}
	return nil
}

// withParam adds a key=value parameter to a URL DSN.
func withParam(dsn, k, v string) string {
	sep := "?"
	if strings.Contains(dsn, "?") {
		sep = "&"
	}
	return dsn + sep + url.QueryEscape(k) + "=" + url.QueryEscape(v)
}

// storeKey names a cached store: the size, the seed, and a digest of the
// reference schema's DDL and of the generated data's first strings (a
// change to either is another store).
func storeKey(o CPUOptions, p *schema.Project, d compile.Dialect) string {
	h := sha256.New()
	for _, s := range store.DDL(d, mapping.Default(schema.New())) {
		io.WriteString(h, s)
	}
	head, _ := json.Marshal(p.Strings[:min(20, len(p.Strings))])
	h.Write(head)
	fmt.Fprint(h, len(p.Strings), len(p.TMSegments), len(p.GlossaryTerms))
	// The load's settings (SQLite's statistics among them).
	for _, st := range d.BulkLoad().Settings {
		io.WriteString(h, st.Set+st.Value)
	}
	return fmt.Sprintf("serveload_n%d_s%d_%s", o.Strings, o.Seed, hex.EncodeToString(h.Sum(nil))[:10])
}

// cachedStore returns the DSN of the loaded store of p, loading it first
// when the cache does not have it.
func cachedStore(ctx context.Context, o CPUOptions, p *schema.Project, logf func(string, ...any)) (string, error) {
	d, err := compile.DialectByName(o.Engine)
	if err != nil {
		return "", err
	}
	key := storeKey(o, p, d)
	m := mapping.Default(schema.New())
	switch o.Engine {
	case "sqlite":
		if err := os.MkdirAll(o.CacheDir, 0o700); err != nil {
			return "", fmt.Errorf("serveload: %w", err)
		}
		file := filepath.Join(o.CacheDir, key+".db")
		if _, err := os.Stat(file); err == nil {
			logf("store: %s (cached)", file)
			return "file:" + file, nil
		}
		tmp := file + ".tmp"
		_ = os.Remove(tmp)
		logf("store: loading %s", file)
		db, err := store.OpenTarget(ctx, "sqlite", "file:"+tmp, "")
		if err != nil {
			return "", err
		}
		if err := errors.Join(store.Load(ctx, db, m, p), db.Close()); err != nil {
			return "", err
		}
		if err := os.Rename(tmp, file); err != nil {
			return "", fmt.Errorf("serveload: %w", err)
		}
		return "file:" + file, nil
	case "postgres":
		if o.DSN == "" {
			return "", errors.New("serveload: postgres needs a DSN")
		}
		dsn := withParam(o.DSN, "search_path", key)
		if edb, err := store.OpenDSN(ctx, dsn); err == nil {
			err = store.CheckLoaded(ctx, edb.SQL, edb.Dialect)
			edb.Close()
			if err == nil {
				logf("store: schema %s (cached)", key)
				return dsn, nil
			}
		}
		logf("store: loading schema %s", key)
		db, err := store.OpenTarget(ctx, "postgres", o.DSN, key)
		if err != nil {
			return "", err
		}
		if err := errors.Join(store.Load(ctx, db, m, p), db.Close()); err != nil {
			return "", err
		}
		return dsn, nil
	}
	return "", fmt.Errorf("serveload: engine %q: sqlite or postgres", o.Engine)
}

func ms(d time.Duration) string { return fmt.Sprintf("%.3f ms", float64(d)/1e6) }

// WriteCPU writes the report as a Markdown table with the acceptance
// checks; with the database path measured beside (CPUOptions.Both), its
// first page and total and their checks.
func WriteCPU(w io.Writer, r *CPUReport) {
	mode := "database only"
	if r.Resident {
		mode = fmt.Sprintf("resident snapshot, %d MB", r.ResidentBytes>>20)
	}
	both := len(r.Rows) > 0 && r.Rows[0].DB != nil
	fmt.Fprintf(w, "\n#### %s, %d strings (%s): CPU per request\n\n", r.Engine, r.Strings, mode)
	if r.Resident {
		per := func(b int64) string { return fmt.Sprintf("%.2f kB", float64(b)/float64(r.Strings)/1000) }
		fmt.Fprintf(w, "Snapshot: %s live heap and %s RSS per string (RSS grew by %s per string at most while it was built); ready in %s (%s CPU).\n\n",
			per(r.LiveHeap), per(r.RSS), per(r.RSSPeak), r.Ready.Round(10*time.Millisecond), r.ReadyCPU.Round(10*time.Millisecond))
	}
	head := "| pattern (context) | matches | first page | withTotal | offset 50,000 | SQL page / count / offset | evaluator first / full | first ≤ max(2 ms, 3× eval) | total, deep ≤ 5× full |"
	rule := "|---|--:|--:|--:|--:|--:|--:|---|---|"
	if both {
		head += " database path: first / withTotal | first ≤ max(2 ms, 3× eval) | withTotal ≤ 3× full |"
		rule += "--:|---|---|"
	}
	fmt.Fprintln(w, head)
	fmt.Fprintln(w, rule)
	firstFail, wholeFail, problems, unavailable, dbFirstFail, dbTotalFail := 0, 0, 0, 0, 0, 0
	var worst time.Duration
	for _, x := range r.Rows {
		writeRow(w, x)
		if x.Context != croql.Strings {
			continue
		}
		if x.Problem != "" {
			problems++
		}
		if strings.Contains(x.Problem, "status 503") {
			unavailable++
		}
		if !x.FirstOK() {
			firstFail++
		}
		if !x.WholeOK() {
			wholeFail++
		}
		if x.DB != nil && !x.DBFirstOK() {
			dbFirstFail++
		}
		if x.DB != nil && x.DB.Total > 0 && !x.DBTotalOK() {
			dbTotalFail++
		}
		worst = max(worst, x.First)
	}
	sum, n := r.SumFirst()
	// A page that failed has no figure: the sum and the worst fail with it.
	answered := problems == 0
	fmt.Fprintf(w, "\n%d source-string patterns: first pages sum %s (≤ 60 ms: %s), worst %s (≤ 30 ms: %s); failing: %d first pages, %d totals or deep pages; not answered: %d (503: %d)\n",
		n, msShort(sum), pf(answered && sum <= 60*time.Millisecond), msShort(worst), pf(answered && worst <= 30*time.Millisecond), firstFail, wholeFail, problems, unavailable)
	if both {
		fmt.Fprintf(w, "Database path: %d of %d first pages over max(2 ms, 3× the evaluator's), %d totals over 3× its full pass.\n", dbFirstFail, n, dbTotalFail)
	}
	if !r.Resident {
		writePathBounds(w, r.Rows)
	}
}

// writePathBounds writes, for a run without a snapshot, the patterns of
// every context over the database path's bounds (PathFirstOK,
// PathTotalOK; withTotal only where it was measured).
func writePathBounds(w io.Writer, rows []CPURow) {
	var first, total []string
	for _, x := range rows {
		if !x.PathFirstOK() {
			first = append(first, x.Pattern)
		}
		if x.Total > 0 && !x.PathTotalOK() {
			total = append(total, x.Pattern)
		}
	}
	fmt.Fprintf(w, "Database path, every context: %d of %d first pages over max(2 ms, 3× the evaluator's) (the translations list's own: %s) %v; %d totals over 3× the evaluator's full pass %v.\n",
		len(first), len(rows), msShort(TranslationsListFirst), first, len(total), total)
}

func pf(ok bool) string {
	if ok {
		return "PASS"
	}
	return "FAIL"
}

// writeRow writes one pattern's row.
func writeRow(w io.Writer, x CPURow) {
	sqlCol := "-"
	if x.SQLFirst > 0 || x.SQLCount > 0 {
		sqlCol = fmt.Sprintf("%s / %s / %s", msShort(x.SQLFirst), msShort(x.SQLCount), msShort(x.SQLDeep))
	}
	name := x.Pattern
	if x.Context != croql.Strings {
		name += " (" + x.Context + ")"
	}
	fmt.Fprintf(w, "| %s | %d | %s | %s | %s | %s | %s / %s | %s | %s |", name, x.Matches,
		msShort(x.First), msShort(x.Total), msShort(x.Deep), sqlCol, msShort(x.EvalFirst), msShort(x.EvalFull),
		pf(x.FirstOK()), pf(x.WholeOK()))
	if x.DB != nil {
		total := "-" // not measured (-first-only)
		if x.DB.Total > 0 {
			total = pf(x.DBTotalOK())
		}
		fmt.Fprintf(w, " %s / %s | %s | %s |", msShort(x.DB.First), msShort(x.DB.Total), pf(x.DBFirstOK()), total)
	}
	for _, p := range []string{x.Problem, x.DirectProblem} {
		if p != "" {
			fmt.Fprintf(w, " %s", strings.NewReplacer("\n", " ", "|", "/").Replace(p))
		}
	}
	if x.DB != nil && x.DB.Problem != "" {
		fmt.Fprintf(w, " database path: %s", strings.NewReplacer("\n", " ", "|", "/").Replace(x.DB.Problem))
	}
	fmt.Fprintln(w)
}

func msShort(d time.Duration) string { return strconv.FormatFloat(float64(d)/1e6, 'f', 3, 64) + " ms" }
