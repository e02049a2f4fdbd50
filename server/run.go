package server

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/croql/croql/schema"
	"github.com/croql/croql/store"
)

// RunOptions are the settings of `croql serve`.
type RunOptions struct {
	// Data are the project files (JSON or NDJSON); project i is served
	// with id i+1. Without Data and DSN, Demo is served as project 1.
	Data []string
	// Read reads a project file whole. When nil (the default, and what
	// croql serve does), each file is streamed into its store object by
	// object, as croql load does, so that start-up memory does not grow
	// with the file.
	Read func(name string) (*schema.Project, error)
	// Demo is the project served when there is neither Data nor DSN.
	Demo *schema.Project
	// DSN selects a database (EngineOfDSN): postgres://… (PostgreSQL),
	// mysql://root@127.0.0.1:3306/test or root@tcp(127.0.0.1:3306)/test
	// (MySQL/MariaDB), or an existing SQLite file. With Data, each
	// project is loaded into a scratch schema (database) that shutdown
	// drops; without, the data already in the reference schema at DSN is
	// served as project 1, if its load completed.
	DSN string
	// Dir is where the SQLite files go (a temporary directory when
	// empty); the files are removed on shutdown.
	Dir string
	// SQLite sizes the page cache and memory map of every SQLite
	// connection (the files in Dir, or a SQLite DSN); the zero value
	// leaves SQLite's own (see DefaultSQLiteCache).
	SQLite store.SQLiteCache
	// Listen is the address (DefaultListen when empty).
	Listen string
	// Token is a bearer token that may read every project; TokenFile
	// lists tokens with their projects (ReadTokenFile). One is required.
	Token, TokenFile string
	// Config is the rest of the server's configuration (Storage and
	// Tokens are set by Run).
	Config Config
	// Grace bounds how long shutdown waits for requests in flight
	// (DefaultGrace when 0).
	Grace time.Duration
	// Setup, when set, runs on the server before it listens: routes are
	// added there (the playground, the platform side of the app contract).
	Setup func(*Server) error
	// Ready, when set, is called with the address once the server listens.
	Ready func(addr string)
	// Log receives the status lines (stderr of the CLI), and the errors.
	Log io.Writer
	// LogRequests adds one line per request to Log (method, path, status,
	// size, duration; never the query string or the token).
	LogRequests bool
	// AdminListen, when set, is the address of a second listener serving
	// Server.AdminHandler (/metrics and /debug/pprof/), without a
	// token: a loopback or private address. None by default.
	AdminListen string
	// AdminReady, when set, is called with the admin listener's address
	// once it listens.
	AdminReady func(addr string)
}

// DefaultGrace is how long shutdown waits for the requests in flight by
// default (RunOptions.Grace).
const DefaultGrace = 30 * time.Second

// DefaultListen is the address croql serve listens on by default:
// loopback only.
const DefaultListen = "127.0.0.1:8080"

// EngineOfDSN tells the engine of a DSN, as every croql command reads
// it (store.EngineOfDSN): postgres for postgres:// URLs and key=value
// strings, mysql for mysql://user@host:port/db URLs and go-sql-driver
// DSNs (user@tcp(host:port)/db), sqlite for a file name or file: URI (an
// existing SQLite database in the reference schema).
func EngineOfDSN(dsn string) (string, error) {
	if strings.TrimSpace(dsn) == "" {
		return "", errors.New("server: empty DSN: write postgres://user@host:5432/db for PostgreSQL, mysql://user@host:3306/db for MySQL/MariaDB, or a SQLite file name")
	}
	return store.EngineOfDSN(dsn), nil
}

