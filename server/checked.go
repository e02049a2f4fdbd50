package server

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/croql/croql"
	"github.com/croql/croql/compile"
	"github.com/croql/croql/diag"
	"github.com/croql/croql/eval"
	"github.com/croql/croql/mapping"
	"github.com/croql/croql/schema"
	"github.com/croql/croql/typecheck"
)

// A list request checks its croql query once: the first place that
// checks it (the admission's cost estimate, or the handler when admission
// did not estimate) keeps the checked query in the request's context
// (withQueries), and the page's SQL, the total's, the resident snapshot's
// program and the coordinator take it from there.

// checkedQuery is a query source checked in one environment: the checked
// query (nil when the check found errors) and the check's diagnostics,
// and the evaluator's program compiled from it when one is asked for.
type checkedQuery struct {
	env   *croql.Env
	once  sync.Once
	q     *typecheck.Query
	diags diag.List

	progOnce  sync.Once
	prog      *croql.Query
	progDiags diag.List

	resOnce sync.Once
	res     *eval.Program
	resErr  error
}

// check checks the source once.
func (c *checkedQuery) check(src string) *checkedQuery {
	c.once.Do(func() { c.q, c.diags = c.env.Check(src) })
	return c
}

// sql is the query's condition for dialect d over mapping m and purpose
// p, as the environment's SQLFor compiles the source: nil, with the
// check's diagnostics or the compiler's, on an error.
func (c *checkedQuery) sql(d compile.Dialect, m *mapping.Mapping, p compile.Purpose) (*compile.SQL, diag.List) {
	if c.q == nil {
		return nil, c.diags
	}
	return c.env.SQLForChecked(c.q, d, m, p)
}

// program is the query compiled for the evaluator, as the environment's
// Compile compiles the source: nil, with every diagnostic, on an error.
func (c *checkedQuery) program() (*croql.Query, diag.List) {
	if c.q == nil {
		return nil, c.diags
	}
	c.progOnce.Do(func() { c.prog, c.progDiags = c.env.CompileChecked(c.q) })
	return c.prog, c.progDiags
}

// resident is the query compiled for the resident snapshot's objects
// (residentProgram over cat, the snapshot's catalog): an error when the
// check found errors.
func (c *checkedQuery) resident(cat *schema.Catalog) (*eval.Program, error) {
	if c.q == nil {
		return nil, fmt.Errorf("server: the query has errors: %w", c.diags.Err())
	}
	c.resOnce.Do(func() { c.res, c.resErr = residentProgram(c.env.CheckConfig(), c.env.Parser(), cat, c.q.Source) })
	return c.res, c.resErr
}

// queryKey names a checked query: its environment (one per project,
// context and statistics) and its source.
type queryKey struct {
	env *croql.Env
	src string
}

// requestQueries are the queries one request has checked.
type requestQueries struct {
	mu      sync.Mutex
	checked map[queryKey]*checkedQuery
}

type queriesKey struct{}

// withQueries returns ctx carrying the queries its request checks, those
// of ctx when it carries them already.
func withQueries(ctx context.Context) context.Context {
	if queriesOf(ctx) != nil {
		return ctx
	}
	return context.WithValue(ctx, queriesKey{}, &requestQueries{checked: map[queryKey]*checkedQuery{}})
}

// queriesOf is the queries ctx's request checks, nil when it keeps none.
func queriesOf(ctx context.Context) *requestQueries {
	rq, _ := ctx.Value(queriesKey{}).(*requestQueries)
	return rq
}

// checkQuery is src checked in env, once for the request of ctx (each
// time when ctx keeps no queries).
func checkQuery(ctx context.Context, env *croql.Env, src string) *checkedQuery {
	rq := queriesOf(ctx)
	if rq == nil {
		return (&checkedQuery{env: env}).check(src)
	}
	k := queryKey{env: env, src: src}
	rq.mu.Lock()
	c := rq.checked[k]
	if c == nil {
		c = &checkedQuery{env: env}
		rq.checked[k] = c
	}
	rq.mu.Unlock()
	return c.check(src)
}

// invalidUTF8 is the 400 of a query that is not valid UTF-8.
func invalidUTF8(src string) *httpError {
	at := 0
	for at < len(src) {
		r, n := utf8.DecodeRuneInString(src[at:])
		if r == utf8.RuneError && n <= 1 {
			break
		}
		at += n
	}
	d := diag.Errorf(diag.ClassSyntax, "invalid-utf8", diag.Span{Start: at, End: at + 1},
		"the query is not valid UTF-8 (byte %d); percent-encode the UTF-8 bytes of each character", at)
	return croqlError(strings.ToValidUTF8(src, "\uFFFD"), diag.List{d})
}

// croqlWhere is the request's croql checked (once for the request:
// checkQuery) and compiled for the project's dialect and purpose; a blank
// query lists every object. On a sharded engine, a form the compiler will
// not send there is answered by the coordinator, decided here before any
// statement runs; so is every form once the engine has refused one
// (answer).
func (s *Server) croqlWhere(req *listRequest, purpose compile.Purpose) ([]string, []any, *httpError) {
	where, args, _, e := s.croqlSQL(req, purpose)
	return where, args, e
}

// croqlSQL is croqlWhere with the compiler's count of the rows the
// condition selects from the elements' side (compile.SQL.Count), nil
// when it writes none or the coordinator answers.
func (s *Server) croqlSQL(req *listRequest, purpose compile.Purpose) ([]string, []any, *compile.Stmt, *httpError) {
	src, p := req.params.croql, req.p
	if !utf8.ValidString(src) {
		return nil, nil, nil, invalidUTF8(src)
	}
	if strings.TrimSpace(src) == "" {
		return nil, nil, nil, nil
	}
	if req.co != nil {
		return req.co.where, req.co.args, nil, nil
	}
	env, err := s.env(p, req.ep.context)
	if err != nil {
		return nil, nil, nil, &httpError{status: http.StatusInternalServerError, message: "Internal Server Error"}
	}
	c, diags := checkQuery(req.r.Context(), env, src).sql(p.Dialect(), s.mapping, purpose)
	if c == nil && isSharded(p.Dialect()) && errors.Is(diags.Err(), compile.ErrSharded) {
		if e := s.coordinate(req); e != nil {
			return nil, nil, nil, e
		}
		return req.co.where, req.co.args, nil, nil
	}
	if c != nil && c.CrossShard {
		// vtgate would run it as a query to the shards per row: the
		// coordinator first, vtgate when it matches too many objects.
		if done, e := s.coordinateChosen(req); e != nil || done {
			if e != nil {
				return nil, nil, nil, e
			}
			return req.co.where, req.co.args, nil, nil
		}
	}
	if c == nil {
		// A back end's error (RuleSQL) is over the part of the query
		// the database cannot take; say which database (in a copy: the
		// request's checked query keeps its own list).
		diags = slices.Clone(diags)
		for i, d := range diags {
			if d.Rule == croql.RuleSQL {
				diags[i].Message = fmt.Sprintf("the query cannot run on this server's %s database: %s", p.Dialect().Name(), d.Message)
			}
		}
		return nil, nil, nil, croqlError(src, diags)
	}
	return []string{"(" + c.Where + ")"}, c.Args, c.Count, nil
}
