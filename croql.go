// Package croql is the small facade most users import: an environment for
// one CroQL context, and one call from query text to a checked query with
// every diagnostic.
//
//	env, err := croql.NewEnv(croql.Strings, croql.WithEdition(croql.Enterprise))
//	checked, diags := env.Check(`count of translations where (user = @user:"alice") > 0`)
//	for _, d := range diags { ... }
//
// Every call that checks or translates a query returns its result and the
// query's diagnostics, (result, diag.List): Check, Compile, Format, Cost,
// SQL, SQLMapped, Query.SQL, Query.SQLMapped. The result is nil (or zero)
// when the list holds an error, except Format's, which formats any text
// that parses; warnings come with a usable result. An error
// of a back end (the SQL generator, the evaluator's compiler) about one part
// of the query is a diagnostic over that part's span. Lint (and an editor
// Document's Lint) returns the diagnostics alone, located for display; the
// calls that evaluate data (Query.Match, Query.MatchContext, Matcher.Match)
// return (bool, error), and a value of the wrong type is an error wrapping
// ErrMisuse, not a false. For a loop over objects, For binds a query to its
// root type once.
//
// For editors, Lint returns every diagnostic of a text with resolved lines,
// rune columns and the UTF-16 columns LSP clients count in; package editor
// parses a text that is still being typed once for its diagnostics,
// completions, hovers and semantic tokens (see docs/editor.md; package lsp
// serves them as a language server).
//
// The stages behind it are packages of their own: parser (text to ast),
// typecheck (ast to checked IR), schema (the contexts and the Go types of the
// queried objects).
package croql

import (
	"fmt"
	"strings"
	"time"

	"github.com/croql/croql/ast"
	"github.com/croql/croql/diag"
	"github.com/croql/croql/parser"
	"github.com/croql/croql/schema"
	"github.com/croql/croql/typecheck"
)

// The context names, as the CLI's --context flag takes them.
const (
	Strings      = "strings"
	Translations = "translations"
	TM           = "tm"
	Glossary     = "glossary"
	Concepts     = "concepts"
)

// The editions.
const (
	Standard   = schema.Standard
	Enterprise = schema.Enterprise
)

type config struct {
	check   typecheck.Config
	limits  parser.Limits
	maxCost float64
	cost    *typecheck.CostModel
}

// Option configures an Env.
type Option func(*config)

// WithEdition sets the platform edition (Standard by default); enterprise-only
// fields are errors in the standard edition.
func WithEdition(e schema.Edition) Option { return func(c *config) { c.check.Edition = e } }

// WithUserIDs supplies the user directory as a map from each login to its
// user id (schema.Project.UserIDs builds it): @user mentions are resolved
// to ids at compile time, unknown logins are diagnostics with suggestions,
// and the evaluator reads each id's login from it (`login of user`,
// `user with (...)`).
func WithUserIDs(loginToID map[string]int64) Option {
	return func(c *config) { c.check.Users = loginToID }
}

// WithUsers is WithUserIDs (login to id).
//
// Deprecated: use WithUserIDs, whose name says the map's direction
// (eval.WithUsers, now eval.WithUserLogins, took id to login). WithUsers
// will be removed in v0.2.0.
func WithUsers(loginToID map[string]int64) Option { return WithUserIDs(loginToID) }

// WithLanguages supplies the known language codes: unknown @language codes
// are diagnostics with suggestions.
func WithLanguages(codes ...string) Option {
	return func(c *config) { c.check.Languages = append([]string{}, codes...) }
}

// WithClock sets the clock 'today' is read from (time.Now by default).
func WithClock(now func() time.Time) Option { return func(c *config) { c.check.Now = now } }

// WithLocation sets the zone datetime literals without an offset, and
// 'today', are read in (UTC by default).
func WithLocation(loc *time.Location) Option { return func(c *config) { c.check.Location = loc } }

// WithFoldContains makes `contains` case-insensitive (Unicode simple
// folding) in every engine.
func WithFoldContains(fold bool) Option { return func(c *config) { c.check.FoldContains = fold } }

// WithLimits sets the parser's limits on source length, nesting depth and
// node count (safe defaults otherwise).
func WithLimits(l parser.Limits) Option { return func(c *config) { c.limits = l } }

// WithMaxCost sets the cost budget: the most work (steps, see
// typecheck.CostModel) one evaluation of a query on one object may take by
// the environment's cost model. Check and Compile report a query over it as
// an error (rule typecheck.RuleTooCostly) whose span is the costly part. 0
// means the safe default (typecheck.DefaultMaxCost); a negative budget is
// unlimited.
func WithMaxCost(n float64) Option { return func(c *config) { c.maxCost = n } }

// WithCostModel sets the collection sizes the cost of a query is estimated
// with (typecheck.DefaultCostModel otherwise); typecheck.MeasureSizes
// measures them from data.
func WithCostModel(m typecheck.CostModel) Option {
	return func(c *config) { c.cost = &m }
}

// Env is an immutable environment for one context: build it once, check
// and compile many queries with it, from any number of goroutines.
type Env struct {
	cfg    config
	parser *parser.Parser
}

