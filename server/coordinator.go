package server

import (
	"context"

	"github.com/croql/croql/compile"
	"github.com/croql/croql/diag"
	"github.com/croql/croql/schema"
	"github.com/croql/croql/store"
)

// The coordinator on a sharded engine (Vitess): a list whose query the
// compiler will not send there (compile.ErrSharded), decided before any
// statement runs, or whose statement the engine refuses (a shape its
// planner does not run, store.Refused), is answered with the query's
// matches found by croql's coordinator (store.Coordinate: the
// candidates the query's own-column conditions select on the shards, read
// back by key and matched by the evaluator). The list then selects those
// keys (compile.KeyIn) where the query's condition stood, and pages,
// orders, filters and counts as before.

// MaxCoordinatedMatches bounds the matches of a query the coordinator
// answers for a list: they become one IN list of bound keys. A query with
// more is refused with a diagnostic that says so.
const MaxCoordinatedMatches = 10_000

// coordinatedWhere is the condition the coordinator's matches come to,
// computed once for the request's page and total.
type coordinatedWhere struct {
	where []string
	args  []any
}

// coordinate answers the request's croql with the coordinator: its
// matches become the condition of every later statement of the request
// (req.co).
func (s *Server) coordinate(req *listRequest) *httpError {
	ids, cx, e := s.coordinatedIDs(req)
	if e != nil {
		return e
	}
	src, p := req.params.croql, req.p
	if len(ids) > MaxCoordinatedMatches {
		d := diag.Errorf(diag.ClassSyntax, "engine-limit", diag.Span{Start: 0, End: len(src)},
			"on this server's %s database croql answers this query's form itself (the engine does not run it), and it matches more than %d objects", p.Dialect().Name(), MaxCoordinatedMatches).
			WithHint("add a condition on the object's own fields (it narrows the candidates on the shards), or split the query")
		return croqlError(src, diag.List{d})
	}
	return s.coordinated(req, cx, ids)
}

// coordinateChosen answers the request's croql with the coordinator where
// the engine would run its statement a query per row (a join across
// shards, compile.SQL.CrossShard), and reports whether it did: a query
// with more than MaxCoordinatedMatches matches is left to the engine.
func (s *Server) coordinateChosen(req *listRequest) (bool, *httpError) {
	ids, cx, e := s.coordinatedIDs(req)
	if e != nil || len(ids) > MaxCoordinatedMatches {
		return false, e
	}
	return true, s.coordinated(req, cx, ids)
}

// coordinatedIDs is the coordinator's answer to the request's croql, at
// most MaxCoordinatedMatches+1 matches, and the query's context.
func (s *Server) coordinatedIDs(req *listRequest) ([]int64, *schema.Context, *httpError) {
	src, p := req.params.croql, req.p
	env, err := s.env(p, req.ep.context)
	if err != nil {
		return nil, nil, s.internal(req.r, err)
	}
	c := checkQuery(req.r.Context(), env, src)
	if c.q == nil || c.diags.HasErrors() {
		return nil, nil, croqlError(src, c.diags)
	}
	s.metrics.coordinated.Inc()
	cctx, cancel := context.WithTimeout(req.r.Context(), s.cfg.Timeout)
	defer cancel()
	ids, err := store.Coordinate(cctx, p.DB(), p.Dialect(), s.mapping, c.q, MaxCoordinatedMatches+1)
	if err != nil {
		return nil, nil, s.dbError(req.r, cctx, src, err)
	}
	return ids, c.q.Context, nil
}

// coordinated makes ids, the coordinator's matches, the condition of
// every later statement of the request (req.co).
func (s *Server) coordinated(req *listRequest, cx *schema.Context, ids []int64) *httpError {
	k, err := compile.KeyIn(req.p.Dialect(), s.mapping, cx, ids)
	if err != nil {
		return s.internal(req.r, err)
	}
	req.co = &coordinatedWhere{where: []string{"(" + k.Where + ")"}, args: k.Args}
	return nil
}
