package server

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"os"
	"reflect"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/croql/croql"
	"github.com/croql/croql/compile"
	"github.com/croql/croql/eval"
	"github.com/croql/croql/schema"
)

// The resident snapshot: a project that fits Config.ResidentMaxBytes is
// also held in memory as the evaluator's objects, and a list request
// without orderBy and without filter parameters finds its matches there:
// the evaluator (the croql facade's compiled program, under the request's
// deadline) walks the objects in id order, stops at the end of the page
// when no total is asked for, and counts every match when one is. The
// page's rows are then read from the database by their keys and rendered
// as on the SQL path, so the fields are the database's. The translations
// list finds its page's strings and its total there, and the database
// reads and picks their translations (residentTranslationPage). The
// database answers everything else (orderBy, filter parameters, afterId,
// a project over the budget or changed since its snapshot).

// DefaultResidentMaxBytes is the resident snapshot budget of `croql serve`
// (--resident-max-bytes): about 320,000 strings of the demo project read
// from a file (the process's peak while it builds is about 2.5 times the
// snapshot).
const DefaultResidentMaxBytes = 512 << 20

// DefaultResidentPageVisits is how many objects the evaluator checks for
// a first page without a total before it asks whether the database can
// find the page by an index (see residentRows).
const DefaultResidentPageVisits = 20_000

// residents holds the snapshots of a server's projects.
type residents struct {
	max int64
	// pageVisits is DefaultResidentPageVisits but in tests.
	pageVisits int

	mu    sync.Mutex
	used  int64
	snaps map[int64]*snapshot
	// states are the projects whose snapshot was tried, and how they are
	// served since (readiness).
	states map[int64]residentState
	// served counts the requests the snapshots answered.
	served atomic.Int64
	// cat is the catalog of the snapshots' objects (residentCatalog); nil
	// when it could not be built (the database answers every request).
	cat *schema.Catalog
}

// snapshot is one project's resident objects.
type snapshot struct {
	// version is the project's write version the snapshot describes.
	version int64
	bytes   int64
	// The objects of each resident context in ascending id order; ids
	// the strings'.
	strings []resString
	ids     []int64
	tm      []resSegment
	terms   []resTerm
	// heavy mark, for each context, the objects an evaluation may take
	// long on (heavyString, ...): those run under the request's deadline
	// (eval.Program.MatchContext), the others by the query's func.
	heavy map[string]bitset
	// trs are the translations of each language, as the database holds
	// them, for the translations list (residentTranslationPage).
	trs map[string][]trEntry
	// trBase is the id the translations' ids are differences from
	// (resTranslation.id).
	trBase int64
}

// trEntry is a translation with the string the translations list files
// it under, as the database's stringId does: among the strings that list
// it, a master before a duplicate, then the lowest id. It is that
// string's place in snapshot.strings and the translation's place in the
// string's translations.
type trEntry struct {
	str, tr uint32
}

// at is e's string and translation in sn.
func (sn *snapshot) at(e trEntry) (*resString, *resTranslation) {
	s := &sn.strings[e.str]
	return s, &s.translations()[e.tr]
}

// residentTranslations sorts the translations of strs (in id order) by
// language, each language's in string id then translation id order. A
// translation listed by several strings is filed under one (trEntry).
func residentTranslations(strs []resString, base int64) (map[string][]trEntry, error) {
	if len(strs) > math.MaxUint32 {
		return nil, fmt.Errorf("%d strings: more than a snapshot holds", len(strs))
	}
	owners := map[int64]trEntry{}
	var order []int64
	for i := range strs {
		st := &strs[i]
		trs := st.translations()
		for j := range trs {
			id := trs[j].id(base)
			o, ok := owners[id]
			switch {
			case !ok:
				order = append(order, id)
			case strs[o.str].IsDuplicate && !st.IsDuplicate:
			default:
				continue // strs is in id order: the first is the lowest
			}
			owners[id] = trEntry{uint32(i), uint32(j)}
		}
	}
	out := map[string][]trEntry{}
	for _, id := range order {
		e := owners[id]
		lang := strs[e.str].translations()[e.tr].Language
		out[lang] = append(out[lang], e)
	}
	for _, es := range out {
		slices.SortFunc(es, func(a, b trEntry) int {
			if c := cmpInt(int64(a.str), int64(b.str)); c != 0 {
				return c
			}
			return cmpInt(strs[a.str].translations()[a.tr].id(base), strs[b.str].translations()[b.tr].id(base))
		})
	}
	return out, nil
}

