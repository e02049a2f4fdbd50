package server

import (
	"cmp"
	"context"
	"net/http"
	"slices"
	"strings"

	"github.com/croql/croql/mapping"
	"github.com/croql/croql/schema"
)

// Comments, members, directories, branches and glossary concepts.

// planComments is GET /projects/{projectId}/comments with the platform's
// stringId, type (comment or issue), issueStatus and orderBy; croql's
// data keeps neither a comment's language nor its issue type, so
// targetLanguageId and issueType are a 400.
func (s *Server) planComments(req *listRequest) (plan, *httpError) {
	if e := refuseParams(req, map[string]string{
		"targetLanguageId": "the data keeps no comment's language",
		"issueType":        "the data keeps no issue's type",
	}, "targetLanguageId", "issueType"); e != nil {
		return nil, e
	}
	sid, _, e := idParam(req, "stringId")
	if e != nil {
		return nil, e
	}
	typ, status := req.params.query.Get("type"), req.params.query.Get("issueStatus")
	if typ != "" && typ != "comment" && typ != "issue" {
		return nil, invalid("type", "notInArray", "type must be comment or issue")
	}
	if status != "" && status != "resolved" && status != "unresolved" {
		return nil, invalid("issueStatus", "notInArray", "issueStatus must be resolved or unresolved")
	}
	return pagedPlan{noIDs: true, rq: func(p *Project) (*rowsQuery, error) { return s.comments(p, sid, typ, status) }}, nil
}

// comments is the statement of the project's comments (of string sid
// when it is not 0; of type typ and issue status status when they are
// not "") in the platform's StringComment shape.
func (s *Server) comments(p *Project, sid int64, typ, status string) (*rowsQuery, error) {
	d := p.Dialect()
	t, err := s.tables(d)
	if err != nil {
		return nil, err
	}
	r := t.R
	c := func(col string) string { return "c." + d.Quote(col) }
	st := func(col string) string { return "s." + d.Quote(col) }
	fk := r.Comment.OwnerColumn()
	q := &query{d: d}
	if sid > 0 {
		q.where = append(q.where, c(fk)+" = "+q.arg(sid, schema.Int))
	}
	// An unresolved issue is an issue; a comment is not.
	switch {
	case typ != "":
		q.where = append(q.where, c(r.CommentIssue)+" = "+d.Bool(typ == "issue"))
	case status != "":
		q.where = append(q.where, c(r.CommentIssue)+" = "+d.Bool(true))
	}
	if status != "" {
		q.where = append(q.where, c(r.CommentUnresolved)+" = "+d.Bool(status == "unresolved"))
	}
	return &rowsQuery{
		sel: strings.Join([]string{c(fk), c(r.CommentUser), c(r.CommentIssue), c(r.CommentUnresolved),
			st(t.StrText), st(r.StrType), st(r.StrContext), st(t.StrFile), c(r.CommentID), c(r.CommentText), c(r.CommentAdded)}, ", "),
		from:  " FROM " + d.Quote(r.Comment.Table()) + " AS c JOIN " + d.Quote(t.Str.Table()) + " AS s ON " + st(t.Str.Key()) + " = " + c(fk),
		order: c(fk) + ", " + c(mapping.OrdinalColumn), q: q, seek: c(fk),
		cols: []column{{json: "stringId", kind: kInt}, {json: "userId", kind: kInt}, {json: "issue", kind: kBool},
			{json: "unresolved", kind: kBool}, {json: "text", kind: kString}, {json: "type", kind: kString},
			{json: "context", kind: kString}, {json: "fileId", kind: kInt, nullable: true},
			{json: "id", kind: kInt}, {json: "commentText", kind: kString},
			{json: "createdAt", kind: kTime, nullable: true}},
		shape: func(o map[string]any) { commentShape(p, o) },
		ints:  map[string]intCol{"stringId": {sql: c(fk)}, "id": {sql: c(r.CommentID), nullable: true}},
	}, nil
}

