package croql_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/croql/croql"
	"github.com/croql/croql/demo"
	"github.com/croql/croql/diag"
	"github.com/croql/croql/schema"
	"github.com/croql/croql/typecheck"
)

// sugarClock is the clock of the sugar tests: inside the demo project's
// years, so relative dates split its strings.
var sugarClock = time.Date(2025, 6, 15, 12, 30, 45, 0, time.UTC)

func sugarEnv(t *testing.T, ctx string) *croql.Env {
	t.Helper()
	env, err := croql.NewEnv(ctx, croql.WithEdition(croql.Enterprise), croql.WithClock(func() time.Time { return sugarClock }))
	require.NoError(t, err)
	return env
}

// sugarFix checks src and returns its one error diagnostic, which must
// carry a sugar fix, and that fix.
func sugarFix(t *testing.T, env *croql.Env, src string) (diag.Diagnostic, diag.Fix) {
	t.Helper()
	_, diags := env.Check(src)
	errs := diags.Errors()
	require.Len(t, errs, 1, "%s: an error by default: %v", src, diags)
	i := slices.IndexFunc(errs[0].Fixes, func(f diag.Fix) bool { return f.Sugar })
	require.GreaterOrEqual(t, i, 0, "%s: a sugar fix: %+v", src, errs[0])
	return errs[0], errs[0].Fixes[i]
}

// TestSugarForms: each sugar form is an error by default; its diagnostic
// has a sugar fix; the fixed query lints clean (no diagnostic at all);
// Env.Lower writes the same query; and the fixed query matches, over the
// demo project, exactly the objects of the form's documented meaning
// (docs/language.md, "Sugar"), written here in Go.
func TestSugarForms(t *testing.T) {
	p := demo.Default()
	cat := schema.New()
	ctxOf := func(name string) *schema.Context {
		c, ok := cat.Context(name)
		require.True(t, ok, name)
		return c
	}
	str := func(o any) *schema.SourceString { return o.(*schema.SourceString) }
	today := time.Date(2025, 6, 15, 0, 0, 0, 0, time.UTC)
	before := func(d time.Time) func(any) bool {
		return func(o any) bool { return str(o).Added.Std().After(d) }
	}
	terms := p.Objects(ctxOf(schema.CtxGlossary))
	require.NotEmpty(t, terms)
	lang := terms[0].(*schema.GlossaryTerm).Language
	for _, c := range []struct {
		rule, ctx, src string
		want           string // the fixed query
		meaning        func(any) bool
	}{
		{"in-list", schema.CtxStrings, `identifier in ("string_1", "string_2", "nope")`,
			`(identifier = "string_1" or identifier = "string_2" or identifier = "nope")`,
			func(o any) bool { return slices.Contains([]string{"string_1", "string_2", "nope"}, str(o).Identifier) }},
		{"in-list", schema.CtxStrings, `is hidden or id of file not in (1, 2)`,
			`is hidden or (id of file != 1 and id of file != 2)`,
			func(o any) bool { s := str(o); return s.IsHidden || s.File == nil || s.File.ID != 1 && s.File.ID != 2 }},
		{"null-test", schema.CtxStrings, `max length is null`, `not (max length >= 0 or max length < 0)`,
			func(o any) bool { return str(o).MaxLength == nil }},
		{"null-test", schema.CtxStrings, `file is absent`, `not (id of file >= 0 or id of file < 0)`,
			func(o any) bool { return str(o).File == nil }},
		{"null-test", schema.CtxStrings, `updated is not absent`, `(updated >= '1970-01-01' or updated < '1970-01-01')`,
			func(o any) bool { return str(o).Updated != nil }},
		{"null-test", schema.CtxStrings, `context is empty`, `context = ""`,
			func(o any) bool { return str(o).Context == "" }},
		{"null-test", schema.CtxStrings, `comments is not empty`, `count of comments > 0`,
			func(o any) bool { return len(str(o).Comments) > 0 }},
		{"bad-datetime", schema.CtxStrings, `added > 'today - 30 days'`, `added > '2025-05-16'`,
			before(today.AddDate(0, 0, -30))},
		{"bad-datetime", schema.CtxStrings, `added > 'yesterday'`, `added > '2025-06-14'`,
			before(today.AddDate(0, 0, -1))},
		{"bad-datetime", schema.CtxStrings, `added > '6 months ago'`, `added > '2024-12-15 12:30:45'`,
			before(sugarClock.AddDate(0, -6, 0))},
		{"bad-datetime", schema.CtxStrings, `added > '-2w'`, `added > '2025-06-01 12:30:45'`,
			before(sugarClock.AddDate(0, 0, -14))},
		{"bad-datetime", schema.CtxStrings, `added > 'now - 1 year'`, `added > '2024-06-15 12:30:45'`,
			before(sugarClock.AddDate(-1, 0, 0))},
		{"not-bool", schema.CtxStrings, `"string_1"`, `(text contains "string_1" or identifier contains "string_1")`,
			func(o any) bool {
				return strings.Contains(str(o).Text, "string_1") || strings.Contains(str(o).Identifier, "string_1")
			}},
		{"not-bool", schema.CtxStrings, `"e" and not is hidden`, `(text contains "e" or identifier contains "e") and not is hidden`,
			func(o any) bool {
				s := str(o)
				return (strings.Contains(s.Text, "e") || strings.Contains(s.Identifier, "e")) && !s.IsHidden
			}},
		{"unknown-field", schema.CtxStrings, `fileId = 1`, `id of file = 1`,
			func(o any) bool { return str(o).File != nil && str(o).File.ID == 1 }},
		{"unknown-field", schema.CtxStrings, `branchId = 1`, `id of branch = 1`,
			func(o any) bool { return str(o).Branch != nil && str(o).Branch.ID == 1 }},
		{"unknown-field", schema.CtxStrings, `createdAt > '2024-06-01'`, `added > '2024-06-01'`,
			before(time.Date(2024, 6, 1, 0, 0, 0, 0, time.UTC))},
		{"unknown-field", schema.CtxGlossary, `languageId = "` + lang + `"`, `language = "` + lang + `"`,
			func(o any) bool { return o.(*schema.GlossaryTerm).Language == lang }},
		{"unknown-field", schema.CtxGlossary, `conceptId = 1`, `concept = 1`,
			func(o any) bool { return o.(*schema.GlossaryTerm).ConceptID == 1 }},
	} {
		t.Run(c.src, func(t *testing.T) {
			env := sugarEnv(t, c.ctx)
			d, f := sugarFix(t, env, c.src)
			assert.Equal(t, c.rule, d.Rule)
			fixed := applyFix(c.src, f)
			assert.Equal(t, c.want, fixed)
			_, diags := env.Check(fixed)
			assert.Empty(t, diags, "the fix lints clean")

			lowered, steps, rest := env.Lower(c.src)
			assert.Equal(t, fixed, lowered)
			assert.Empty(t, rest)
			require.Len(t, steps, 1)
			assert.Equal(t, f.Text, steps[0].To)

			q, diags := env.Compile(fixed)
			require.False(t, diags.HasErrors(), "%v", diags)
			matched, n := 0, 0
			for _, o := range p.Objects(ctxOf(c.ctx)) {
				n++
				want := c.meaning(o)
				if want {
					matched++
				}
				assert.Equal(t, want, mustMatch(t, q, o), "%s on %+v", fixed, o)
			}
			t.Logf("%s -> %s: %d of %d", c.src, fixed, matched, n)
		})
	}
}

