package server

import (
	"context"
	"database/sql"
	"strings"

	"github.com/croql/croql/schema"
)

// rowsQuery is the statement of one list of the project's other data, in
// parts: a page of it, every row of it, or its count.
type rowsQuery struct {
	// sel is the SELECT list, from the FROM clause with its joins (q
	// holds the WHERE's conditions), order the ORDER BY list (the list's
	// order without orderBy).
	sel, from, order string
	q                *query
	// seek, when set, is the leading column of order, an integer: a deep
	// page is read through a seek index (seekPage).
	seek string
	cols []column
	// shape completes an object of a row; after, when set, completes the
	// objects of a page in the read transaction (a translation's rating).
	shape func(map[string]any)
	after func(context.Context, *sql.Tx, []map[string]any) error
	// ints are the list's integer fields the database orders as Go does
	// (sortObjects), by orderBy name; the field "id", when there, also
	// breaks ties (absent: every object's id is 0).
	ints map[string]intCol
}

// intCol is an integer expression of a list's row.
type intCol struct {
	sql      string
	nullable bool
}

// orderBy is rq's ORDER BY list for the request's orderBy terms, in the
// order objectsPlan sorts the objects: the terms, then the id, then the
// list's order (the sort is stable). ok is false when a term is not one
// of rq.ints.
func (rq *rowsQuery) orderBy(terms []orderTerm) (string, bool) {
	var out []string
	add := func(c intCol, desc bool) {
		dir := ""
		if desc {
			dir = " DESC"
		}
		if c.nullable {
			// Null first, as compareValues orders it (last when descending).
			out = append(out, "CASE WHEN "+c.sql+" IS NULL THEN 0 ELSE 1 END"+dir)
		}
		out = append(out, c.sql+dir)
	}
	for _, t := range terms {
		c, ok := rq.ints[t.col.json]
		if !ok {
			return "", false
		}
		add(c, t.desc)
	}
	if c, ok := rq.ints["id"]; ok {
		add(c, false)
	}
	return strings.Join(append(out, rq.order), ", "), true
}

// readRows runs rq in a read transaction of p: the rows from offset, at most
// limit of them (every row when limit is 0), and their count when total
// is set.
func (s *Server) readRows(ctx context.Context, p *Project, rq *rowsQuery, limit, offset int64, total bool) ([]map[string]any, int64, error) {
	d := p.Dialect()
	args := rq.q.args
	from := rq.from + rq.q.sql()
	stmt := "SELECT " + rq.sel + from + " ORDER BY " + rq.order
	if limit > 0 {
		args = append(append([]any(nil), args...), limit, offset)
		stmt += d.Limit(d.Param(len(args)-1, schema.Int)) + " OFFSET " + d.Param(len(args), schema.Int)
	}
	var out []map[string]any
	var n int64
	err := s.cfg.Storage.ReadTx(ctx, p, func(tx *sql.Tx) error {
		var err error
		if out, err = scanObjects(ctx, tx, stmt, rq.cols, args...); err != nil {
			return err
		}
		if rq.after != nil && len(out) > 0 {
			if err := rq.after(ctx, tx, out); err != nil {
				return err
			}
		}
		if total {
			return tx.QueryRowContext(ctx, "SELECT COUNT(*)"+from, rq.q.args...).Scan(&n)
		}
		return nil
	})
	for _, o := range out {
		rq.shape(o)
	}
	return out, n, err
}

// allRows reads every row of rq.
func (s *Server) allRows(rq func(*Project) (*rowsQuery, error)) func(context.Context, *Project) ([]map[string]any, error) {
	return func(ctx context.Context, p *Project) ([]map[string]any, error) {
		q, err := rq(p)
		if err != nil {
			return nil, err
		}
		out, _, err := s.readRows(ctx, p, q, 0, 0, false)
		return out, err
	}
}

// pagedPlan is the strategy of these lists: without afterId, and with an
// orderBy of integer fields only (rowsQuery.ints), the database orders
// and reads the page (LIMIT/OFFSET, or through a seek index: deepPage)
// and counts the total when it is asked for; otherwise every row is
// read, then ordered and paged (objectsPlan), in the same order. noIDs
// marks a list whose objects have no ids (id 0), where afterId means
// nothing.
type pagedPlan struct {
	rq    func(*Project) (*rowsQuery, error)
	noIDs bool
}

func (pl pagedPlan) run(s *Server, req *listRequest) (any, *httpError) {
	if req.params.keyset && pl.noIDs {
		return nil, invalid("afterId", "notSupported", "this list's objects have no ids (id 0): page it with offset")
	}
	if req.params.keyset {
		return objectsPlan{read: s.allRows(pl.rq)}.run(s, req)
	}
	ctx, cancel := s.timeout(req)
	defer cancel()
	rq, err := pl.rq(req.p)
	if err != nil {
		return nil, s.internal(req.r, err)
	}
	if len(req.params.orderBy) > 0 {
		// A sharded engine's planner is not asked to order by these forms.
		order, ok := rq.orderBy(req.params.orderBy)
		if !ok || isSharded(req.p.Dialect()) {
			return objectsPlan{read: s.allRows(pl.rq)}.run(s, req)
		}
		rq.order = order
	}
	objs, n, ok, err := s.deepPage(ctx, req, rq)
	if err == nil && !ok {
		objs, n, err = s.readRows(ctx, req.p, rq, req.params.limit, req.params.offset, req.params.withTotal)
	}
	if err != nil {
		return nil, s.dbError(req.r, ctx, "", err)
	}
	page := make([]any, len(objs))
	for i, o := range objs {
		page[i] = item{o}
	}
	return listBody(page, req.params, n), nil
}

// deepPage reads a page at seekMinOffset or deeper through the seek
// index of rq (seekPage) when rq's order leads with its seek column
// ascending: ok is false when the database pages it as before.
func (s *Server) deepPage(ctx context.Context, req *listRequest, rq *rowsQuery) ([]map[string]any, int64, bool, error) {
	params := req.params
	if rq.seek == "" || params.offset < s.seeks.minOffset || isSharded(req.p.Dialect()) {
		return nil, 0, false, nil
	}
	if len(params.orderBy) > 0 {
		first := params.orderBy[0]
		if c, ok := rq.ints[first.col.json]; !ok || first.desc || c.sql != rq.seek {
			return nil, 0, false, nil
		}
	}
	return s.seekPage(ctx, req, rq)
}
