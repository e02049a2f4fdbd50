package server

import (
	"context"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/croql/croql"
	"github.com/croql/croql/compile"
	"github.com/croql/croql/store"
)

// The list pipeline: every list endpoint (strings, translations, TM
// segments, glossary terms, files, labels) answers a request in the same
// steps, each once:
//
//	readList   the project (and language) resolved, the parameters read
//	           from the query string or the POST body (read once)
//	admitList  the query's cost estimated (the request's one check of its
//	           croql, kept in its context), a place taken in a lane
//	plan       one strategy chosen before anything runs: the resident
//	           snapshot, SQL, SQL of the coordinator's keys on a sharded
//	           engine, or the objects read whole and paged in Go
//	run        the strategy reads the page and renders it from the
//	           resource (the mapping's columns)
//
// and writes the page within the byte budget (writeBody).

// endpoint is one list endpoint of the pipeline.
type endpoint struct {
	path string
	// context is the croql context of the list; empty for a list that
	// takes no croql (files, labels), which admission does not price.
	context string
	// param and what are the path id and the noun of its 404.
	param, what string
	// lang: the path has a languageId of the project (translations).
	lang bool
	// order is what orderBy may name (the resource's columns when nil).
	order *resource
	// noCroql is the 400 of a croql parameter given to a list without one.
	noCroql string
	// plan chooses how the request is answered.
	plan func(*Server, *listRequest) (plan, *httpError)
}

// plan is how one list request is answered, chosen before it runs.
type plan interface {
	run(s *Server, req *listRequest) (any, *httpError)
}

// listRequest is one list request, its parameters read and its project
// resolved.
type listRequest struct {
	r      *http.Request
	ep     *endpoint
	p      *Project
	lang   string
	res    *resource // nil for a list without croql
	params listParams
	// flt are the platform's filter parameters, read once (filters).
	flt     listFilters
	fltRead bool
	fltErr  *httpError
	// co, when set, is the coordinator's answer to the croql on a sharded
	// engine: the query's matches as keys, in place of its condition.
	co *coordinatedWhere
	// admission is the lane the request took (admitList).
	admission admission
}

// endpoints are the lists of the pipeline.
func endpoints() []*endpoint {
	return append([]*endpoint{
		{path: "/api/v2/projects/{projectId}/strings", context: croql.Strings, param: "projectId", what: "Project", plan: (*Server).planRows},
		{path: "/api/v2/projects/{projectId}/languages/{languageId}/translations", context: croql.Translations,
			param: "projectId", what: "Project", lang: true, order: orderRes("stringId", "translationId", "text", "createdAt"),
			plan: func(s *Server, req *listRequest) (plan, *httpError) {
				return s.planTranslations(req, isSharded(req.p.Dialect()))
			}},
		{path: "/api/v2/tms/{tmId}/segments", context: croql.TM, param: "tmId", what: "Translation Memory", plan: (*Server).planRows},
		{path: "/api/v2/glossaries/{glossaryId}/terms", context: croql.Glossary, param: "glossaryId", what: "Glossary", plan: (*Server).planRows},
		{path: "/api/v2/projects/{projectId}/files", param: "projectId", what: "Project", noCroql: "the files list takes no croql",
			order: orderRes("id", "name", "title", "type", "context", "branchId", "createdAt", "updatedAt", "path", "status", "priority"),
			plan:  (*Server).planFiles},
		{path: "/api/v2/projects/{projectId}/labels", param: "projectId", what: "Project", noCroql: "the labels list takes no croql",
			order: orderRes("id", "title", "isSystem"), plan: (*Server).planLabels},
	}, readEndpoints()...)
}

// listRoutes adds the routes of the list pipeline: GET of each list, and
// POST …/query of the lists that take croql.
func (s *Server) listRoutes() {
	for _, ep := range endpoints() {
		s.Handle("GET "+ep.path, s.listRoute(ep, false))
		if ep.context != "" {
			s.Handle("POST "+ep.path+"/query", s.listRoute(ep, true))
		}
	}
}

