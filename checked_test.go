package croql_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/croql/croql"
	"github.com/croql/croql/compile"
	"github.com/croql/croql/demo"
	"github.com/croql/croql/mapping"
	"github.com/croql/croql/schema"
)

// SQLForChecked and CompileChecked of a checked query answer what SQLFor
// and Compile answer for its source.
func TestCheckedAsSource(t *testing.T) {
	p := demo.Default()
	env := mustEnv(t, croql.Strings, croql.WithUserIDs(p.UserIDs()))
	m := mapping.Default(env.Catalog())
	for _, c := range []struct {
		src  string
		warn bool
	}{
		{`count of translations where (user = @user:"bob") > 0 and not is hidden`, false},
		{`text contains 'cart'`, true}, // single quotes
	} {
		src := c.src
		q, diags := env.Check(src)
		require.NotNil(t, q, "%q: %v", src, diags)
		require.Equal(t, c.warn, len(diags) > 0, "%q: %v", src, diags)
		for _, purpose := range []compile.Purpose{compile.Page, compile.WholeSet} {
			want, wantDiags := env.SQLFor(src, compile.Postgres{}, m, purpose)
			got, gotDiags := env.SQLForChecked(q, compile.Postgres{}, m, purpose)
			assert.Equal(t, want, got, src)
			assert.Equal(t, wantDiags, gotDiags, src)
		}
		want, wantDiags := env.Compile(src)
		got, gotDiags := env.CompileChecked(q)
		require.NotNil(t, got)
		assert.Equal(t, wantDiags, gotDiags, src)
		for i := range p.Strings {
			s := &p.Strings[i]
			w, err := want.Match(s)
			require.NoError(t, err)
			g, err := got.Match(s)
			require.NoError(t, err)
			assert.Equal(t, w, g, "%q on string %d", src, s.ID)
		}
	}

	// The compiler's error: the same RuleSQL diagnostic, over the same
	// span, and the checked query's own list is left as it was.
	m.Tables["source string"].Columns["max length"] = ""
	src := `is hidden and (max length > 3 or text = "x")`
	q, diags := env.Check(src)
	require.NotNil(t, q)
	n := len(q.Diags)
	want, wantDiags := env.SQLFor(src, compile.SQLite{}, m, compile.Page)
	got, gotDiags := env.SQLForChecked(q, compile.SQLite{}, m, compile.Page)
	assert.Nil(t, want)
	assert.Nil(t, got)
	assert.Equal(t, wantDiags, gotDiags)
	assert.Equal(t, croql.RuleSQL, gotDiags[0].Rule)
	assert.Len(t, q.Diags, n)
	assert.Equal(t, diags, q.Diags)
}

// A query that is not a checked one of the environment's context is an
// error, not a panic.
func TestCheckedMisuse(t *testing.T) {
	env := mustEnv(t, croql.Strings)
	other := mustEnv(t, croql.Translations)
	q, diags := other.Check(`text contains "a"`)
	require.NotNil(t, q, "%v", diags)
	s, d := env.SQLForChecked(nil, compile.SQLite{}, mapping.Default(env.Catalog()), compile.Page)
	assert.Nil(t, s)
	require.Len(t, d, 1)
	assert.Equal(t, croql.RuleCompile, d[0].Rule)
	cq, d := env.CompileChecked(nil)
	assert.Nil(t, cq)
	require.Len(t, d, 1)
	assert.Equal(t, croql.RuleCompile, d[0].Rule)

	s, d = env.SQLForChecked(q, compile.SQLite{}, mapping.Default(env.Catalog()), compile.Page)
	assert.Nil(t, s)
	require.Len(t, d, 1)
	assert.Contains(t, d[0].Message, "checked in context translations")
	cq, d = env.CompileChecked(q)
	assert.Nil(t, cq)
	require.Len(t, d, 1)
	assert.Equal(t, croql.RuleCompile, d[0].Rule)

	// The same context in another environment is fine.
	same := mustEnv(t, croql.Strings)
	sq, _ := same.Check(`text contains "a"`)
	cq, d = env.CompileChecked(sq)
	require.NotNil(t, cq, "%v", d)
	ok, err := cq.Match(&schema.SourceString{Text: "abc"})
	require.NoError(t, err)
	assert.True(t, ok)
}
