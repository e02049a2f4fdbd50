package server

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/croql/croql"
	"github.com/croql/croql/compile"
	"github.com/croql/croql/diag"
	"github.com/croql/croql/schema"
	"github.com/croql/croql/store"
)

// listParams are the parameters of a list request.
type listParams struct {
	croql     string
	limit     int64
	offset    int64
	orderBy   []orderTerm
	withTotal bool
	// afterID, when keyset is set, is the afterId parameter: the page
	// starts after the object whose key field (keyField: id, or stringId
	// for translations) is afterID, in key order.
	afterID  int64
	keyset   bool
	keyField string
}

type orderTerm struct {
	col  column
	desc bool
}

// params reads the list parameters from the query string (GET) or the
// JSON body (POST …/query). res, when not nil, is the resource orderBy
// names its fields.
func (s *Server) params(r *http.Request, res *resource, body bool) (listParams, *httpError) {
	raw := map[string]string{}
	if body {
		if ct := r.Header.Get("Content-Type"); ct != "" && !strings.HasPrefix(strings.ToLower(ct), "application/json") {
			return listParams{}, invalid("body", "notJson", "the body must be a JSON object (Content-Type: application/json)")
		}
		b, err := io.ReadAll(http.MaxBytesReader(nil, r.Body, s.cfg.MaxBody))
		if err != nil {
			var mbe *http.MaxBytesError
			if errors.As(err, &mbe) {
				return listParams{}, invalid("body", "tooLarge", fmt.Sprintf("the body is longer than %d bytes", s.cfg.MaxBody))
			}
			return listParams{}, invalid("body", "unreadable", "the body could not be read")
		}
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(b, &obj); err != nil || obj == nil {
			return listParams{}, invalid("body", "notJson", `the body must be a JSON object such as {"croql":"count of translations > 0","limit":25}`)
		}
		for k, v := range obj {
			switch k {
			case "croql", "orderBy":
				var str string
				if err := json.Unmarshal(v, &str); err != nil {
					return listParams{}, invalid(k, "notString", k+" must be a JSON string")
				}
				raw[k] = str
			case "limit", "offset", "afterId":
				var n json.Number
				if err := json.Unmarshal(v, &n); err != nil || len(v) == 0 || v[0] == '"' {
					return listParams{}, invalid(k, "notDigits", k+" must be a JSON number")
				}
				raw[k] = n.String()
			case "withTotal":
				var t bool
				if err := json.Unmarshal(v, &t); err != nil {
					return listParams{}, invalid(k, "notBoolean", "withTotal must be true or false")
				}
				raw[k] = strconv.FormatBool(t)
			default:
				return listParams{}, invalid(k, "unknownKey", fmt.Sprintf("%q is not a parameter: the body takes croql, limit, offset, afterId, orderBy and withTotal", k))
			}
		}
	} else {
		q, err := url.ParseQuery(r.URL.RawQuery)
		if err != nil {
			return listParams{}, invalid("query", "malformed", "the query string is not URL-encoded correctly: "+err.Error())
		}
		for k, vs := range q {
			switch k {
			case "croql", "limit", "offset", "afterId", "orderBy", "withTotal":
				if len(vs) > 1 {
					return listParams{}, invalid(k, "duplicate", k+" is given more than once")
				}
				raw[k] = vs[0]
			}
		}
	}
	p := listParams{croql: raw["croql"], limit: DefaultLimit}
	if v, ok := raw["limit"]; ok {
		n, ok := digits(v)
		if !ok {
			return p, invalid("limit", "notDigits", fmt.Sprintf("limit must be an integer from 1 to %d", MaxLimit))
		}
		if n < 1 || n > MaxLimit {
			return p, invalid("limit", "notBetween", fmt.Sprintf("limit must be from 1 to %d", MaxLimit))
		}
		p.limit = n
	}
	if v, ok := raw["offset"]; ok {
		n, ok := digits(v)
		if !ok {
			return p, invalid("offset", "notDigits", "offset must be an integer, 0 or more")
		}
		p.offset = n
	}
	if v, ok := raw["withTotal"]; ok {
		switch v {
		case "true", "1":
			p.withTotal = true
		case "false", "0", "":
		default:
			return p, invalid("withTotal", "notBoolean", "withTotal must be true or false")
		}
	}
	if v := raw["orderBy"]; v != "" {
		if res == nil {
			return p, invalid("orderBy", "notSupported", "this list takes no orderBy")
		}
		terms, e := parseOrderBy(v, res)
		if e != nil {
			return p, e
		}
		p.orderBy = terms
	}
	if v, ok := raw["afterId"]; ok {
		return p, p.parseAfterID(v, res)
	}
	return p, nil
}

