package croql_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/croql/croql"
	"github.com/croql/croql/compile"
	"github.com/croql/croql/diag"
	"github.com/croql/croql/mapping"
)

func TestEnvSQL(t *testing.T) {
	env, err := croql.NewEnv(croql.Strings)
	require.NoError(t, err)

	s, diags := env.SQL(`count of translations where (language = @language:"de") > 0 and max length > 10`, compile.Postgres{})
	require.False(t, diags.HasErrors(), "%v", diags)
	require.NotNil(t, s)
	assert.Contains(t, s.Where, "EXISTS (SELECT 1 FROM")
	assert.Equal(t, []any{"de", int64(10)}, s.Args)
	assert.NotContains(t, s.Where, "de'")
	assert.Equal(t, `"strings" AS t0`, s.From)

	s, diags = env.SQL(`text = "a"`, compile.MySQL{})
	require.False(t, diags.HasErrors())
	assert.Contains(t, s.Where, "?")
	assert.Equal(t, []any{"a"}, s.Args)

	// A query with an error has no SQL, only its diagnostics.
	s, diags = env.SQL(`text = `, compile.SQLite{})
	assert.Nil(t, s)
	assert.True(t, diags.HasErrors())

	// PostgreSQL cannot hold NUL: a diagnostic on the literal, not a
	// crash and not an error over the whole query.
	src := `is hidden and text = "a\u0000b"`
	s, diags = env.SQL(src, compile.Postgres{})
	assert.Nil(t, s)
	require.Len(t, diags, 1, "%v", diags)
	assert.Equal(t, croql.RuleSQL, diags[0].Rule)
	assert.Equal(t, diag.Error, diags[0].Severity)
	assert.Equal(t, span(t, src, `"a\u0000b"`), diags[0].Span)
	assert.Contains(t, diags[0].Message, "NUL")
	require.ErrorIs(t, diags.Err(), compile.ErrUnrepresentable)
	s, diags = env.SQL(`text = "a\u0000b"`, compile.SQLite{})
	assert.False(t, diags.HasErrors())
	assert.Equal(t, []any{"a\x00b"}, s.Args)
}

func TestEnvSQLMapped(t *testing.T) {
	env, err := croql.NewEnv(croql.Strings)
	require.NoError(t, err)
	m := mapping.Default(env.Catalog())
	m.Tables["source string"].Name = "app_strings"
	m.Tables["source string"].Columns["is hidden"] = "hidden"
	s, diags := env.SQLMapped(`is hidden`, compile.SQLite{}, m)
	require.False(t, diags.HasErrors(), "%v", diags)
	assert.Equal(t, `"app_strings" AS t0`, s.From)
	assert.Equal(t, `(t0."hidden" = TRUE)`, s.Where)
}

func TestQuerySQL(t *testing.T) {
	env, err := croql.NewEnv(croql.Translations, croql.WithUserIDs(map[string]int64{"alice": 7}))
	require.NoError(t, err)
	q, diags := env.Compile(`user = @user:"alice" or count of votes where (is up) >= 3`)
	require.False(t, diags.HasErrors(), "%v", diags)
	s, diags := q.SQL(compile.SQLite{})
	require.Empty(t, diags)
	assert.Equal(t, `"translations" AS t0`, s.From)
	assert.Equal(t, []any{int64(7), int64(3)}, s.Args)
	assert.Equal(t, `((t0."user_id" = ?) OR (t0."n_votes_up" >= ?))`, s.Where, "up votes: the count the row keeps")
	q, diags = env.Compile(`user = @user:"alice" or count of votes where (is down) >= 3`)
	require.False(t, diags.HasErrors(), "%v", diags)
	s, diags = q.SQL(compile.SQLite{})
	require.Empty(t, diags)
	assert.Equal(t, []any{int64(7), "down", int64(3)}, s.Args)
	assert.Contains(t, s.Where, "GROUP BY", "down votes: counted from the votes")

	src := `text contains "\u0000" or user = 3`
	q, diags = env.Compile(src)
	require.Empty(t, diags)
	s, diags = q.SQL(compile.Postgres{})
	assert.Nil(t, s)
	require.Len(t, diags, 1, "%v", diags)
	assert.Equal(t, croql.RuleSQL, diags[0].Rule)
	assert.Equal(t, span(t, src, `"\u0000"`), diags[0].Span, "the literal PostgreSQL cannot hold")
	require.ErrorIs(t, diags.Err(), compile.ErrUnrepresentable)
	require.ErrorIs(t, diags[0], compile.ErrUnrepresentable)

	// A query with a warning keeps it next to its SQL.
	q, diags = env.Compile(`text = 'a'`)
	require.Len(t, diags, 1)
	s, diags = q.SQL(compile.SQLite{})
	require.NotNil(t, s)
	require.Len(t, diags, 1)
	assert.Equal(t, diag.Warning, diags[0].Severity)
}

// TestSQLErrorSpans: an error of the SQL generator is a diagnostic over the
// node it is about, not over the whole query.
func TestSQLErrorSpans(t *testing.T) {
	env, err := croql.NewEnv(croql.Strings)
	require.NoError(t, err)

	// A mapping without a column for a field: the field's span.
	m := mapping.Default(env.Catalog())
	m.Tables["source string"].Columns["max length"] = ""
	src := `is hidden and (max length > 3 or text = "x")`
	s, diags := env.SQLMapped(src, compile.SQLite{}, m)
	assert.Nil(t, s)
	require.Len(t, diags, 1, "%v", diags)
	assert.Equal(t, croql.RuleSQL, diags[0].Rule)
	assert.Equal(t, span(t, src, "max length"), diags[0].Span)
	assert.Contains(t, diags[0].Message, "no column for `max length`")

	// The engine's parameter limit is about the query as a whole: the
	// root's span.
	src = `text = "a" or text = "b" or text = "c"`
	s, diags = env.SQL(src, tinyDialect{})
	assert.Nil(t, s)
	require.Len(t, diags, 1, "%v", diags)
	assert.Equal(t, diag.Span{Start: 0, End: len(src)}, diags[0].Span)
	require.ErrorIs(t, diags.Err(), compile.ErrTooManyParams)

	// An error about no part of the query (the mapping has no table for the
	// context) stays over the whole query.
	m = mapping.Default(env.Catalog())
	delete(m.Tables, "source string")
	src = `  is hidden `
	s, diags = env.SQLMapped(src, compile.SQLite{}, m)
	assert.Nil(t, s)
	require.Len(t, diags, 1, "%v", diags)
	assert.Equal(t, diag.Span{Start: 0, End: len(src)}, diags[0].Span)
}

// tinyDialect is SQLite with room for two parameters.
type tinyDialect struct{ compile.SQLite }

func (tinyDialect) MaxParams() int { return 2 }
