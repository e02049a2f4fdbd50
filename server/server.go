// Package server is `croql serve`: the platform's list endpoints that take
// a CroQL expression (seed section 4.3), as an HTTP service over a copy of
// one or more projects held in SQLite, PostgreSQL or MySQL/MariaDB.
//
//	GET /api/v2/projects
//	GET /api/v2/projects/{projectId}
//	GET /api/v2/projects/{projectId}/strings?croql=&limit=&offset=
//	GET /api/v2/projects/{projectId}/languages/{languageId}/translations?croql=
//	GET /api/v2/tms/{tmId}/segments?croql=
//	GET /api/v2/glossaries/{glossaryId}/terms?croql=
//
// and their single objects, the project's files, labels and language
// progress, the TMs and glossaries. Every object has the fields the
// platform's official API clients declare (shapes.go); every documented
// list parameter is honoured as the croql it means or refused with a 400
// naming it (params.go).
//
// Responses and errors have the platform's shapes and field names. The
// server checks the text with the croql facade (every diagnostic becomes a
// 400 under the key croql), compiles it to SQL with bound parameters
// (package compile) and runs it on the project's database in a read-only
// transaction bounded by the request's context. A project held in a
// resident snapshot (Config.ResidentMaxBytes) has its lists without orderBy
// or filter parameters answered by the evaluator, with the page's rows read
// from the database by key (resident.go). Extensions the platform lacks (POST …/query bodies, orderBy on
// any scalar field, withTotal) are listed in docs/serve.md.
//
// Every list answers through one pipeline (pipeline.go): its parameters
// are read once (a POST body once), its project resolved once and its
// query checked once; it is admitted to a lane by its estimated cost, and
// one plan is chosen before anything runs: the resident snapshot, SQL, or
// on a sharded engine the coordinator's matches where the engine does not
// run the query's form.
//
// A [Server] is an http.Handler. Routes can be added with [Server.Handle]
// (behind the token check) and [Server.HandlePublic]; the data lives in a
// [Storage], which has a transaction API for routes that write.
package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"path"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/croql/croql"
	"github.com/croql/croql/compile"
	"github.com/croql/croql/mapping"
	"github.com/croql/croql/schema"
)

// Defaults of a Config.
const (
	DefaultTimeout = 10 * time.Second
	DefaultMaxBody = 1 << 20
	DefaultLimit   = 25
	MaxLimit       = 500
)

