package croql_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/croql/croql"
	"github.com/croql/croql/compile"
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

	// PostgreSQL cannot hold NUL: a diagnostic, not a crash.
	s, diags = env.SQL(`text = "a\u0000b"`, compile.Postgres{})
	assert.Nil(t, s)
	require.True(t, diags.HasErrors())
	assert.Equal(t, croql.RuleSQL, diags[len(diags)-1].Rule)
	s, diags = env.SQL(`text = "a\u0000b"`, compile.SQLite{})
	assert.False(t, diags.HasErrors())
	assert.Equal(t, []any{"a\x00b"}, s.Args)
}

func TestEnvSQLMapped(t *testing.T) {
	env, err := croql.NewEnv(croql.Strings)
	require.NoError(t, err)
	m := compile.DefaultMapping(env.Catalog())
	m.Tables["source string"].Name = "app_strings"
	m.Tables["source string"].Columns["is hidden"] = "hidden"
	s, diags := env.SQLMapped(`is hidden`, compile.SQLite{}, m)
	require.False(t, diags.HasErrors(), "%v", diags)
	assert.Equal(t, `"app_strings" AS t0`, s.From)
	assert.Equal(t, `t0."hidden"`, s.Where)
}

func TestQuerySQL(t *testing.T) {
	env, err := croql.NewEnv(croql.Translations, croql.WithUsers(map[string]int64{"alice": 7}))
	require.NoError(t, err)
	q, diags := env.Compile(`user = @user:"alice" or count of votes where (is up) >= 3`)
	require.False(t, diags.HasErrors(), "%v", diags)
	s, err := q.SQL(compile.SQLite{})
	require.NoError(t, err)
	assert.Equal(t, `"translations" AS t0`, s.From)
	assert.Equal(t, []any{int64(7), "up", int64(3)}, s.Args)
	assert.Contains(t, s.Where, "GROUP BY")

	q, diags = env.Compile(`text contains "\u0000"`)
	require.False(t, diags.HasErrors(), "%v", diags)
	_, err = q.SQL(compile.Postgres{})
	require.ErrorIs(t, err, compile.ErrUnrepresentable)
}
