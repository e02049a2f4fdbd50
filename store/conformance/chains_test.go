package compile_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/croql/croql"
	"github.com/croql/croql/compile"
	"github.com/croql/croql/demo"
	"github.com/croql/croql/mapping"
	"github.com/croql/croql/parser"
	"github.com/croql/croql/schema"
	"github.com/croql/croql/typecheck"
)

// chain joins n terms made by term with op.
func chain(n int, op string, term func(i int) string) string {
	parts := make([]string, n)
	for i := range parts {
		parts[i] = term(i)
	}
	return strings.Join(parts, " "+op+" ")
}

// checkLong checks a query longer than the parser's default limits allow.
func checkLong(t testing.TB, src string) *typecheck.Query {
	t.Helper()
	env, err := croql.NewEnv(croql.Strings, croql.WithClock(clock), croql.WithMaxCost(-1),
		croql.WithLimits(parser.Limits{MaxSource: 4 << 20, MaxNodes: 1 << 20}))
	require.NoError(t, err)
	q, diags := env.Check(src)
	require.False(t, diags.HasErrors(), "%v", diags)
	return q
}

// longChains are the 5,000-term OR chains and 1,200-term AND chains of
// TestLongChains: equality chains on one column (IN lists, over a
// nullable column too, and under `not`, where the OR must be TRUE or
// FALSE), chains no IN list can take, and AND chains of inequalities.
func longChains(p *schema.Project) map[string]string {
	return map[string]string{
		"or-id-of-file":     chain(5000, "or", func(i int) string { return fmt.Sprintf("id of file = %d", i%7+i*13) }),
		"or-max-length":     chain(5000, "or", func(i int) string { return fmt.Sprintf("max length = %d", i*3) }),
		"not-or-max-length": "not (" + chain(5000, "or", func(i int) string { return fmt.Sprintf("max length = %d", i*3) }) + ")",
		"or-identifier": chain(5000, "or", func(i int) string {
			if i%10 == 0 && i/10 < len(p.Strings) { // some identifiers of the data, and many not in it
				return fmt.Sprintf("identifier = %q", p.Strings[i/10].Identifier)
			}
			return fmt.Sprintf("identifier = \"key_%d\"", i)
		}),
		"or-mixed-columns":  chain(2500, "or", func(i int) string { return fmt.Sprintf("max length = %d or id of file = %d", i, i) }),
		"or-contains":       chain(5000, "or", func(i int) string { return fmt.Sprintf("text contains \"%c%c\"", 'a'+i%26, 'a'+(i/26)%26) }),
		"and-max-length-ne": chain(1200, "and", func(i int) string { return fmt.Sprintf("max length != %d", i*2) }),
		"and-text-ne":       chain(1200, "and", func(i int) string { return fmt.Sprintf("text != \"t%d\"", i) }),
		"and-of-or-chains":  "(" + chain(1200, "or", func(i int) string { return fmt.Sprintf("max length = %d", i) }) + ") and (" + chain(1200, "or", func(i int) string { return fmt.Sprintf("id of file = %d", i) }) + ")",
		"xor-with-in":       "(" + chain(50, "or", func(i int) string { return fmt.Sprintf("max length = %d", i*10) }) + ") xor is hidden",
		// 1,001 `is hidden` (an odd count: is hidden) xor 1,000 lengths.
		"xor-chain": chain(2001, "xor", xorTerm),
		// Nested on the right by parentheses, and under not.
		"xor-nested": "not (is duplicate xor (" + chain(1501, "xor", xorTerm) + "))",
		// Runs of nots, odd and even, over a condition that may be NULL.
		"not-run-odd":  strings.Repeat("not ", 1101) + "max length > 20",
		"not-run-even": strings.Repeat("not ", 1100) + "count of comments where (has unresolved issue) > 0",
	}
}

// xorTerm is term i of a long xor chain: `is hidden` for even i, a
// length no other term has for odd i.
func xorTerm(i int) string {
	if i%2 == 0 {
		return "is hidden"
	}
	return fmt.Sprintf("max length = %d", i*3)
}