// Config configures a Server.
type Config struct {
	// Storage holds the projects; required.
	Storage *Storage
	// Tokens are the accepted bearer tokens; a server without tokens
	// answers every API request with 401.
	Tokens *Tokens
	// Edition is the platform edition queries are checked in (Standard
	// by default).
	Edition schema.Edition
	// Timeout bounds each request's queries (DefaultTimeout when 0): the
	// statement timeout is the earlier of this and the request context's
	// deadline.
	Timeout time.Duration
	// MaxBody bounds a POST body (DefaultMaxBody when 0).
	MaxBody int64
	// Now is the clock 'today' is read from (time.Now when nil).
	Now func() time.Time
	// Location is the zone of datetimes without an offset (UTC when nil).
	Location *time.Location
	// Logger receives one line per request and the internal errors (a
	// discarding logger when nil). Tokens are never logged.
	Logger *slog.Logger
	// MaxCost is the cost budget of a query (croql.WithMaxCost): the most
	// work one evaluation on one object may take by the static cost
	// model; a query over it is a 400 (rule too-costly) before it runs.
	// 0 is the facade's safe default, negative unlimited.
	MaxCost float64
	// Options are more facade options for every query (applied last).
	Options []croql.Option
	// MaxConns caps the connections Serve keeps open at once
	// (DefaultMaxConns when 0, negative: no cap); MaxConnsPerClient caps
	// those from one IP address (DefaultMaxConnsPerClient when 0,
	// negative: no cap). A connection beyond either is closed as soon as
	// it is accepted.
	MaxConns, MaxConnsPerClient int
	// MinBodyRate is the slowest average rate, in bytes per second, a
	// request body may arrive at once BodyGrace has passed
	// (DefaultMinBodyRate when 0, negative: none); BodyGrace is
	// DefaultBodyGrace when 0. A slower body's read fails and its
	// connection is closed.
	MinBodyRate int64
	BodyGrace   time.Duration
	// CORSOrigins are the browser origins allowed to call the API
	// (`--cors-origin`; "*" for any); none by default, which answers no
	// CORS request.
	CORSOrigins []string
	// WriteTimeout is the time Serve gives an answer to reach the client
	// once its first byte is written (DefaultWriteTimeout when 0,
	// negative: none): a client that stops reading has its connection
	// closed then. A list request gives its lane place back before its
	// answer is written, so a client that does not read holds no place.
	WriteTimeout time.Duration
	// MaxPageBytes is the byte budget of a list answer
	// (DefaultMaxPageBytes when 0, negative: none): a page that would
	// pass it is a 400 saying how many of its objects fit, and its rows
	// stop being read once their texts pass it.
	MaxPageBytes int64
	// MaxRequestCost is the cost budget of a list request: its query's
	// estimate per object (the facade's cost model, with the project's
	// text lengths) times the objects of the context the request may
	// visit. A request over it is a 400 (rule too-costly) before it runs.
	// DefaultMaxRequestCost when 0, negative: none.
	MaxRequestCost float64
	// MaxCallCost is the most work one call of a text operator (a
	// `contains`, a text comparison, the filter parameter's search) may
	// take by per-row upper bounds: the longest text of the field in the
	// project times the searched text's length where the engine's
	// substring search is quadratic and cannot be interrupted inside a
	// call (PostgreSQL, MariaDB), their sum elsewhere. A request over it
	// is a 400 before it runs, since its deadline could not stop it.
	// DefaultMaxCallCost when 0, negative: none.
	MaxCallCost float64
	// CheapCost is the request cost up to which a list request runs in
	// the cheap lane, the others in the expensive lane
	// (DefaultCheapCost when 0). CheapLane and ExpensiveLane are the
	// requests each lane runs at once (DefaultCheapLane() and
	// DefaultExpensiveLane() when 0); LaneQueue is how many more may
	// wait in each (DefaultLaneQueue when 0, negative: none);
	// MaxPerToken is how many requests of one token each lane holds at
	// once (DefaultMaxPerToken when 0, negative: no limit).
	CheapCost                float64
	CheapLane, ExpensiveLane int
	LaneQueue, MaxPerToken   int
	// ResidentMaxBytes is the memory the resident snapshots of projects
	// and the seek indexes of deep pages may take (see BuildResident and
	// docs/serve.md); 0 or negative: none, every request is answered by
	// the database.
	ResidentMaxBytes int64
	// MaxBodyMemory is the memory the request bodies the server holds
	// may take at once: a body reserves its memory as it arrives
	// (BodyMemory) and holds it while it is handled, a storage of the
	// two-step upload until it is dropped. A body that cannot get memory
	// within 2 s is answered 503 with Retry-After. DefaultMaxBodyMemory
	// when 0, negative: none.
	MaxBodyMemory int64
}