// TestRelativeDateStatesClock: the diagnostic of a relative date names the
// clock it was computed from, and another clock gives another date.
func TestRelativeDateStatesClock(t *testing.T) {
	env := sugarEnv(t, schema.CtxStrings)
	d, f := sugarFix(t, env, `added > 'today - 7 days'`)
	assert.Contains(t, d.Message, "2025-06-15 12:30:45 UTC")
	assert.Equal(t, `'2025-06-08'`, f.Text)

	berlin, err := time.LoadLocation("Europe/Berlin")
	require.NoError(t, err)
	late := time.Date(2025, 6, 15, 23, 30, 0, 0, time.UTC) // already the 16th in Berlin
	env2, err := croql.NewEnv(croql.Strings, croql.WithClock(func() time.Time { return late }), croql.WithLocation(berlin))
	require.NoError(t, err)
	d, f = sugarFix(t, env2, `added > 'today - 7 days'`)
	assert.Contains(t, d.Message, "2025-06-16 01:30:00 Europe/Berlin")
	assert.Equal(t, `'2025-06-09'`, f.Text)
}

// TestSugarNotRelative: text that is no relative date, and dates out of
// range, keep the plain bad-datetime diagnostic with no fix.
func TestSugarNotRelative(t *testing.T) {
	env := sugarEnv(t, schema.CtxStrings)
	for _, src := range []string{
		`added > 'today - 7 fortnights'`, `added > 'last tuesday'`, `added > 'today -'`,
		`added > 'today - 99999999999 days'`, `added > '9000 years ago'`, `added > '-7x'`, `added > 'today 7 days'`,
	} {
		_, diags := env.Check(src)
		require.Len(t, diags, 1, src)
		assert.Equal(t, "bad-datetime", diags[0].Rule, src)
		assert.Empty(t, diags[0].Fixes, src)
	}
}

// TestLowerSeveral: Env.Lower rewrites every sugar form of a query, also
// several at once and nested, and leaves a misspelt field (not sugar) as
// an error of the rewritten text.
func TestLowerSeveral(t *testing.T) {
	env := sugarEnv(t, schema.CtxStrings)
	src := `identifier in ("a", "b") and file is absent and added > 'today - 1 month' or fileId = 3`
	got, steps, rest := env.Lower(src)
	assert.Equal(t, `(identifier = "a" or identifier = "b") and not (id of file >= 0 or id of file < 0) and added > '2025-05-15' or id of file = 3`, got)
	assert.Empty(t, rest)
	assert.Len(t, steps, 4)

	got, _, rest = env.Lower(`text is null and is hiden`)
	assert.Equal(t, `not (text >= "") and is hiden`, got)
	require.Len(t, rest, 1)
	assert.Equal(t, "unknown-field", rest[0].Rule)

	got, steps, rest = env.Lower(`is hidden`)
	assert.Equal(t, `is hidden`, got)
	assert.Empty(t, steps)
	assert.Empty(t, rest)
}

