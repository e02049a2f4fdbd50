package fuzz_test

import (
	"fmt"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/prop"

	"github.com/croql/croql"
	"github.com/croql/croql/ast"
	"github.com/croql/croql/parser"
	"github.com/croql/croql/schema"
	"github.com/croql/croql/store/fuzz"
)

// fixedSeed is the seed every property runs with in CI.
const fixedSeed = 20240615

// runs returns the (seed, cases) runs of a property: the fixed seed, then
// a random one (printed with any failure), each with cases cases (scaled by
// CROQL_PROP_CASES, a number of cases for the fixed-seed run). With
// CROQL_PROP_SEED set only that seed runs.
func runs(t *testing.T, cases int) []struct {
	seed  int64
	cases int
} {
	t.Helper()
	if v := os.Getenv("CROQL_PROP_CASES"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n <= 0 {
			t.Fatalf("CROQL_PROP_CASES=%q: want a positive number", v)
		}
		cases = n
	}
	type run = struct {
		seed  int64
		cases int
	}
	if v := os.Getenv("CROQL_PROP_SEED"); v != "" {
		seed, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			t.Fatalf("CROQL_PROP_SEED=%q: want an integer", v)
		}
		return []run{{seed, cases}}
	}
	cases = max(cases/raceScale, 10)
	if testing.Short() {
		return []run{{fixedSeed, max(cases/4, 10)}}
	}
	return []run{{fixedSeed, cases}, {time.Now().UnixNano(), max(cases/2, 10)}}
}

// check runs the property built by mk for every run; a failure names the
// seed to reproduce it with (CROQL_PROP_SEED).
func check(t *testing.T, name string, cases int, mk func() gopter.Prop) {
	t.Helper()
	for _, r := range runs(t, cases) {
		params := gopter.DefaultTestParametersWithSeed(r.seed)
		params.MinSuccessfulTests = r.cases
		params.MaxShrinkCount = 300
		props := gopter.NewProperties(params)
		props.Property(fmt.Sprintf("%s (seed %d)", name, r.seed), mk())
		if !props.Run(gopter.ConsoleReporter(false)) {
			t.Errorf("%s failed with seed %d: rerun with CROQL_PROP_SEED=%d go test ./fuzz -run '%s'", name, r.seed, r.seed, t.Name())
		}
	}
}

// target is one context and edition the generators cover.
type target struct {
	context string
	edition schema.Edition
	fold    bool // case-insensitive contains
}

func (tg target) String() string {
	s := tg.context + "/" + tg.edition.String()
	if tg.fold {
		s += "/fold"
	}
	return s
}

// targets are every context in the enterprise edition (which has every
// field), and the strings context in the standard edition and with a
// case-insensitive contains.
func targets() []target {
	return []target{
		{croql.Strings, schema.Enterprise, false},
		{croql.Strings, schema.Standard, false},
		{croql.Strings, schema.Enterprise, true},
		{croql.Translations, schema.Enterprise, false},
		{croql.TM, schema.Enterprise, false},
		{croql.Glossary, schema.Enterprise, false},
		{croql.Concepts, schema.Enterprise, false},
	}
}