// applyDefaults fills the fields of cfg left at their zero value (and
// those whose negative value means nothing, as documented on each field)
// from the table of defaults: one row a field.
func (cfg *Config) applyDefaults() {
	for _, set := range []func(){
		OrDefault(&cfg.Timeout, DefaultTimeout, false),
		OrDefault(&cfg.MaxBody, DefaultMaxBody, false),
		OrDefault(&cfg.MaxConns, DefaultMaxConns, true),
		OrDefault(&cfg.MaxConnsPerClient, DefaultMaxConnsPerClient, true),
		OrDefault(&cfg.MinBodyRate, DefaultMinBodyRate, true),
		OrDefault(&cfg.BodyGrace, DefaultBodyGrace, false),
		OrDefault(&cfg.WriteTimeout, DefaultWriteTimeout, true),
		OrDefault(&cfg.MaxPageBytes, DefaultMaxPageBytes, true),
		OrDefault(&cfg.MaxRequestCost, DefaultMaxRequestCost, true),
		OrDefault(&cfg.MaxCallCost, DefaultMaxCallCost, true),
		OrDefault(&cfg.CheapCost, DefaultCheapCost, true),
		OrDefault(&cfg.CheapLane, DefaultCheapLane(), false),
		OrDefault(&cfg.ExpensiveLane, DefaultExpensiveLane(), false),
		OrDefault(&cfg.LaneQueue, DefaultLaneQueue, true),
		OrDefault(&cfg.MaxPerToken, DefaultMaxPerToken, true),
		OrDefault(&cfg.MaxBodyMemory, DefaultMaxBodyMemory, true),
	} {
		set()
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Location == nil {
		cfg.Location = time.UTC
	}
}

// OrDefault is a row of a configuration's table of defaults: the
// function it returns sets *v to def when it is 0, or negative unless
// negativeMeans (a negative value means something of its own: none, no
// cap). Config and the platform's configuration fill their defaults from
// one such table each.
func OrDefault[T int | int64 | float64 | time.Duration](v *T, def T, negativeMeans bool) func() {
	return func() {
		if *v == 0 || *v < 0 && !negativeMeans {
			*v = def
		}
	}
}

// Server serves the API. It is safe for concurrent use.
type Server struct {
	cfg     Config
	mux     *http.ServeMux
	handler http.Handler
	mapping *mapping.Mapping
	log     *slog.Logger

	mu   sync.Mutex
	res  map[string]map[string]*resource // dialect name, context
	tabs map[string]*Tables              // dialect name
	envs map[envKey]*croql.Env

	statsCache statsCache
	lanes      *lanes
	metrics    *metrics
	resident   *residents
	seeks      *seekIndexes
	bodies     *BodyMemory
	// plans are the sorting plans of SQLite's pages (keyWalk).
	plans sortingPlans
}

type envKey struct {
	project int64
	context string
	// writes is the project's write count the environment's cost model
	// (its text lengths) was read at.
	writes int64
}

// New builds a server over cfg.Storage.
func New(cfg Config) (*Server, error) {
	if cfg.Storage == nil {
		return nil, errors.New("server: no storage")
	}
	cfg.applyDefaults()
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	s := &Server{cfg: cfg, mux: http.NewServeMux(), mapping: cfg.Storage.Mapping(), log: log,
		res: map[string]map[string]*resource{}, envs: map[envKey]*croql.Env{}, resident: newResidents(cfg.ResidentMaxBytes),
		seeks: newSeekIndexes(), bodies: NewBodyMemory(cfg.MaxBodyMemory, 0)}
	// The resources of every dialect in use are built now, so that a bad
	// mapping fails here rather than on a request.
	for _, p := range cfg.Storage.Projects() {
		if _, err := s.resource(p.Dialect(), croql.Strings); err != nil {
			return nil, err
		}
	}
	s.lanes = newLanes(cfg)
	s.reservePool()
	s.metrics = newMetrics(s)
	// The projects' statistics (object counts, text lengths) are read
	// now, not on a first request.
	for _, p := range cfg.Storage.Projects() {
		s.stats(context.Background(), p)
	}
	s.routes()
	h, err := wire(cfg, s.recoverer(s.instrument(s.accessLog(s.cleanAPIPaths(s.mux)))))
	if err != nil {
		return nil, err
	}
	s.handler = h
	return s, nil
}

// cleanAPIPaths answers an API path that is not in clean form (an empty
// segment such as languages//translations, a dot segment) with the
// platform's 404, where http.ServeMux would redirect it to its cleaned
// form: a different resource, which for an empty id does not exist.
func (s *Server) cleanAPIPaths(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p := r.URL.Path
		if strings.HasPrefix(p, "/api/") {
			c := path.Clean(p)
			if strings.HasSuffix(p, "/") && c != "/" {
				c += "/"
			}
			if c != p {
				writeError(w, notFound("Resource"))
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

// ServeHTTP implements http.Handler.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.handler.ServeHTTP(w, r) }

// Handle adds a route (an http.ServeMux pattern such as "GET
// /api/v2/applications/{id}/subscription") behind the token check: h runs
// only for a valid token, and [GrantOf] tells it what the token may read.
func (s *Server) Handle(pattern string, h http.Handler) { s.mux.Handle(pattern, s.auth(h)) }

// HandlePublic adds a route that needs no token (a playground page, a
// health check).
func (s *Server) HandlePublic(pattern string, h http.Handler) { s.mux.Handle(pattern, h) }

// Storage is the storage the server reads.
func (s *Server) Storage() *Storage { return s.cfg.Storage }

// Tokens are the bearer tokens the server accepts (nil when it has none).
func (s *Server) Tokens() *Tokens { return s.cfg.Tokens }

// BodyMemory is the server's budget of the memory request bodies hold
// (Config.MaxBodyMemory): handlers that read a large body read it with
// its ReadAll.
func (s *Server) BodyMemory() *BodyMemory { return s.bodies }

func (s *Server) routes() {
	s.HandlePublic("GET /healthz", http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		WriteJSON(w, http.StatusOK, map[string]string{"status": "ok"})
	}))
	s.HandlePublic("GET /readyz", http.HandlerFunc(s.readyz))
	// The metrics name the routes' traffic and the projects' pools: a
	// token on the public port (which sees the pools of its projects
	// only), none on the admin listener (which sees them all).
	s.Handle("GET /metrics", s.metrics.publicHandler())
	s.Handle("GET /api/v2/projects", s.api(s.listProjects))
	s.Handle("GET /api/v2/projects/{projectId}", s.api(s.getProject))
	s.listRoutes()
	s.apiRoutes()
	// Anything else under the API is a JSON 404 (after the token check,
	// so that unknown paths tell nothing to a caller without a token).
	s.Handle("/api/", http.HandlerFunc(s.unrouted))
	s.HandlePublic("/", http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		writeError(w, notFound("Resource"))
	}))
}

