package server

import (
	"context"
	"net/http"
	"net/http/pprof"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	dto "github.com/prometheus/client_model/go"
)

// metrics are a server's Prometheus metrics, in a registry of its own.
type metrics struct {
	reg      *prometheus.Registry
	requests *prometheus.CounterVec
	latency  *prometheus.HistogramVec
	engine   *prometheus.HistogramVec
	refused  *prometheus.CounterVec
	// coordinated counts the list requests the coordinator answered on
	// a sharded engine (Server.coordinate).
	coordinated prometheus.Counter
}

// newMetrics registers the server's metrics: requests by route pattern
// and status, their latency and engine time, the lanes, each project's
// connection pool (sql.DBStats), and the Go runtime and process.
func newMetrics(s *Server) *metrics {
	reg := prometheus.NewRegistry()
	m := &metrics{
		reg: reg,
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "croql_http_requests_total",
			Help: "HTTP requests answered, by route pattern and status code."}, []string{"route", "code"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "croql_http_request_duration_seconds",
			Help:    "Time from a request's headers to its answer, by route pattern.",
			Buckets: []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30}}, []string{"route"}),
		engine: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "croql_engine_seconds",
			Help:    "Time a request spent in database transactions, by route pattern (requests that ran none are not counted).",
			Buckets: []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10}}, []string{"route"}),
		refused: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "croql_lane_refused_total",
			Help: "List requests refused by admission, by lane and reason (too-costly: over the request budget; full: the lane's queue was full; wait: no place before the deadline; token: the token's limit)."},
			[]string{"lane", "reason"}),
		coordinated: prometheus.NewCounter(prometheus.CounterOpts{Name: "croql_coordinated_requests_total",
			Help: "List requests whose query a sharded engine (Vitess) refused, answered through croql's coordinator."}),
	}
	reg.MustRegister(m.requests, m.latency, m.engine, m.refused, m.coordinated,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	for _, l := range []*lane{s.lanes.cheap, s.lanes.expensive} {
		reg.MustRegister(
			prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "croql_lane_running",
				Help: "List requests running in the lane.", ConstLabels: prometheus.Labels{"lane": l.name}},
				func() float64 { return float64(l.running()) }),
			prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "croql_lane_queued",
				Help: "List requests waiting for a place in the lane.", ConstLabels: prometheus.Labels{"lane": l.name}},
				func() float64 { return float64(l.waiting.Load()) }),
			prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "croql_lane_size",
				Help: "List requests the lane runs at once.", ConstLabels: prometheus.Labels{"lane": l.name}},
				func() float64 { return float64(l.size) }))
	}
	for _, p := range s.cfg.Storage.Projects() {
		if p.db != nil {
			reg.MustRegister(collectors.NewDBStatsCollector(p.db, poolPrefix+strconv.FormatInt(p.ID, 10)))
		}
	}
	return m
}

// rejected counts a request admission refused.
func (m *metrics) rejected(lane, reason string) { m.refused.WithLabelValues(lane, reason).Inc() }

// poolPrefix starts the db_name label of a project's connection pool
// metrics; the project's id follows.
const poolPrefix = "project-"

// handler serves the registry in the Prometheus text format: all of it
// (the admin listener's).
func (m *metrics) handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{Registry: m.reg})
}

// publicHandler serves the registry to a request with a token (the
// public port's /metrics): the connection pools of the projects the
// token may read only, so that no token learns which other projects the
// server holds.
func (m *metrics) publicHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		g, _ := GrantOf(r)
		gather := prometheus.GathererFunc(func() ([]*dto.MetricFamily, error) {
			mfs, err := m.reg.Gather()
			return readable(mfs, g), err
		})
		promhttp.HandlerFor(gather, promhttp.HandlerOpts{}).ServeHTTP(w, r)
	})
}