// listRoute serves one list endpoint (body: POST …/query).
func (s *Server) listRoute(ep *endpoint, body bool) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// The query checked for the estimate is the plan's.
		r = r.WithContext(withQueries(r.Context()))
		req, e := s.readList(r, ep, body)
		if e != nil {
			writeError(w, e)
			return
		}
		release, e := s.admitList(req)
		if req.admission.lane != "" {
			w.Header().Set("Server-Timing", req.admission.serverTiming())
		}
		if e != nil {
			writeError(w, e)
			return
		}
		var once sync.Once
		done := func() { once.Do(release) }
		defer done()
		out, e := s.answer(req)
		if e != nil {
			writeError(w, e)
			return
		}
		status, doc := s.encodeBody(out)
		// The lane bounds the work of answers, not the clients' reading:
		// its place is given back before the answer is written, so a
		// client that stops reading holds none (Config.WriteTimeout then
		// closes its connection).
		done()
		doc.write(w, status)
	})
}

// readList resolves the request's project (and language) and reads its
// parameters.
func (s *Server) readList(r *http.Request, ep *endpoint, body bool) (*listRequest, *httpError) {
	p, e := s.project(r, ep.param, ep.what)
	if e != nil {
		return nil, e
	}
	req := &listRequest{r: r, ep: ep, p: p}
	if ep.lang {
		req.lang = r.PathValue("languageId")
		if !p.HasLanguage(req.lang) || p.Dialect().CheckString(req.lang) != nil {
			return nil, notFound("Language")
		}
	}
	order := ep.order
	if ep.context != "" {
		res, err := s.resource(p.Dialect(), ep.context)
		if err != nil {
			return nil, s.internal(r, err)
		}
		req.res = res
		if order == nil {
			order = res
		}
	}
	if req.params, e = s.params(r, order, body); e != nil {
		return nil, e
	}
	if ep.noCroql != "" && req.params.croql != "" {
		return nil, invalid("croql", "notSupported", ep.noCroql)
	}
	return req, nil
}

// answer runs the request's plan. When a sharded engine refuses a
// statement the compiler wrote for it (a form its planner does not run),
// the plan is chosen again with the coordinator's keys in the query's
// place: the parameters, the project and the check stay the request's.
func (s *Server) answer(req *listRequest) (any, *httpError) {
	pl, e := req.ep.plan(s, req)
	if e != nil {
		return nil, e
	}
	out, e := pl.run(s, req)
	if e == nil || !e.refused || req.co != nil {
		return out, e
	}
	if e := s.coordinate(req); e != nil {
		return nil, e
	}
	if pl, e = req.ep.plan(s, req); e != nil {
		return nil, e
	}
	return pl.run(s, req)
}

// filters are the request's platform filter parameters, read once.
func (req *listRequest) filters() (listFilters, *httpError) {
	if !req.fltRead {
		req.fltRead = true
		req.flt, req.fltErr = filters(req.p, req.ep.context, req.params.query, strings.TrimSpace(req.params.croql) != "")
	}
	return req.flt, req.fltErr
}

// timeout is the context of the request's database work.
func (s *Server) timeout(req *listRequest) (context.Context, context.CancelFunc) {
	return context.WithTimeout(req.r.Context(), s.cfg.Timeout)
}

// dbErrorOn is dbError for a list request: a sharded engine refusing the
// statement of a query is marked refused (answer then lets the
// coordinator answer), unless the coordinator answers the request
// already.
func (s *Server) dbErrorOn(req *listRequest, ctx context.Context, err error) *httpError {
	src := req.params.croql
	if src != "" && req.co == nil && store.Refused(req.p.Dialect(), err) {
		return &httpError{status: http.StatusInternalServerError, message: "Internal Server Error", refused: true}
	}
	return s.dbError(req.r, ctx, src, err)
}

// objectsPlan is the strategy of the lists that read their objects whole
// (files, labels): read, keep what the parameters select, order, page.
type objectsPlan struct {
	read func(context.Context, *Project) ([]map[string]any, error)
	keep func(map[string]any) bool
}

