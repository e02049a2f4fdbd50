package server

import (
	"context"
	"database/sql"
	"fmt"
	"log/slog"
	"math"
	"strings"
	"sync"
	"time"

	"github.com/croql/croql"
	"github.com/croql/croql/diag"
	"github.com/croql/croql/schema"
	"github.com/croql/croql/typecheck"
)

// DefaultMaxRequestCost is the cost budget of one list request when
// Config.MaxRequestCost is 0: the estimate per object times the objects
// the request may visit. Every seed pattern of the language's corpus
// costs less on a project of 1,000,000 strings with 20 translations each
// (TestRequestBudgetAcceptsSeedPatterns); a three-deep nested `where` on
// such a project costs more.
const DefaultMaxRequestCost = 1e10

// contexts are the list contexts whose objects a request may visit.
var contexts = []string{croql.Strings, croql.Translations, croql.TM, croql.Glossary}

// projectStats are what the cost of a request on a project is estimated
// from: the number of root objects of each context and the average length
// of each text field, read from the project's database with one query per
// context's table, again after each write to the project.
type projectStats struct {
	// writes is the project's write count the stats were read at.
	writes int64
	// objects maps a context name to its number of root objects; known
	// is false when they could not be read (the request cost is then
	// the estimate per object).
	objects map[string]int64
	known   bool
	// text maps a text field's name to its average length in characters
	// (the largest over the tables that have it).
	text map[string]float64
}

// statsCache holds the stats of each project.
type statsCache struct {
	mu      sync.Mutex
	entries map[int64]*statsEntry
}

type statsEntry struct {
	mu         sync.Mutex
	stats      *projectStats
	refreshing bool
}

// stats returns p's statistics. The first call reads them (New calls it
// for every project); after a write to the project they are read again in
// the background while the previous ones still answer. A failed read is
// logged and leaves the counts unknown.
func (s *Server) stats(ctx context.Context, p *Project) *projectStats {
	s.statsCache.mu.Lock()
	if s.statsCache.entries == nil {
		s.statsCache.entries = map[int64]*statsEntry{}
	}
	e := s.statsCache.entries[p.ID]
	if e == nil {
		e = &statsEntry{}
		s.statsCache.entries[p.ID] = e
	}
	s.statsCache.mu.Unlock()
	e.mu.Lock()
	defer e.mu.Unlock()
	w := p.writes.Load()
	switch {
	case e.stats == nil:
		e.stats = s.readStatsAt(ctx, p, w)
	case e.stats.writes != w && !e.refreshing:
		e.refreshing = true
		go func() {
			st := s.readStatsAt(context.WithoutCancel(ctx), p, w)
			e.mu.Lock()
			defer e.mu.Unlock()
			e.stats, e.refreshing = st, false
		}()
	}
	return e.stats
}

// readStatsAt reads p's statistics at its write count w, within
// statsTimeout.
func (s *Server) readStatsAt(ctx context.Context, p *Project, w int64) *projectStats {
	ctx, cancel := context.WithTimeout(ctx, statsTimeout)
	defer cancel()
	st, err := s.readStats(ctx, p)
	if err != nil {
		s.log.LogAttrs(ctx, slog.LevelWarn, "reading the project's statistics; request costs are per object",
			slog.Int64("project", p.ID), slog.String("error", err.Error()))
		st = &projectStats{objects: map[string]int64{}, text: map[string]float64{}}
	}
	st.writes = w
	return st
}