// parseAfterID reads the afterId parameter v (keyset paging): an id, with the
// list in its key order (no orderBy, or orderBy of the key field
// ascending) and no offset.
func (p *listParams) parseAfterID(v string, res *resource) *httpError {
	n, ok := digits(v)
	if !ok {
		return invalid("afterId", "notDigits", "afterId must be an integer, 0 or more")
	}
	if res == nil {
		return invalid("afterId", "notSupported", "this list takes no afterId")
	}
	p.keyField = "id"
	if _, ok := res.column("id"); !ok {
		p.keyField = "stringId"
	}
	if p.offset > 0 {
		return invalid("afterId", "notWithOffset", "afterId and offset cannot be combined: afterId starts the page after that id, offset must be 0")
	}
	for _, t := range p.orderBy {
		if t.col.json != p.keyField || t.desc {
			return invalid("afterId", "notWithOrderBy", fmt.Sprintf("afterId pages in %s order: orderBy must be empty or %q", p.keyField, p.keyField))
		}
	}
	p.afterID, p.keyset = n, true
	return nil
}

// digits parses a non-negative decimal integer of ASCII digits only.
func digits(s string) (int64, bool) {
	if s == "" || len(s) > 18 {
		return 0, false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
	}
	n, err := strconv.ParseInt(s, 10, 64)
	return n, err == nil
}

// parseOrderBy reads the platform's orderBy form: `field [asc|desc]`,
// comma-separated, over the scalar fields of the response.
func parseOrderBy(v string, res *resource) ([]orderTerm, *httpError) {
	var out []orderTerm
	parts := strings.Split(v, ",")
	if len(parts) > 8 {
		return nil, invalid("orderBy", "tooLong", "orderBy takes at most 8 fields")
	}
	for _, part := range parts {
		f := strings.Fields(part)
		if len(f) == 0 || len(f) > 2 {
			return nil, invalid("orderBy", "invalidOrderBy", "orderBy is a comma-separated list of `field` or `field asc|desc`")
		}
		c, ok := res.column(f[0])
		if !ok {
			return nil, invalid("orderBy", "notInArray", fmt.Sprintf("orderBy: %q is not a field of this list (one of %s)", f[0], strings.Join(res.orderable(), ", ")))
		}
		t := orderTerm{col: c}
		if len(f) == 2 {
			switch strings.ToLower(f[1]) {
			case "asc":
			case "desc":
				t.desc = true
			default:
				return nil, invalid("orderBy", "invalidOrderBy", fmt.Sprintf("orderBy: %q is neither asc nor desc", f[1]))
			}
		}
		out = append(out, t)
	}
	return out, nil
}