func (pl objectsPlan) run(s *Server, req *listRequest) (any, *httpError) {
	ctx, cancel := s.timeout(req)
	defer cancel()
	all, err := pl.read(ctx, req.p)
	if err != nil {
		return nil, s.dbError(req.r, ctx, "", err)
	}
	if pl.keep != nil {
		all = slices.DeleteFunc(all, func(o map[string]any) bool { return !pl.keep(o) })
	}
	sortObjects(all, req.params.orderBy, "id")
	return pageOf(all, req.params), nil
}

// planFiles is GET /projects/{projectId}/files with the platform's
// parameters: branchId, filter (a substring of the name, as croql's
// contains), orderBy; directoryId is a 400 (the data has no
// directories), recursion applies to directoryId only.
func (s *Server) planFiles(req *listRequest) (plan, *httpError) {
	q := req.params.query
	if _, ok := q["directoryId"]; ok {
		return nil, invalid("directoryId", "notSupported", "directoryId is not supported by croql serve: the data has no directories")
	}
	branch, hasBranch := int64(0), false
	if v, ok := q["branchId"]; ok {
		n, ok := digits(v[0])
		if !ok || len(v) > 1 {
			return nil, invalid("branchId", "notDigits", "branchId must be an integer")
		}
		branch, hasBranch = n, true
	}
	filter := q.Get("filter")
	return objectsPlan{read: s.files, keep: func(o map[string]any) bool {
		if hasBranch && o["branchId"] != branch {
			return false
		}
		return filter == "" || strings.Contains(o["name"].(string), filter)
	}}, nil
}

// planLabels is GET /projects/{projectId}/labels with isSystem (0 or 1).
func (s *Server) planLabels(req *listRequest) (plan, *httpError) {
	vs, ok := req.params.query["isSystem"]
	if !ok {
		return objectsPlan{read: s.labels}, nil
	}
	if v := vs[0]; v != "0" && v != "1" {
		return nil, invalid("isSystem", "notInArray", "isSystem must be 0 or 1")
	}
	want := vs[0] == "1"
	return objectsPlan{read: s.labels, keep: func(o map[string]any) bool { return o["isSystem"] == want }}, nil
}

// project resolves a path id the request's token may read. A project the
// token may not read is 404, as one that does not exist (docs/serve.md:
// ids cannot be probed).
func (s *Server) project(r *http.Request, param, what string) (*Project, *httpError) {
	raw := r.PathValue(param)
	id, err := strconv.ParseInt(raw, 10, 64)
	if err != nil || id <= 0 || strconv.FormatInt(id, 10) != raw {
		return nil, notFound(what)
	}
	g, _ := GrantOf(r)
	p, ok := s.cfg.Storage.Project(id)
	if !ok || !g.Reads(id) {
		return nil, notFound(what)
	}
	return p, nil
}

// rowsWhere is the condition of a list request compiled for purpose: the
// page's in the forms an engine stops early on, the total's in the forms
// fastest over every match. It is the croql parameter's, checked once for
// the request (checkQuery) and compiled for the project's dialect (a
// blank query lists every object), then the filter parameters'. On a
// sharded engine, a form the compiler will not send there is answered by
// the coordinator, decided here before any statement runs; so is every
// form once the engine has refused one (answer).
func (s *Server) rowsWhere(req *listRequest, purpose compile.Purpose) ([]string, []any, *httpError) {
	where, args, e := s.croqlWhere(req, purpose)
	if e != nil {
		return nil, nil, e
	}
	return s.withParams(req, where, args, purpose)
}

// withParams is where (with args), the croql's condition, and the filter
// parameters' conditions compiled for purpose.
func (s *Server) withParams(req *listRequest, where []string, args []any, purpose compile.Purpose) ([]string, []any, *httpError) {
	flt, e := req.filters()
	if e != nil {
		return nil, nil, e
	}
	extra, extraArgs, e := s.compileParams(req.p, req.ep.context, flt.root, len(args), purpose)
	if e != nil {
		return nil, nil, e
	}
	return append(where, extra...), append(args, extraArgs...), nil
}
