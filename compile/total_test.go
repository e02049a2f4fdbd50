package compile_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/croql/croql"
	"github.com/croql/croql/compile"
	"github.com/croql/croql/mapping"
	"github.com/croql/croql/schema"
)

// TestCountFromElements: a whole condition "some element of C matches P",
// C the root row's elements in a table of their own, gets a count from
// the elements' side (SQL.Count); anything else counts with COUNT(*).
func TestCountFromElements(t *testing.T) {
	m := mapping.Default(schema.New())
	cases := []struct {
		context, src string
		dialect      compile.Dialect
		purpose      compile.Purpose
		want         string
	}{
		{croql.Strings, `count of comments where (user = @user:"alice") > 0`, compile.SQLite{}, compile.WholeSet,
			`SELECT COUNT(DISTINCT t1."string_id") FROM "comments" AS t1 WHERE (t1."user_id" = (SELECT t2."id" FROM "users" AS t2 WHERE t2."login" = ?))`},
		{croql.Strings, `comments with (has issue)`, compile.Postgres{}, compile.WholeSet,
			`SELECT COUNT(DISTINCT t1."string_id") FROM "comments" AS t1 WHERE t1."has_issue"`},
		{croql.TM, `count of records where (usageCount > 1) > 0`, compile.MySQL{}, compile.WholeSet,
			"SELECT COUNT(DISTINCT t1.`segment_id`) FROM `tm_records` AS t1 WHERE (t1.`usage_count` > ?)"},
		// A page is not counted.
		{croql.Strings, `count of comments where (user = @user:"alice") > 0`, compile.SQLite{}, compile.Page, ""},
		// Beside another condition.
		{croql.Strings, `count of comments where (has issue) > 0 and is hidden`, compile.SQLite{}, compile.WholeSet, ""},
		// Negated.
		{croql.Strings, `count of comments where (has issue) = 0`, compile.SQLite{}, compile.WholeSet, ""},
		// Elements through a join table.
		{croql.Strings, `count of translations where (text = "a") > 0`, compile.SQLite{}, compile.WholeSet, ""},
		// The predicate reads the root row.
		{croql.Strings, `count of comments where (text = identifier) > 0`, compile.SQLite{}, compile.WholeSet, ""},
		// The row keeps the count: COUNT(*) over it, or, where the mapping
		// keeps the table's totals (TM segments), the kept total.
		{croql.Strings, `count of translations > 0`, compile.SQLite{}, compile.WholeSet, ""},
		{croql.TM, `count of records where (usageCount >= 1) > 0`, compile.Postgres{}, compile.WholeSet,
			`SELECT t1."n_records_used" FROM "tm_segment_totals" AS t1`},
		{croql.TM, `count of records > 0`, compile.MySQL{}, compile.WholeSet,
			"SELECT t1.`n_records` FROM `tm_segment_totals` AS t1"},
		{croql.TM, `count of records = 0`, compile.SQLite{}, compile.WholeSet,
			`SELECT t1."n_rows" - t1."n_records" FROM "tm_segment_totals" AS t1`},
		{croql.TM, `records with (usageCount > 0)`, compile.SQLite{}, compile.WholeSet,
			`SELECT t1."n_records_used" FROM "tm_segment_totals" AS t1`},
		{croql.TM, `count of records > 0`, compile.SQLite{}, compile.Page, ""},
		{croql.TM, `count of records > 0 and count of records where (usageCount > 0) = 0`, compile.SQLite{}, compile.WholeSet, ""},
		{croql.TM, `count of records >= 2`, compile.SQLite{}, compile.WholeSet, ""},
		{croql.TM, `count of records > 0`, compile.Vitess{}, compile.WholeSet, ""},
		// A sharded engine.
		{croql.Strings, `count of comments where (has issue) > 0`, compile.Vitess{}, compile.WholeSet, ""},
	}
	for _, c := range cases {
		s := compileFor(t, c.context, nil, c.src, c.dialect, m, c.purpose)
		if c.want == "" {
			assert.Nil(t, s.Count, "%s (%s, %s)", c.src, c.dialect.Name(), c.purpose)
			continue
		}
		if assert.NotNil(t, s.Count, "%s (%s): %s", c.src, c.dialect.Name(), s.Where) {
			assert.Equal(t, c.want, s.Count.SQL, c.src)
			assert.Len(t, s.Count.Args, len(s.Args), c.src)
		}
	}
}