// residentQuery compiles src for the snapshot's objects in context
// ctxName (nil for an empty query), from the check of ctx's request
// (checkQuery); ok is false when it has errors.
func (s *Server) residentQuery(ctx context.Context, p *Project, ctxName, src string) (*eval.Program, bool, error) {
	if strings.TrimSpace(src) == "" {
		return nil, true, nil
	}
	if s.resident.cat == nil {
		return nil, false, nil
	}
	env, err := s.env(p, ctxName)
	if err != nil {
		return nil, false, err
	}
	prog, err := checkQuery(ctx, env, src).resident(s.resident.cat)
	return prog, err == nil, nil
}

// residentTranslationPage finds the strings of a translations list page
// (in string order, ascending or descending) and their total from p's
// snapshot: the strings that have a translation in lang that the query
// keeps; tids are the translations in lang filed under the page's
// strings (the rows the database reads are among them). ok is false
// when the database must find them (no snapshot, keyset paging, filter
// parameters, a query the snapshot cannot run, a request past its
// deadline). The page's translations and the choice among them are the
// database's either way.
func (s *Server) residentTranslationPage(ctx context.Context, p *Project, params listParams, flt listFilters, lang string, desc bool) (page, tids []int64, total int64, sn *snapshot, ok bool) {
	if params.keyset || len(flt.root) > 0 || len(flt.strs) > 0 || len(flt.stringIDs) > 0 {
		return nil, nil, 0, nil, false
	}
	if sn = s.resident.get(p); sn == nil || sn.trs == nil {
		return nil, nil, 0, nil, false
	}
	q, ok, err := s.residentQuery(ctx, p, croql.Translations, params.croql)
	if err != nil || !ok {
		return nil, nil, 0, nil, false
	}
	match, ok := residentFunc[resTranslation](q)
	if !ok {
		return nil, nil, 0, nil, false
	}
	es, heavy := sn.trs[lang], sn.heavy[croql.Strings]
	end := params.offset + params.limit
	var n int64
	last := -1
	for i := range es {
		if i&(checkEvery-1) == 0 && ctx.Err() != nil {
			return nil, nil, 0, nil, false
		}
		e := es[i]
		if desc {
			e = es[len(es)-1-i]
		}
		if int(e.str) == last {
			continue // the string is in already
		}
		_, tr := sn.at(e)
		if match != nil {
			hit := false
			if heavy.has(int(e.str)) {
				if hit, err = q.MatchContext(ctx, tr); err != nil {
					return nil, nil, 0, nil, false
				}
			} else {
				hit = match(tr)
			}
			if !hit {
				continue
			}
		}
		if n >= params.offset && n < end {
			page = append(page, sn.ids[e.str])
		}
		n++
		last = int(e.str)
		if n >= end && !params.withTotal {
			break
		}
	}
	for _, sid := range page {
		i, _ := slices.BinarySearchFunc(es, sid, func(e trEntry, sid int64) int { return cmpInt(sn.ids[e.str], sid) })
		for ; i < len(es) && sn.ids[es[i].str] == sid; i++ {
			_, tr := sn.at(es[i])
			tids = append(tids, tr.id(sn.trBase))
		}
	}
	return page, tids, n, sn, true
}

// checkEvery is how many objects a walk of the snapshot evaluates between
// two looks at the request's context (a power of two).
const checkEvery = 256

// residentFunc is prog as a func on *T (nil for a nil prog: every object
// matches); ok is false when prog does not run on T.
func residentFunc[T any](prog *eval.Program) (match func(*T) bool, ok bool) {
	if prog == nil {
		return nil, true
	}
	t, err := eval.Bind[T](prog)
	if err != nil {
		return nil, false
	}
	return t.Func(), true
}

func newResidents(max int64) *residents {
	cat, _ := residentCatalog() // tested: it fails only on a type out of step with the schema
	return &residents{max: max, pageVisits: DefaultResidentPageVisits, snaps: map[int64]*snapshot{}, states: map[int64]residentState{}, cat: cat}
}