// list serves one list endpoint.
func (s *Server) list(ctxName string, body bool) func(*http.Request) (any, *httpError) {
	return func(r *http.Request) (any, *httpError) {
		var p *Project
		var e *httpError
		var lang string
		switch ctxName {
		case croql.Strings:
			p, e = s.project(r, "projectId", "Project")
		case croql.Translations:
			if p, e = s.project(r, "projectId", "Project"); e == nil {
				lang = r.PathValue("languageId")
				if !p.HasLanguage(lang) {
					e = notFound("Language")
				}
			}
		case croql.TM:
			p, e = s.project(r, "tmId", "Translation Memory")
		case croql.Glossary:
			p, e = s.project(r, "glossaryId", "Glossary")
		}
		if e != nil {
			return nil, e
		}
		res, err := s.resource(p.Dialect(), ctxName)
		if err != nil {
			return nil, s.internal(r, err)
		}
		params, e := s.params(r, res, body)
		if e != nil {
			return nil, e
		}
		var q url.Values
		if !body {
			q = r.URL.Query()
		}
		// The page's condition in the forms an engine stops early on,
		// the total's in the forms fastest over every match.
		where, args, e := s.compile(r, p, ctxName, params.croql, compile.Page)
		if e != nil {
			return nil, e
		}
		flt, e := filters(p, ctxName, q, strings.TrimSpace(params.croql) != "")
		if e != nil {
			return nil, e
		}
		if where, args, e = s.listParamsWhere(p, ctxName, res, where, args, flt, lang, compile.Page); e != nil {
			return nil, e
		}
		wholeSet := func() ([]string, []any, *httpError) {
			where, args, e := s.compile(r, p, ctxName, params.croql, compile.WholeSet)
			if e != nil {
				return nil, nil, e
			}
			return s.listParamsWhere(p, ctxName, res, where, args, flt, lang, compile.WholeSet)
		}
		if out, ok, e := s.residentList(r, p, res, params, flt, lang, where, args, wholeSet); ok {
			return out, e
		}
		var totalWhere []string
		var totalArgs []any
		if params.withTotal {
			if totalWhere, totalArgs, e = wholeSet(); e != nil {
				return nil, e
			}
		}
		ctx, cancel := context.WithTimeout(r.Context(), s.cfg.Timeout)
		defer cancel()
		var page []any
		var total int64
		err = s.cfg.Storage.ReadTx(ctx, p, func(tx *sql.Tx) error {
			var err error
			if page, err = s.page(ctx, tx, p, res, where, args, params); err != nil {
				return err
			}
			if params.withTotal {
				q := "SELECT COUNT(*) FROM " + res.table + whereClause(totalWhere)
				if err := tx.QueryRowContext(ctx, q, totalArgs...).Scan(&total); err != nil {
					return fmt.Errorf("server: counting: %w", err)
				}
			}
			return nil
		})
		if err != nil {
			return nil, s.dbErrorOn(p, r, ctx, params.croql, err)
		}
		return listBody(page, params, total), nil
	}
}

// listParamsWhere adds to the croql parameter's condition (where, args)
// those of the filter parameters (flt) and of the language of a
// translations list, compiled for purpose.
func (s *Server) listParamsWhere(p *Project, ctxName string, res *resource, where []string, args []any, flt listFilters, lang string, purpose compile.Purpose) ([]string, []any, *httpError) {
	extra, extraArgs, e := s.compileParams(p, ctxName, flt.root, len(args), purpose)
	if e != nil {
		return nil, nil, e
	}
	where, args = append(where, extra...), append(args, extraArgs...)
	if lang != "" {
		if err := p.Dialect().CheckString(lang); err != nil {
			return nil, nil, notFound("Language")
		}
		args = append(args, lang)
		where = append(where, res.language+" = "+p.Dialect().Param(len(args), schema.String))
	}
	return where, args, nil
}

func whereClause(where []string) string {
	if len(where) == 0 {
		return ""
	}
	return " WHERE " + strings.Join(where, " AND ")
}