// api adapts a handler that returns a body or an error.
func (s *Server) api(h func(*http.Request) (any, *httpError)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, e := h(r)
		if e != nil {
			writeError(w, e)
			return
		}
		s.writeBody(w, body)
	})
}

type grantKey struct{}

// GrantOf returns what the request's token may read (set for routes added
// with Handle).
func GrantOf(r *http.Request) (Grant, bool) {
	g, ok := r.Context().Value(grantKey{}).(Grant)
	return g, ok
}

func (s *Server) auth(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		g, ok := s.cfg.Tokens.authenticate(r)
		if !ok {
			writeError(w, &httpError{status: http.StatusUnauthorized, message: "Unauthorized"})
			return
		}
		h.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), grantKey{}, g)))
	})
}

// statusWriter records the status of an answer for the access log.
type statusWriter struct {
	http.ResponseWriter
	status int
	bytes  int
}

func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

// Unwrap lets http.ResponseController reach the connection's writer.
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	n, err := w.ResponseWriter.Write(b)
	w.bytes += n
	return n, err
}

// accessLog logs method, path (never the query string or the headers, so
// neither croql texts nor tokens), status, size and duration.
func (s *Server) accessLog(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		sw := &statusWriter{ResponseWriter: w}
		h.ServeHTTP(sw, r)
		s.log.LogAttrs(r.Context(), slog.LevelInfo, "request",
			slog.String("method", r.Method), slog.String("path", r.URL.Path),
			slog.Int("status", sw.status), slog.Int("bytes", sw.bytes),
			slog.Duration("duration", time.Since(start)))
	})
}

// recoverer turns a panic into a logged 500 (a bug: no input should get
// there).
func (s *Server) recoverer(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() {
			if v := recover(); v != nil {
				if v == http.ErrAbortHandler {
					panic(v)
				}
				s.log.Error("panic", slog.String("path", r.URL.Path), slog.Any("panic", v), slog.String("stack", string(debug.Stack())))
				writeError(w, &httpError{status: http.StatusInternalServerError, message: "Internal Server Error"})
			}
		}()
		h.ServeHTTP(w, r)
	})
}

// Serve serves on ln until ctx is done, then shuts down gracefully:
// it stops accepting, lets the requests in flight finish (for at most
// grace), and returns. The caller closes the storage afterwards.
//
// Connections are bounded: headers within ReadHeaderTimeout and
// MaxHeaderBytes, bodies at Config.MinBodyRate after Config.BodyGrace,
// answers within Config.WriteTimeout of their first byte, idle keep-alive connections closed after IdleTimeout, and at most
// Config.MaxConns connections open, Config.MaxConnsPerClient from one IP
// address.
func (s *Server) Serve(ctx context.Context, ln net.Listener, grace time.Duration) error {
	hs := &http.Server{Handler: answerDeadline(minBodyRate(s, s.cfg.MinBodyRate, s.cfg.BodyGrace), s.cfg.WriteTimeout),
		ReadHeaderTimeout: ReadHeaderTimeout, IdleTimeout: IdleTimeout, MaxHeaderBytes: MaxHeaderBytes,
		BaseContext: func(net.Listener) context.Context { return context.WithoutCancel(ctx) }}
	ln = newLimitListener(ln, s.cfg.MaxConns, s.cfg.MaxConnsPerClient)
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), grace)
	defer cancel()
	err := hs.Shutdown(sctx)
	if err != nil {
		// The grace period is over: close the connections still open;
		// their requests' contexts end, and with them their queries.
		err = errors.Join(err, hs.Close())
	}
	if e := <-errc; !errors.Is(e, http.ErrServerClosed) {
		err = errors.Join(err, e)
	}
	return err
}

