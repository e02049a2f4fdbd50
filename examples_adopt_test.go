package croql_test

import (
	"errors"
	"fmt"
	"time"

	"github.com/croql/croql"
	"github.com/croql/croql/compile"
)

// ExampleLint lints a query for an editor: every diagnostic with its
// line, column (runes) and UTF-16 column, its code and rule, and fixes.
func ExampleLint() {
	for _, d := range croql.Lint("is hiden and\n  id of file = 7", croql.Strings) {
		fmt.Printf("%d:%d (utf16 %d) %s %s/%s: %s\n", d.Start.Line, d.Start.Column, d.Start.UTF16,
			d.Severity, d.Code, d.Rule, d.Message)
		for _, f := range d.Fixes {
			fmt.Println("  fix:", f.Text)
		}
	}
	// Output:
	// 1:1 (utf16 0) error croqlInvalidLogic/unknown-field: `is hiden` is not a field of a source string; did you mean `is hidden`?
	//   fix: is hidden
}

// ExampleEnv_SQL compiles a query to a WHERE clause for PostgreSQL: every
// value a bound parameter.
func ExampleEnv_SQL() {
	env, _ := croql.NewEnv(croql.Strings)
	s, diags := env.SQL(`identifier = "checkout.title" or identifier = "cart.empty"`, compile.Postgres{})
	if diags.HasErrors() {
		fmt.Println(diags)
		return
	}
	fmt.Println(s.Select())
	fmt.Println(s.Args)
	// Output:
	// SELECT t0."id" FROM "strings" AS t0 WHERE (t0."identifier" IN (($1::text COLLATE "C"), ($2::text COLLATE "C"))) ORDER BY t0."id"
	// [checkout.title cart.empty]
}

// ExampleQuery_SQL: a query that checked may still hold a value one
// engine cannot (PostgreSQL text cannot hold NUL); the diagnostic is on
// that value, and its Cause is compile's error.
func ExampleQuery_SQL() {
	env, _ := croql.NewEnv(croql.Strings)
	src := `is hidden or text = "a\u0000b"`
	q, _ := env.Compile(src)
	s, diags := q.SQL(compile.Postgres{})
	for _, d := range diags {
		fmt.Printf("%q %s/%s\n", src[d.Span.Start:d.Span.End], d.Code, d.Rule)
	}
	fmt.Println(s == nil, errors.Is(diags.Err(), compile.ErrUnrepresentable))
	s, diags = q.SQL(compile.SQLite{})
	fmt.Printf("%s %q %d\n", s.Where, s.Args, len(diags))
	// Output:
	// "\"a\\u0000b\"" croqlInvalidLogic/sql
	// true true
	// ((t0."is_hidden" = TRUE) OR (t0."text" = ?)) ["a\x00b"] 0
}

// ExampleQuery_Stale: 'today' is resolved when a query is compiled; a
// service caching compiled queries recompiles one that is stale.
func ExampleQuery_Stale() {
	now := time.Date(2024, 6, 15, 23, 30, 0, 0, time.UTC)
	env, _ := croql.NewEnv(croql.Strings, croql.WithClock(func() time.Time { return now }))
	q, _ := env.Compile(`added >= 'today'`)
	day, uses := q.Today()
	fmt.Println(uses, day.Format(time.DateTime))
	fmt.Println(q.Stale(now.Add(20*time.Minute)), q.Stale(now.Add(40*time.Minute)))

	fixed, _ := env.Compile(`added >= '2024-01-01'`)
	_, uses = fixed.Today()
	fmt.Println(uses, fixed.Stale(now.Add(48*time.Hour)))
	// Output:
	// true 2024-06-15 00:00:00
	// false true
	// false false
}