// get returns p's snapshot when it describes p as it is now.
func (rs *residents) get(p *Project) *snapshot {
	if rs == nil || rs.max <= 0 {
		return nil
	}
	rs.mu.Lock()
	sn := rs.snaps[p.ID]
	rs.mu.Unlock()
	if sn == nil || sn.version != p.version.Load() {
		return nil
	}
	return sn
}

// BuildResident builds the resident snapshot of every project that has a
// Source and fits the budget left (Config.ResidentMaxBytes), in id order,
// and reports how many it holds. A project written to since its load is
// not built: its Source no longer describes it. Requests are answered by
// the database meanwhile, and for every project left out. Each project's
// outcome is what /readyz reports.
func (s *Server) BuildResident(ctx context.Context) (int, error) {
	return s.buildResident(ctx, nil)
}

// buildResident is BuildResident calling report with each project's
// outcome as it is known.
func (s *Server) buildResident(ctx context.Context, report func(*Project, residentState)) (int, error) {
	rs := s.resident
	if rs == nil || rs.max <= 0 {
		return 0, nil
	}
	n := 0
	for _, p := range s.cfg.Storage.Projects() {
		if !p.hasSource() {
			continue
		}
		st, err := rs.build(ctx, p)
		if err != nil {
			st = residentState{why: "its snapshot could not be built: " + err.Error()}
		}
		rs.mu.Lock()
		rs.states[p.ID] = st
		rs.mu.Unlock()
		if report != nil {
			report(p, st)
		}
		if err != nil {
			return n, fmt.Errorf("server: resident snapshot of project %d: %w", p.ID, err)
		}
		if st.resident {
			n++
		}
	}
	if n > 0 {
		// Reading the files left garbage several times the snapshots'
		// size: give its pages back to the system now rather than when
		// the scavenger gets to them.
		debug.FreeOSMemory()
	}
	return n, nil
}

// residentState is how a project is served once its snapshot was tried:
// resident (bytes of it), or by the database and why.
type residentState struct {
	resident bool
	bytes    int64
	why      string
}

// build reads p's objects and keeps them when they fit; the state says
// whether they did.
func (rs *residents) build(ctx context.Context, p *Project) (residentState, error) {
	version := p.version.Load()
	rs.mu.Lock()
	left := rs.max - rs.used
	if old := rs.snaps[p.ID]; old != nil {
		left += old.bytes
	}
	rs.mu.Unlock()
	switch {
	case version != 0:
		return residentState{why: "it was written to since its load"}, nil
	case p.SourceSize > left:
		return residentState{why: fmt.Sprintf("its file (%d MB) is larger than the snapshot budget left (%d MB)", p.SourceSize>>20, left>>20)}, nil
	}
	data, err := p.read(ctx, left)
	if errors.Is(err, ErrOverBudget) {
		return residentState{why: fmt.Sprintf("its objects pass the snapshot budget left (%d MB) while read", left>>20)}, nil
	}
	if errors.Is(err, errNarrow) {
		return residentState{why: err.Error()}, nil
	}
	if err != nil {
		return residentState{}, err
	}
	sn, err := newSnapshot(data, version)
	if err != nil {
		return residentState{}, err
	}
	rs.mu.Lock()
	defer rs.mu.Unlock()
	if old := rs.snaps[p.ID]; old != nil {
		rs.used -= old.bytes
		delete(rs.snaps, p.ID)
	}
	if p.version.Load() != version {
		return residentState{why: "it was written to while its snapshot was built"}, nil
	}
	if rs.used+sn.bytes > rs.max {
		return residentState{why: fmt.Sprintf("its snapshot (%d MB) is larger than the budget left (%d MB)", sn.bytes>>20, (rs.max-rs.used)>>20)}, nil
	}
	rs.used += sn.bytes
	rs.snaps[p.ID] = sn
	return residentState{resident: true, bytes: sn.bytes}, nil
}