// env returns the facade environment of a project and context, built
// once: the project's users and languages resolve mentions.
func (s *Server) env(p *Project, ctxName string) (*croql.Env, error) {
	st := s.stats(context.Background(), p)
	s.mu.Lock()
	defer s.mu.Unlock()
	k := envKey{p.ID, ctxName, st.writes}
	if e := s.envs[k]; e != nil {
		return e, nil
	}
	for old := range s.envs { // built with older statistics
		if old.project == p.ID && old.context == ctxName {
			delete(s.envs, old)
		}
	}
	opts := []croql.Option{croql.WithEdition(s.cfg.Edition), croql.WithUserIDs(p.Users),
		croql.WithClock(s.cfg.Now), croql.WithLocation(s.cfg.Location), croql.WithMaxCost(s.cfg.MaxCost),
		croql.WithCostModel(st.costModel())}
	if len(p.Languages) > 0 {
		opts = append(opts, croql.WithLanguages(p.Languages...))
	}
	opts = append(opts, s.cfg.Options...)
	e, err := croql.NewEnv(ctxName, opts...)
	if err != nil {
		return nil, err
	}
	s.envs[k] = e
	return e, nil
}

// resource returns the description of a list endpoint for dialect d.
func (s *Server) resource(d compile.Dialect, ctxName string) (*resource, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	byCtx := s.res[d.Name()]
	if byCtx == nil {
		var err error
		if byCtx, err = resources(d, s.mapping); err != nil {
			return nil, err
		}
		s.res[d.Name()] = byCtx
	}
	r := byCtx[ctxName]
	if r == nil {
		return nil, fmt.Errorf("server: no resource for context %q", ctxName)
	}
	return r, nil
}

func (s *Server) listProjects(r *http.Request) (any, *httpError) {
	params, e := s.params(r, orderRes("id", "name", "identifier", "description", "createdAt", "updatedAt", "lastActivity"), false)
	if e != nil {
		return nil, e
	}
	if params.croql != "" {
		return nil, invalid("croql", "notSupported", "the projects list takes no croql")
	}
	// The platform's parameters: groupId (every project is in the root
	// group, 0), type (0 file-based, 1 string-based: these projects have
	// files), userId (a user's projects: those whose data has the
	// user); hasManagerAccess=1 is a 400, as croql serve's tokens have no
	// roles (0, the default, lists every readable project).
	q := r.URL.Query()
	g, _ := GrantOf(r)
	var all []map[string]any
	for _, p := range s.cfg.Storage.Projects() {
		if g.Reads(p.ID) {
			all = append(all, projectShape(p))
		}
	}
	for _, k := range []string{"groupId", "type", "hasManagerAccess", "userId"} {
		vs, ok := q[k]
		if !ok {
			continue
		}
		n, ok := digits(vs[0])
		if !ok || len(vs) > 1 || (k == "type" || k == "hasManagerAccess") && n > 1 {
			return nil, invalid(k, "notDigits", k+" must be an integer (0 or 1 for type and hasManagerAccess)")
		}
		if k == "hasManagerAccess" && n == 1 {
			return nil, invalid(k, "notSupported", "hasManagerAccess=1 is not supported by croql serve: its tokens have no roles (a token reads the projects it lists)")
		}
		all = slices.DeleteFunc(all, func(o map[string]any) bool {
			switch k {
			case "groupId":
				return n != 0
			case "type":
				return n != 0
			case "userId":
				p, _ := s.cfg.Storage.Project(o["id"].(int64))
				_, has := p.Logins[n]
				return !has
			}
			return false
		})
	}
	sortObjects(all, params.orderBy, "id")
	return pageOf(all, params), nil
}

func (s *Server) getProject(r *http.Request) (any, *httpError) {
	p, e := s.project(r, "projectId", "Project")
	if e != nil {
		return nil, e
	}
	return item{projectShape(p)}, nil
}

// item is the platform's wrapper of one object.
type item struct {
	Data any `json:"data"`
}

// Pagination is the pagination object of a list answer; Total is an
// extension, present when withTotal=true.
type Pagination struct {
	Offset int64  `json:"offset"`
	Limit  int64  `json:"limit"`
	Total  *int64 `json:"total,omitempty"`
}

type listResponse struct {
	Data       []any      `json:"data"`
	Pagination Pagination `json:"pagination"`
}

func listBody(page []any, p listParams, total int64) listResponse {
	out := listResponse{Data: page, Pagination: Pagination{Offset: p.offset, Limit: p.limit}}
	if p.withTotal {
		out.Pagination.Total = &total
	}
	return out
}
