package lsp

import (
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
			for _, d := range pastSugar(env, text, diags) {
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
	more := pastSugar(env, src, diags)
	require.Len(t, more, 1, "%v", more)
	assert.Equal(t, "unknown-field", more[0].Rule)
	assert.Equal(t, "is hiden", src[more[0].Span.Start:more[0].Span.End])
	require.NotEmpty(t, more[0].Fixes)
	assert.Equal(t, "is hidden", more[0].Fixes[0].Text)
	assert.Equal(t, more[0].Span, more[0].Fixes[0].Span)
}

func fixSpans(d diag.Diagnostic) []diag.Span {
	var out []diag.Span
	for _, f := range d.Fixes {
		out = append(out, f.Span)
	}
	return out
}