// newSnapshot holds data's objects, sorted by id, and its translations by
// language, and their bytes: data's and those of the translations'
// index.
func newSnapshot(data *residentData, version int64) (*snapshot, error) {
	sn := &snapshot{version: version, strings: data.strings, ids: data.ids, tm: data.tm, terms: data.terms, heavy: map[string]bitset{},
		trBase: data.trBase}
	sortByID(sn.strings, func(i int) int64 { return sn.ids[i] }, sn.ids)
	sortByID(sn.tm, func(i int) int64 { return sn.tm[i].ID }, nil)
	sortByID(sn.terms, func(i int) int64 { return sn.terms[i].ID }, nil)
	var err error
	if sn.trs, err = residentTranslations(sn.strings, sn.trBase); err != nil {
		return nil, err
	}
	sn.heavy[croql.Strings] = heavyOf(sn.strings, heavyString)
	sn.heavy[croql.TM] = heavyOf(sn.tm, heavySegment)
	sn.heavy[croql.Glossary] = heavyOf(sn.terms, heavyTerm)
	sn.bytes = data.bytes
	for _, b := range sn.heavy {
		sn.bytes += sizeOf[uint64](len(b))
	}
	for _, es := range sn.trs {
		sn.bytes += sizeOf[trEntry](cap(es))
	}
	return sn, nil
}

// sortByID sorts objs by id (id(i) is the id of objs[i]), stably, unless
// they are sorted already; ids, when not nil, are their ids, sorted
// with them.
func sortByID[T any](objs []T, id func(i int) int64, ids []int64) {
	sorted := true
	for i := 1; i < len(objs) && sorted; i++ {
		sorted = id(i-1) <= id(i)
	}
	if sorted {
		return
	}
	idx := make([]int, len(objs))
	keys := make([]int64, len(objs))
	for i := range idx {
		idx[i], keys[i] = i, id(i)
	}
	slices.SortStableFunc(idx, func(a, b int) int { return cmpInt(keys[a], keys[b]) })
	out := make([]T, len(objs))
	for i, j := range idx {
		out[i] = objs[j]
	}
	copy(objs, out)
	if ids != nil {
		for i, j := range idx {
			ids[i] = keys[j]
		}
	}
}

func cmpInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// ResidentBytes reports the estimated memory of project id's resident
// snapshot (0 when it has none).
func (s *Server) ResidentBytes(id int64) int64 {
	p, ok := s.cfg.Storage.Project(id)
	if !ok {
		return 0
	}
	if sn := s.resident.get(p); sn != nil {
		return sn.bytes
	}
	return 0
}

// deepSize estimates the bytes v holds: its own size and what its
// pointers, slices (their capacity), strings and maps reach, each
// allocation once.
func deepSize(v reflect.Value, seen map[uintptr]bool) int64 {
	if !v.IsValid() {
		return 0
	}
	size := int64(v.Type().Size())
	return size + deepRefs(v, seen)
}

// deepRefs is what v reaches beyond its own size.
func deepRefs(v reflect.Value, seen map[uintptr]bool) int64 {
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() || seen[v.Pointer()] {
			return 0
		}
		seen[v.Pointer()] = true
		return deepSize(v.Elem(), seen)
	case reflect.Interface:
		if v.IsNil() {
			return 0
		}
		e := v.Elem()
		if e.Kind() == reflect.Pointer {
			return deepRefs(e, seen)
		}
		return deepSize(e, seen)
	case reflect.String:
		n := v.Len()
		if n == 0 {
			return 0
		}
		p := uintptr(unsafe.Pointer(unsafe.StringData(v.String())))
		if seen[p] {
			return 0
		}
		seen[p] = true
		return int64(n)
	case reflect.Slice:
		if v.IsNil() || v.Cap() == 0 {
			return 0
		}
		p := v.Pointer()
		if seen[p] {
			return 0
		}
		seen[p] = true
		n := int64(v.Cap()) * int64(v.Type().Elem().Size())
		for i := range v.Len() {
			n += deepRefs(v.Index(i), seen)
		}
		return n
	case reflect.Array:
		var n int64
		for i := range v.Len() {
			n += deepRefs(v.Index(i), seen)
		}
		return n
	case reflect.Struct:
		var n int64
		for i := range v.NumField() {
			n += deepRefs(v.Field(i), seen)
		}
		return n
	case reflect.Map:
		if v.IsNil() || seen[v.Pointer()] {
			return 0
		}
		seen[v.Pointer()] = true
		// Buckets: about the key and value sizes plus a word per entry.
		t := v.Type()
		n := int64(v.Len()) * int64(t.Key().Size()+t.Elem().Size()+8)
		it := v.MapRange()
		for it.Next() {
			n += deepRefs(it.Key(), seen) + deepRefs(it.Value(), seen)
		}
		return n
	}
	return 0
}