// Run is `croql serve`: it loads or opens the data, listens, serves until
// ctx is done (the CLI cancels it on SIGINT or SIGTERM), lets the
// requests in flight finish, and removes what it created (SQLite files,
// scratch schemas).
func Run(ctx context.Context, o RunOptions) (err error) {
	logw := o.Log
	if logw == nil {
		logw = io.Discard
	}
	tokens, err := runTokens(o)
	if err != nil {
		return err
	}
	st, what, existing, err := runStorage(ctx, o)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := st.Close(); cerr != nil {
			err = errors.Join(err, fmt.Errorf("server: cleaning up: %w", cerr))
		}
	}()
	cfg := o.Config
	cfg.Storage, cfg.Tokens = st, tokens
	if cfg.Logger == nil {
		level := slog.LevelWarn
		if o.LogRequests {
			level = slog.LevelInfo
		}
		cfg.Logger = slog.New(slog.NewTextHandler(logw, &slog.HandlerOptions{Level: level}))
	}
	srv, err := New(cfg)
	if err != nil {
		return err
	}
	if o.Setup != nil {
		if err := o.Setup(srv); err != nil {
			return err
		}
	}
	addr := cmp.Or(o.Listen, DefaultListen)
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("server: %w", err)
	}
	fmt.Fprintf(logw, "croql serve: http://%s/api/v2/projects — %d project(s) on %s; Ctrl-C stops\n", ln.Addr(), len(st.Projects()), what)
	if o.Ready != nil {
		o.Ready(ln.Addr().String())
	}
	built := residentInBackground(ctx, srv, logw)
	defer func() { <-built }()
	grace := o.Grace
	OrDefault(&grace, DefaultGrace, false)()
	if o.AdminListen != "" {
		stopAdmin, err := serveAdmin(ctx, srv, o.AdminListen, logw, o.AdminReady)
		if err != nil {
			ln.Close()
			return err
		}
		defer stopAdmin()
	}
	err = srv.Serve(ctx, ln, grace)
	if errors.Is(err, http.ErrServerClosed) {
		err = nil
	}
	if existing {
		fmt.Fprintln(logw, "croql serve: stopped; the data at the DSN is left as it was")
	} else {
		fmt.Fprintln(logw, "croql serve: stopped; removing the scratch data")
	}
	return err
}

// runTokens are the tokens of o: its token file's and its token.
func runTokens(o RunOptions) (*Tokens, error) {
	tokens := &Tokens{}
	if o.TokenFile != "" {
		f, err := os.Open(o.TokenFile)
		if err != nil {
			return nil, fmt.Errorf("server: %w", err)
		}
		tokens, err = ReadTokenFile(f)
		f.Close()
		if err != nil {
			return nil, err
		}
	}
	if o.Token != "" {
		if err := tokens.Add(o.Token); err != nil {
			return nil, err
		}
	}
	if tokens.Len() == 0 {
		return nil, errors.New("server: no token: give --token, set CROQL_TOKEN, or list tokens with --token-file")
	}
	return tokens, nil
}

// runStorage loads or opens the data of o: what says where it is served
// from, existing that it is the data at the DSN (nothing to remove).
func runStorage(ctx context.Context, o RunOptions) (st *Storage, what string, existing bool, err error) {
	var data []*schema.Project
	if o.Read != nil {
		for _, name := range o.Data {
			p, err := o.Read(name)
			if err != nil {
				return nil, "", false, err
			}
			data = append(data, p)
		}
	}
	files := o.Data
	if o.Read != nil {
		files = nil
	}
	if len(o.Data) == 0 && o.DSN == "" {
		if o.Demo == nil {
			return nil, "", false, errors.New("server: no data: give --data FILE or --dsn DSN")
		}
		data = []*schema.Project{o.Demo}
	}
	if o.DSN == "" {
		if len(files) > 0 {
			st, err = loadSQLiteFiles(ctx, o.Dir, o.SQLite, files)
		} else {
			st, err = loadSQLiteData(ctx, o.Dir, o.SQLite, data)
		}
		return st, "embedded SQLite", false, err
	}
	eng, err := EngineOfDSN(o.DSN)
	if err != nil {
		return nil, "", false, err
	}
	switch {
	case len(o.Data) > 0 && !store.LoadsBeside(eng):
		return nil, "", false, errors.New("server: a SQLite --dsn serves an existing SQLite file as it is; to load --data into SQLite files, give --dir instead")
	case len(files) > 0:
		st, err = LoadServerFiles(ctx, eng, o.DSN, files...)
	case len(data) > 0:
		st, err = LoadServer(ctx, eng, o.DSN, data...)
	default:
		dsn := o.DSN
		if eng == "sqlite" {
			dsn = o.SQLite.DSN(dsn)
		}
		st, err = OpenExisting(ctx, eng, dsn, "")
		return st, eng + " (the data at the DSN)", true, err
	}
	return st, eng + " (scratch schemas, dropped on shutdown)", false, err
}

// serveAdmin serves srv.AdminHandler on addr until stop is called.
func serveAdmin(ctx context.Context, srv *Server, addr string, logw io.Writer, ready func(string)) (stop func(), err error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("server: admin listener: %w", err)
	}
	hs := &http.Server{Handler: srv.AdminHandler(), ReadHeaderTimeout: ReadHeaderTimeout, IdleTimeout: IdleTimeout,
		BaseContext: func(net.Listener) context.Context { return context.WithoutCancel(ctx) }}
	fmt.Fprintf(logw, "croql serve: admin (metrics, pprof) on http://%s/\n", ln.Addr())
	if ready != nil {
		ready(ln.Addr().String())
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = hs.Serve(ln)
	}()
	return func() {
		_ = hs.Close()
		<-done
	}, nil
}