// commentShape completes a comment row into the platform's StringComment:
// what croql's data does not keep of a comment (its language, issue type
// and resolver) is "" or null.
func commentShape(p *Project, o map[string]any) {
	typ, _ := o["type"].(string)
	o["string"] = map[string]any{"id": o["stringId"], "text": o["text"], "type": apiStringType(typ), "hasPlurals": typ == "plural",
		"isIcu": typ == "icu", "context": o["context"], "fileId": o["fileId"]}
	issue, unresolved := o["issue"] == true, o["unresolved"] == true
	o["type"], o["issueType"], o["issueStatus"] = "comment", nil, nil
	if issue {
		o["type"], o["issueStatus"] = "issue", "resolved"
		if unresolved {
			o["issueStatus"] = "unresolved"
		}
	}
	for _, k := range []string{"issue", "unresolved", "context", "fileId"} {
		delete(o, k)
	}
	o["text"] = o["commentText"]
	delete(o, "commentText")
	o["isShared"], o["projectId"], o["languageId"] = false, p.ID, ""
	o["user"] = userShape(p, o["userId"].(int64))
	o["resolverId"], o["resolver"], o["resolvedAt"] = nil, nil, nil
	o["senderOrganization"], o["resolverOrganization"], o["attachments"] = nil, nil, []any{}
}

// planMembers is GET /projects/{projectId}/members: the users of the
// project's data, with search (a substring of the login, any case) and
// role all; croql's data keeps no roles, language permissions or
// workflow steps, so another role, languageId and workflowStepId are a
// 400.
func (s *Server) planMembers(req *listRequest) (plan, *httpError) {
	if e := refuseParams(req, map[string]string{
		"languageId":     "the data keeps no member's language permissions",
		"workflowStepId": "the data has no workflow steps",
	}, "languageId", "workflowStepId"); e != nil {
		return nil, e
	}
	if role, ok := req.params.query["role"]; ok && role[0] != "all" {
		return nil, invalid("role", "notSupported", "role is not supported by croql serve beside all: the data keeps no member's role")
	}
	search := strings.ToLower(req.params.query.Get("search"))
	return objectsPlan{read: s.members, keep: func(o map[string]any) bool {
		return search == "" || strings.Contains(strings.ToLower(o["username"].(string)), search)
	}}, nil
}

// members are the project's users in the platform's ProjectMember shape.
func (s *Server) members(_ context.Context, p *Project) ([]map[string]any, error) {
	out := make([]map[string]any, 0, len(p.Logins))
	for id, login := range p.Logins {
		out = append(out, map[string]any{"id": id, "username": login, "fullName": login, "avatarUrl": "", "role": "",
			"permissions": map[string]any{}, "roles": []any{}, "joinedAt": nil, "timezone": ""})
	}
	slices.SortFunc(out, func(a, b map[string]any) int { return cmp.Compare(a["id"].(int64), b["id"].(int64)) })
	return out, nil
}

// planDirectories is GET /projects/{projectId}/directories: croql's data
// has no directories, so every list is empty (its parameters checked).
func (s *Server) planDirectories(req *listRequest) (plan, *httpError) {
	for _, k := range []string{"branchId", "directoryId"} {
		if _, _, e := idParam(req, k); e != nil {
			return nil, e
		}
	}
	return objectsPlan{read: noObjects}, nil
}

// planBranches is GET /projects/{projectId}/branches with name (the
// branch of that name) and orderBy.
func (s *Server) planBranches(req *listRequest) (plan, *httpError) {
	name := req.params.query.Get("name")
	return pagedPlan{rq: func(p *Project) (*rowsQuery, error) { return s.branchRows(p, name) }}, nil
}

// branches reads the project's branches (for getByID).
func (s *Server) branches(ctx context.Context, p *Project) ([]map[string]any, error) {
	return s.allRows(func(p *Project) (*rowsQuery, error) { return s.branchRows(p, "") })(ctx, p)
}