func generator(t *testing.T, tg target) *fuzz.Generator {
	t.Helper()
	g, err := fuzz.NewGenerator(fuzz.Config{Context: tg.context, Edition: tg.edition, FoldContains: tg.fold})
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// env is the facade environment generated queries are well-typed in. The
// cost budget is off: the generator picks types, not costs, so a nested
// query over TM records can be estimated above the default budget, and the
// properties here are about semantics. TestPropCostBound and the cost tests
// hold the budget and the estimate to account.
func env(t *testing.T, tg target) *croql.Env {
	t.Helper()
	users := map[string]int64{}
	for _, u := range fuzz.Users() {
		users[u.Login] = u.ID
	}
	now := fuzz.Now().Std()
	e, err := croql.NewEnv(tg.context, croql.WithEdition(tg.edition), croql.WithUserIDs(users),
		croql.WithLanguages(fuzz.Languages()...), croql.WithClock(func() time.Time { return now }),
		croql.WithFoldContains(tg.fold), croql.WithMaxCost(-1))
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// TestPropPrintParse: the canonical print of a generated tree parses back
// to the same tree, and it checks clean (the generator makes well-typed
// queries only).
func TestPropPrintParse(t *testing.T) {
	for _, tg := range targets() {
		t.Run(tg.String(), func(t *testing.T) {
			g := generator(t, tg)
			check(t, "parse(print(q)) = q", 300, func() gopter.Prop {
				return prop.ForAll(func(c fuzz.Case) string {
					src := c.Source()
					back, diags := parser.Parse(src)
					if diags.HasErrors() {
						return fmt.Sprintf("does not parse: %v", diags.Err())
					}
					if !ast.Equal(back, c.Tree()) {
						return fmt.Sprintf("parsed back as %s, generated %s", ast.SExpr(back), ast.SExpr(c.Tree()))
					}
					if _, err := g.Check(src); err != nil {
						return err.Error()
					}
					return ""
				}, g.Query())
			})
		})
	}
}

// TestPropNodeLimitExact: the scanner bounds MaxNodes as a count of tokens
// (parser/lexer.go, countToken), before participle runs; for every
// generated query that count is the tree's ast.Count, so a limit of exactly
// that many nodes accepts it and one less refuses it with limit-nodes.
func TestPropNodeLimitExact(t *testing.T) {
	for _, tg := range targets() {
		t.Run(tg.String(), func(t *testing.T) {
			g := generator(t, tg)
			check(t, "MaxNodes = ast.Count accepts, one less refuses", 300, func() gopter.Prop {
				return prop.ForAll(func(c fuzz.Case) string {
					src := c.Source()
					n := ast.Count(c.Tree())
					lim := parser.Limits{MaxSource: len(src) + 1, MaxDepth: 1 << 20, MaxNodes: n}
					if _, diags := parser.New(lim).Parse(src); diags.HasErrors() {
						return fmt.Sprintf("refused at MaxNodes %d = ast.Count: %v", n, diags.Err())
					}
					if n == 1 {
						return ""
					}
					lim.MaxNodes = n - 1
					e, diags := parser.New(lim).Parse(src)
					if e != nil || len(diags) != 1 || diags[0].Rule != "limit-nodes" {
						return fmt.Sprintf("at MaxNodes %d = ast.Count - 1: tree %v, diagnostics %v", n-1, e != nil, diags)
					}
					return ""
				}, g.Query())
			})
		})
	}
}

// TestPropFormat: fmt is idempotent, and the formatted query is the same
// tree up to the spelling of names (fmt writes each field as documented).
func TestPropFormat(t *testing.T) {
	for _, tg := range targets() {
		t.Run(tg.String(), func(t *testing.T) {
			g, e := generator(t, tg), env(t, tg)
			check(t, "fmt(fmt(q)) = fmt(q)", 300, func() gopter.Prop {
				return prop.ForAll(func(c fuzz.Case) string {
					f1, diags := e.Format(c.Source())
					if diags.HasErrors() {
						return fmt.Sprintf("fmt reports errors: %v", diags.Err())
					}
					f2, diags := e.Format(f1)
					if diags.HasErrors() {
						return fmt.Sprintf("fmt of %q reports errors: %v", f1, diags.Err())
					}
					if f1 != f2 {
						return fmt.Sprintf("fmt is not idempotent:\n  once:  %s\n  twice: %s", f1, f2)
					}
					back, _ := parser.Parse(f1)
					if !ast.Equal(fuzz.NormalNames(back), fuzz.NormalNames(c.Tree())) {
						return fmt.Sprintf("fmt changed the tree: %s", f1)
					}
					return ""
				}, g.Query())
			})
		})
	}
}