// TestCountFromCountsBy: a whole condition "some translation is in
// language L and matches one of the filters the strings' counts by
// language keep" (or none), or its negation, is counted from the table of
// those counts; a filter it does not keep, beside another condition, a
// page and a sharded engine are not.
func TestCountFromCountsBy(t *testing.T) {
	m := mapping.Default(schema.New())
	cases := []struct {
		src     string
		dialect compile.Dialect
		purpose compile.Purpose
		want    string
	}{
		{`count of translations where (language = @language:"de" and (count of approvals > 0 or count of votes > 0)) = 0`, compile.SQLite{}, compile.WholeSet,
			`SELECT (SELECT COUNT(*) FROM "strings") - (SELECT COUNT(*) FROM "string_language_counts" AS t1 WHERE (t1."language" = ?) AND (t1."n_with_approvals" > 0 OR t1."n_with_votes" > 0))`},
		{`count of translations where (count of votes >= 1 and language = @language:"de") > 0`, compile.Postgres{}, compile.WholeSet,
			`SELECT COUNT(*) FROM "string_language_counts" AS t1 WHERE (t1."language" = ($1::text COLLATE "C")) AND (t1."n_with_votes" > 0)`},
		{`translations with (language = @language:"de")`, compile.SQLite{}, compile.WholeSet,
			`SELECT COUNT(*) FROM "string_language_counts" AS t1 WHERE (t1."language" = ?)`},
		{`count of translations where (language = @language:"de" and count of votes > 1) = 0`, compile.SQLite{}, compile.WholeSet, ""},
		{`count of translations where (language = @language:"de" or count of votes > 0) = 0`, compile.SQLite{}, compile.WholeSet, ""},
		{`count of translations where (language = @language:"de" and (count of votes > 0 and count of approvals > 0)) = 0`, compile.SQLite{}, compile.WholeSet, ""},
		{`count of translations where (language = @language:"de") = 0 and is hidden`, compile.SQLite{}, compile.WholeSet, ""},
		{`count of translations where (language = @language:"de") = 0`, compile.SQLite{}, compile.Page, ""},
		{`count of translations where (language = @language:"de") = 0`, compile.Vitess{}, compile.WholeSet, ""},
	}
	for _, c := range cases {
		s := compileFor(t, croql.Strings, nil, c.src, c.dialect, m, c.purpose)
		if c.want == "" {
			assert.Nil(t, s.Count, "%s (%s, %s)", c.src, c.dialect.Name(), c.purpose)
			continue
		}
		if assert.NotNil(t, s.Count, "%s (%s): %s", c.src, c.dialect.Name(), s.Where) {
			assert.Equal(t, c.want, s.Count.SQL, c.src)
			assert.Equal(t, []any{"de"}, s.Count.Args, c.src)
		}
	}
}

// TestCountFromCreatorCounts: on TM segments, "some record was created
// by U" (a login the check did not resolve, which the SQL looks up, or an
// id), and its negation, are counted from the segments' counts of records
// by creator; another filter beside it is not.
func TestCountFromCreatorCounts(t *testing.T) {
	m := mapping.Default(schema.New())
	for src, want := range map[string]string{
		`count of records where (createdBy = @user:"alice") > 0`:         `SELECT COUNT(*) FROM "tm_segment_creator_counts" AS t1 WHERE (t1."created_by" = (SELECT t2."id" FROM "users" AS t2 WHERE t2."login" = ?))`,
		`records with (createdBy = 11)`:                                  `SELECT COUNT(*) FROM "tm_segment_creator_counts" AS t1 WHERE (t1."created_by" = ?)`,
		`count of records where (createdBy = 11) = 0`:                    `SELECT (SELECT COUNT(*) FROM "tm_segments") - (SELECT COUNT(*) FROM "tm_segment_creator_counts" AS t1 WHERE (t1."created_by" = ?))`,
		`count of records where (createdBy = 11 and usageCount > 0) > 0`: "",
	} {
		s := compileFor(t, croql.TM, nil, src, compile.SQLite{}, m, compile.WholeSet)
		if want == "" {
			if assert.NotNil(t, s.Count, src) {
				assert.NotContains(t, s.Count.SQL, "tm_segment_creator_counts", src)
			}
			continue
		}
		if assert.NotNil(t, s.Count, src) {
			assert.Equal(t, want, s.Count.SQL, src)
		}
	}
}

// compileFor checks src in context ctxName (with opts) and compiles it
// for d, m and purpose, failing the test on an error.
func compileFor(t *testing.T, ctxName string, opts []croql.Option, src string, d compile.Dialect, m *mapping.Mapping, purpose compile.Purpose) *compile.SQL {
	t.Helper()
	env, err := croql.NewEnv(ctxName, opts...)
	require.NoError(t, err)
	q, diags := env.Check(src)
	require.False(t, diags.HasErrors(), "%s: %v", src, diags)
	s, err := compile.CompileFor(q, d, m, purpose)
	require.NoError(t, err, src)
	return s
}