// compile checks src in the project's environment (once for the request:
// checkQuery) and compiles it for the project's dialect and purpose. A blank src lists every object. On a
// sharded engine, a form the compiler will not send there is refused
// (httpError.refused), and a request the coordinator answers
// (withCoordination, on r's context) gets the coordinator's matches
// (coordinated).
func (s *Server) compile(r *http.Request, p *Project, ctxName, src string, purpose compile.Purpose) ([]string, []any, *httpError) {
	if !utf8.ValidString(src) {
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
		return nil, nil, croqlError(strings.ToValidUTF8(src, "\uFFFD"), diag.List{d})
	}
	if strings.TrimSpace(src) == "" {
		return nil, nil, nil
	}
	env, err := s.env(p, ctxName)
	if err != nil {
		return nil, nil, &httpError{status: http.StatusInternalServerError, message: "Internal Server Error"}
	}
	if co := coordinationOf(r.Context()); co != nil && isSharded(p.Dialect()) {
		return s.coordinated(r, co, p, env, ctxName, src)
	}
	c, diags := checkQuery(r.Context(), env, src).sql(p.Dialect(), s.mapping, purpose)
	if c == nil && isSharded(p.Dialect()) && errors.Is(diags.Err(), compile.ErrSharded) {
		return nil, nil, &httpError{status: http.StatusInternalServerError, message: "Internal Server Error", refused: true}
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
		return nil, nil, croqlError(src, diags)
	}
	return []string{"(" + c.Where + ")"}, c.Args, nil
}

// page runs the page query (and the records of TM segments).
func (s *Server) page(ctx context.Context, tx *sql.Tx, p *Project, res *resource, where []string, args []any, params listParams) ([]any, error) {
	d := p.Dialect()
	var order []string
	for _, t := range params.orderBy {
		dir := ""
		if t.desc {
			dir = " DESC"
		}
		// Nulls first ascending, last descending, on every engine.
		if t.col.nullable {
			order = append(order, "CASE WHEN "+t.col.sql+" IS NULL THEN 0 ELSE 1 END"+dir)
		}
		order = append(order, t.col.sql+dir)
	}
	order = append(order, res.key)
	if params.keyset {
		// Keyset paging: orderBy is empty or the key, so the page is the
		// next rows of the key after afterId.
		args = append(slices.Clip(args), params.afterID)
		where = append(slices.Clip(where), res.key+" > "+d.Param(len(args), schema.Int))
	}
	a := append(append([]any(nil), args...), params.limit, params.offset)
	q := "SELECT " + res.selectList() + " FROM " + res.table + whereClause(where) +
		" ORDER BY " + strings.Join(order, ", ") +
		d.Limit(d.Param(len(a)-1, schema.Int)) + " OFFSET " + d.Param(len(a), schema.Int)
	rows, err := tx.QueryContext(ctx, q, a...)
	if err != nil {
		return nil, fmt.Errorf("server: query: %w", err)
	}
	defer rows.Close()
	page := []any{}
	var objs []map[string]any
	vals := make([]any, len(res.cols))
	ptrs := make([]any, len(vals))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	// Stopping early saves nothing on one row; a single object (getOne)
	// is not a page.
	budget := pageBytes{max: s.cfg.MaxPageBytes}
	if params.limit <= 1 {
		budget.max = 0
	}
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return nil, fmt.Errorf("server: reading rows: %w", err)
		}
		if err := budget.add(vals); err != nil {
			return nil, err
		}
		o := res.render(p, vals)
		objs = append(objs, o)
		page = append(page, item{o})
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("server: reading rows: %w", err)
	}
	rows.Close()
	if res.context == croql.Strings && len(objs) > 0 {
		if err := s.labelIDs(ctx, tx, p, objs); err != nil {
			return nil, err
		}
	}
	if res.records != nil && len(objs) > 0 {
		if err := s.records(ctx, tx, p, res.records, objs); err != nil {
			return nil, err
		}
	}
	return page, nil
}

