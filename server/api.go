package server

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/croql/croql"
	"github.com/croql/croql/schema"
)

// The endpoints beside the four CroQL lists: single objects, the
// project's files and labels, the TM and glossary objects, and the
// translations list in the platform's shape (one object per string).

func (s *Server) apiRoutes() {
	s.Handle("GET /api/v2/projects/{projectId}/strings/{stringId}", s.api(s.getOne(croql.Strings, "stringId", "String")))
	s.Handle("GET /api/v2/tms/{tmId}/segments/{segmentId}", s.api(s.getOne(croql.TM, "segmentId", "Segment")))
	s.Handle("GET /api/v2/glossaries/{glossaryId}/terms/{termId}", s.api(s.getOne(croql.Glossary, "termId", "Term")))
	s.Handle("GET /api/v2/tms", s.api(s.listOwned(croql.TM)))
	s.Handle("GET /api/v2/tms/{tmId}", s.api(s.getOwned(croql.TM)))
	s.Handle("GET /api/v2/glossaries", s.api(s.listOwned(croql.Glossary)))
	s.Handle("GET /api/v2/glossaries/{glossaryId}", s.api(s.getOwned(croql.Glossary)))
	s.Handle("GET /api/v2/projects/{projectId}/files/{fileId}", s.api(s.getByID("fileId", "File", s.files)))
	s.Handle("GET /api/v2/projects/{projectId}/labels/{labelId}", s.api(s.getByID("labelId", "Label", s.labels)))
	s.Handle("GET /api/v2/projects/{projectId}/languages/progress", s.api(s.projectProgress))
	s.Handle("GET /api/v2/projects/{projectId}/languages/{languageId}/progress", s.api(s.languageProgress))
	s.Handle("GET /api/v2/projects/{projectId}/files/{fileId}/languages/progress", s.api(s.fileProgress))
	s.readRoutes()
}

// getOne serves the single object of a list endpoint by its id.
func (s *Server) getOne(ctxName, idParam, what string) func(*http.Request) (any, *httpError) {
	return func(r *http.Request) (any, *httpError) {
		var p *Project
		var e *httpError
		switch ctxName {
		case croql.Strings:
			p, e = s.project(r, "projectId", "Project")
		case croql.TM:
			p, e = s.project(r, "tmId", "Translation Memory")
		case croql.Glossary:
			p, e = s.project(r, "glossaryId", "Glossary")
		}
		if e != nil {
			return nil, e
		}
		if e := only(r, "denormalizePlaceholders"); e != nil {
			return nil, e
		}
		id, ok := pathID(r, idParam)
		if !ok {
			return nil, notFound(what)
		}
		res, err := s.resource(p.Dialect(), ctxName)
		if err != nil {
			return nil, s.internal(r, err)
		}
		where := []string{res.key + " = " + p.Dialect().Param(1, schema.Int)}
		ctx, cancel := context.WithTimeout(r.Context(), s.cfg.Timeout)
		defer cancel()
		var page []any
		err = s.cfg.Storage.ReadTx(ctx, p, func(tx *sql.Tx) error {
			var err error
			page, err = s.page(ctx, tx, p, res, where, []any{id}, listParams{limit: 1})
			return err
		})
		if err != nil {
			return nil, s.dbError(r, ctx, "", err)
		}
		if len(page) == 0 {
			return nil, notFound(what)
		}
		return page[0], nil
	}
}

// scalar runs a query of one integer (a COUNT(*)).
func (s *Server) scalar(ctx context.Context, p *Project, q string, args ...any) (int64, error) {
	var n int64
	err := s.cfg.Storage.ReadTx(ctx, p, func(tx *sql.Tx) error {
		return tx.QueryRowContext(ctx, q, args...).Scan(&n)
	})
	return n, err
}

// owned is the TM or glossary object of project p.
func (s *Server) owned(ctx context.Context, p *Project, ctxName string) (map[string]any, error) {
	res, err := s.resource(p.Dialect(), ctxName)
	if err != nil {
		return nil, err
	}
	n, err := s.scalar(ctx, p, "SELECT COUNT(*) FROM "+res.table)
	if err != nil {
		return nil, err
	}
	if ctxName == croql.TM {
		return tmShape(p, n), nil
	}
	var langs []string
	langCol := res.sqlOf("languageId")
	err = s.cfg.Storage.ReadTx(ctx, p, func(tx *sql.Tx) error {
		rows, err := tx.QueryContext(ctx, "SELECT DISTINCT "+langCol+" FROM "+res.table+" ORDER BY 1")
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var l string
			if err := rows.Scan(&l); err != nil {
				return err
			}
			langs = append(langs, l)
		}
		return rows.Err()
	})
	if err != nil {
		return nil, err
	}
	return glossaryShape(p, n, langs), nil
}

