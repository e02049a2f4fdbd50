package server

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"log/slog"
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
// (--resident-max-bytes): about 300,000 strings of the demo project read
// from a file (the process's peak while it builds is about 2.5 times the
// snapshot).
const DefaultResidentMaxBytes = 512 << 20

// residentContexts are the lists the snapshot answers: one object per
// row, keyed by the object's id. The translations list picks one
// translation per string among the matches (see docs/serve.md), which the
// database does: the snapshot holds its translations apart (snapshot.trs).
var residentContexts = []string{croql.Strings, croql.TM, croql.Glossary}

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
}

// snapshot is one project's resident objects.
type snapshot struct {
	// version is the project's write version the snapshot describes.
	version int64
	bytes   int64
	// objs are the objects of each context in ascending id order; ids
	// their ids.
	objs map[string][]any
	ids  map[string][]int64
	// trs are the translations of each language, as the database holds
	// them, for the translations list (residentTranslationPage).
	trs map[string][]trEntry
}

// trEntry is a translation with the string the translations list files
// it under, as the database's stringId does: among the strings that list
// it, a master before a duplicate, then the lowest id.
type trEntry struct {
	obj      *schema.Translation
	stringID int64
}

// residentTranslations sorts data's translations by language, each
// language's in string id then translation id order. A translation
// listed by several strings is the first one listed, as the loader
// stores it.
func residentTranslations(data *schema.Project) map[string][]trEntry {
	type owner struct {
		dup bool
		id  int64
		obj *schema.Translation
	}
	owners := map[int64]owner{}
	var order []int64
	for i := range data.Strings {
		st := &data.Strings[i]
		for j := range st.Translations {
			t := &st.Translations[j]
			o, ok := owners[t.ID]
			switch {
			case !ok:
				owners[t.ID] = owner{st.IsDuplicate, st.ID, t}
				order = append(order, t.ID)
			case o.dup && !st.IsDuplicate, o.dup == st.IsDuplicate && st.ID < o.id:
				o.dup, o.id = st.IsDuplicate, st.ID
				owners[t.ID] = o
			}
		}
	}
	out := map[string][]trEntry{}
	for _, id := range order {
		o := owners[id]
		out[o.obj.Language] = append(out[o.obj.Language], trEntry{obj: o.obj, stringID: o.id})
	}
	for _, es := range out {
		slices.SortFunc(es, func(a, b trEntry) int {
			if c := cmpInt(a.stringID, b.stringID); c != 0 {
				return c
			}
			return cmpInt(a.obj.ID, b.obj.ID)
		})
	}
	return out
}

// residentQuery compiles src for the evaluator in context ctxName (nil
// for an empty query), from the check of ctx's request (checkQuery); ok
// is false when it has errors.
func (s *Server) residentQuery(ctx context.Context, p *Project, ctxName, src string) (*croql.Query, bool, error) {
	if strings.TrimSpace(src) == "" {
		return nil, true, nil
	}
	env, err := s.env(p, ctxName)
	if err != nil {
		return nil, false, err
	}
	q, diags := checkQuery(ctx, env, src).program()
	return q, !diags.HasErrors(), nil
}

// residentTranslationPage finds the strings of a translations list page
// (in string order, ascending or descending) and their total from p's
// snapshot: the strings that have a translation in lang that the query
// keeps; tids are the translations in lang filed under the page's
// strings (the rows the database reads are among them). ok is false
// when the database must find them (no snapshot,
// keyset paging, filter parameters, an evaluation error). The page's
// translations and the choice among them are the database's either way.
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
	es := sn.trs[lang]
	end := params.offset + params.limit
	var n, last int64
	for i := range es {
		e := &es[i]
		if desc {
			e = &es[len(es)-1-i]
		}
		if n > 0 && e.stringID == last {
			continue // the string is in already
		}
		if q != nil {
			hit, err := q.Program().MatchContext(ctx, e.obj)
			if err != nil {
				return nil, nil, 0, nil, false
			}
			if !hit {
				continue
			}
		}
		if n >= params.offset && n < end {
			page = append(page, e.stringID)
		}
		n++
		last = e.stringID
		if n >= end && !params.withTotal {
			break
		}
	}
	for _, sid := range page {
		i, _ := slices.BinarySearchFunc(es, sid, func(e trEntry, sid int64) int { return cmpInt(e.stringID, sid) })
		for ; i < len(es) && es[i].stringID == sid; i++ {
			tids = append(tids, es[i].obj.ID)
		}
	}
	return page, tids, n, sn, true
}

