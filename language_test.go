package croql_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/croql/croql"
	"github.com/croql/croql/demo"
	"github.com/croql/croql/typecheck"
)

// TestLanguageMentionCase: `@language:"DE"` in a project whose code is
// "de" used to check clean and match nothing (every engine compares codes
// exactly). It is now an error whose fix gives the query that matches.
func TestLanguageMentionCase(t *testing.T) {
	p := demo.Default()
	var codes []string
	for _, l := range p.Languages {
		codes = append(codes, l.ID)
	}
	require.Contains(t, codes, "de")
	env := mustEnv(t, croql.Strings, croql.WithLanguages(codes...))
	src := `count of translations where (language = @language:"DE") > 0`
	q, diags := env.Compile(src)
	require.Nil(t, q)
	require.Len(t, diags, 1)
	assert.Equal(t, typecheck.RuleUnknownLanguage, diags[0].Rule)
	require.Len(t, diags[0].Fixes, 1)
	fix := diags[0].Fixes[0]
	fixed := src[:fix.Span.Start] + fix.Text + src[fix.Span.End:]
	q, diags = env.Compile(fixed)
	require.Empty(t, diags)
	n := 0
	for i := range p.Strings {
		if mustMatch(t, q, &p.Strings[i]) {
			n++
		}
	}
	assert.Positive(t, n, "the fixed query matches the strings with German translations")
}
