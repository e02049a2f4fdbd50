package croql_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/croql/croql"
	"github.com/croql/croql/demo"
)

// TestFirstHourFixes: the mistakes a query author makes in the first hour
// (other languages' operators, bool literals, a string's type compared
// as text, an in-list or a null test over an API name) each get a
// message that names the CroQL construct and a sugar fix that, applied,
// leaves a query that checks clean and matches what the mistake meant on
// the demo project; Lower rewrites each into platform CroQL.
func TestFirstHourFixes(t *testing.T) {
	env, err := croql.NewEnv(croql.Strings)
	require.NoError(t, err)
	p := demo.Default()
	for _, c := range []struct {
		src, rule, says, fixed string
		// same is a query that checks and means what src meant.
		same string
	}{
		{`text == "Save"`, "double-equals", "write `=`", `text = "Save"`, ""},
		{`is hidden&&is duplicate`, "double-ampersand", "write `and`", `is hidden and is duplicate`, ""},
		{`is hidden || is duplicate`, "double-bar", "write `or`", `is hidden or is duplicate`, ""},
		{`text <> "Save"`, "angle-not-equal", "write `!=`", `text != "Save"`, ""},
		{`!is hidden`, "bang-not", "write `not`", `not is hidden`, ""},
		{`!(is hidden and is duplicate)`, "bang-not", "write `not`", `not (is hidden and is duplicate)`, ""},
		{`is hidden = true`, "unknown-field", "a bool is tested as `is hidden` (true) or `not is hidden` (false)", `is hidden`, ""},
		{`is hidden = false`, "unknown-field", "`not is hidden` (false)", `not is hidden`, ""},
		{`is hidden != true and is duplicate`, "unknown-field", "write `not is hidden`", `not is hidden and is duplicate`, ""},
		{`not is hidden = false`, "unknown-field", "write `not is hidden`", `not (not is hidden)`, "is hidden"},
		{`type = "plural"`, "unknown-field", "tested with `type is plain`, `type is plural`, `type is icu`, `type is asset`", `type is plural`, ""},
		{`type != "icu" and is hidden`, "unknown-field", "write `not type is icu`", `not type is icu and is hidden`, ""},
		{`fileId in (1, 2)`, "in-list", "write `id of file = 1 or id of file = 2`", `(id of file = 1 or id of file = 2)`, "id of file = 1 or id of file = 2"},
		{`fileId not in (1, 2)`, "in-list", "write `id of file != 1 and id of file != 2`", `(id of file != 1 and id of file != 2)`, ""},
		{`updatedAt is absent`, "null-test", "for `updatedAt` write `not (updated >= '1970-01-01' or updated < '1970-01-01')`",
			`not (updated >= '1970-01-01' or updated < '1970-01-01')`, ""},
	} {
		_, diags := env.Check(c.src)
		errs := diags.Errors()
		require.Len(t, errs, 1, "%s: %v", c.src, diags)
		d := errs[0]
		assert.Equal(t, c.rule, d.Rule, c.src)
		assert.Contains(t, d.Message, c.says, c.src)
		require.NotEmpty(t, d.Fixes, "%s: %+v", c.src, d)
		f := d.Fixes[0]
		fixed := c.src[:f.Span.Start] + f.Text + c.src[f.Span.End:]
		assert.Equal(t, c.fixed, fixed, c.src)
		assert.True(t, f.Sugar, "%s: a sugar fix, which Lower applies", c.src)
		q, diags := env.Compile(fixed)
		require.False(t, diags.HasErrors(), "%s fixed to %s: %v", c.src, fixed, diags)
		lowered, _, diags := env.Lower(c.src)
		assert.Empty(t, diags, "%s lowered to %s", c.src, lowered)
		if c.same == "" {
			continue
		}
		same, diags := env.Compile(c.same)
		require.False(t, diags.HasErrors(), "%s: %v", c.same, diags)
		n := 0
		for i := range p.Strings {
			got, err := q.Match(&p.Strings[i])
			require.NoError(t, err)
			want, err := same.Match(&p.Strings[i])
			require.NoError(t, err)
			assert.Equal(t, want, got, "%s on string %d", fixed, p.Strings[i].ID)
			if got {
				n++
			}
		}
		assert.Positive(t, n, "%s matches some demo string", fixed)
	}
}

// TestFirstHourMessages: where no fix means the same (`= false` on a bool
// that may be absent, a type with no field, a bool literal compared with
// a string), the message names the construct to write and no fix is
// offered.
func TestFirstHourMessages(t *testing.T) {
	env, err := croql.NewEnv(croql.Strings)
	require.NoError(t, err)
	for _, c := range []struct{ src, says string }{
		{`true`, "CroQL has no `true`: a bool field is a condition by itself"},
		{`text = true`, "CroQL has no `true`, and `text` is not a bool"},
		{`type = "html"`, "its type is tested with `type is plain`, `type is plural`, `type is icu`, `type is asset`"},
		{`count of languages summary where (translation updated = false) > 0`, "`not translation updated` (false or absent)"},
	} {
		_, diags := env.Check(c.src)
		errs := diags.Errors()
		require.NotEmpty(t, errs, c.src)
		d := errs[len(errs)-1]
		assert.Contains(t, d.Message, c.says, c.src)
		assert.Empty(t, d.Fixes, c.src)
	}
}

// TestLowerAPINames: Lower turns an in-list or a null test over an API
// name into platform CroQL that checks clean.
func TestLowerAPINames(t *testing.T) {
	env, err := croql.NewEnv(croql.Strings)
	require.NoError(t, err)
	for src, want := range map[string]string{
		`fileId in (1, 2)`:                        `(id of file = 1 or id of file = 2)`,
		`updatedAt is absent`:                     `not (updated >= '1970-01-01' or updated < '1970-01-01')`,
		`createdAt is not null and fileId in (3)`: `(added >= '1970-01-01' or added < '1970-01-01') and id of file = 3`,
	} {
		got, done, diags := env.Lower(src)
		assert.Empty(t, diags, src)
		assert.Equal(t, want, got, src)
		assert.NotEmpty(t, done, src)
		_, diags = env.Check(got)
		assert.False(t, diags.HasErrors(), "%s: %v", got, diags)
	}
}