// NewEnv builds an environment for the named context (Strings,
// Translations, TM, Glossary, Concepts).
func NewEnv(context string, opts ...Option) (*Env, error) {
	var cfg config
	for _, o := range opts {
		o(&cfg)
	}
	cat := schema.New()
	ctx, ok := cat.Context(context)
	if !ok {
		names := make([]string, len(cat.Contexts))
		for i, c := range cat.Contexts {
			names[i] = c.Name
		}
		return nil, fmt.Errorf("croql: unknown context %q (want one of %s)", context, strings.Join(names, ", "))
	}
	cfg.check.Catalog, cfg.check.Context = cat, ctx
	if cfg.check.Location == nil {
		cfg.check.Location = time.UTC
	}
	if cfg.check.Now == nil {
		cfg.check.Now = time.Now
	}
	// Logins and language codes prepared for suggestions once, not per
	// query.
	cfg.check = cfg.check.Prepare()
	if cfg.cost == nil {
		m := typecheck.DefaultCostModel()
		cfg.cost = &m
	}
	return &Env{cfg: cfg, parser: parser.New(cfg.limits)}, nil
}

// Context is the context the environment checks queries in.
func (e *Env) Context() *schema.Context { return e.cfg.check.Context }

// Catalog is the schema of every context.
func (e *Env) Catalog() *schema.Catalog { return e.cfg.check.Catalog }

// CheckConfig is the configuration the environment checks queries with
// (typecheck.Check, typecheck.CheckFixes): the catalog and context, the
// edition, the user directory and language codes, the clock and zone,
// prepared once (typecheck.Config.Prepare). It is for packages that check
// text of their own with the environment's settings, such as package
// editor. The value is a copy, but its map and slice are the environment's:
// read them, do not modify them.
func (e *Env) CheckConfig() typecheck.Config { return e.cfg.check }

// Parser is the environment's parser, with its limits (WithLimits). It is
// safe for concurrent use.
func (e *Env) Parser() *parser.Parser { return e.parser }

// CostModel is the model the environment estimates query costs with.
func (e *Env) CostModel() typecheck.CostModel { return *e.cfg.cost }

// MaxCost is the environment's cost budget: typecheck.DefaultMaxCost unless
// WithMaxCost set one; negative is unlimited.
func (e *Env) MaxCost() float64 {
	if e.cfg.maxCost == 0 {
		return typecheck.DefaultMaxCost
	}
	return e.cfg.maxCost
}

// Cost checks src and returns its estimated cost per object under the
// environment's cost model, whatever the budget, with the diagnostics of
// the check (the cost is 0 when there are errors other than the budget's).
func (e *Env) Cost(src string) (float64, diag.List) {
	q := e.check(src)
	return q.Cost(e.CostModel()), q.Diags
}

// Check parses and checks src and returns the checked query with every
// diagnostic, syntax and logic, sorted by position (the same list as the
// query's Diags). When the list holds an error the query is nil. A query
// whose estimated cost exceeds the budget (WithMaxCost) is an error of rule
// typecheck.RuleTooCostly.
func (e *Env) Check(src string) (*typecheck.Query, diag.List) {
	q := e.check(src)
	if q.Root == nil {
		return nil, q.Diags
	}
	if d, over := q.CostError(e.CostModel(), e.cfg.maxCost); over {
		diags := append(q.Diags, d)
		diags.Sort()
		return nil, diags
	}
	return q, q.Diags
}

// check is Check without the cost budget.
func (e *Env) check(src string) *typecheck.Query {
	tree, diags := e.parser.Parse(src)
	if diags.HasErrors() || tree == nil {
		diags = typecheck.CheckFixes(e.cfg.check, src, diags, e.parser.Parse)
		diags.Sort()
		return &typecheck.Query{Source: src, Context: e.cfg.check.Context, AST: tree, Diags: diags}
	}
	q := typecheck.Check(e.cfg.check, src, tree)
	if len(diags) > 0 { // syntax warnings, if any
		q.Diags = append(diags, q.Diags...)
		q.Diags.Sort()
	}
	q.Diags = typecheck.CheckFixes(e.cfg.check, src, q.Diags, e.parser.Parse)
	return q
}

// Format returns the canonical form of src: lower-case keywords, single
// spaces, minimal parentheses, and every field in its documented spelling
// when it resolves in this context. A text that does not parse is returned
// with its diagnostics and no formatted text.
func (e *Env) Format(src string) (string, diag.List) {
	tree, diags := e.parser.Parse(src)
	if diags.HasErrors() || tree == nil {
		return "", diags
	}
	q := typecheck.Check(e.cfg.check, src, tree)
	p := ast.Printer{Name: func(id *ast.Ident) string {
		if f, ok := q.Names[id]; ok {
			return f.Name
		}
		return ""
	}}
	return p.Print(tree), q.Diags
}

// Lint returns every diagnostic of src in the named context, with lines,
// columns and UTF-16 columns resolved, sorted by position. An unknown
// context is itself reported as a diagnostic.
func Lint(src, context string, opts ...Option) []diag.Located {
	s := diag.NewSource(src)
	env, err := NewEnv(context, opts...)
	if err != nil {
		return s.Locate(diag.List{diag.Errorf(diag.ClassLogic, "unknown-context", diag.Span{}, "%v", err)})
	}
	_, diags := env.Check(src)
	return s.Locate(diags)
}
