package server

import (
	"context"
	"database/sql"
	"errors"
	"net/http"
	"strings"

	"github.com/croql/croql"
	"github.com/croql/croql/compile"
	"github.com/croql/croql/mapping"
	"github.com/croql/croql/schema"
	"github.com/croql/croql/store"
)

// The project's other data, read as the platform's lists without croql
// (string translations of one string, approvals, votes, comments,
// members, directories, branches, glossary concepts): each a list of the
// pipeline (readEndpoints) whose plan reads the objects its parameters
// select, then orders and pages them, and a single-object GET beside it.
// The statements name tables and columns through the mapping (readTables).

// readTables are the tables of these lists beside Tables.
type readTables struct {
	Comment *store.Rows[schema.Comment]
	Vote    *store.Rows[schema.Vote]
	Appr    *store.Rows[schema.Approval]
	Branch  *store.Rows[schema.Branch]
	Concept *store.Rows[schema.GlossaryConcept]

	CommentUser, CommentIssue, CommentUnresolved string
	VoteMark, VoteUser, VoteAdded                string
	ApprUser, ApprAdded                          string
	BranchName, BranchTitle                      string
	StrType, StrContext                          string
	// ConceptCols are the concept's columns by API name.
	ConceptCols []column
}

// readTablesOf finds the tables of the lists in m for dialect d.
func readTablesOf(d compile.Dialect, m *mapping.Mapping) (*readTables, error) {
	t := &readTables{}
	var errs []error
	keep := func(err error) { errs = append(errs, err) }
	col := func(c string, err error) string { keep(err); return c }
	var err error
	t.Comment, err = store.RowsOf[schema.Comment](d, m)
	keep(err)
	t.Vote, err = store.RowsOf[schema.Vote](d, m)
	keep(err)
	t.Appr, err = store.RowsOf[schema.Approval](d, m)
	keep(err)
	t.Branch, err = store.RowsOf[schema.Branch](d, m)
	keep(err)
	t.Concept, err = store.RowsOf[schema.GlossaryConcept](d, m)
	keep(err)
	str, err := store.RowsOf[schema.SourceString](d, m)
	keep(err)
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	t.CommentUser = col(t.Comment.Column(func(c *schema.Comment) any { return &c.User }))
	t.CommentIssue = col(t.Comment.Column(func(c *schema.Comment) any { return &c.HasIssue }))
	t.CommentUnresolved = col(t.Comment.Column(func(c *schema.Comment) any { return &c.HasUnresolvedIssue }))
	t.VoteMark = col(t.Vote.Column(func(v *schema.Vote) any { return &v.Mark }))
	t.VoteUser = col(t.Vote.Column(func(v *schema.Vote) any { return &v.User }))
	t.VoteAdded = col(t.Vote.Column(func(v *schema.Vote) any { return &v.Added }))
	t.ApprUser = col(t.Appr.Column(func(a *schema.Approval) any { return &a.User }))
	t.ApprAdded = col(t.Appr.Column(func(a *schema.Approval) any { return &a.Added }))
	t.BranchName = col(t.Branch.Column(func(b *schema.Branch) any { return &b.Name }))
	t.BranchTitle = col(t.Branch.Column(func(b *schema.Branch) any { return &b.Title }))
	t.StrType = col(str.Column(func(s *schema.SourceString) any { return &s.Type }))
	t.StrContext = col(str.Column(func(s *schema.SourceString) any { return &s.Context }))
	c := t.Concept
	for _, f := range []struct {
		json string
		kind kind
		null bool
		col  func(*schema.GlossaryConcept) any
	}{
		{"userId", kInt, false, func(g *schema.GlossaryConcept) any { return &g.User }},
		{"subject", kString, false, func(g *schema.GlossaryConcept) any { return &g.Subject }},
		{"definition", kString, false, func(g *schema.GlossaryConcept) any { return &g.Definition }},
		{"url", kString, false, func(g *schema.GlossaryConcept) any { return &g.URL }},
		{"note", kString, false, func(g *schema.GlossaryConcept) any { return &g.Note }},
		{"translatable", kBool, false, func(g *schema.GlossaryConcept) any { return &g.Translatable }},
		{"createdAt", kTime, false, func(g *schema.GlossaryConcept) any { return &g.CreatedAt }},
		{"updatedAt", kTime, true, func(g *schema.GlossaryConcept) any { return &g.UpdatedAt }},
	} {
		t.ConceptCols = append(t.ConceptCols, column{json: f.json, sql: col(c.Column(f.col)), kind: f.kind, nullable: f.null})
	}
	if c.OwnerColumn() != "" || t.Comment.OwnerColumn() == "" || t.Vote.OwnerColumn() == "" || t.Appr.OwnerColumn() == "" {
		keep(errors.New("server: the mapping does not keep comments by string and votes and approvals by translation"))
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return t, nil
}

// readEndpoints are the lists of the project's other data.
func readEndpoints() []*endpoint {
	proj := func(path, noun string, order *resource, plan func(*Server, *listRequest) (plan, *httpError)) *endpoint {
		return &endpoint{path: "/api/v2/projects/{projectId}/" + path, param: "projectId", what: "Project",
			noCroql: "the " + noun + " list takes no croql", order: order, plan: plan}
	}
	return []*endpoint{
		proj("translations", "string translations", orderRes("id", "text", "rating", "createdAt"), (*Server).planStringTranslations),
		proj("approvals", "approvals", orderRes("id", "createdAt", "translationId", "stringId", "languageId"), (*Server).planApprovals),
		proj("votes", "votes", orderRes("id", "votedAt", "translationId", "mark"), (*Server).planVotes),
		proj("comments", "comments", orderRes("id", "createdAt", "resolvedAt", "stringId", "type", "issueType", "issueStatus"), (*Server).planComments),
		proj("members", "members", orderRes("id", "username", "fullName", "role", "joinedAt"), (*Server).planMembers),
		proj("directories", "directories", orderRes("id", "name", "title", "path", "createdAt", "updatedAt"), (*Server).planDirectories),
		proj("branches", "branches", orderRes("id", "name", "title", "createdAt", "updatedAt"), (*Server).planBranches),
		{path: "/api/v2/glossaries/{glossaryId}/concepts", param: "glossaryId", what: "Glossary", noCroql: "the concepts list takes no croql",
			order: orderRes("id", "subject", "definition", "note", "createdAt", "updatedAt"), plan: (*Server).planConcepts},
	}
}

// readRoutes adds the single-object GETs beside the lists.
func (s *Server) readRoutes() {
	s.Handle("GET /api/v2/projects/{projectId}/translations/{translationId}", s.api(s.getStringTranslation))
	s.Handle("GET /api/v2/projects/{projectId}/members/{memberId}", s.api(s.getByID("memberId", "Member", s.members)))
	s.Handle("GET /api/v2/projects/{projectId}/directories/{directoryId}", s.api(s.getByID("directoryId", "Directory", noObjects)))
	s.Handle("GET /api/v2/projects/{projectId}/branches/{branchId}", s.api(s.getByID("branchId", "Branch", s.branches)))
	s.Handle("GET /api/v2/glossaries/{glossaryId}/concepts/{conceptId}", s.api(s.getConcept))
}

// query is a statement being written: its conditions and their bound
// arguments, numbered as the dialect numbers them.
type query struct {
	d     compile.Dialect
	where []string
	args  []any
}

// arg binds v and returns its placeholder.
func (q *query) arg(v any, k schema.Kind) string {
	q.args = append(q.args, v)
	return q.d.Param(len(q.args), k)
}

// in binds ids and returns their placeholders (an IN list's inside).
func (q *query) in(ids []int64) string {
	var ph string
	ph, q.args = compile.KeyList(q.d, q.args, ids)
	return ph
}

// sql is the statement's WHERE clause ("" without conditions).
func (q *query) sql() string { return whereClause(q.where) }

// readObjects runs stmt in a read transaction of p and writes its rows by
// cols.
func (s *Server) readObjects(ctx context.Context, p *Project, stmt string, cols []column, args []any) ([]map[string]any, error) {
	var out []map[string]any
	err := s.cfg.Storage.ReadTx(ctx, p, func(tx *sql.Tx) error {
		var err error
		out, err = scanObjects(ctx, tx, stmt, cols, args...)
		return err
	})
	return out, err
}

// noObjects reads nothing: croql's data has no directories.
func noObjects(context.Context, *Project) ([]map[string]any, error) { return nil, nil }

// idParam reads the integer query parameter name: ok is false when it is
// absent.
func idParam(req *listRequest, name string) (n int64, ok bool, e *httpError) {
	vs, ok := req.params.query[name]
	if !ok {
		return 0, false, nil
	}
	n, good := digits(vs[0])
	if !good || len(vs) > 1 {
		return 0, false, invalid(name, "notDigits", name+" must be an integer")
	}
	return n, true, nil
}

// idsParam reads a list of integers (labelIds=1,2,3).
func idsParam(req *listRequest, name string) ([]int64, *httpError) {
	vs, ok := req.params.query[name]
	if !ok {
		return nil, nil
	}
	if len(vs) > 1 {
		return nil, invalid(name, "duplicate", name+" is given more than once")
	}
	var out []int64
	for _, part := range strings.Split(vs[0], ",") {
		n, good := digits(strings.TrimSpace(part))
		if !good || len(out) >= MaxLimit {
			return nil, invalid(name, "notDigits", name+" must be up to 500 integers separated by commas")
		}
		out = append(out, n)
	}
	return out, nil
}

// refuseParams is the 400 of the first of names the request has: why
// croql serve cannot honour it.
func refuseParams(req *listRequest, why map[string]string, names ...string) *httpError {
	for _, n := range names {
		if _, ok := req.params.query[n]; ok {
			return invalid(n, "notSupported", n+" is not supported by croql serve: "+why[n])
		}
	}
	return nil
}

// stringLanguage reads the languageId query parameter: "" when absent, a
// 404 for a language the project does not translate into.
func stringLanguage(req *listRequest, name string) (string, *httpError) {
	vs, ok := req.params.query[name]
	if !ok {
		return "", nil
	}
	if len(vs) > 1 {
		return "", invalid(name, "duplicate", name+" is given more than once")
	}
	if !req.p.HasLanguage(vs[0]) || req.p.Dialect().CheckString(vs[0]) != nil {
		return "", notFound("Language")
	}
	return vs[0], nil
}

// getParam is the request's project and the integer path value param of
// a single-object GET (a 404 naming what when it is not an id).
func (s *Server) getParam(r *http.Request, projectParam, projectWhat, param, what string) (*Project, int64, *httpError) {
	p, e := s.project(r, projectParam, projectWhat)
	if e != nil {
		return nil, 0, e
	}
	id, ok := pathID(r, param)
	if !ok {
		return nil, 0, notFound(what)
	}
	return p, id, nil
}

// the translations context's resource (its columns over alias t0) and
// the tables of dialect d.
func (s *Server) trTables(d compile.Dialect) (*resource, *Tables, *readTables, error) {
	res, err := s.resource(d, croql.Translations)
	if err != nil {
		return nil, nil, nil, err
	}
	t, err := s.tables(d)
	if err != nil {
		return nil, nil, nil, err
	}
	return res, t, t.R, nil
}
