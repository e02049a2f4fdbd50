package server

import (
	"context"
	"database/sql"

	"github.com/croql/croql/schema"
)

// rowsQuery is the statement of one list of the project's other data, in
// parts: a page of it, every row of it, or its count.
type rowsQuery struct {
	// sel is the SELECT list, from the FROM clause with its joins and
	// WHERE, order the ORDER BY list (the list's order without orderBy).
	sel, from, order string
	q                *query
	cols             []column
	// shape completes an object of a row; after, when set, completes the
	// objects of a page in the read transaction (a translation's rating).
	shape func(map[string]any)
	after func(context.Context, *sql.Tx, []map[string]any) error
}

// readRows runs rq in a read transaction of p: the rows from offset, at most
// limit of them (every row when limit is 0), and their count when total
// is set.
func (s *Server) readRows(ctx context.Context, p *Project, rq *rowsQuery, limit, offset int64, total bool) ([]map[string]any, int64, error) {
	d := p.Dialect()
	args := rq.q.args
	stmt := "SELECT " + rq.sel + rq.from + " ORDER BY " + rq.order
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
			return tx.QueryRowContext(ctx, "SELECT COUNT(*)"+rq.from, rq.q.args...).Scan(&n)
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

// pagedPlan is the strategy of these lists: without orderBy or afterId
// the database reads the page (LIMIT/OFFSET) and counts the total when it
// is asked for; with them, every row is read, then ordered and paged
// (objectsPlan). noIDs marks a list whose objects have no ids (id 0),
// where afterId means nothing.
type pagedPlan struct {
	rq    func(*Project) (*rowsQuery, error)
	noIDs bool
}

func (pl pagedPlan) run(s *Server, req *listRequest) (any, *httpError) {
	if req.params.keyset && pl.noIDs {
		return nil, invalid("afterId", "notSupported", "this list's objects have no ids (id 0): page it with offset")
	}
	if req.params.keyset || len(req.params.orderBy) > 0 {
		return objectsPlan{read: s.allRows(pl.rq)}.run(s, req)
	}
	ctx, cancel := s.timeout(req)
	defer cancel()
	rq, err := pl.rq(req.p)
	if err != nil {
		return nil, s.internal(req.r, err)
	}
	objs, n, err := s.readRows(ctx, req.p, rq, req.params.limit, req.params.offset, req.params.withTotal)
	if err != nil {
		return nil, s.dbError(req.r, ctx, "", err)
	}
	page := make([]any, len(objs))
	for i, o := range objs {
		page[i] = item{o}
	}
	return listBody(page, req.params, n), nil
}
