package server

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"math"
	"net/http"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/croql/croql"
	"github.com/croql/croql/diag"
	"github.com/croql/croql/typecheck"
)

// Defaults of the admission of list requests (Config fields of the same
// names).
const (
	// DefaultCheapCost is the request cost (see DefaultMaxRequestCost) up
	// to which a list request takes the cheap lane: every seed pattern
	// on a project of 100,000 strings (the dearest costs about 280M),
	// and most of them at 1,000,000 strings.
	DefaultCheapCost = 1e9
	// DefaultLaneQueue is how many requests may wait for each lane.
	DefaultLaneQueue = 64
	// DefaultMaxPerToken is how many list requests one token may have in
	// each lane at once (running or waiting).
	DefaultMaxPerToken = 32
)

// DefaultCheapLane is the number of cheap list requests that run at once
// by default: twice the CPUs.
func DefaultCheapLane() int { return 2 * runtime.GOMAXPROCS(0) }

// DefaultExpensiveLane is the number of expensive list requests that run
// at once by default: half the CPUs, at least one, so that expensive
// requests leave CPU and connections to the cheap ones.
func DefaultExpensiveLane() int { return max(1, runtime.GOMAXPROCS(0)/2) }

// Lane names, as the metrics label them.
const (
	laneCheap     = "cheap"
	laneExpensive = "expensive"
)

// lane admits at most size requests at once; up to queue more wait for a
// place, until their deadline.
type lane struct {
	name    string
	slots   chan struct{}
	queue   int64
	waiting atomic.Int64
	// retryAfter is what a refused request is told to wait.
	retryAfter time.Duration

	mu       sync.Mutex
	perToken map[[sha256.Size]byte]int
	maxToken int
}

func newLane(name string, size, queue, maxToken int, retryAfter time.Duration) *lane {
	return &lane{name: name, slots: make(chan struct{}, max(1, size)), queue: int64(max(0, queue)),
		retryAfter: retryAfter, perToken: map[[sha256.Size]byte]int{}, maxToken: maxToken}
}

// Why a lane refuses a request.
var (
	errLaneFull   = errors.New("the lane is full")
	errLaneWait   = errors.New("no place in the lane before the request's deadline")
	errTokenLimit = errors.New("the token has too many requests in flight")
)

// acquire takes a place in the lane for the token whose digest is tok, or
// says why not. release gives it back.
func (l *lane) acquire(ctx context.Context, tok [sha256.Size]byte) (release func(), err error) {
	l.mu.Lock()
	if l.maxToken > 0 && l.perToken[tok] >= l.maxToken {
		l.mu.Unlock()
		return nil, errTokenLimit
	}
	l.perToken[tok]++
	l.mu.Unlock()
	untoken := func() {
		l.mu.Lock()
		defer l.mu.Unlock()
		if l.perToken[tok]--; l.perToken[tok] <= 0 {
			delete(l.perToken, tok)
		}
	}
	done := func() {
		<-l.slots
		untoken()
	}
	select {
	case l.slots <- struct{}{}:
		return done, nil
	default:
	}
	if l.waiting.Add(1) > l.queue {
		l.waiting.Add(-1)
		untoken()
		return nil, errLaneFull
	}
	defer l.waiting.Add(-1)
	select {
	case l.slots <- struct{}{}:
		return done, nil
	case <-ctx.Done():
		untoken()
		return nil, errLaneWait
	}
}

// running is the number of requests holding a place.
func (l *lane) running() int { return len(l.slots) }

// lanes are the cheap and the expensive lane of a server.
type lanes struct {
	cheap, expensive *lane
	cheapCost        float64
}

func newLanes(cfg Config) *lanes {
	return &lanes{
		cheap:     newLane(laneCheap, cfg.CheapLane, cfg.LaneQueue, cfg.MaxPerToken, time.Second),
		expensive: newLane(laneExpensive, cfg.ExpensiveLane, cfg.LaneQueue, cfg.MaxPerToken, cfg.Timeout),
		cheapCost: cfg.CheapCost,
	}
}

// reservePool makes room in each project's connection pool for both lanes
// at once (and two connections more for the other routes), so that
// expensive requests, which the expensive lane bounds, never hold all of
// a pool's connections.
func (s *Server) reservePool() {
	want := s.cfg.CheapLane + s.cfg.ExpensiveLane + 2
	for _, p := range s.cfg.Storage.Projects() {
		if p.db == nil {
			continue
		}
		if n := p.db.Stats().MaxOpenConnections; n > 0 && n < want {
			p.db.SetMaxOpenConns(want)
			p.db.SetMaxIdleConns(want)
		}
	}
}