// TestLongChains: long OR and AND chains give the evaluator's ids on
// SQLite, PostgreSQL and MariaDB (the compiler writes flat lists and IN
// lists; SQLite refused nested ones 1000 deep).
func TestLongChains(t *testing.T) {
	p := demo.Generate(demo.Options{Strings: 1500, Seed: 7})
	queries := longChains(p)
	want := map[string][]int64{}
	checked := map[string]*typecheck.Query{}
	for name, src := range queries {
		q := checkLong(t, src)
		checked[name] = q
		want[name] = evalIDs(t, q, p)
	}
	// The chains select something and not everything, so agreeing means
	// something.
	for _, name := range []string{"or-max-length", "not-or-max-length", "or-identifier", "and-max-length-ne", "or-contains", "xor-chain", "xor-nested", "not-run-odd", "not-run-even"} {
		assert.NotEmpty(t, want[name], name)
		assert.Less(t, len(want[name]), len(p.Strings), name)
	}
	for _, eng := range engines(t) {
		t.Run(eng, func(t *testing.T) {
			db := openLoaded(t, eng, p)
			for name, q := range checked {
				assert.Equal(t, want[name], runSQL(t, db, q), "%s on %s", name, eng)
			}
		})
	}
}

// TestChainSQLShape: an OR chain on one column is IN lists of at most
// 1000 parameters; a long chain is a balanced tree of flat lists, never
// nested more than a few hundred deep; an xor chain a balanced tree of <>.
func TestChainSQLShape(t *testing.T) {
	m := mapping.Default(catalogOnce())
	q := checkLong(t, chain(5000, "or", func(i int) string { return fmt.Sprintf("max length = %d", i) }))
	s, err := compile.Compile(q, compile.SQLite{}, m)
	require.NoError(t, err)
	assert.Len(t, s.Args, 5000)
	assert.Equal(t, 5, strings.Count(s.Where, " IN ("), s.Where[:200])
	assert.NotContains(t, s.Where, " = ?")

	q = checkLong(t, "is hidden and is duplicate and not is hidden")
	s, err = compile.Compile(q, compile.SQLite{}, m)
	require.NoError(t, err)
	assert.Equal(t, `((t0."is_hidden" = TRUE) AND (t0."is_duplicate" = TRUE) AND (t0."is_hidden" = FALSE))`, s.Where, "flat, not ((a AND b) AND c)")

	for _, op := range []string{"and", "or", "xor"} {
		q = checkLong(t, chain(8000, op, func(i int) string { return fmt.Sprintf("text != \"%d\"", i) }))
		s, err = compile.Compile(q, compile.SQLite{}, m)
		require.NoError(t, err)
		depth, deepest := 0, 0
		for _, r := range s.Where {
			switch r {
			case '(':
				depth++
				deepest = max(deepest, depth)
			case ')':
				depth--
			}
		}
		limit := 10
		if op == "xor" {
			limit = 2 * 14 // a balanced tree of 8000: 13 levels of (a <> b), each term's own parentheses
		}
		assert.Less(t, deepest, limit, "%s: parentheses nest %d deep", op, deepest)
	}
}

// TestTooManyParams: a query with more values than the engine takes
// parameters is an error that says so, not an engine failure at run time.
func TestTooManyParams(t *testing.T) {
	m := mapping.Default(catalogOnce())
	q := checkLong(t, chain(33000, "or", func(i int) string { return fmt.Sprintf("max length = %d", i) }))
	_, err := compile.Compile(q, compile.SQLite{}, m)
	require.Error(t, err)
	assert.True(t, errors.Is(err, compile.ErrTooManyParams), "%v", err)
	assert.Contains(t, err.Error(), "33000 values, more than the 32766 parameters")
	_, err = compile.Compile(q, compile.Postgres{}, m)
	assert.NoError(t, err, "PostgreSQL takes 65535")
}
