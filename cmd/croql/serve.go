package main

import (
	"context"
	"net/http"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/croql/croql/demo"
	"github.com/croql/croql/schema"
	"github.com/croql/croql/server"
	"github.com/croql/croql/store"
	"github.com/croql/croql/web"
)

// newServeCmd returns `croql serve`: the platform's CroQL list endpoints
// over projects in embedded SQLite, PostgreSQL or MySQL/MariaDB (package
// server; docs/serve.md).
func newServeCmd(c *cli) *cobra.Command {
	var (
		data, corsOrigins                               []string
		dsn, listen, token, tokenFile, dir, edition, ui string
		maxCost, maxRequestCost, maxCallCost, cheapCost float64
		maxConns, maxConnsPerClient                     int
		maxPageBytes, maxBodyMemory                     int64
		cheapLane, expensiveLane, laneQueue, perToken   int
		adminListen                                     string
		residentMax, sqliteCache, sqliteMmap            int64
		logRequests                                     bool
		timeout, writeTimeout                           time.Duration
		pf                                              = &platformFlags{}
	)
	cmd := &cobra.Command{
		Use:   "serve [--data FILE]... [--dsn DSN] [--listen 127.0.0.1:8080] [--token TOKEN] [--token-file FILE]",
		Short: "Serve the platform's CroQL list endpoints over HTTP (strings, translations, TM segments, terms)",
		Long: "Serves /api/v2/projects, …/strings?croql=, …/languages/{languageId}/translations?croql=,\n" +
			"/api/v2/tms/{tmId}/segments?croql= and /api/v2/glossaries/{glossaryId}/terms?croql= in the\n" +
			"platform's shapes (docs/serve.md). With --data (repeatable; project i gets id i) the projects go\n" +
			"into embedded SQLite files; with --dsn as well, into scratch schemas on that PostgreSQL or\n" +
			"MySQL/MariaDB server; with --dsn alone, the data already there is served as project 1. Without\n" +
			"either, the built-in demo project. A bearer token is required: --token, CROQL_TOKEN, or\n" +
			"--token-file (lines of `TOKEN 1,2` or `TOKEN *`). SIGINT or SIGTERM stops it: requests in\n" +
			"flight finish, scratch schemas and files are removed. The playground is at /playground.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			ed, err := parseEdition(edition)
			if err != nil {
				return err
			}
			if token == "" {
				token = os.Getenv("CROQL_TOKEN")
			}
			if token == "" && tokenFile == "" {
				return usageErrorf("croql serve needs a token: --token TOKEN, CROQL_TOKEN, or --token-file FILE")
			}
			if dsn != "" {
				eng, err := server.EngineOfDSN(dsn)
				if err != nil {
					return usageErrorf("--dsn: %w", err)
				}
				if eng == "sqlite" && len(data) == 0 {
					name, _, _ := strings.Cut(strings.TrimPrefix(dsn, "file:"), "?")
					if _, err := os.Stat(name); err != nil {
						return usageErrorf("--dsn %s: no such SQLite file (a PostgreSQL DSN starts with postgres://, a MySQL one with mysql://)", dsn)
					}
				}
			}
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			var demoProject *schema.Project
			if len(data) == 0 && dsn == "" {
				demoProject = demo.Default()
			}
			// Files stream into their stores; standard input (--data -)
			// and localization files are read whole.
			var read func(string) (*schema.Project, error)
			if slices.Contains(data, "-") || slices.ContainsFunc(data, isLocData) {
				read = func(name string) (*schema.Project, error) { return c.loadProject(name, schema.ReadOptions{}) }
			}
			err = server.Run(ctx, server.RunOptions{
				Data: data, Read: read, Demo: demoProject, DSN: dsn, Dir: dir,
				SQLite: store.SQLiteCache{PageCacheBytes: sqliteCache, MmapBytes: sqliteMmap},
				Listen: listen, Token: token, TokenFile: tokenFile, Log: c.stderr, LogRequests: logRequests,
				AdminListen: adminListen,
				Config: server.Config{Edition: ed, MaxCost: maxCost, Timeout: timeout, WriteTimeout: writeTimeout,
					MaxConns: maxConns, MaxConnsPerClient: maxConnsPerClient, MaxPageBytes: maxPageBytes,
					MaxRequestCost: maxRequestCost, MaxCallCost: maxCallCost, CheapCost: cheapCost, CheapLane: cheapLane,
					ExpensiveLane: expensiveLane, LaneQueue: laneQueue, MaxPerToken: perToken,
					ResidentMaxBytes: residentMax, CORSOrigins: corsOrigins, MaxBodyMemory: maxBodyMemory},
				Setup: func(s *server.Server) error {
					s.HandlePublic("/playground/", http.StripPrefix("/playground", web.Handler(ui)))
					s.HandlePublic("/playground", http.RedirectHandler("/playground/", http.StatusMovedPermanently))
					return pf.setup(ctx, s, c.stderr)
				},
			})
			if err != nil {
				return failure(err)
			}
			return nil
		},
	}
	pf.addFlags(cmd)
	f := cmd.Flags()
	f.StringArrayVar(&data, "data", nil, "project file, JSON or NDJSON, or localization files (a file, a directory or a glob: docs/formats.md); repeatable, project i gets id i")
	f.StringVar(&dsn, "dsn", "", "PostgreSQL (postgres://…), MySQL/MariaDB (user@tcp(host:3306)/db) or Vitess (vitess://user@host:port/keyspace) server to run the queries on")
	f.StringVar(&listen, "listen", server.DefaultListen, "address to listen on")
	f.StringVar(&token, "token", "", "bearer token that may read every project (default $CROQL_TOKEN)")
	f.StringVar(&tokenFile, "token-file", "", "file of tokens with the projects each may read: `TOKEN 1,3` or `TOKEN *` per line")
	f.StringVar(&dir, "dir", "", "directory of the SQLite files (default: a temporary directory); removed on shutdown")
	addEditionFlag(cmd, &edition)
	f.Float64Var(&maxCost, "max-cost", 0, "cost budget of a query (0: the safe default, negative: unlimited); a query over it is a 400")
	f.Float64Var(&maxRequestCost, "max-request-cost", server.DefaultMaxRequestCost, "cost budget of a list request: the query's cost per object times the objects it may visit (negative: none); a request over it is a 400")
	f.Float64Var(&maxCallCost, "max-call-cost", server.DefaultMaxCallCost, "most work one call of a text operator (contains, the filter parameter, a comparison) may take, priced from the project's longest texts; a request over it is a 400, since PostgreSQL and MariaDB cannot interrupt such a call (negative: none)")
	f.Float64Var(&cheapCost, "cheap-cost", server.DefaultCheapCost, "request cost up to which a list request runs in the cheap lane; dearer ones run in the expensive lane")
	f.IntVar(&cheapLane, "cheap-lane", server.DefaultCheapLane(), "cheap list requests run at once (twice the CPUs by default)")
	f.IntVar(&expensiveLane, "expensive-lane", server.DefaultExpensiveLane(), "expensive list requests run at once (half the CPUs by default, at least 1)")
	f.IntVar(&laneQueue, "lane-queue", server.DefaultLaneQueue, "list requests that may wait for each lane (negative: none); one more is a 503 with Retry-After")
	f.IntVar(&perToken, "max-per-token", server.DefaultMaxPerToken, "list requests of one token in each lane at once (negative: no limit); one more is a 429 with Retry-After")
	f.StringVar(&adminListen, "admin-listen", "", "address of an admin listener serving /metrics and /debug/pprof/ without a token (off by default; use a loopback or private address)")
	f.DurationVar(&timeout, "timeout", server.DefaultTimeout, "statement timeout of a request")
	f.StringSliceVar(&corsOrigins, "cors-origin", nil, "browser origins allowed to call the API (CORS), comma-separated or repeated, \"*\" for any; none by default")
	f.DurationVar(&writeTimeout, "write-timeout", server.DefaultWriteTimeout, "time an answer may take to reach the client from its first byte (negative: none); a client that stops reading is disconnected then")
	f.IntVar(&maxConns, "max-conns", server.DefaultMaxConns, "connections open at once (negative: no cap); one more is closed as soon as it is accepted")
	f.Int64Var(&maxPageBytes, "max-page-bytes", server.DefaultMaxPageBytes, "byte budget of a list answer (negative: none); a page that would pass it is a 400 saying how many objects fit")
	f.IntVar(&maxConnsPerClient, "max-conns-per-client", server.DefaultMaxConnsPerClient, "connections open at once from one IP address (negative: no cap; behind a proxy every client has the proxy's address)")
	f.Int64Var(&maxBodyMemory, "max-body-memory", server.DefaultMaxBodyMemory, "memory, in bytes, the request bodies held by the server may take at once: uploads while they arrive and are imported, storages of the two-step upload until they are dropped; a body that cannot get memory within 2 s is answered 503 with Retry-After (negative: none)")
	f.Int64Var(&residentMax, "resident-max-bytes", server.DefaultResidentMaxBytes, "memory for projects held resident, whose lists the evaluator answers, and for the seek indexes of deep pages (0: the database answers every request)")
	f.Int64Var(&sqliteCache, "sqlite-cache", store.DefaultSQLitePageCache, "page cache of each SQLite connection, in bytes (0: SQLite's 2 MB)")
	f.Int64Var(&sqliteMmap, "sqlite-mmap", store.DefaultSQLiteMmap, "bytes of each SQLite file read through a memory map, shared by the connections (0: none)")
	f.BoolVar(&logRequests, "log-requests", false, "log one line per request on stderr (method, path, status, size, duration; never the query or the token)")
	f.StringVar(&ui, "playground", web.DefaultDir, "directory of the built playground (web/build.sh), served at /playground")
	_ = cmd.MarkFlagFilename("data", dataExts...)
	return cmd
}
