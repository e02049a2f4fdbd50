package compile_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/croql/croql"
	"github.com/croql/croql/compile"
	"github.com/croql/croql/mapping"
	"github.com/croql/croql/schema"
)

// fewParams is SQLite with a limit of three parameters per statement.
type fewParams struct{ compile.SQLite }

func (fewParams) MaxParams() int { return 3 }

// TestPageGuardsWithinParamLimit: a page's guards repeat the values of
// their filter; where that would pass the dialect's parameter limit, the
// page is compiled without them, and a query over the limit either way
// still fails.
func TestPageGuardsWithinParamLimit(t *testing.T) {
	env, err := croql.NewEnv(croql.Strings)
	require.NoError(t, err)
	m := mapping.Default(schema.New())
	q, diags := env.Check(`count of translations where (text = "a" or text = "b") > 0`)
	require.False(t, diags.HasErrors(), "%v", diags)

	s, err := compile.CompileFor(q, compile.SQLite{}, m, compile.Page)
	require.NoError(t, err)
	assert.Len(t, s.Args, 4, "with its guard: %s", s.Where)
	assert.Equal(t, 2, strings.Count(s.Where, "EXISTS"), s.Where)

	s, err = compile.CompileFor(q, fewParams{}, m, compile.Page)
	require.NoError(t, err)
	assert.Len(t, s.Args, 2, "without its guard: %s", s.Where)
	assert.Equal(t, 1, strings.Count(s.Where, "EXISTS"), s.Where)

	q, diags = env.Check(`count of translations where (text = "a" or text = "b" or text = "c" or text = "d") > 0`)
	require.False(t, diags.HasErrors(), "%v", diags)
	_, err = compile.CompileFor(q, fewParams{}, m, compile.Page)
	assert.ErrorIs(t, err, compile.ErrTooManyParams)
}