// records fills the records of a page of TM segments.
func (s *Server) records(ctx context.Context, tx *sql.Tx, p *Project, rq *recordsQuery, objs []map[string]any) error {
	d := p.Dialect()
	var q strings.Builder
	q.WriteString(rq.sql)
	byID, args := pageIDs(&q, d, objs, "records", func() any { return []any{} })
	q.WriteString(") ORDER BY " + rq.cols[0].sql)
	rows, err := tx.QueryContext(ctx, q.String(), args...)
	if err != nil {
		return fmt.Errorf("server: records: %w", err)
	}
	defer rows.Close()
	vals := make([]any, len(rq.cols)+1)
	ptrs := make([]any, len(vals))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return fmt.Errorf("server: records: %w", err)
		}
		seg, _ := toInt(vals[0])
		rec := make(map[string]any, len(rq.cols))
		for i, c := range rq.cols {
			rec[c.json] = value(c, vals[i+1])
		}
		if o := byID[seg]; o != nil {
			o["records"] = append(o["records"].([]any), rec)
		}
	}
	return rows.Err()
}

// dbError maps a failed query: a timeout is 503, an unreachable database
// 503 with a message saying so, an engine limit 400 with a diagnostic,
// anything else an internal error. The classes are the engine's
// (store.Classify).
func (s *Server) dbError(r *http.Request, ctx context.Context, src string, err error) *httpError {
	if pe := (*pageBudgetError)(nil); errors.As(err, &pe) {
		return s.pageTooLarge(pe.fit)
	}
	class, msg := store.Classify(err)
	if class == store.Timeout || errors.Is(err, context.DeadlineExceeded) || ctx.Err() != nil {
		if r.Context().Err() != nil {
			// The client went away: nobody reads the answer.
			return &httpError{status: 499, message: "Client Closed Request"}
		}
		return &httpError{status: http.StatusServiceUnavailable,
			message: fmt.Sprintf("the query ran longer than the server's statement timeout (%s)", s.cfg.Timeout)}
	}
	switch class {
	case store.Limit:
		d := diag.Errorf(diag.ClassSyntax, "engine-limit", diag.Span{Start: 0, End: len(src)},
			"the query is too large for this server's database: %s", msg).
			WithHint("split a long or-chain into several requests (the Go client batches them)")
		return croqlError(src, diag.List{d})
	case store.Unavailable:
		s.log.LogAttrs(r.Context(), slog.LevelError, "database unavailable", slog.String("path", r.URL.Path), slog.String("error", err.Error()))
		return &httpError{status: http.StatusServiceUnavailable,
			message: "the database is unavailable; try again later"}
	case store.Retry:
		// A hot standby cancelling the query for the recovery it
		// replays, a serialization failure, a deadlock: the same
		// request may succeed at once.
		s.log.LogAttrs(r.Context(), slog.LevelWarn, "query cancelled by the database, to be retried", slog.String("path", r.URL.Path), slog.String("error", err.Error()))
		return &httpError{status: http.StatusServiceUnavailable, retryAfter: 1,
			message: "the database cancelled the query (" + msg + "); try again"}
	}
	return s.internal(r, err)
}

func (s *Server) internal(r *http.Request, err error) *httpError {
	s.log.LogAttrs(r.Context(), slog.LevelError, "internal error", slog.String("path", r.URL.Path), slog.String("error", err.Error()))
	return &httpError{status: http.StatusInternalServerError, message: "Internal Server Error"}
}

// pageIDs indexes the objects of a page by id, sets member of each to
// empty(), and writes their ids to q as bound parameters separated by
// commas (the inside of an IN list), returning the index and the
// arguments.
func pageIDs(q *strings.Builder, d compile.Dialect, objs []map[string]any, member string, empty func() any) (map[int64]map[string]any, []any) {
	byID := make(map[int64]map[string]any, len(objs))
	args := make([]any, 0, len(objs))
	for i, o := range objs {
		id := o["id"].(int64)
		byID[id] = o
		o[member] = empty()
		if i > 0 {
			q.WriteString(", ")
		}
		args = append(args, id)
		q.WriteString(d.Param(len(args), schema.Int))
	}
	return byID, args
}
