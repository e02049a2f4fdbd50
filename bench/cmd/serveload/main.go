// Command serveload measures `croql serve` under load: a generated project
// in SQLite or PostgreSQL, served on loopback, the seed's patterns sent by
// concurrent clients, every answer checked against the evaluator.
//
//	go run ./cmd/serveload -strings 100000 -engine sqlite -clients 32 -requests 4000 -duration 60s
//	go run ./cmd/serveload -engine postgres -dsn postgres://postgres@127.0.0.1:5432/test?sslmode=disable
//
// With -cpu it measures CPU per request instead (server plus database
// backends) for every source-string seed pattern: the first page,
// withTotal and offset 50,000, against the compiled SQL run directly and
// the in-memory evaluator, and prints a Markdown table with the
// acceptance checks. The loaded store is cached in -cache between runs.
// The resident snapshot is built from the project's NDJSON file, as croql
// serve --data builds it: the table's head gives its bytes per string
// (live heap, RSS) and its time to ready. With -both the database path
// (no snapshot) is measured beside it on the same store.
//
//	go run ./cmd/serveload -cpu -strings 100000 -engine sqlite -both
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"runtime/pprof"
	"slices"
	"time"

	"github.com/croql/croql/bench/serveload"
	"github.com/croql/croql/store"
)

func main() {
	_, file, _, _ := runtime.Caller(0)
	o := serveload.Options{Log: os.Stderr, CorpusDir: filepath.Join(filepath.Dir(file), "..", "..", "..", "testdata", "corpus")}
	flag.IntVar(&o.Strings, "strings", 100000, "strings in the generated project")
	flag.Int64Var(&o.Seed, "seed", 1, "seed of the generated project")
	flag.StringVar(&o.Engine, "engine", "sqlite", "sqlite or postgres")
	flag.StringVar(&o.DSN, "dsn", os.Getenv("CROQL_POSTGRES_DSN"), "PostgreSQL DSN")
	flag.IntVar(&o.Clients, "clients", 32, "concurrent clients")
	flag.IntVar(&o.Requests, "requests", 4000, "at most this many requests")
	flag.DurationVar(&o.Duration, "duration", 60*time.Second, "at most this long")
	flag.IntVar(&o.Limit, "limit", 100, "page size")
	cpu := flag.Bool("cpu", false, "measure CPU per request per pattern instead of load")
	cache, _ := os.UserCacheDir()
	cacheDir := flag.String("cache", filepath.Join(cache, "croql-serveload"), "with -cpu: directory of the cached SQLite stores (PostgreSQL's are schemas at -dsn)")
	resident := flag.Int64("resident-max-bytes", 4<<30, "with -cpu: the server's resident snapshot budget (0: the database answers every request)")
	direct := flag.Bool("direct", true, "with -cpu: also run the compiled SQL directly on the engine")
	firstOnly := flag.Bool("first-only", false, "with -cpu: measure the first pages only")
	sqliteCache := flag.Int64("sqlite-cache", store.DefaultSQLitePageCache, "with -cpu: the page cache of each SQLite connection of the server (croql serve --sqlite-cache)")
	sqliteMmap := flag.Int64("sqlite-mmap", store.DefaultSQLiteMmap, "with -cpu: the SQLite memory map of the server (croql serve --sqlite-mmap)")
	both := flag.Bool("both", false, "with -cpu: also measure the database path (no snapshot) on the same store, beside the snapshot's")
	match := flag.String("match", "", "with -cpu: measure only the patterns whose name matches this regular expression")
	profile := flag.String("cpuprofile", "", "write a CPU profile of the run to this file")
	flag.Parse()
	if *profile != "" {
		f, err := os.Create(*profile)
		if err == nil {
			err = pprof.StartCPUProfile(f)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "serveload:", err)
			os.Exit(1)
		}
		defer pprof.StopCPUProfile()
	}
	if *cpu {
		var re *regexp.Regexp
		if *match != "" {
			var err error
			if re, err = regexp.Compile(*match); err != nil {
				fmt.Fprintln(os.Stderr, "serveload: -match:", err)
				os.Exit(2)
			}
		}
		r, err := serveload.CPU(context.Background(), serveload.CPUOptions{Engine: o.Engine, DSN: o.DSN, Strings: o.Strings, Seed: o.Seed,
			CacheDir: *cacheDir, CorpusDir: o.CorpusDir, ResidentMaxBytes: *resident, Both: *both, Match: re, SQLite: store.SQLiteCache{PageCacheBytes: *sqliteCache, MmapBytes: *sqliteMmap}, Direct: *direct, FirstOnly: *firstOnly, Log: os.Stderr})
		if err != nil {
			fmt.Fprintln(os.Stderr, "serveload:", err)
			os.Exit(1)
		}
		serveload.WriteCPU(os.Stdout, r)
		pprof.StopCPUProfile()
		return
	}
	r, err := serveload.Run(context.Background(), o)
	if err != nil {
		fmt.Fprintln(os.Stderr, "serveload:", err)
		os.Exit(1)
	}
	fmt.Printf("| %s | %d | %d | %d in %s | %.1f req/s | %s | %s | %s | %d/%d checked, %d wrong, %d errors | %s CPU in this process |\n",
		r.Engine, r.Strings, r.Clients, r.Requests, r.Elapsed.Round(time.Second), r.Throughput,
		r.P50.Round(time.Millisecond), r.P99.Round(time.Millisecond), r.Max.Round(time.Millisecond),
		r.Checked, r.Requests, r.Mismatches, r.Errors, r.CPU.Round(100*time.Millisecond))
	names := make([]string, 0, len(r.PerPatternP50))
	for n := range r.PerPatternP50 {
		names = append(names, n)
	}
	slices.SortFunc(names, func(a, b string) int { return int(r.PerPatternP50[b] - r.PerPatternP50[a]) })
	fmt.Fprintln(os.Stderr, "slowest patterns (p50):")
	for _, n := range names[:min(5, len(names))] {
		fmt.Fprintf(os.Stderr, "  %-50s %s\n", n, r.PerPatternP50[n].Round(100*time.Microsecond))
	}
	if r.FirstErr != "" {
		fmt.Fprintln(os.Stderr, "first problem:", r.FirstErr)
	}
	if r.Mismatches > 0 || r.Errors > 0 {
		os.Exit(1)
	}
}