// readStats counts the root objects of each context and averages the
// lengths of their text fields, in one read-only transaction.
func (s *Server) readStats(ctx context.Context, p *Project) (*projectStats, error) {
	st := &projectStats{objects: map[string]int64{}, text: map[string]float64{}, known: true}
	d := p.Dialect()
	// The length in characters: CHAR_LENGTH where the engine has it
	// (LENGTH counts bytes on MySQL), LENGTH otherwise (SQLite's counts
	// characters).
	length := "LENGTH"
	if p.runs(ctx, "SELECT CHAR_LENGTH('')") {
		length = "CHAR_LENGTH"
	}
	cat := s.mapping.Catalog()
	err := s.cfg.Storage.ReadTx(ctx, p, func(tx *sql.Tx) error {
		for _, name := range contexts {
			c, ok := cat.Context(name)
			if !ok {
				return fmt.Errorf("server: no context %q", name)
			}
			t, err := s.mapping.Table(c.Root)
			if err != nil {
				return err
			}
			cols := []string{"COUNT(*)"}
			var fields []string
			for _, f := range c.Root.Fields {
				col := t.Columns[f.Name]
				if f.Type.Kind != schema.String || col == "" {
					continue
				}
				fields = append(fields, f.Name)
				cols = append(cols, "AVG("+length+"("+d.Quote(col)+"))")
			}
			var n int64
			avgs := make([]sql.NullFloat64, len(fields))
			vals := []any{&n} // COUNT(*), then each field's AVG
			for i := range avgs {
				vals = append(vals, &avgs[i])
			}
			q := "SELECT " + strings.Join(cols, ", ") + " FROM " + d.Quote(t.Name)
			if err := tx.QueryRowContext(ctx, q).Scan(vals...); err != nil {
				return fmt.Errorf("server: reading the statistics of %s: %w", t.Name, err)
			}
			st.objects[name] = n
			for i, f := range fields {
				if avgs[i].Valid {
					st.text[f] = max(st.text[f], math.Ceil(avgs[i].Float64))
				}
			}
		}
		return nil
	})
	return st, err
}

// costModel is the model the project's queries are estimated with: the
// default collection sizes and the project's text lengths.
func (st *projectStats) costModel() typecheck.CostModel {
	m := typecheck.DefaultCostModel()
	m.TextLengths = st.text
	return m
}

// requestCost is the estimate of a request's work: the estimate per
// object of its query (at least one step: reading the object) times the
// objects of the context it may visit.
func requestCost(perObject float64, st *projectStats, ctxName string) (cost float64, objects int64) {
	objects = 1
	if st.known {
		objects = max(1, st.objects[ctxName])
	}
	return max(1, perObject) * float64(objects), objects
}

// requestEstimate is the estimated cost of a list request.
type requestEstimate struct {
	// perObject is the query's estimate per object, cost the request's,
	// objects the objects it may visit.
	perObject, cost float64
	objects         int64
	// q is the checked query (nil for a blank one), model the cost model
	// it was estimated with.
	q     *typecheck.Query
	model typecheck.CostModel
}

// tooCostly is the 400 of a request over the request budget: a croql
// diagnostic of rule too-costly naming the estimate and the budget, over
// the costly part of the query (the part that alone exceeds the budget
// per object, as the facade's budget check finds it).
func (e *requestEstimate) tooCostly(src string, budget float64, ctxName string) *httpError {
	what := map[string]string{croql.Strings: "strings", croql.Translations: "translations",
		croql.TM: "TM segments", croql.Glossary: "terms"}[ctxName]
	span := diag.Span{Start: 0, End: len(src)}
	hint := "the request budget bounds the estimate per object times the objects the request may visit (croql serve --max-request-cost); make the query cheaper per object: fewer nested `where`s, shorter `contains` texts"
	if e.q != nil {
		if d, over := e.q.CostError(e.model, budget/float64(e.objects)); over {
			span = d.Span
		}
	}
	d := diag.Errorf(diag.ClassLogic, typecheck.RuleTooCostly, span,
		"the request is too costly: about %s steps (%s per object × %d %s), over this server's request budget of %s",
		typecheck.Approx(e.cost), typecheck.Approx(e.perObject), e.objects, what, typecheck.Approx(budget)).
		WithHint("%s", hint)
	return croqlError(src, diag.List{d})
}

// statsTimeout bounds reading a project's statistics.
const statsTimeout = time.Minute