// admitList is the admission of a list request: it estimates the
// request's cost, its query's and its filter parameters' (a 400
// too-costly over the request budget, or when one call of a text
// operator could pass the budget per call), and takes a
// place in the cheap or the expensive lane, at most Config.MaxPerToken
// requests of one token in each; release gives it back. A full lane, or
// no place before the request's deadline, is a 503 with Retry-After; a
// token over its limit a 429 with Retry-After. A request whose query has
// errors takes the cheap lane: its plan answers it. A list without croql
// (files, labels) is not priced.
func (s *Server) admitList(req *listRequest) (release func(), e *httpError) {
	if req.ep.context == "" {
		return func() {}, nil
	}
	r := req.r
	// A request waits for a place at most the statement timeout.
	ctx, cancel := context.WithTimeout(r.Context(), s.cfg.Timeout)
	defer cancel()
	l := s.lanes.cheap
	if est, ok := s.estimate(ctx, req.p, req.ep.context, req.params.croql); ok {
		if e := s.callBudget(ctx, req, est.q, "croql"); e != nil {
			s.metrics.rejected(laneExpensive, "too-costly")
			return nil, e
		}
		if s.cfg.MaxRequestCost > 0 && est.cost > s.cfg.MaxRequestCost {
			s.metrics.rejected(laneExpensive, "too-costly")
			return nil, est.tooCostly(req.params.croql, s.cfg.MaxRequestCost, req.ep.context)
		}
		if e := s.priceFilters(ctx, req, est); e != nil {
			s.metrics.rejected(laneExpensive, "too-costly")
			return nil, e
		}
		if est.cost > s.lanes.cheapCost {
			l = s.lanes.expensive
		}
	}
	release, err := l.acquire(ctx, sha256.Sum256([]byte(Bearer(r))))
	if err == nil {
		return release, nil
	}
	if r.Context().Err() != nil {
		// The client went away while waiting: nobody reads the answer.
		return nil, &httpError{status: 499, message: "Client Closed Request"}
	}
	status, reason := http.StatusServiceUnavailable, "full"
	msg := "the server is busy with " + l.name + " requests; try again later"
	switch {
	case errors.Is(err, errTokenLimit):
		status, reason = http.StatusTooManyRequests, "token"
		msg = "this token has " + strconv.Itoa(l.maxToken) + " " + l.name + " requests in flight, the most the server allows; try again when one has answered"
	case errors.Is(err, errLaneWait):
		reason = "wait"
	}
	s.metrics.rejected(l.name, reason)
	return nil, &httpError{status: status, message: msg, retryAfter: int(math.Ceil(l.retryAfter.Seconds()))}
}

// estimate is the cost of a list request on p: its query's estimate per
// object under the project's cost model, times the objects it may visit.
// ok is false when the query has errors, the facade's budget per object
// included (the handler reports them). The check is the request's
// (checkQuery): ctx's request keeps it for the handler.
func (s *Server) estimate(ctx context.Context, p *Project, ctxName, src string) (e *requestEstimate, ok bool) {
	st := s.stats(ctx, p)
	e = &requestEstimate{}
	if strings.TrimSpace(src) != "" {
		env, err := s.env(p, ctxName)
		if err != nil {
			return nil, false
		}
		q := checkQuery(ctx, env, src).q
		if q == nil {
			return nil, false
		}
		e.q, e.model = q, env.CostModel()
		e.perObject = q.Cost(e.model)
	}
	e.cost, e.objects = requestCost(e.perObject, st, ctxName)
	return e, true
}

// priceFilters adds to est the cost of the request's filter parameters
// (filter, labelIds, …: the conditions croql serve writes for them),
// each checked once for the request, and refuses a request they take
// over the budget per call or the request budget: a 400 under the
// parameter. Parameters that cannot be read are left to the handler,
// which answers them.
func (s *Server) priceFilters(ctx context.Context, req *listRequest, est *requestEstimate) *httpError {
	flt, e := req.filters()
	if e != nil {
		return nil
	}
	st := s.stats(ctx, req.p)
	model := st.costModel()
	dearest := ""
	for _, g := range []struct {
		ctx string
		ps  []filterParam
	}{{req.ep.context, flt.root}, {croql.Strings, flt.strs}} {
		if len(g.ps) == 0 {
			continue
		}
		env, err := s.paramEnv(req.p, g.ctx)
		if err != nil {
			return nil
		}
		most := 0.0
		for _, fp := range g.ps {
			q := checkQuery(ctx, env, fp.src).q
			if q == nil {
				continue // compileParams answers it
			}
			if e := s.callBudget(ctx, req, q, fp.name); e != nil {
				return e
			}
			c := q.Cost(model)
			est.perObject += c
			if c > most {
				most, dearest = c, fp.name
			}
		}
	}
	if dearest == "" {
		return nil
	}
	est.cost, est.objects = requestCost(est.perObject, st, req.ep.context)
	if s.cfg.MaxRequestCost > 0 && est.cost > s.cfg.MaxRequestCost {
		return invalid(dearest, "tooCostly", fmt.Sprintf("the request is too costly: about %s steps (%s per object × %d objects, %s included), over this server's request budget of %s (croql serve --max-request-cost)",
			typecheck.Approx(est.cost), typecheck.Approx(est.perObject), est.objects, dearest, typecheck.Approx(s.cfg.MaxRequestCost)))
	}
	return nil
}

// callBudget refuses a query (of the croql parameter, or of the filter
// parameter key) one of whose text operators could take more than
// Config.MaxCallCost in one call on the project's engine (callCost): a
// 400 that says why.
func (s *Server) callBudget(ctx context.Context, req *listRequest, q *typecheck.Query, key string) *httpError {
	if s.cfg.MaxCallCost <= 0 || q == nil {
		return nil
	}
	engine := req.p.Dialect().Name()
	c, at, text, sub := callCost(q, s.stats(ctx, req.p), engine != "sqlite")
	if c <= s.cfg.MaxCallCost {
		return nil
	}
	msg := tooLongCall(engineNames[engine], c, s.cfg.MaxCallCost, text, sub)
	if key != "croql" {
		return invalid(key, "tooCostly", key+": "+msg)
	}
	return croqlError(req.params.croql, diag.List{diag.Errorf(diag.ClassLogic, typecheck.RuleTooCostly, at, "%s", msg)})
}

// engineNames are the engines as messages name them.
var engineNames = map[string]string{"postgres": "PostgreSQL", "mysql": "MySQL/MariaDB", "vitess": "Vitess", "sqlite": "SQLite"}