// residentRows is the strategy of a list of rows answered from the
// resident snapshot: the evaluator walks the context's objects in id
// order (stopping at the end of the page when no total is asked for) and
// the page's rows are read from the database by key and rendered as on
// the SQL path. Where the snapshot cannot answer after all (an evaluation
// error the database reports in its own words, a first page the
// evaluator has not found in its first pageVisits objects and the
// database finds by an index, a project changed under the snapshot), the
// SQL strategy sql answers.
type residentRows struct {
	sn *snapshot
	// walk is the walk of the list's objects (residentWalk).
	walk func(ctx context.Context, s *Server, req *listRequest, pl *residentRows) (page []int64, total int64, fallback any, e *httpError)
	sql  *sqlRows
}

// residentWalk is the walk of the snapshot's objs with prog (nil: every
// object matches); id(i) is the id of objs[i].
func residentWalk[T any](objs []T, heavy bitset, prog *eval.Program, id func(i int) int64) (func(context.Context, *Server, *listRequest, *residentRows) ([]int64, int64, any, *httpError), bool) {
	match, ok := residentFunc[T](prog)
	if !ok {
		return nil, false
	}
	w := walker[T]{objs: objs, heavy: heavy, prog: prog, match: match, id: id}
	return w.walk, true
}

// walker walks a context's objects: objs, heavy the ones matched under
// the request's deadline, prog the query (nil: every object matches) and
// match its func, id(i) the id of objs[i].
type walker[T any] struct {
	objs  []T
	heavy bitset
	prog  *eval.Program
	match func(*T) bool
	id    func(i int) int64
}

func (pl *residentRows) run(s *Server, req *listRequest) (any, *httpError) {
	ctx, cancel := s.timeout(req)
	defer cancel()
	page, total, fallback, e := pl.walk(ctx, s, req, pl)
	if e != nil || fallback != nil {
		return fallback, e
	}
	if page == nil {
		return pl.sql.run(s, req)
	}
	rows := []any{}
	err := s.cfg.Storage.ReadTx(ctx, req.p, func(tx *sql.Tx) error {
		if len(page) == 0 {
			return nil
		}
		in, args := compile.KeyList(req.p.Dialect(), nil, page)
		var err error
		rows, err = s.page(ctx, tx, req.p, req.res, []string{req.res.key + " IN (" + in + ")"}, args,
			listParams{limit: int64(len(page))})
		return err
	})
	if err != nil {
		return nil, s.dbError(req.r, ctx, req.params.croql, err)
	}
	if len(rows) != len(page) || pl.sn.version != req.p.version.Load() {
		// The project changed under the snapshot: the database answers.
		return pl.sql.run(s, req)
	}
	s.resident.served.Add(1)
	return listBody(rows, req.params, total), nil
}

// walk finds the page's ids among the objects, and the count of every
// match when a total is asked. page is nil when the database answers
// instead; fallback, when not nil, is the database's answer by the
// whole-set forms (indexedWhole).
func (w walker[T]) walk(ctx context.Context, s *Server, req *listRequest, pl *residentRows) (page []int64, total int64, fallback any, e *httpError) {
	objs, match, id := w.objs, w.match, w.id
	params := req.params
	end := params.offset + params.limit
	page = []int64{}
	for i := range objs {
		if i&(checkEvery-1) == 0 && ctx.Err() != nil {
			return nil, 0, nil, s.dbError(req.r, ctx, params.croql, ctx.Err())
		}
		if i == s.resident.pageVisits && total < end && !params.withTotal && params.offset == 0 {
			if s.indexed(ctx, req.p, req.res, pl.sql.where, pl.sql.args) {
				return nil, 0, nil, nil
			}
			if out, ok, e := s.indexedWhole(ctx, req, pl.sql.where); ok {
				return nil, 0, out, e
			}
		}
		if match != nil {
			hit := false
			if w.heavy.has(i) {
				var err error
				if hit, err = w.prog.MatchContext(ctx, &objs[i]); err != nil {
					return nil, 0, nil, s.dbError(req.r, ctx, params.croql, ctx.Err())
				}
			} else {
				hit = match(&objs[i])
			}
			if !hit {
				continue
			}
		}
		if total >= params.offset && total < end {
			page = append(page, id(i))
		}
		total++
		if total >= end && !params.withTotal {
			break
		}
	}
	return page, total, nil, nil
}

