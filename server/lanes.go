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
// place, until their deadline. The waiting requests queue per token, and
// the tokens take turns (round robin): a place that frees goes to the
// next token's oldest request, so that one token's flood waits behind
// its own requests, not in front of another token's. When reserve is
// reports that the server has several tokens, a token that holds places never
// takes the lane's last free one: it is kept for a token that holds
// none, so that a token's slow requests cannot hold every place. Work
// on an engine that runs in this process (SQLite) takes CPU from the
// server itself: while reserve reports several tokens, one token holds
// at most cpuShare places for it (one CPU fewer than the server has), so
// that another token's requests always find a CPU, not only a place.
type lane struct {
	name  string
	size  int
	queue int
	// retryAfter is what a refused request is told to wait.
	retryAfter time.Duration
	// reserve reports whether the server has several tokens (nil: no).
	reserve  func() bool
	maxToken int
	// cpuShare bounds the places one token holds for in-process work
	// while the server has several tokens (0: no bound).
	cpuShare int

	mu sync.Mutex
	// run is the number of requests holding a place; waiting, those
	// queued (both also read by the metrics).
	run, waiting atomic.Int64
	// inLane counts each token's requests in the lane (running or
	// waiting), held its running ones.
	inLane, held map[[sha256.Size]byte]int
	// queues are the waiting requests of each token, oldest first; ring
	// the tokens that have some, in turn order, next the one whose turn
	// comes next.
	queues map[[sha256.Size]byte][]*waiter
	ring   [][sha256.Size]byte
	next   int
}

// waiter is a request waiting for a place: ready is closed when it is
// given one.
type waiter struct {
	tok       [sha256.Size]byte
	inProcess bool
	ready     chan struct{}
	granted   bool
}

func newLane(name string, size, queue, maxToken int, retryAfter time.Duration, reserve func() bool) *lane {
	return &lane{name: name, size: max(1, size), queue: max(0, queue), retryAfter: retryAfter,
		reserve: reserve, maxToken: maxToken, cpuShare: max(1, runtime.GOMAXPROCS(0)-1),
		inLane: map[[sha256.Size]byte]int{}, held: map[[sha256.Size]byte]int{}, queues: map[[sha256.Size]byte][]*waiter{}}
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
	release, _, err = l.acquireFor(ctx, tok, false)
	return release, err
}

