package server

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/croql/croql/schema"
)

// The key walk of a first page on SQLite. A page is the first matches in
// key order. When a condition has an index (a date range, a count kept on
// the row), SQLite's planner reads every match through it and sorts them
// by key to keep the first ones: tens of milliseconds when a million rows
// hold a hundred thousand matches, though walking the table in key order
// would meet a page of them within a few thousand rows. The planner
// cannot know that (it does not estimate how early the matches come), so
// the server asks it once per statement whether its plan sorts (EXPLAIN
// QUERY PLAN, remembered per project and statement), and when it does,
// reads the page in two parts that together are the same rows: the
// matches among the next walkRows rows in key order (the table read
// without its indexes, which stops at a full page), then, when the page
// is not full, the planner's plan over the keys after them. A condition
// that matches few rows costs the walk of walkRows rows more than before;
// one whose matches are dense costs a walk of a page's worth of them
// instead of a sort of all of them.

// walkRows is how many rows in key order a page of limit objects reads
// before it asks the planner: enough for a full page of a condition that
// holds for one row in 40.
func walkRows(limit int64) int64 { return max(2000, 40*limit) }

// maxSortingPlans bounds the statements sortingPlans remembers; past it,
// it forgets them all.
const maxSortingPlans = 4096

// sortingPlans remembers, by project and statement, whether SQLite's plan
// of a page's statement sorts its matches.
type sortingPlans struct {
	mu sync.Mutex
	m  map[planKey]bool
	// rows, when not 0, is the walk's length in place of walkRows (-1:
	// no walk); walks counts the pages read by a walk.
	rows  int64
	walks atomic.Int64
}

type planKey struct {
	project int64
	sql     string
}

// sorts reports whether the plan of q (with args) sorts its rows for its
// ORDER BY ("USE TEMP B-TREE FOR ORDER BY").
func (sp *sortingPlans) sorts(ctx context.Context, tx *sql.Tx, project int64, q string, args []any) (bool, error) {
	k := planKey{project, q}
	sp.mu.Lock()
	v, ok := sp.m[k]
	sp.mu.Unlock()
	if ok {
		return v, nil
	}
	rows, err := tx.QueryContext(ctx, "EXPLAIN QUERY PLAN "+q, args...)
	if err != nil {
		return false, fmt.Errorf("server: the page's plan: %w", err)
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return false, fmt.Errorf("server: the page's plan: %w", err)
	}
	vals := make([]any, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return false, fmt.Errorf("server: the page's plan: %w", err)
		}
		if d, ok := vals[len(vals)-1].(string); ok && strings.HasPrefix(d, "USE TEMP B-TREE FOR ORDER BY") {
			v = true
		}
	}
	if err := rows.Err(); err != nil {
		return false, fmt.Errorf("server: the page's plan: %w", err)
	}
	sp.mu.Lock()
	if sp.m == nil || len(sp.m) >= maxSortingPlans {
		sp.m = map[planKey]bool{}
	}
	sp.m[k] = v
	sp.mu.Unlock()
	return v, nil
}

// keyWalk reads pq, a first page (offset 0) ordered by key alone with a
// condition, on SQLite, in the two parts of a key walk when the planner's
// plan sorts: walked is false when it does not apply (the caller runs
// pq).
func (s *Server) keyWalk(ctx context.Context, tx *sql.Tx, p *Project, pq pageQuery, params listParams, budget *pageBytes) (_ []map[string]any, walked bool, _ error) {
	d := p.Dialect()
	n := walkRows(pq.limit)
	if s.plans.rows != 0 {
		n = s.plans.rows
	}
	if n < 0 || d.Name() != "sqlite" || len(params.orderBy) > 0 || pq.offset != 0 || pq.limit <= 0 || len(pq.where) == 0 {
		return nil, false, nil
	}
	q, a := pq.sql(d)
	sorts, err := s.plans.sorts(ctx, tx, p.ID, q, a)
	if err != nil || !sorts {
		return nil, false, err
	}
	// The key of the walkRows-th row after the page's start: the walk's
	// last key (none: the walk reaches the end of the table).
	res := pq.res
	var bargs []any
	bq := "SELECT " + res.key + " FROM " + res.table
	if params.keyset {
		bargs = append(bargs, params.afterID)
		bq += " WHERE " + res.key + " > " + d.Param(1, schema.Int)
	}
	bargs = append(bargs, n-1)
	bq += " ORDER BY " + res.key + d.Limit("1") + " OFFSET " + d.Param(len(bargs), schema.Int)
	var last int64
	end := false
	if err := tx.QueryRowContext(ctx, bq, bargs...).Scan(&last); errors.Is(err, sql.ErrNoRows) {
		end = true
	} else if err != nil {
		return nil, false, fmt.Errorf("server: query: %w", err)
	}
	s.plans.walks.Add(1)
	walk := pq
	walk.from = res.table + " NOT INDEXED"
	if !end {
		walk.args = append(slices.Clip(pq.args), last)
		walk.where = append(slices.Clip(pq.where), res.key+" <= "+d.Param(len(walk.args), schema.Int))
	}
	objs, err := s.pageRows(ctx, tx, p, walk, budget)
	if err != nil || end || int64(len(objs)) == pq.limit {
		return objs, true, err
	}
	rest := pq
	rest.args = append(slices.Clip(pq.args), last)
	// The unary plus keeps the planner's plan: a range of the key would
	// be a walk of the rest of the table in key order.
	rest.where = append(slices.Clip(pq.where), "+"+res.key+" > "+d.Param(len(rest.args), schema.Int))
	rest.limit = pq.limit - int64(len(objs))
	more, err := s.pageRows(ctx, tx, p, rest, budget)
	return append(objs, more...), true, err
}
