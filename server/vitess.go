package server

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"

	"github.com/croql/croql"
	"github.com/croql/croql/compile"
)

// isSharded reports whether d is the dialect of a sharded engine
// (compile.Sharding: Vitess), whose router runs no correlated scalar
// subquery: the translations list's stringId is then chosen in Go
// (shardedRows) instead of by the subquery of the resource's column.
func isSharded(d compile.Dialect) bool {
	_, ok := d.(compile.Sharding)
	return ok
}

// shardedPage is what shardedRows filters and pages by: the string filters
// of the list (a WHERE on the strings table and its arguments), the
// stringIds parameter, and, in string order, the page of strings.
type shardedPage struct {
	strWhere  []string
	strArgs   []any
	stringIDs []int64
	// paged: the page is limit strings from offset, in string order
	// (descending with desc); otherwise every row is returned.
	paged, desc   bool
	limit, offset int64
	// keyset: only the strings after afterID (the afterId parameter).
	keyset  bool
	afterID int64
}

// shardedRows is the translations list on a sharded engine: query reads
// every matching translation (with its key in stringId's place), then each
// gets its string as the resource's stringId column would choose it (the
// master among the strings that list it, the lowest id among equals),
// from the join table. The rows come back ordered by string, then id, with
// the number of strings they belong to.
func (s *Server) shardedRows(ctx context.Context, tx *sql.Tx, d compile.Dialect, query string, args []any, pg shardedPage) ([]trRow, int64, error) {
	rows, err := readTranslations(ctx, tx, query, args, &pageBytes{}) // every match: the page is chosen after; writeBody bounds the answer
	if err != nil {
		return nil, 0, err
	}
	owner, err := s.shardedOwners(ctx, tx, d, rows)
	if err != nil {
		return nil, 0, err
	}
	keep, err := s.shardedKeep(ctx, tx, d, pg)
	if err != nil {
		return nil, 0, err
	}
	out := rows[:0]
	for _, r := range rows {
		sid, ok := owner[r.id]
		if !ok || keep != nil && !keep[sid] {
			continue
		}
		r.stringID = sid
		out = append(out, r)
	}
	slices.SortFunc(out, func(x, y trRow) int { return cmp.Or(cmp.Compare(x.stringID, y.stringID), cmp.Compare(x.id, y.id)) })
	var strs []int64
	for i, r := range out {
		if i == 0 || r.stringID != out[i-1].stringID {
			strs = append(strs, r.stringID)
		}
	}
	total := int64(len(strs))
	if !pg.paged {
		return out, total, nil
	}
	if pg.keyset {
		// The total stays every match's, as in the other engines.
		strs = slices.DeleteFunc(strs, func(id int64) bool { return id <= pg.afterID })
	}
	if pg.desc {
		slices.Reverse(strs)
	}
	onPage := map[int64]bool{}
	n := int64(len(strs))
	for _, id := range strs[min(pg.offset, n):min(pg.offset+pg.limit, n)] {
		onPage[id] = true
	}
	page := out[:0]
	for _, r := range out {
		if onPage[r.stringID] {
			page = append(page, r)
		}
	}
	return page, total, nil
}

// shardedOwners is the string of each translation of rows, chosen from
// the join table as the resource's stringId column chooses it: the master
// among the strings that list it, the lowest id among equals.
func (s *Server) shardedOwners(ctx context.Context, tx *sql.Tx, d compile.Dialect, rows []trRow) (map[int64]int64, error) {
	res, err := s.resource(d, croql.Translations)
	if err != nil {
		return nil, err
	}
	if res.links == "" {
		return nil, errors.New("server: the mapping links no strings to translations")
	}
	type choice struct {
		id  int64
		dup bool
	}
	best := map[int64]choice{}
	ids := make([]int64, len(rows))
	for i, r := range rows {
		ids[i] = r.id
	}
	for len(ids) > 0 {
		ph, a := inChunk(d, &ids)
		rs, err := tx.QueryContext(ctx, res.links+ph+")", a...)
		if err != nil {
			return nil, fmt.Errorf("server: query: %w", err)
		}
		for rs.Next() {
			var tid, sid int64
			var dup bool
			if err := rs.Scan(&tid, &sid, &dup); err != nil {
				rs.Close()
				return nil, fmt.Errorf("server: reading rows: %w", err)
			}
			c, seen := best[tid]
			if !seen || !dup && c.dup || dup == c.dup && sid < c.id {
				best[tid] = choice{sid, dup}
			}
		}
		if err := errors.Join(rs.Err(), rs.Close()); err != nil {
			return nil, fmt.Errorf("server: reading rows: %w", err)
		}
	}
	owner := make(map[int64]int64, len(best))
	for tid, c := range best {
		owner[tid] = c.id
	}
	return owner, nil
}

// shardedKeep is the strings the string filters and the stringIds
// parameter keep (nil: every string).
func (s *Server) shardedKeep(ctx context.Context, tx *sql.Tx, d compile.Dialect, pg shardedPage) (map[int64]bool, error) {
	var keep map[int64]bool
	if len(pg.strWhere) > 0 {
		sres, err := s.resource(d, croql.Strings)
		if err != nil {
			return nil, err
		}
		kept, err := scanIDs(ctx, tx, "SELECT "+sres.key+" FROM "+sres.table+whereClause(pg.strWhere), pg.strArgs)
		if err != nil {
			return nil, err
		}
		keep = map[int64]bool{}
		for _, id := range kept {
			keep[id] = true
		}
	}
	if len(pg.stringIDs) > 0 {
		only := map[int64]bool{}
		for _, id := range pg.stringIDs {
			if keep == nil || keep[id] {
				only[id] = true
			}
		}
		keep = only
	}
	return keep, nil
}
