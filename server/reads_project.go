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
	return objectsPlan{
		read: func(ctx context.Context, p *Project) ([]map[string]any, error) { return s.comments(ctx, p, sid) },
		keep: func(o map[string]any) bool {
			return (typ == "" || o["type"] == typ) && (status == "" || o["issueStatus"] == status)
		},
	}, nil
}

// comments reads the comments of the project (of string sid when it is
// not 0) in the platform's StringComment shape.
func (s *Server) comments(ctx context.Context, p *Project, sid int64) ([]map[string]any, error) {
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
	stmt := "SELECT " + strings.Join([]string{c(fk), c(r.CommentUser), c(r.CommentIssue), c(r.CommentUnresolved),
		st(t.StrText), st(r.StrType), st(r.StrContext), st(t.StrFile)}, ", ") +
		" FROM " + d.Quote(r.Comment.Table()) + " AS c JOIN " + d.Quote(t.Str.Table()) + " AS s ON " + st(t.Str.Key()) + " = " + c(fk) +
		q.sql() + " ORDER BY " + c(fk) + ", " + c(mapping.OrdinalColumn)
	cols := []column{{json: "stringId", kind: kInt}, {json: "userId", kind: kInt}, {json: "issue", kind: kBool},
		{json: "unresolved", kind: kBool}, {json: "text", kind: kString}, {json: "type", kind: kString},
		{json: "context", kind: kString}, {json: "fileId", kind: kInt, nullable: true}}
	out, err := s.readObjects(ctx, p, stmt, cols, q.args)
	for _, o := range out {
		commentShape(p, o)
	}
	return out, err
}

// commentShape completes a comment row into the platform's StringComment:
// what croql's data does not keep of a comment (its id, text, language,
// date, issue type and resolver) is 0, "" or null.
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
	o["id"], o["isShared"], o["text"], o["projectId"], o["languageId"] = int64(0), false, "", p.ID, ""
	o["user"] = userShape(p, o["userId"].(int64))
	o["resolverId"], o["resolver"], o["resolvedAt"], o["createdAt"] = nil, nil, nil, nil
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
	name, ok := req.params.query["name"]
	return objectsPlan{read: s.branches, keep: func(o map[string]any) bool { return !ok || o["name"] == name[0] }}, nil
}

// branches reads the project's branches in the platform's Branch shape: a
// branch's dates are its strings' earliest added and latest updated.
func (s *Server) branches(ctx context.Context, p *Project) ([]map[string]any, error) {
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
	stmt := "SELECT " + strings.Join([]string{b(r.Branch.Key()), b(r.BranchName), b(r.BranchTitle), sub("MIN(" + sq(t.StrAdded) + ")"),
		sub("MAX(COALESCE(" + sq(t.StrUpdated) + ", " + sq(t.StrAdded) + "))")}, ", ") +
		" FROM " + d.Quote(r.Branch.Table()) + " AS b ORDER BY " + b(r.Branch.Key())
	cols := []column{{json: "id", kind: kInt}, {json: "name", kind: kString}, {json: "title", kind: kString, nullable: true},
		{json: "createdAt", kind: kTime, nullable: true}, {json: "updatedAt", kind: kTime, nullable: true}}
	out, err := s.readObjects(ctx, p, stmt, cols, nil)
	for _, o := range out {
		o["projectId"], o["exportPattern"], o["priority"] = p.ID, "", "normal"
	}
	return out, err
}

// planConcepts is GET /glossaries/{glossaryId}/concepts with orderBy.
func (s *Server) planConcepts(*listRequest) (plan, *httpError) {
	return objectsPlan{read: func(ctx context.Context, p *Project) ([]map[string]any, error) { return s.concepts(ctx, p, 0) }}, nil
}

// getConcept is GET /glossaries/{glossaryId}/concepts/{conceptId}.
func (s *Server) getConcept(r *http.Request) (any, *httpError) {
	p, id, e := s.getParam(r, "glossaryId", "Glossary", "conceptId", "Concept")
	if e != nil {
		return nil, e
	}
	ctx, cancel := context.WithTimeout(r.Context(), s.cfg.Timeout)
	defer cancel()
	objs, err := s.concepts(ctx, p, id)
	if err != nil {
		return nil, s.dbError(r, ctx, "", err)
	}
	if len(objs) == 0 {
		return nil, notFound("Concept")
	}
	return item{objs[0]}, nil
}

// concepts reads the glossary's concepts (concept id alone when it is
// not 0) in the platform's Concept shape.
func (s *Server) concepts(ctx context.Context, p *Project, id int64) ([]map[string]any, error) {
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
	stmt := "SELECT " + strings.Join(sel, ", ") + " FROM " + d.Quote(r.Concept.Table()) + q.sql() + " ORDER BY " + key
	out, err := s.readObjects(ctx, p, stmt, cols, q.args)
	for _, o := range out {
		o["glossaryId"], o["figure"], o["languagesDetails"] = p.ID, nil, []any{}
	}
	return out, err
}