// acquireFor is acquire for work that runs in this process (inProcess:
// a query on SQLite), which cpuShare bounds, or not. queued reports
// whether the request waited in the lane's queue (false: it took a free
// place at once, or was refused without waiting).
func (l *lane) acquireFor(ctx context.Context, tok [sha256.Size]byte, inProcess bool) (release func(), queued bool, err error) {
	l.mu.Lock()
	if l.maxToken > 0 && l.inLane[tok] >= l.maxToken {
		l.mu.Unlock()
		return nil, false, errTokenLimit
	}
	l.inLane[tok]++
	release = func() {
		l.mu.Lock()
		defer l.mu.Unlock()
		l.run.Add(-1)
		l.untake(tok)
		l.dispatch()
	}
	// Every waiter that could take a free place has one (dispatch), so
	// a request that may take one now passes no one.
	if l.mayTake(tok, inProcess) {
		l.take(tok)
		l.mu.Unlock()
		return release, false, nil
	}
	if l.waiting.Load() >= int64(l.queue) {
		l.forget(tok)
		l.mu.Unlock()
		return nil, false, errLaneFull
	}
	w := &waiter{tok: tok, inProcess: inProcess, ready: make(chan struct{})}
	if len(l.queues[tok]) == 0 {
		l.ring = append(l.ring, tok)
	}
	l.queues[tok] = append(l.queues[tok], w)
	l.waiting.Add(1)
	l.mu.Unlock()
	select {
	case <-w.ready:
		return release, true, nil
	case <-ctx.Done():
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if w.granted { // given a place as the deadline came: give it back
		l.run.Add(-1)
		l.untake(tok)
		l.dispatch()
		return nil, true, errLaneWait
	}
	l.unqueue(w)
	l.forget(tok)
	return nil, true, errLaneWait
}

// mayTake reports whether tok may take a place now for in-process work
// or not (l.mu held).
func (l *lane) mayTake(tok [sha256.Size]byte, inProcess bool) bool {
	free := l.size - int(l.run.Load())
	several := l.reserve != nil && l.reserve()
	if inProcess && several && l.cpuShare > 0 && l.held[tok] >= l.cpuShare {
		return false
	}
	return free > 1 || free == 1 && (l.held[tok] == 0 || l.size == 1 || !several)
}

// take gives tok a place (l.mu held).
func (l *lane) take(tok [sha256.Size]byte) {
	l.run.Add(1)
	l.held[tok]++
}

// untake ends a request of tok that held a place (l.mu held).
func (l *lane) untake(tok [sha256.Size]byte) {
	if l.held[tok]--; l.held[tok] <= 0 {
		delete(l.held, tok)
	}
	l.forget(tok)
}

// forget ends a request of tok in the lane (l.mu held).
func (l *lane) forget(tok [sha256.Size]byte) {
	if l.inLane[tok]--; l.inLane[tok] <= 0 {
		delete(l.inLane, tok)
	}
}

// dispatch gives the free places to the waiting requests, the tokens in
// turn, each token's oldest first (l.mu held).
func (l *lane) dispatch() {
	for len(l.ring) > 0 {
		granted := false
		for range len(l.ring) {
			l.next %= len(l.ring)
			tok := l.ring[l.next]
			if !l.mayTake(tok, l.queues[tok][0].inProcess) {
				l.next++
				continue
			}
			q := l.queues[tok]
			w := q[0]
			l.queues[tok] = q[1:]
			l.waiting.Add(-1)
			if len(l.queues[tok]) == 0 {
				delete(l.queues, tok)
				l.ring = append(l.ring[:l.next], l.ring[l.next+1:]...)
			} else {
				l.next++
			}
			l.take(tok)
			w.granted = true
			close(w.ready)
			granted = true
			break
		}
		if !granted {
			return
		}
	}
}

// unqueue removes w, which gave up waiting, from its token's queue (l.mu
// held).
func (l *lane) unqueue(w *waiter) {
	q := l.queues[w.tok]
	for i, x := range q {
		if x == w {
			q = append(q[:i], q[i+1:]...)
			break
		}
	}
	l.waiting.Add(-1)
	if len(q) > 0 {
		l.queues[w.tok] = q
		return
	}
	delete(l.queues, w.tok)
	for i, t := range l.ring {
		if t == w.tok {
			l.ring = append(l.ring[:i], l.ring[i+1:]...)
			if i < l.next {
				l.next--
			}
			break
		}
	}
}

// running is the number of requests holding a place.
func (l *lane) running() int { return int(l.run.Load()) }

// lanes are the cheap and the expensive lane of a server.
type lanes struct {
	cheap, expensive *lane
	cheapCost        float64
}

func newLanes(cfg Config) *lanes {
	several := func() bool { return cfg.Tokens != nil && cfg.Tokens.Len() > 1 }
	return &lanes{
		cheap:     newLane(laneCheap, cfg.CheapLane, cfg.LaneQueue, cfg.MaxPerToken, time.Second, several),
		expensive: newLane(laneExpensive, cfg.ExpensiveLane, cfg.LaneQueue, cfg.MaxPerToken, cfg.Timeout, several),
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
	start := time.Now()
	release, queued, err := l.acquireFor(ctx, sha256.Sum256([]byte(Bearer(r))), req.p.Dialect().Name() == "sqlite")
	req.admission = admission{lane: l.name}
	if queued {
		req.admission.wait = time.Since(start)
	}
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

// admission is the lane a list request took (or was refused by) and how
// long it waited in the lane's queue: 0 when it took a free place at once.
type admission struct {
	lane string
	wait time.Duration
}

// serverTiming is the admission as a Server-Timing header's entry
// (W3C Server Timing): `lane;desc="cheap";dur=0`, the wait in
// milliseconds.
func (a admission) serverTiming() string {
	return `lane;desc="` + a.lane + `";dur=` + strconv.FormatFloat(float64(a.wait)/float64(time.Millisecond), 'f', -1, 64)
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