func (s *Server) getOwned(ctxName string) func(*http.Request) (any, *httpError) {
	return func(r *http.Request) (any, *httpError) {
		param, what := "tmId", "Translation Memory"
		if ctxName == croql.Glossary {
			param, what = "glossaryId", "Glossary"
		}
		p, e := s.project(r, param, what)
		if e != nil {
			return nil, e
		}
		ctx, cancel := context.WithTimeout(r.Context(), s.cfg.Timeout)
		defer cancel()
		o, err := s.owned(ctx, p, ctxName)
		if err != nil {
			return nil, s.dbError(r, ctx, "", err)
		}
		return item{o}, nil
	}
}

// listOwned lists the TMs or glossaries of the readable projects (one
// each), with the platform's parameters: groupId (every TM and glossary
// is in the root group, 0), userId (the owner: croql serve's have none,
// userId 0) and orderBy.
func (s *Server) listOwned(ctxName string) func(*http.Request) (any, *httpError) {
	return func(r *http.Request) (any, *httpError) {
		params, e := s.params(r, orderRes("id", "name", "userId", "languageId", "createdAt"), false)
		if e != nil {
			return nil, e
		}
		if params.croql != "" {
			return nil, invalid("croql", "notSupported", "this list takes no croql")
		}
		ctx, cancel := context.WithTimeout(r.Context(), s.cfg.Timeout)
		defer cancel()
		g, _ := GrantOf(r)
		var all []map[string]any
		for _, p := range s.cfg.Storage.Projects() {
			if !g.Reads(p.ID) {
				continue
			}
			o, err := s.owned(ctx, p, ctxName)
			if err != nil {
				return nil, s.dbError(r, ctx, "", err)
			}
			all = append(all, o)
		}
		q := r.URL.Query()
		for _, k := range []string{"groupId", "userId"} {
			vs, ok := q[k]
			if !ok {
				continue
			}
			n, ok := digits(vs[0])
			if !ok || len(vs) > 1 {
				return nil, invalid(k, "notDigits", k+" must be an integer")
			}
			all = slices.DeleteFunc(all, func(o map[string]any) bool {
				if k == "groupId" {
					return n != 0
				}
				return o["userId"] != int(n)
			})
		}
		sortObjects(all, params.orderBy, "id")
		return pageOf(all, params), nil
	}
}

// orderRes is a description that only names the fields orderBy may take
// on a list sorted in Go.
func orderRes(names ...string) *resource {
	r := &resource{}
	for _, n := range names {
		r.cols = append(r.cols, column{json: n, orderable: true})
	}
	return r
}

// compareValues orders two JSON values of one field: null first, then
// numbers, strings and booleans by value.
func compareValues(a, b any) int {
	if a == nil || b == nil {
		return cmpBool(a != nil, b != nil)
	}
	switch x := a.(type) {
	case int64:
		y, _ := b.(int64)
		return cmp.Compare(x, y)
	case int:
		y, _ := b.(int)
		return cmp.Compare(x, y)
	case string:
		y, _ := b.(string)
		return strings.Compare(x, y)
	case bool:
		y, _ := b.(bool)
		return cmpBool(x, y)
	}
	return 0
}

// cmpBool orders false before true.
func cmpBool(x, y bool) int {
	switch {
	case x == y:
		return 0
	case !x:
		return -1
	}
	return 1
}

// sortObjects sorts objs by the orderBy terms, then by key ascending.
func sortObjects(objs []map[string]any, terms []orderTerm, key string) {
	slices.SortStableFunc(objs, func(a, b map[string]any) int {
		for _, t := range terms {
			c := compareValues(a[t.col.json], b[t.col.json])
			if t.desc {
				c = -c
			}
			if c != 0 {
				return c
			}
		}
		return compareValues(a[key], b[key])
	})
}

// pageOf pages objs (already sorted) as a list answer: from offset, or
// after the object whose key field is afterId (keyset paging, where objs
// are in key order).
func pageOf(objs []map[string]any, params listParams) listResponse {
	page := []any{}
	start := params.offset
	if params.keyset {
		start = int64(len(objs))
		for i, o := range objs {
			if id, ok := o[params.keyField].(int64); ok && id > params.afterID {
				start = int64(i)
				break
			}
		}
	}
	for i := start; i < int64(len(objs)) && i < start+params.limit; i++ {
		page = append(page, item{objs[i]})
	}
	return listBody(page, params, int64(len(objs)))
}

