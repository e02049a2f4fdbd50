package server

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"sync"

	"github.com/croql/croql"
	"github.com/croql/croql/compile"
	"github.com/croql/croql/diag"
	"github.com/croql/croql/store"
)

// The coordinator on a sharded engine (Vitess): a list whose query vtgate
// refuses (a shape its planner does not run, store.Refused), or that the
// compiler will not send there (compile.ErrSharded), is answered again,
// with the query's matches found by croql's coordinator
// (store.Coordinate: the candidates the query's own-column conditions
// select on the shards, read back by key and matched by the evaluator).
// The list then selects those keys (compile.KeyIn) where the query's
// condition stood, and pages, orders, filters and counts as before.

// MaxCoordinatedMatches bounds the matches of a query the coordinator
// answers for a list: they become one IN list of bound keys. A query with
// more is refused with a diagnostic that says so.
const MaxCoordinatedMatches = 10_000

// coordination is a request answered through the coordinator: the
// condition each query source came to, computed once for the page and
// the total.
type coordination struct {
	mu    sync.Mutex
	where map[string]coordinatedWhere
}

type coordinatedWhere struct {
	where []string
	args  []any
}

type coordinationKey struct{}

// withCoordination marks ctx's request as answered through the
// coordinator.
func withCoordination(ctx context.Context) context.Context {
	return context.WithValue(ctx, coordinationKey{}, &coordination{where: map[string]coordinatedWhere{}})
}

// coordinationOf is the coordination of ctx's request, nil when the
// database answers it as compiled.
func coordinationOf(ctx context.Context) *coordination {
	co, _ := ctx.Value(coordinationKey{}).(*coordination)
	return co
}

// coordinatedOnRefusal answers a list request through h, and when a
// sharded engine refuses its query, once more with the coordinator
// (withCoordination). The body of a POST …/query (body) is kept for the
// second answer, up to the server's MaxBody (and one byte more, so that
// h still finds a longer body too long).
func (s *Server) coordinatedOnRefusal(body bool, h func(*http.Request) (any, *httpError)) func(*http.Request) (any, *httpError) {
	return func(r *http.Request) (any, *httpError) {
		var kept []byte
		var readErr error
		if body && r.Body != nil {
			kept, readErr = io.ReadAll(io.LimitReader(r.Body, s.cfg.MaxBody+1))
			r.Body = keptBody(kept, readErr)
		}
		out, e := h(r)
		if e == nil || !e.refused {
			return out, e
		}
		s.metrics.coordinated.Inc()
		r2 := r.WithContext(withCoordination(r.Context()))
		if body {
			r2.Body = keptBody(kept, readErr)
		}
		out, e = h(r2)
		if e != nil && e.refused {
			// The coordinator's own statements refused: not expected
			// (they are plain scans and key lookups).
			return nil, &httpError{status: http.StatusInternalServerError, message: "Internal Server Error"}
		}
		return out, e
	}
}

// keptBody is a request body of the bytes b, then readErr.
func keptBody(b []byte, readErr error) io.ReadCloser {
	if readErr == nil {
		return io.NopCloser(bytes.NewReader(b))
	}
	return io.NopCloser(io.MultiReader(bytes.NewReader(b), errReader{readErr}))
}

type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }

// coordinated is the condition of src in env through the coordinator: its
// matches as bound keys.
func (s *Server) coordinated(r *http.Request, co *coordination, p *Project, env *croql.Env, ctxName, src string) ([]string, []any, *httpError) {
	key := ctxName + "\x00" + src
	co.mu.Lock()
	defer co.mu.Unlock()
	if w, ok := co.where[key]; ok {
		return w.where, w.args, nil
	}
	c := checkQuery(r.Context(), env, src)
	q, diags := c.q, c.diags
	if q == nil || diags.HasErrors() {
		return nil, nil, croqlError(src, diags)
	}
	cctx, cancel := context.WithTimeout(r.Context(), s.cfg.Timeout)
	defer cancel()
	ids, err := store.Coordinate(cctx, p.DB(), p.Dialect(), s.mapping, q, MaxCoordinatedMatches+1)
	if err != nil {
		return nil, nil, s.dbError(r, cctx, src, err)
	}
	if len(ids) > MaxCoordinatedMatches {
		d := diag.Errorf(diag.ClassSyntax, "engine-limit", diag.Span{Start: 0, End: len(src)},
			"on this server's %s database croql answers this query's form itself (the engine does not run it), and it matches more than %d objects", p.Dialect().Name(), MaxCoordinatedMatches).
			WithHint("add a condition on the object's own fields (it narrows the candidates on the shards), or split the query")
		return nil, nil, croqlError(src, diag.List{d})
	}
	k, err := compile.KeyIn(p.Dialect(), s.mapping, q.Context, ids)
	if err != nil {
		return nil, nil, s.internal(r, err)
	}
	w := coordinatedWhere{where: []string{"(" + k.Where + ")"}, args: k.Args}
	co.where[key] = w
	return w.where, w.args, nil
}

// dbErrorOn is dbError for a list of project p whose query is src: a
// sharded engine refusing the statement is marked refused, for
// coordinatedOnRefusal, unless the coordinator answers the request
// already.
func (s *Server) dbErrorOn(p *Project, r *http.Request, ctx context.Context, src string, err error) *httpError {
	if src != "" && coordinationOf(r.Context()) == nil && store.Refused(p.Dialect(), err) {
		return &httpError{status: http.StatusInternalServerError, message: "Internal Server Error", refused: true}
	}
	return s.dbError(r, ctx, src, err)
}
