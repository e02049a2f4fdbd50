package compile_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/croql/croql/compile"
	"github.com/croql/croql/mapping"
	"github.com/croql/croql/schema"
)

// TestCompileRefusesImpossibleIdentifiers: Compile applies Mapping.Check's
// identifier rules to every identifier it writes. A NUL in a column name
// would otherwise collide with the compiler's parameter markers (NUL,
// index, NUL): "te\x000\x00xt" turned into a placeholder bound to the
// query's first value, so the column name became a parameter.
func TestCompileRefusesImpossibleIdentifiers(t *testing.T) {
	q := check(t, `text = "a" and id of file = 7`, checkOpts{})
	for _, tc := range []struct {
		name string
		set  func(m *mapping.Mapping)
	}{
		{"nul-column", func(m *mapping.Mapping) { m.Tables["source string"].Columns["text"] = "te\x000\x00xt" }},
		{"nul-table", func(m *mapping.Mapping) { m.Tables["source string"].Name = "str\x00ings" }},
		{"nul-key", func(m *mapping.Mapping) { m.Tables["source string"].Key = "i\x00d" }},
		{"empty-column", func(m *mapping.Mapping) { m.Tables["file"].Columns["id"] = "" }},
		{"long-column", func(m *mapping.Mapping) { m.Tables["source string"].Columns["text"] = strings.Repeat("x", 64) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := mapping.Default(schema.New())
			tc.set(m)
			require.Error(t, m.Check(), "Mapping.Check refuses it")
			for _, d := range dialects {
				s, err := compile.Compile(q, d, m)
				require.Error(t, err, "%s: %+v", d.Name(), s)
				assert.Nil(t, s)
			}
		})
	}
	// A valid override still compiles.
	m := mapping.Default(schema.New())
	m.Tables["source string"].Columns["text"] = "body"
	s, err := compile.Compile(q, compile.Postgres{}, m)
	require.NoError(t, err)
	assert.Contains(t, s.Where, `"body"`)
}
