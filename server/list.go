package server

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"strings"

	"github.com/croql/croql"
	"github.com/croql/croql/compile"
	"github.com/croql/croql/diag"
	"github.com/croql/croql/schema"
	"github.com/croql/croql/store"
)

// planRows chooses how a list of one object per row (strings, TM
// segments, glossary terms) is answered: from the resident snapshot when
// the request can be (resident.go), by SQL otherwise. The croql's
// condition is compiled first, then the filter parameters'.
func (s *Server) planRows(req *listRequest) (plan, *httpError) {
	where, args, e := s.rowsWhere(req, compile.Page)
	if e != nil {
		return nil, e
	}
	sq := &sqlRows{where: where, args: args}
	if rp := s.residentPlan(req, sq); rp != nil {
		return rp, nil
	}
	return sq, nil
}

// sqlRows is the SQL strategy of a list of rows: the page's query (where,
// args) and, with withTotal, a count over the whole-set condition, in one
// read-only transaction.
type sqlRows struct {
	where []string
	args  []any
}

func (pl *sqlRows) run(s *Server, req *listRequest) (any, *httpError) {
	var totalQ string
	var totalArgs []any
	if req.params.withTotal {
		var e *httpError
		if totalQ, totalArgs, e = s.totalQuery(req); e != nil {
			return nil, e
		}
	}
	ctx, cancel := s.timeout(req)
	defer cancel()
	var page []any
	var total int64
	res := req.res
	err := s.cfg.Storage.ReadTx(ctx, req.p, func(tx *sql.Tx) error {
		var err error
		if page, err = s.page(ctx, tx, req.p, res, pl.where, pl.args, req.params); err != nil {
			return err
		}
		if req.params.withTotal {
			if err := tx.QueryRowContext(ctx, totalQ, totalArgs...).Scan(&total); err != nil {
				return fmt.Errorf("server: counting: %w", err)
			}
		}
		return nil
	})
	if err != nil {
		return nil, s.dbErrorOn(req, ctx, err)
	}
	return listBody(page, req.params, total), nil
}

// totalQuery is the statement that counts every match of req (withTotal):
// COUNT(*) over the whole-set condition, or, when the croql is the whole
// condition (no filter parameter beside it) and the compiler counts its
// rows from the elements' side (compile.SQL.Count: a semi-join over the
// list's own table, whose elements the store keeps tied to existing
// rows), that statement, which reads an index of the elements alone.
func (s *Server) totalQuery(req *listRequest) (string, []any, *httpError) {
	where, args, count, e := s.croqlSQL(req, compile.WholeSet)
	if e != nil {
		return "", nil, e
	}
	flt, e := req.filters()
	if e != nil {
		return "", nil, e
	}
	if count != nil && len(flt.root) == 0 {
		return count.SQL, count.Args, nil
	}
	if where, args, e = s.withParams(req, where, args, compile.WholeSet); e != nil {
		return "", nil, e
	}
	return "SELECT COUNT(*) FROM " + req.res.table + whereClause(where), args, nil
}

func whereClause(where []string) string {
	if len(where) == 0 {
		return ""
	}
	return " WHERE " + strings.Join(where, " AND ")
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
	// Stopping early saves nothing on one row; a single object (getOne)
	// is not a page.
	budget := pageBytes{max: s.cfg.MaxPageBytes}
	if params.limit <= 1 {
		budget.max = 0
	}
	pq := pageQuery{res: res, from: res.table, where: where, args: args, order: strings.Join(order, ", "), limit: params.limit, offset: params.offset}
	objs, walked, err := s.keyWalk(ctx, tx, p, pq, params, &budget)
	if err == nil && !walked {
		objs, err = s.pageRows(ctx, tx, p, pq, &budget)
	}
	if err != nil {
		return nil, err
	}
	page := make([]any, len(objs))
	for i, o := range objs {
		page[i] = item{o}
	}
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

// pageQuery is a page's statement in parts: SELECT res's columns FROM
// from WHERE where ORDER BY order LIMIT limit OFFSET offset.
type pageQuery struct {
	res           *resource
	from          string
	where         []string
	args          []any
	order         string
	limit, offset int64
}

// sql is pq's statement and its arguments.
func (pq pageQuery) sql(d compile.Dialect) (string, []any) {
	a := append(append([]any(nil), pq.args...), pq.limit, pq.offset)
	return "SELECT " + pq.res.selectList() + " FROM " + pq.from + whereClause(pq.where) +
		" ORDER BY " + pq.order + d.Limit(d.Param(len(a)-1, schema.Int)) + " OFFSET " + d.Param(len(a), schema.Int), a
}

// pageRows runs pq and renders its rows, counting their bytes in budget.
func (s *Server) pageRows(ctx context.Context, tx *sql.Tx, p *Project, pq pageQuery, budget *pageBytes) ([]map[string]any, error) {
	q, a := pq.sql(p.Dialect())
	rows, err := tx.QueryContext(ctx, q, a...)
	if err != nil {
		return nil, fmt.Errorf("server: query: %w", err)
	}
	defer rows.Close()
	var objs []map[string]any
	vals := make([]any, len(pq.res.cols))
	ptrs := make([]any, len(vals))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return nil, fmt.Errorf("server: reading rows: %w", err)
		}
		if err := budget.add(vals); err != nil {
			return nil, err
		}
		objs = append(objs, pq.res.render(p, vals))
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("server: reading rows: %w", err)
	}
	return objs, nil
}

