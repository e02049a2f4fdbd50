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
	"unicode/utf8"

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
	// (the largest over the tables that have it); longest to the length
	// of its longest value (likewise).
	text, longest map[string]float64
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
		st = &projectStats{objects: map[string]int64{}, text: map[string]float64{}, longest: map[string]float64{}}
	}
	st.writes = w
	return st
}

// readStats counts the root objects of each context and reads the
// average and the longest length of their text fields, in one read-only
// transaction.
func (s *Server) readStats(ctx context.Context, p *Project) (*projectStats, error) {
	st := &projectStats{objects: map[string]int64{}, text: map[string]float64{}, longest: map[string]float64{}, known: true}
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
				cols = append(cols, "AVG("+length+"("+d.Quote(col)+"))", "MAX("+length+"("+d.Quote(col)+"))")
			}
			var n int64
			avgs := make([]sql.NullFloat64, len(fields))
			maxes := make([]sql.NullFloat64, len(fields))
			vals := []any{&n} // COUNT(*), then each field's AVG and MAX
			for i := range avgs {
				vals = append(vals, &avgs[i], &maxes[i])
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
				if maxes[i].Valid {
					st.longest[f] = max(st.longest[f], maxes[i].Float64)
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

// DefaultMaxCallCost is the work one call of a text operator may take by
// default (Config.MaxCallCost): about half a second of character
// comparisons at 10^9 a second, the rate of PostgreSQL's strpos and
// MariaDB's LOCATE on their worst inputs.
const DefaultMaxCallCost = 5e8

// callCost is the work of the dearest call of a text operator in q on a
// project of statistics st, from per-row upper bounds: a `contains`
// compares up to every position of the text it searches with all of the
// text it looks for on an engine whose substring search is quadratic
// (PostgreSQL's strpos, MariaDB's LOCATE; SQLite's croql_contains is
// linear), a comparison reads both texts; a field's text is as long as
// the longest value of the field in the project. at is the operator's
// span, and text and sub the lengths it was priced from.
func callCost(q *typecheck.Query, st *projectStats, quadratic bool) (worst float64, at diag.Span, text, sub float64) {
	if q == nil {
		return 0, diag.Span{}, 0, 0
	}
	typecheck.Inspect(q.Root, func(n typecheck.Node) {
		var c, a, b float64
		var sp diag.Span
		switch n := n.(type) {
		case *typecheck.Contains:
			a, b, sp = st.longestOf(n.X), st.longestOf(n.Sub), n.Sp
			c = a + b
			if quadratic {
				c = a * max(1, b)
			}
		case *typecheck.Compare:
			if n.Operand == schema.String {
				a, b, sp = st.longestOf(n.X), st.longestOf(n.Y), n.Sp
				c = a + b
			}
		case *typecheck.Between:
			if n.Operand == schema.String {
				a, b, sp = st.longestOf(n.X), st.longestOf(n.Lo)+st.longestOf(n.Hi), n.Sp
				c = a + b
			}
		}
		if c > worst {
			worst, at, text, sub = c, sp, a, b
		}
	})
	return worst, at, text, sub
}

// longestOf is the longest text the node n may be on the project: a
// literal's own length, a text field's longest value, and for anything
// else (a text computed from others) the longest text of the project.
func (st *projectStats) longestOf(n typecheck.Node) float64 {
	var f *schema.Field
	switch n := n.(type) {
	case *typecheck.Const:
		return float64(utf8.RuneCountInString(n.S))
	case *typecheck.Field:
		f = n.F
	case *typecheck.Member:
		f = n.F
	}
	if f != nil {
		if f.Type.Kind != schema.String { // a language code
			return 0
		}
		if l, ok := st.longest[f.Name]; ok {
			return l
		}
	}
	longest := 0.0
	for _, l := range st.longest {
		longest = max(longest, l)
	}
	return longest
}

// tooLongCall is the 400 of a request whose dearest text operator could
// take more than budget in one call: the call cannot be interrupted on
// the engine, so its deadline would not stop it.
func tooLongCall(engine string, cost, budget, text, sub float64) string {
	return fmt.Sprintf("one text comparison here could take about %s steps in a single call (texts of up to %s and %s characters), which %s cannot interrupt once started, so the request's deadline would not stop it: over this server's budget of %s per call (croql serve --max-call-cost); compare or search for shorter texts",
		typecheck.Approx(cost), typecheck.Approx(text), typecheck.Approx(sub), engine, typecheck.Approx(budget))
}

// statsTimeout bounds reading a project's statistics.
const statsTimeout = time.Minute