// readable keeps of mfs the series that name no project g may not read
// (a db_name label of poolPrefix and an id); families left empty go.
func readable(mfs []*dto.MetricFamily, g Grant) []*dto.MetricFamily {
	for _, mf := range mfs {
		mf.Metric = slices.DeleteFunc(mf.Metric, func(mt *dto.Metric) bool {
			for _, lp := range mt.GetLabel() {
				if lp.GetName() != "db_name" {
					continue
				}
				id, err := strconv.ParseInt(strings.TrimPrefix(lp.GetValue(), poolPrefix), 10, 64)
				return err != nil || !g.Reads(id)
			}
			return false
		})
	}
	return slices.DeleteFunc(mfs, func(mf *dto.MetricFamily) bool { return len(mf.Metric) == 0 })
}

// cmdline serves the program's command line as pprof.Cmdline does, with
// the values of the flags that carry secrets (tokens, client secrets,
// passwords, DSNs) redacted.
func cmdline(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	_, _ = w.Write([]byte(strings.Join(redactArgs(os.Args), "\x00")))
}

// redacted replaces a secret flag's value in the command line.
const redacted = "REDACTED"

// redactArgs is args with the value of every flag whose name says it is
// secret replaced by redacted, in both forms: --name=value and --name
// value.
func redactArgs(args []string) []string {
	out := slices.Clone(args)
	for i := 0; i < len(out); i++ {
		a := out[i]
		if !strings.HasPrefix(a, "-") || a == "--" {
			if a == "--" {
				break
			}
			continue
		}
		name, _, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if !secretFlag(name) {
			continue
		}
		if hasValue {
			out[i] = a[:strings.IndexByte(a, '=')+1] + redacted
		} else if i+1 < len(out) {
			i++
			out[i] = redacted
		}
	}
	return out
}

// secretFlag reports whether a flag named name carries a secret.
func secretFlag(name string) bool {
	name = strings.ToLower(name)
	for _, w := range []string{"token", "secret", "password", "passwd", "dsn", "key", "credential"} {
		if strings.Contains(name, w) {
			return true
		}
	}
	return false
}

// engineTimer adds up the time a request spends in database transactions
// (Storage.ReadTx and WriteTx record into the one in their context).
type engineTimer struct {
	mu    sync.Mutex
	total time.Duration
	n     int
}

type engineTimerKey struct{}

// recordEngineTime adds the time since start to the request's engine time,
// if ctx carries a timer.
func recordEngineTime(ctx context.Context, start time.Time) {
	if t, ok := ctx.Value(engineTimerKey{}).(*engineTimer); ok {
		t.mu.Lock()
		t.total += time.Since(start)
		t.n++
		t.mu.Unlock()
	}
}

// instrument counts each request by its route pattern and status and
// observes its latency and engine time.
func (s *Server) instrument(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		et := &engineTimer{}
		r = r.WithContext(context.WithValue(r.Context(), engineTimerKey{}, et))
		sw := &statusWriter{ResponseWriter: w}
		defer func() {
			route := r.Pattern // set by the mux on this request
			if route == "" {
				route = "unmatched"
			}
			status := sw.status
			if status == 0 {
				status = http.StatusOK
			}
			s.metrics.requests.WithLabelValues(route, strconv.Itoa(status)).Inc()
			s.metrics.latency.WithLabelValues(route).Observe(time.Since(start).Seconds())
			et.mu.Lock()
			total, n := et.total, et.n
			et.mu.Unlock()
			if n > 0 {
				s.metrics.engine.WithLabelValues(route).Observe(total.Seconds())
			}
		}()
		next.ServeHTTP(sw, r)
	})
}

// AdminHandler is what croql serve's admin listener (--admin-listen)
// serves: /metrics and the runtime profiles of net/http/pprof under
// /debug/pprof/. It takes no token: listen on loopback or a private
// network only. The public handler has /metrics, for a request with a
// token, but never the profiles.
func (s *Server) AdminHandler() http.Handler {
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", s.metrics.handler())
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	return mux
}