// records fills the records of a page of TM segments.
func (s *Server) records(ctx context.Context, tx *sql.Tx, p *Project, rq *recordsQuery, objs []map[string]any) error {
	d := p.Dialect()
	byID, ids := pageIndex(objs, "records", func() any { return []any{} })
	in, args := compile.KeyList(d, nil, ids)
	rows, err := tx.QueryContext(ctx, rq.sql+in+") ORDER BY "+rq.order, args...)
	if err != nil {
		return fmt.Errorf("server: records: %w", err)
	}
	defer rows.Close()
	var seg any
	vals := make([]any, len(rq.cols))
	ptrs := []any{&seg}
	for i := range vals {
		ptrs = append(ptrs, &vals[i])
	}
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return fmt.Errorf("server: records: %w", err)
		}
		id, _ := toInt(seg)
		if o := byID[id]; o != nil {
			o["records"] = append(o["records"].([]any), rowObject(rq.cols, vals, 0))
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

// pageIndex indexes the objects of a page by id and sets member of each
// to empty(); ids are their ids, in page order.
func pageIndex(objs []map[string]any, member string, empty func() any) (byID map[int64]map[string]any, ids []int64) {
	byID = make(map[int64]map[string]any, len(objs))
	ids = make([]int64, 0, len(objs))
	for _, o := range objs {
		id := o["id"].(int64)
		byID[id] = o
		o[member] = empty()
		ids = append(ids, id)
	}
	return byID, ids
}

// inChunk takes up to MaxLimit ids from the front of *ids: the inside of
// their IN list and their arguments.
func inChunk(d compile.Dialect, ids *[]int64) (string, []any) {
	n := min(len(*ids), MaxLimit)
	ph, args := compile.KeyList(d, make([]any, 0, n), (*ids)[:n])
	*ids = (*ids)[n:]
	return ph, args
}

// residentPlan is the resident strategy of req when its project has a
// snapshot of the list's objects and the request has no orderBy, filter
// parameters or afterId; nil otherwise.
func (s *Server) residentPlan(req *listRequest, sq *sqlRows) plan {
	flt, _ := req.filters()
	if req.params.keyset || len(req.params.orderBy) > 0 || req.lang != "" || len(flt.root) > 0 || len(flt.strs) > 0 || len(flt.stringIDs) > 0 {
		return nil
	}
	sn := s.resident.get(req.p)
	if sn == nil {
		return nil
	}
	q, ok, err := s.residentQuery(req.r.Context(), req.p, req.res.context, req.params.croql)
	if err != nil || !ok {
		// The database path reports it.
		return nil
	}
	// The lists the snapshot answers: one object per row, keyed by the
	// object's id. The translations list picks one translation per string
	// among the matches (see docs/serve.md), which the database does: the
	// snapshot holds its translations apart (residentTranslationPage).
	var walk func(context.Context, *Server, *listRequest, *residentRows) ([]int64, int64, any, *httpError)
	switch req.res.context {
	case croql.Strings:
		walk, ok = residentWalk(sn.strings, sn.heavy[croql.Strings], q, func(i int) int64 { return sn.ids[i] })
	case croql.TM:
		walk, ok = residentWalk(sn.tm, sn.heavy[croql.TM], q, func(i int) int64 { return sn.tm[i].ID })
	case croql.Glossary:
		walk, ok = residentWalk(sn.terms, sn.heavy[croql.Glossary], q, func(i int) int64 { return sn.terms[i].ID })
	default:
		ok = false
	}
	if !ok {
		return nil
	}
	return &residentRows{sn: sn, walk: walk, sql: sq}
}

// labelIDs fills labelIds of a page of strings.
func (s *Server) labelIDs(ctx context.Context, tx *sql.Tx, p *Project, objs []map[string]any) error {
	d := p.Dialect()
	t, err := s.tables(d)
	if err != nil {
		return err
	}
	through, from, to := t.StrLabels.Child.Through, t.StrLabels.Child.From, t.StrLabels.Child.To
	byID, ids := pageIndex(objs, "labelIds", func() any { return []int64{} })
	in, args := compile.KeyList(d, nil, ids)
	q := "SELECT " + d.Quote(from) + ", " + d.Quote(to) + " FROM " + d.Quote(through) + " WHERE " + d.Quote(from) + " IN (" + in + ") ORDER BY 1, 2"
	rows, err := tx.QueryContext(ctx, q, args...)
	if err != nil {
		return fmt.Errorf("server: labels: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var sid, lid int64
		if err := rows.Scan(&sid, &lid); err != nil {
			return fmt.Errorf("server: labels: %w", err)
		}
		if o := byID[sid]; o != nil {
			o["labelIds"] = append(o["labelIds"].([]int64), lid)
		}
	}
	return rows.Err()
}
