package server

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/croql/croql/schema"
)

// Seek indexes: a deep page of a list of the project's other data (the
// approvals or votes of a language, the comments) costs the database a
// walk over every row before its offset, since the platform's API pages
// these lists by offset only. Once a request asks for a page at
// seekMinOffset or deeper, the list's selection is counted by the leading
// column of its order (a translation's or a string's id) in one statement
// and kept: an offset then names a key and how many of its rows come
// before the page, and the database reads the page from that key on by
// its index (WHERE key >= ? … LIMIT … OFFSET skip), O(log n + page). The
// total is the index's. An index describes the project at one write
// version and counts against the resident budget (Config.ResidentMaxBytes,
// 16 bytes a key); without budget the database pages as before.

// DefaultSeekMinOffset is the offset from which a list of the project's
// other data is paged through a seek index.
const DefaultSeekMinOffset = 5000

// maxSeekIndexes bounds how many indexes a server keeps.
const maxSeekIndexes = 64

// seekIndex is one selection's rows counted by their leading key.
type seekIndex struct {
	version int64
	// keys are the distinct leading keys, ascending; before[i] the rows
	// before keys[i].
	keys, before []int64
	total, bytes int64
}

// at is where the page from offset starts: the rows whose key is at
// least key, skip of them left out. Past the end it is past every key.
func (ix *seekIndex) at(offset int64) (key, skip int64) {
	if len(ix.keys) == 0 {
		return 0, 0
	}
	if offset >= ix.total {
		return ix.keys[len(ix.keys)-1] + 1, 0
	}
	// The last key with at most offset rows before it (before is
	// ascending from 0: every key has rows).
	i, found := slices.BinarySearch(ix.before, offset)
	if !found {
		i--
	}
	return ix.keys[i], offset - ix.before[i]
}

// seekIndexes are a server's seek indexes by project and selection.
type seekIndexes struct {
	minOffset int64
	mu        sync.Mutex
	m         map[seekKey]*seekEntry
	// served counts the pages read through an index.
	served atomic.Int64
}

type seekKey struct {
	project int64
	// sel is the counting statement and its arguments.
	sel string
}

// seekEntry is an index being built (done open) or built (ix nil when
// it could not be: over the budget, or an error).
type seekEntry struct {
	version int64
	done    chan struct{}
	ix      *seekIndex
	// retry: the build failed for a reason that may pass (a cancelled
	// request), so a later request builds again.
	retry bool
}

func newSeekIndexes() *seekIndexes {
	return &seekIndexes{minOffset: DefaultSeekMinOffset, m: map[seekKey]*seekEntry{}}
}

// seekIndex returns the index of rq's selection over p as it is now,
// building it when it is missing; nil when there is none.
func (s *Server) seekIndex(ctx context.Context, p *Project, rq *rowsQuery) *seekIndex {
	si, rs := s.seeks, s.resident
	if rs == nil || rs.max <= 0 {
		return nil
	}
	v := p.version.Load()
	stmt := "SELECT " + rq.seek + ", COUNT(*)" + rq.from + rq.q.sql() + " GROUP BY " + rq.seek + " ORDER BY " + rq.seek
	key := seekKey{project: p.ID, sel: stmt + fmt.Sprint(rq.q.args...)}
	si.mu.Lock()
	for k, e := range si.m {
		if k.project == p.ID && isDone(e.done) && (e.version != v || e.retry) {
			s.dropSeek(k, e)
		}
	}
	e := si.m[key]
	build := e == nil && len(si.m) < maxSeekIndexes
	if build {
		e = &seekEntry{version: v, done: make(chan struct{})}
		si.m[key] = e
	}
	si.mu.Unlock()
	if e == nil {
		return nil
	}
	if build {
		ix, err := s.buildSeek(ctx, p, stmt, rq.q.args, v)
		e.ix, e.retry = ix, err != nil
		close(e.done)
	}
	select {
	case <-e.done:
	case <-ctx.Done():
		return nil
	}
	if e.ix == nil || e.ix.version != v {
		return nil
	}
	return e.ix
}

// dropSeek forgets an index and gives its bytes back (si.mu held).
func (s *Server) dropSeek(k seekKey, e *seekEntry) {
	delete(s.seeks.m, k)
	if e.ix != nil {
		s.resident.release(e.ix.bytes)
	}
}

func isDone(c chan struct{}) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}

// buildSeek counts the selection's rows by key at version v, and takes
// the index's bytes from the resident budget: nil when they do not fit
// or p changed meanwhile.
func (s *Server) buildSeek(ctx context.Context, p *Project, stmt string, args []any, v int64) (*seekIndex, error) {
	ix := &seekIndex{version: v}
	err := s.cfg.Storage.ReadTx(ctx, p, func(tx *sql.Tx) error {
		rows, err := tx.QueryContext(ctx, stmt, args...)
		if err != nil {
			return fmt.Errorf("server: seek index: %w", err)
		}
		defer rows.Close()
		for rows.Next() {
			var k, n int64
			if err := rows.Scan(&k, &n); err != nil {
				return fmt.Errorf("server: seek index: %w", err)
			}
			ix.keys = append(ix.keys, k)
			ix.before = append(ix.before, ix.total)
			ix.total += n
		}
		return rows.Err()
	})
	if err != nil {
		return nil, err
	}
	if p.version.Load() != v || !slices.IsSorted(ix.keys) {
		return nil, nil
	}
	ix.keys, ix.before = slices.Clip(ix.keys), slices.Clip(ix.before)
	ix.bytes = int64(len(ix.keys)) * 16
	if !s.resident.reserve(ix.bytes) {
		return nil, nil
	}
	return ix, nil
}

// seekPage reads the page of rq from offset through its seek index: ok
// is false when there is none or the page it reads does not agree with
// it (the project changed meanwhile), and the database pages as before.
func (s *Server) seekPage(ctx context.Context, req *listRequest, rq *rowsQuery) (objs []map[string]any, total int64, ok bool, err error) {
	p, params := req.p, req.params
	ix := s.seekIndex(ctx, p, rq)
	if ix == nil {
		return nil, 0, false, nil
	}
	key, skip := ix.at(params.offset)
	q := query{d: rq.q.d, where: slices.Clone(rq.q.where), args: slices.Clone(rq.q.args)}
	q.where = append(q.where, rq.seek+" >= "+q.arg(key, schema.Int))
	seeked := *rq
	seeked.q = &q
	objs, _, err = s.readRows(ctx, p, &seeked, params.limit, skip, false)
	if err != nil {
		return nil, 0, false, err
	}
	want := min(params.limit, max(ix.total-params.offset, 0))
	if int64(len(objs)) != want || p.version.Load() != ix.version {
		return nil, 0, false, nil
	}
	s.seeks.served.Add(1)
	return objs, ix.total, true, nil
}

// reserve takes n bytes of the resident budget, and reports false
// (taking none) when they do not fit.
func (rs *residents) reserve(n int64) bool {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	if rs.used+n > rs.max {
		return false
	}
	rs.used += n
	return true
}

// release gives back n bytes that reserve took.
func (rs *residents) release(n int64) {
	rs.mu.Lock()
	rs.used -= n
	rs.mu.Unlock()
}
