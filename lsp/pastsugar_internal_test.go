package lsp

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/croql/croql"
	"github.com/croql/croql/diag"
)

// TestPastSugarSpans: on every prefix of queries that mix sugar with
// other errors, pastSugar neither panics nor returns a span (of a
// diagnostic or of a fix) outside the text or over a rewritten sugar form.
func TestPastSugarSpans(t *testing.T) {
	env, err := croql.NewEnv(croql.Strings)
	require.NoError(t, err)
	for _, src := range []string{
		`fileId in (1, 2) and is hiden and createdAt > '2024-01-01'`,
		`text == "a" && !is hiden || max length is null and type = "plural"`,
		`(identifier in ("a", "b") or file is absent) and count of translations where (is pre translated = false) > 0`,
		`is hiden and fileId not in (3) and "welcome" and added > 'today - 7 days'`,
	} {
		for n := 0; n <= len(src); n++ {
			text := src[:n]
			_, diags := env.Check(text)
			var sugar []diag.Span
			for _, d := range diags {
				if d.Code == diag.ClassSyntax {
					for _, f := range d.Fixes {
						if f.Sugar {
							sugar = append(sugar, f.Span)
							break
						}
					}
				}
			}
			out := pastSugar(env, text, diags)
			require.GreaterOrEqual(t, len(out), len(diags), "%q: nothing is dropped", text)
			for _, d := range out {
				if isSyntaxError(d) {
					// One of src's own, perhaps with a fix found later.
					require.True(t, slices.ContainsFunc(diags, func(x diag.Diagnostic) bool {
						return x.Span == d.Span && x.Rule == d.Rule
					}), "%q: %v", text, d)
					continue
				}
				for _, sp := range append([]diag.Span{d.Span}, fixSpans(d)...) {
					require.True(t, 0 <= sp.Start && sp.Start <= sp.End && sp.End <= len(text), "%q: %v at %v", text, d, sp)
					for _, s := range sugar {
						assert.False(t, sp.Start < s.End && s.Start < sp.End, "%q: %v over the sugar at %v", text, d, s)
					}
				}
			}
		}
	}
}

// TestPastSugarOperators: an operator of another language is sugar, so
// it does not hide the misspelt field after it.
func TestPastSugarOperators(t *testing.T) {
	env, err := croql.NewEnv(croql.Strings)
	require.NoError(t, err)
	src := `text == "a" && is hiden`
	_, diags := env.Check(src)
	require.Len(t, diags, 2, "%v", diags)
	all := pastSugar(env, src, diags)
	require.Len(t, all, 3, "%v", all)
	assert.Equal(t, diags, all[:2], "the syntax errors as they were")
	more := all[2]
	assert.Equal(t, "unknown-field", more.Rule)
	assert.Equal(t, "is hiden", src[more.Span.Start:more.Span.End])
	require.NotEmpty(t, more.Fixes)
	assert.Equal(t, "is hidden", more.Fixes[0].Text)
	assert.Equal(t, more.Span, more.Fixes[0].Span)
}

// TestPastSugarRounds: with an in-list and a null test over API names,
// the null test gets its fix (found once the in-list is rewritten), and
// the misspelt field between them is shown.
func TestPastSugarRounds(t *testing.T) {
	env, err := croql.NewEnv(croql.Strings)
	require.NoError(t, err)
	src := `fileId in (1, 2) and is hiden and updatedAt is absent`
	_, diags := env.Check(src)
	require.Len(t, diags, 2, "%v", diags)
	require.Empty(t, diags[1].Fixes, "a null test next to another syntax error has no fix of its own")
	all := pastSugar(env, src, diags)
	require.Len(t, all, 3, "%v", all)
	null := all[1]
	assert.Equal(t, "null-test", null.Rule)
	require.Len(t, null.Fixes, 1)
	f := null.Fixes[0]
	assert.Equal(t, "updatedAt is absent", src[f.Span.Start:f.Span.End])
	assert.Equal(t, "not (updated >= '1970-01-01' or updated < '1970-01-01')", f.Text)
	assert.Equal(t, "unknown-field", all[2].Rule)
	assert.Equal(t, "is hiden", src[all[2].Span.Start:all[2].Span.End])
}

func fixSpans(d diag.Diagnostic) []diag.Span {
	var out []diag.Span
	for _, f := range d.Fixes {
		out = append(out, f.Span)
	}
	return out
}