// branchRows is the statement of the project's branches (the one named
// name when it is not "") in the platform's Branch shape: a branch's
// dates are its strings' earliest added and latest updated.
func (s *Server) branchRows(p *Project, name string) (*rowsQuery, error) {
	d := p.Dialect()
	t, err := s.tables(d)
	if err != nil {
		return nil, err
	}
	r := t.R
	b := func(c string) string { return "b." + d.Quote(c) }
	sq := func(c string) string { return "s." + d.Quote(c) }
	sub := func(expr string) string {
		return "(SELECT " + expr + " FROM " + d.Quote(t.Str.Table()) + " AS s WHERE " + sq(t.StrBranch) + " = " + b(r.Branch.Key()) + ")"
	}
	q := &query{d: d}
	if name != "" {
		q.where = append(q.where, b(r.BranchName)+" = "+q.arg(name, schema.String))
	}
	return &rowsQuery{
		sel: strings.Join([]string{b(r.Branch.Key()), b(r.BranchName), b(r.BranchTitle), sub("MIN(" + sq(t.StrAdded) + ")"),
			sub("MAX(COALESCE(" + sq(t.StrUpdated) + ", " + sq(t.StrAdded) + "))")}, ", "),
		from: " FROM " + d.Quote(r.Branch.Table()) + " AS b", order: b(r.Branch.Key()), q: q,
		cols: []column{{json: "id", kind: kInt}, {json: "name", kind: kString}, {json: "title", kind: kString, nullable: true},
			{json: "createdAt", kind: kTime, nullable: true}, {json: "updatedAt", kind: kTime, nullable: true}},
		shape: func(o map[string]any) { o["projectId"], o["exportPattern"], o["priority"] = p.ID, "", "normal" },
		ints:  map[string]intCol{"id": {sql: b(r.Branch.Key())}},
	}, nil
}

// planConcepts is GET /glossaries/{glossaryId}/concepts with orderBy.
func (s *Server) planConcepts(*listRequest) (plan, *httpError) {
	return pagedPlan{rq: func(p *Project) (*rowsQuery, error) { return s.concepts(p, 0) }}, nil
}

// getConcept is GET /glossaries/{glossaryId}/concepts/{conceptId}.
func (s *Server) getConcept(r *http.Request) (any, *httpError) {
	p, id, e := s.getParam(r, "glossaryId", "Glossary", "conceptId", "Concept")
	if e != nil {
		return nil, e
	}
	ctx, cancel := context.WithTimeout(r.Context(), s.cfg.Timeout)
	defer cancel()
	objs, err := s.allRows(func(p *Project) (*rowsQuery, error) { return s.concepts(p, id) })(ctx, p)
	if err != nil {
		return nil, s.dbError(r, ctx, "", err)
	}
	if len(objs) == 0 {
		return nil, notFound("Concept")
	}
	return item{objs[0]}, nil
}

// concepts is the statement of the glossary's concepts (concept id alone
// when it is not 0) in the platform's Concept shape.
func (s *Server) concepts(p *Project, id int64) (*rowsQuery, error) {
	d := p.Dialect()
	t, err := s.tables(d)
	if err != nil {
		return nil, err
	}
	r := t.R
	key := d.Quote(r.Concept.Key())
	sel := []string{key}
	cols := []column{{json: "id", kind: kInt}}
	for _, c := range r.ConceptCols {
		sel = append(sel, d.Quote(c.sql))
		cols = append(cols, c)
	}
	q := &query{d: d}
	if id > 0 {
		q.where = append(q.where, key+" = "+q.arg(id, schema.Int))
	}
	return &rowsQuery{sel: strings.Join(sel, ", "), from: " FROM " + d.Quote(r.Concept.Table()), order: key, q: q, cols: cols,
		shape: func(o map[string]any) { o["glossaryId"], o["figure"], o["languagesDetails"] = p.ID, nil, []any{} },
		ints:  map[string]intCol{"id": {sql: key}}}, nil
}