// dataSources sets each project's Source to the data it was loaded from
// (project i from data[i]).
func dataSources(s *Storage, err error) func([]*schema.Project) (*Storage, error) {
	return func(data []*schema.Project) (*Storage, error) {
		if err != nil {
			return nil, err
		}
		for i, p := range s.Projects() {
			if i < len(data) {
				d := data[i]
				p.Source = func(context.Context, int64) (*schema.Project, error) { return d, nil }
			}
		}
		return s, nil
	}
}

// fileSources sets each project's SourceFile to the file it was streamed
// from (project i from files[i]).
func fileSources(s *Storage, err error) func([]string) (*Storage, error) {
	return func(files []string) (*Storage, error) {
		if err != nil {
			return nil, err
		}
		for i, p := range s.Projects() {
			if i >= len(files) {
				break
			}
			name := files[i]
			if fi, err := os.Stat(name); err == nil {
				p.SourceSize = fi.Size()
			}
			p.SourceFile = name
		}
		return s, nil
	}
}

// hasSource reports whether p's snapshot can be built.
func (p *Project) hasSource() bool { return p.Source != nil || p.SourceFile != "" }

// read reads p's objects into the snapshot's compact layout within max
// bytes: from its SourceFile when it has one, else from its Source.
func (p *Project) read(ctx context.Context, max int64) (*residentData, error) {
	if p.SourceFile != "" {
		f, err := os.Open(p.SourceFile)
		if err != nil {
			return nil, fmt.Errorf("server: %w", err)
		}
		defer f.Close()
		return readWithin(ctx, f, max)
	}
	data, err := p.Source(ctx, max)
	if err != nil {
		return nil, err
	}
	return compactWithin(ctx, data, max)
}

// FileSource is a Project.Source that reads the project file name (JSON
// or NDJSON) whole, as schema.ReadProjectWith does, and stops with
// ErrOverBudget as soon as the objects read so far take more than max
// bytes (max ≤ 0: no bound). Project.SourceFile reads a file straight
// into the snapshot's layout, which takes less memory while it builds.
func FileSource(name string) func(ctx context.Context, max int64) (*schema.Project, error) {
	return func(ctx context.Context, max int64) (*schema.Project, error) {
		f, err := os.Open(name)
		if err != nil {
			return nil, fmt.Errorf("server: %w", err)
		}
		defer f.Close()
		var p *schema.Project
		var size int64
		seen := map[uintptr]bool{}
		err = schema.Stream(ctx, f, schema.ReadOptions{}, schema.Handler{
			Head: func(h *schema.Project) (func(*schema.Item) error, error) {
				p, size = h, deepSize(reflect.ValueOf(h), seen)
				return nil, nil
			},
			Emit: func(items []*schema.Item) error {
				for _, o := range items {
					size += deepSize(reflect.ValueOf(o.Value), seen)
					appendObject(p, o.Value)
				}
				if max > 0 && size > max {
					return ErrOverBudget
				}
				return nil
			},
		})
		if errors.Is(err, ErrOverBudget) {
			return nil, ErrOverBudget
		}
		if err != nil {
			return nil, fmt.Errorf("server: %s: %w", name, err)
		}
		return p, nil
	}
}

// appendObject appends o, an object of a project file, to p's.
func appendObject(p *schema.Project, o any) {
	switch v := o.(type) {
	case *schema.SourceString:
		p.Strings = append(p.Strings, *v)
	case *schema.TMSegment:
		p.TMSegments = append(p.TMSegments, *v)
	case *schema.GlossaryTerm:
		p.GlossaryTerms = append(p.GlossaryTerms, *v)
	case *schema.GlossaryConcept:
		p.GlossaryConcepts = append(p.GlossaryConcepts, *v)
	}
}

