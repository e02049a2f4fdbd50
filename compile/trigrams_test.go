package compile_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/croql/croql"
	"github.com/croql/croql/compile"
	"github.com/croql/croql/mapping"
	"github.com/croql/croql/schema"
)

// TestTrigramNarrowing: a whole set's `text contains "..."` of three
// characters or more is narrowed by the index of the column's trigrams on
// SQLite (the FTS5 table, the needle a phrase) and PostgreSQL (LIKE, its
// wildcards escaped), the exact test still beside it; a shorter needle, a
// folded contains, a page, a column without the index and MariaDB are
// not.
func TestTrigramNarrowing(t *testing.T) {
	m := mapping.Default(schema.New())
	cases := []struct {
		src     string
		fold    bool
		dialect compile.Dialect
		purpose compile.Purpose
		want    string // in the WHERE; "" for no narrowing
		arg     string
	}{
		{`text contains "We\"l"`, false, compile.SQLite{}, compile.WholeSet,
			`t0."id" IN (SELECT rowid FROM "strings_text_trgm" WHERE "strings_text_trgm" MATCH ?) AND (croql_contains(`, `"We""l"`},
		{`text contains "5%_\\"`, false, compile.Postgres{}, compile.WholeSet,
			`(t0."text" LIKE ($1::text COLLATE "C") AND (strpos(`, `%5\%\_\\%`},
		{`count of translations where (text contains "Wel") > 0`, false, compile.SQLite{}, compile.WholeSet,
			`t1."id" IN (SELECT rowid FROM "translations_text_trgm" WHERE "translations_text_trgm" MATCH ?)`, `"Wel"`},
		{`text contains "We"`, false, compile.SQLite{}, compile.WholeSet, "", ""},
		{`text contains "Welcome"`, true, compile.SQLite{}, compile.WholeSet, "", ""},
		{`text contains "Welcome"`, false, compile.SQLite{}, compile.Page, "", ""},
		{`identifier contains "Welcome"`, false, compile.SQLite{}, compile.WholeSet, "", ""},
		{`text contains "Welcome"`, false, compile.MySQL{}, compile.WholeSet, "", ""},
	}
	for _, c := range cases {
		s := compileFor(t, croql.Strings, []croql.Option{croql.WithFoldContains(c.fold)}, c.src, c.dialect, m, c.purpose)
		if c.want == "" {
			assert.NotContains(t, s.Where, "trgm", c.src)
			assert.NotContains(t, s.Where, "LIKE", c.src)
			continue
		}
		assert.True(t, strings.Contains(s.Where, c.want), "%s: %s", c.src, s.Where)
		assert.Contains(t, s.Args, c.arg, c.src)
	}
}