// files reads the project's files in the platform's File shape: a file's
// branch is its strings' branch, its dates their earliest added and
// latest updated date.
func (s *Server) files(ctx context.Context, p *Project) ([]map[string]any, error) {
	d := p.Dialect()
	t, err := s.tables(d)
	if err != nil {
		return nil, err
	}
	q := func(c string) string { return "f." + d.Quote(c) }
	sq := func(c string) string { return "s." + d.Quote(c) }
	sub := func(expr string) string {
		return "(SELECT " + expr + " FROM " + d.Quote(t.Str.Table()) + " AS s WHERE " + sq(t.StrFile) + " = " + q(t.File.Key()) + ")"
	}
	query := "SELECT " + strings.Join([]string{q(t.File.Key()), q(t.FileName), q(t.FileTitle), q(t.FileType), q(t.FileContext),
		sub("MIN(" + sq(t.StrBranch) + ")"), sub("MIN(" + sq(t.StrAdded) + ")"),
		sub("MAX(COALESCE(" + sq(t.StrUpdated) + ", " + sq(t.StrAdded) + "))")}, ", ") +
		" FROM " + d.Quote(t.File.Table()) + " AS f ORDER BY " + q(t.File.Key())
	cols := []column{{json: "id", kind: kInt}, {json: "name", kind: kString}, {json: "title", kind: kString, nullable: true},
		{json: "type", kind: kString}, {json: "context", kind: kString}, {json: "branchId", kind: kInt, nullable: true},
		{json: "createdAt", kind: kTime, nullable: true}, {json: "updatedAt", kind: kTime, nullable: true}}
	var out []map[string]any
	err = s.cfg.Storage.ReadTx(ctx, p, func(tx *sql.Tx) error {
		var err error
		out, err = scanObjects(ctx, tx, query, cols)
		return err
	})
	for _, o := range out {
		fileShape(p, o)
	}
	return out, err
}

// scanObjects runs query and writes each row by cols.
func scanObjects(ctx context.Context, tx *sql.Tx, query string, cols []column, args ...any) ([]map[string]any, error) {
	rows, err := tx.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("server: query: %w", err)
	}
	defer rows.Close()
	vals := make([]any, len(cols))
	ptrs := make([]any, len(vals))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	var out []map[string]any
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return nil, fmt.Errorf("server: reading rows: %w", err)
		}
		out = append(out, rowObject(cols, vals, 4))
	}
	return out, rows.Err()
}

// FileObject is the platform's File object of file id of project p, nil
// when there is no such file (for the upload routes, which answer it).
func (s *Server) FileObject(ctx context.Context, p *Project, id int64) (map[string]any, error) {
	ctx, cancel := context.WithTimeout(ctx, s.cfg.Timeout)
	defer cancel()
	all, err := s.files(ctx, p)
	if err != nil {
		return nil, err
	}
	for _, o := range all {
		if o["id"] == id {
			return o, nil
		}
	}
	return nil, nil
}

// labels reads the project's labels.
func (s *Server) labels(ctx context.Context, p *Project) ([]map[string]any, error) {
	d := p.Dialect()
	t, err := s.tables(d)
	if err != nil {
		return nil, err
	}
	key := d.Quote(t.Label.Key())
	query := "SELECT " + key + ", " + d.Quote(t.LabelTitle) + ", " + d.Quote(t.LabelSystem) + " FROM " + d.Quote(t.Label.Table()) + " ORDER BY " + key
	cols := []column{{json: "id", kind: kInt}, {json: "title", kind: kString}, {json: "isSystem", kind: kBool}}
	var out []map[string]any
	err = s.cfg.Storage.ReadTx(ctx, p, func(tx *sql.Tx) error {
		var err error
		out, err = scanObjects(ctx, tx, query, cols)
		return err
	})
	return out, err
}

// getByID serves the object of id path value param (a 404 naming what
// when there is none) among the objects read returns.
func (s *Server) getByID(param, what string, read func(context.Context, *Project) ([]map[string]any, error)) func(*http.Request) (any, *httpError) {
	return func(r *http.Request) (any, *httpError) {
		p, e := s.project(r, "projectId", "Project")
		if e != nil {
			return nil, e
		}
		id, ok := pathID(r, param)
		if !ok {
			return nil, notFound(what)
		}
		ctx, cancel := context.WithTimeout(r.Context(), s.cfg.Timeout)
		defer cancel()
		all, err := read(ctx, p)
		if err != nil {
			return nil, s.internal(r, err)
		}
		for _, o := range all {
			if o["id"] == id {
				return item{o}, nil
			}
		}
		return nil, notFound(what)
	}
}