// ErrOverBudget is what a project's Source returns when the objects it
// has read pass the budget it was given: the database serves the project.
var ErrOverBudget = errors.New("server: the project's objects pass the resident snapshot budget")

// readWithin reads a project file whole, as schema.ReadProjectWith does,
// into the snapshot's compact layout (newCompactor) as it reads, and
// stops with ErrOverBudget as soon as the objects read so far take more
// than max bytes (the head's deepSize, what the compactor has allocated
// and the maps it builds with; max ≤ 0: no bound). A file larger than
// what the server may hold is never held whole.
func readWithin(ctx context.Context, r io.Reader, max int64) (*residentData, error) {
	var head int64
	c := newCompactor()
	err := schema.Stream(ctx, r, schema.ReadOptions{}, schema.Handler{
		Head: func(h *schema.Project) (func(*schema.Item) error, error) {
			head = deepSize(reflect.ValueOf(h), map[uintptr]bool{})
			return nil, nil
		},
		Emit: func(items []*schema.Item) error {
			for _, o := range items {
				c.add(o.Value)
			}
			if c.narrowErr != nil {
				return c.narrowErr
			}
			if max > 0 && head+c.bytes+c.transient > max {
				return ErrOverBudget
			}
			return nil
		},
	})
	if err != nil {
		if errors.Is(err, ErrOverBudget) {
			return nil, ErrOverBudget
		}
		return nil, err
	}
	return c.data(), nil
}

// compactWithin copies data's objects into the snapshot's compact layout,
// as readWithin reads a file, within max bytes.
func compactWithin(ctx context.Context, data *schema.Project, max int64) (*residentData, error) {
	c := newCompactor()
	n := 0
	check := func() error {
		if n++; n%256 != 0 {
			return nil
		}
		if max > 0 && c.bytes+c.transient > max {
			return ErrOverBudget
		}
		if c.narrowErr != nil {
			return c.narrowErr
		}
		return ctx.Err()
	}
	for i := range data.Strings {
		c.add(&data.Strings[i])
		if err := check(); err != nil {
			return nil, err
		}
	}
	for i := range data.TMSegments {
		c.add(&data.TMSegments[i])
	}
	for i := range data.GlossaryTerms {
		c.add(&data.GlossaryTerms[i])
	}
	if max > 0 && c.bytes+c.transient > max {
		return nil, ErrOverBudget
	}
	if c.narrowErr != nil {
		return nil, c.narrowErr
	}
	return c.data(), nil
}

// residentInBackground builds the resident snapshots while the server
// already answers (from the database until they are ready) and says on
// logw how each project is served; the channel closes when it is done.
func residentInBackground(ctx context.Context, s *Server, logw io.Writer) <-chan struct{} {
	done := make(chan struct{})
	if s.resident == nil || s.resident.max <= 0 {
		fmt.Fprintf(logw, "croql serve: --resident-max-bytes 0: the database serves every project\n")
		close(done)
		return done
	}
	for _, p := range s.cfg.Storage.Projects() {
		if !p.hasSource() {
			fmt.Fprintf(logw, "croql serve: project %d: served by the database (no data file to hold resident)\n", p.ID)
		}
	}
	go func() {
		defer close(done)
		n, err := s.buildResident(ctx, func(p *Project, st residentState) {
			if st.resident {
				fmt.Fprintf(logw, "croql serve: project %d: resident in memory (%d MB)\n", p.ID, st.bytes>>20)
			} else {
				fmt.Fprintf(logw, "croql serve: project %d: served by the database (%s)\n", p.ID, st.why)
			}
		})
		if err != nil {
			fmt.Fprintf(logw, "croql serve: resident snapshot: %v; the database answers\n", err)
			return
		}
		s.resident.mu.Lock()
		used := s.resident.used
		s.resident.mu.Unlock()
		fmt.Fprintf(logw, "croql serve: %d project(s) resident in memory (%d MB of --resident-max-bytes %d MB)\n", n, used>>20, s.resident.max>>20)
	}()
	return done
}