// ExampleEnv_Lower rewrites sugar into the platform's CroQL. The clock is
// fixed here so that the relative date gives the same date every day.
func ExampleEnv_Lower() {
	clock := func() time.Time { return time.Date(2024, 3, 15, 9, 30, 0, 0, time.UTC) }
	env, err := croql.NewEnv(croql.Strings, croql.WithClock(clock))
	if err != nil {
		panic(err)
	}
	out, steps, diags := env.Lower(`identifier in ("a", "b") and added > 'today - 7 days' and file is absent`)
	fmt.Println(out)
	for _, s := range steps {
		fmt.Printf("%s: %s => %s\n", s.Rule, s.From, s.To)
	}
	fmt.Println(len(diags), "diagnostics")
	// Output:
	// (identifier = "a" or identifier = "b") and added > '2024-03-08' and not (id of file >= 0 or id of file < 0)
	// in-list: identifier in ("a", "b") => (identifier = "a" or identifier = "b")
	// null-test: file is absent => not (id of file >= 0 or id of file < 0)
	// bad-datetime: 'today - 7 days' => '2024-03-08'
	// 0 diagnostics
}

// TestFixBudget: a query full of fixable errors gets at most
// typecheck.MaxCheckedFixes checked fixes, and a long one fewer (its
// re-checks stay within typecheck.MaxCheckedBytes); none is unchecked.
func TestFixBudget(t *testing.T) {
	env := sugarEnv(t, schema.CtxStrings)
	count := func(src string) int {
		_, diags := env.Check(src)
		n := 0
		for _, d := range diags {
			n += len(d.Fixes)
		}
		return n
	}
	many := strings.Repeat("fileId = 1 and ", 45) + "is hidden"
	assert.Equal(t, typecheck.MaxCheckedFixes, count(many))
	pad := `text != "` + strings.Repeat("x", 60<<10) + `"`
	long := "fileId = 1 and " + strings.Repeat("branchId = 2 and ", 10) + pad
	got := count(long)
	assert.Equal(t, typecheck.MaxCheckedBytes/len(long), got, "fixes of a %d-byte query", len(long))
}

// TestFieldOfAnotherObjectFix: a field of a collection's elements used at
// the root gets the condition tested on some element as a fix, and it
// checks: `count of votes > 0` on strings is
// `count of translations where (count of votes > 0) > 0`, the strings with
// a translation that has a vote.
func TestFieldOfAnotherObjectFix(t *testing.T) {
	env := sugarEnv(t, schema.CtxStrings)
	for src, want := range map[string]string{
		`count of votes > 0`:                  `count of translations where (count of votes > 0) > 0`,
		`is hidden and provider = "tm"`:       `is hidden and count of translations where (provider = "tm") > 0`,
		`not is approved`:                     `not count of languages summary where (is approved) > 0`,
		`count of comments where (votes) > 0`: ``, // votes is a collection: no condition, no fix
	} {
		_, diags := env.Check(src)
		require.Len(t, diags, 1, src)
		d := diags[0]
		assert.Equal(t, "unknown-field", d.Rule)
		if want == "" {
			assert.Empty(t, d.Fixes, src)
			assert.Empty(t, d.Hint, src)
			continue
		}
		require.Len(t, d.Fixes, 1, src)
		assert.False(t, d.Fixes[0].Sugar, "a guess, not sugar")
		assert.Equal(t, want, applyFix(src, d.Fixes[0]))
		assert.Equal(t, "write `"+d.Fixes[0].Text+"`", d.Hint)
		_, again := env.Check(want)
		assert.Empty(t, again, want)
	}

	q, diags := env.Compile(`count of translations where (count of votes > 0) > 0`)
	require.Empty(t, diags)
	n := 0
	p := demo.Default()
	for i := range p.Strings {
		o := &p.Strings[i]
		voted := slices.ContainsFunc(o.Translations, func(tr schema.Translation) bool { return len(tr.Votes) > 0 })
		assert.Equal(t, voted, mustMatch(t, q, o))
		if voted {
			n++
		}
	}
	assert.Positive(t, n, "the demo has strings with votes")
}

// BenchmarkCheckFixes measures Env.Check on queries whose fixes are
// re-checked (typecheck.CheckFixes): what a lint of a wrong query costs.
//
//	go test -run '^$' -bench BenchmarkCheckFixes -benchmem .
func BenchmarkCheckFixes(b *testing.B) {
	env, err := croql.NewEnv(croql.Strings)
	require.NoError(b, err)
	for name, src := range map[string]string{
		"in-list-and-absent": `identifier in ("a", "b") and file is absent`,
		"field-of-element":   `count of votes > 0 and not is hidden`,
		"misspelt":           `is hiden and fileId = 5`,
		"relative-date":      `added > 'today - 7 days' and "welcome"`,
	} {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, diags := env.Check(src); !diags.HasErrors() {
					b.Fatal("no error")
				}
			}
		})
	}
}