func newResidents(max int64) *residents {
	return &residents{max: max, pageVisits: DefaultResidentPageVisits, snaps: map[int64]*snapshot{}, states: map[int64]residentState{}}
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
		if p.Source == nil {
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
	data, err := p.Source(ctx, left)
	if errors.Is(err, ErrOverBudget) {
		return residentState{why: fmt.Sprintf("its objects pass the snapshot budget left (%d MB) while read", left>>20)}, nil
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

// newSnapshot holds data's objects of the resident contexts in id order,
// its translations by language, and their estimated bytes.
func newSnapshot(data *schema.Project, version int64) (*snapshot, error) {
	sn := &snapshot{version: version, objs: map[string][]any{}, ids: map[string][]int64{}}
	cat := schema.New()
	for _, name := range residentContexts {
		c, ok := cat.Context(name)
		if !ok {
			return nil, fmt.Errorf("no context %q", name)
		}
		objs := data.Objects(c)
		ids := make([]int64, len(objs))
		for i, o := range objs {
			ids[i], _ = schema.ObjectID(o)
		}
		if !slices.IsSorted(ids) {
			idx := make([]int, len(objs))
			for i := range idx {
				idx[i] = i
			}
			slices.SortStableFunc(idx, func(a, b int) int { return cmpInt(ids[a], ids[b]) })
			so, si := make([]any, len(objs)), make([]int64, len(objs))
			for i, j := range idx {
				so[i], si[i] = objs[j], ids[j]
			}
			objs, ids = so, si
		}
		sn.objs[name], sn.ids[name] = objs, ids
	}
	sn.trs = residentTranslations(data)
	ntr := 0
	for _, es := range sn.trs {
		ntr += len(es)
	}
	sn.bytes = compactBytes(data) + int64(len(sn.ids[croql.Strings])+len(sn.ids[croql.TM])+len(sn.ids[croql.Glossary]))*24 + int64(ntr)*int64(unsafe.Sizeof(trEntry{}))
	return sn, nil
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
	sn   *snapshot
	q    *croql.Query // nil for a blank query
	objs []any
	ids  []int64
	sql  *sqlRows
}

func (pl *residentRows) run(s *Server, req *listRequest) (any, *httpError) {
	ctx, cancel := s.timeout(req)
	defer cancel()
	page, total, fallback, e := pl.walk(ctx, s, req)
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

// walk finds the page's ids, and the count of every match when a total is
// asked. page is nil when the database answers instead; fallback, when
// not nil, is the database's answer by the whole-set forms
// (indexedWhole).
func (pl *residentRows) walk(ctx context.Context, s *Server, req *listRequest) (page []int64, total int64, fallback any, e *httpError) {
	params := req.params
	end := params.offset + params.limit
	page = []int64{}
	for i, o := range pl.objs {
		if i == s.resident.pageVisits && total < end && !params.withTotal && params.offset == 0 {
			if s.indexed(ctx, req.p, req.res, pl.sql.where, pl.sql.args) {
				return nil, 0, nil, nil
			}
			if out, ok, e := s.indexedWhole(ctx, req, pl.sql.where); ok {
				return nil, 0, out, e
			}
		}
		if pl.q != nil {
			hit, err := pl.q.Program().MatchContext(ctx, o)
			if err != nil {
				if ctx.Err() != nil {
					return nil, 0, nil, s.dbError(req.r, ctx, params.croql, ctx.Err())
				}
				s.log.LogAttrs(req.r.Context(), slog.LevelDebug, "resident evaluation failed; the database answers", slog.String("error", err.Error()))
				return nil, 0, nil, nil
			}
			if !hit {
				continue
			}
		}
		if total >= params.offset && total < end {
			page = append(page, pl.ids[i])
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
				p.Source = func(ctx context.Context, max int64) (*schema.Project, error) { return compactWithin(ctx, d, max) }
			}
		}
		return s, nil
	}
}

// fileSources sets each project's Source to a reading of the file it was
// streamed from (project i from files[i]), within its budget
// (readWithin).
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
			p.Source = FileSource(name)
		}
		return s, nil
	}
}

// FileSource is a Project.Source that reads the project file name (JSON
// or NDJSON) within its budget, as croql serve --data does.
func FileSource(name string) func(ctx context.Context, max int64) (*schema.Project, error) {
	return func(ctx context.Context, max int64) (*schema.Project, error) {
		f, err := os.Open(name)
		if err != nil {
			return nil, fmt.Errorf("server: %w", err)
		}
		defer f.Close()
		return readWithin(ctx, f, max)
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
func readWithin(ctx context.Context, r io.Reader, max int64) (*schema.Project, error) {
	var p *schema.Project
	var head int64
	c := newCompactor()
	err := schema.Stream(ctx, r, schema.ReadOptions{}, schema.Handler{
		Head: func(h *schema.Project) (func(*schema.Item) error, error) {
			p = h
			head = deepSize(reflect.ValueOf(h), map[uintptr]bool{})
			return nil, nil
		},
		Emit: func(items []*schema.Item) error {
			for _, o := range items {
				c.add(o.Value)
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
	return c.project(p), nil
}

// compactWithin copies data into the snapshot's compact layout, as
// readWithin reads a file, within max bytes.
func compactWithin(ctx context.Context, data *schema.Project, max int64) (*schema.Project, error) {
	head := *data
	head.Strings, head.TMSegments, head.GlossaryTerms, head.GlossaryConcepts = nil, nil, nil, nil
	size := deepSize(reflect.ValueOf(&head), map[uintptr]bool{})
	c := newCompactor()
	n := 0
	check := func() error {
		if n++; n%256 != 0 {
			return nil
		}
		if max > 0 && size+c.bytes+c.transient > max {
			return ErrOverBudget
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
	for i := range data.GlossaryConcepts {
		c.add(&data.GlossaryConcepts[i])
	}
	if max > 0 && size+c.bytes+c.transient > max {
		return nil, ErrOverBudget
	}
	return c.project(&head), nil
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
		if p.Source == nil {
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
		if rs != nil && rs.max > 0 && p.Source != nil {
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