// readiness reports whether every project is resident or known to be
// served by the database, and how many are served each way: resident,
// by the database, or pending while their snapshot is being built.
func (s *Server) readiness() (ready bool, counts map[string]int) {
	rs := s.resident
	counts = map[string]int{"resident": 0, "database": 0, "pending": 0}
	for _, p := range s.cfg.Storage.Projects() {
		how := "database"
		if rs != nil && rs.max > 0 && p.hasSource() {
			rs.mu.Lock()
			st, ok := rs.states[p.ID]
			rs.mu.Unlock()
			switch {
			case !ok:
				how = "pending"
			case st.resident && rs.get(p) != nil:
				how = "resident"
			}
		}
		counts[how]++
	}
	return counts["pending"] == 0, counts
}

// readyz answers 200 once every project is resident or known to be
// served by the database, 503 before. The body counts the projects each
// way (it needs no token, so it names none; the log names them).
func (s *Server) readyz(w http.ResponseWriter, _ *http.Request) {
	ready, counts := s.readiness()
	body := map[string]any{"status": "ready", "projects": counts}
	status := http.StatusOK
	if !ready {
		status, body["status"] = http.StatusServiceUnavailable, "starting"
	}
	WriteJSON(w, status, body)
}

// indexedWhole answers a first page from the database by the whole-set
// forms of its condition when they differ from the page's where and the
// engine's plan of them finds the rows by index searches alone (indexed);
// ok is false otherwise.
func (s *Server) indexedWhole(ctx context.Context, req *listRequest, where []string) (any, bool, *httpError) {
	if !readsPlans(ctx, req.p) {
		return nil, false, nil
	}
	ww, wargs, e := s.rowsWhere(req, compile.WholeSet)
	if e != nil || slices.Equal(ww, where) || !s.indexed(ctx, req.p, req.res, ww, wargs) {
		return nil, false, nil
	}
	var rows []any
	err := s.cfg.Storage.ReadTx(ctx, req.p, func(tx *sql.Tx) error {
		var err error
		rows, err = s.page(ctx, tx, req.p, req.res, ww, wargs, req.params)
		return err
	})
	if err != nil {
		return nil, true, s.dbError(req.r, ctx, req.params.croql, err)
	}
	return listBody(rows, req.params, 0), true, nil
}

// indexed reports whether the database finds the rows of where through an
// index on the list's table rather than by reading it in key order: a few
// rows that the evaluator would have to look for among all the objects.
// The plan is read where the engine answers EXPLAIN QUERY PLAN (SQLite's
// form, readsPlans): the root alias searched through an index, or by
// rowid from a subquery's list, and no table scanned anywhere (a list
// built by index searches only); on the other engines the evaluator goes
// on.
func (s *Server) indexed(ctx context.Context, p *Project, res *resource, where []string, args []any) bool {
	if len(where) == 0 || !readsPlans(ctx, p) {
		return false
	}
	q := "EXPLAIN QUERY PLAN SELECT " + res.key + " FROM " + res.table + whereClause(where) + " ORDER BY " + res.key
	found, scans := false, false
	err := s.cfg.Storage.ReadTx(ctx, p, func(tx *sql.Tx) error {
		rows, err := tx.QueryContext(ctx, q, args...)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var id, parent, unused int64
			var detail string
			if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
				return err
			}
			switch {
			case strings.HasPrefix(detail, "SCAN "):
				// A table read whole, the list's or a subquery's.
				scans = true
			case parent == 0 && (strings.HasPrefix(detail, "SEARCH "+alias+" USING INDEX ") ||
				strings.HasPrefix(detail, "SEARCH "+alias+" USING COVERING INDEX ") ||
				strings.HasPrefix(detail, "SEARCH "+alias+" USING INTEGER PRIMARY KEY (rowid=?)")):
				found = true
			}
		}
		return rows.Err()
	})
	return err == nil && found && !scans
}

// explainQueryPlan is the statement whose answer readsPlans asks for.
const explainQueryPlan = "EXPLAIN QUERY PLAN SELECT 1"

// readsPlans reports whether p's engine answers EXPLAIN QUERY PLAN with
// the plan rows indexed reads (asked once per project).
func readsPlans(ctx context.Context, p *Project) bool { return p.runs(ctx, explainQueryPlan) }
