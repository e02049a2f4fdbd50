package croql_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/croql/croql"
	"github.com/croql/croql/diag"
	"github.com/croql/croql/parser"
	"github.com/croql/croql/typecheck"
)

func mustEnv(t testing.TB, ctx string, opts ...croql.Option) *croql.Env {
	t.Helper()
	env, err := croql.NewEnv(ctx, opts...)
	require.NoError(t, err)
	return env
}

// span finds the byte span of the first occurrence of sub in src.
func span(t testing.TB, src, sub string) diag.Span {
	t.Helper()
	i := strings.Index(src, sub)
	require.GreaterOrEqual(t, i, 0, "%q not in %q", sub, src)
	return diag.Span{Start: i, End: i + len(sub)}
}

func TestAcceptanceDiagnostics(t *testing.T) {
	cases := []struct {
		name, ctx, src string
		edition        croql.Option
		sev            diag.Severity
		code, rule     string
		at             string // the text the span must cover exactly
		msg            string // a substring of message + hint
		fix            string // a suggested replacement, when one exists
	}{
		{"member written as one word", croql.Strings, `fileId = 5`, nil, diag.Error, diag.ClassLogic, typecheck.RuleUnknownField, "fileId", "id of file", "id of file"},
		{"misspelt field", croql.Strings, `is hiden`, nil, diag.Error, diag.ClassLogic, typecheck.RuleUnknownField, "is hiden", "is hidden", "is hidden"},
		{"field of another object", croql.Translations, `not is approved`, nil, diag.Error, diag.ClassLogic, typecheck.RuleUnknownField, "is approved", "languages summary", ""},
		{"int is not bool", croql.Strings, `11111111111`, nil, diag.Error, diag.ClassLogic, typecheck.RuleNotBool, "11111111111", "expected bool", ""},
		{"count is not bool", croql.Strings, `count of translations`, nil, diag.Error, diag.ClassLogic, typecheck.RuleNotBool, "count of translations", "count of translations > 0", ""},
		{"string vs user", croql.Strings, `text = @user:"x"`, nil, diag.Error, diag.ClassLogic, typecheck.RuleType, `text = @user:"x"`, "cannot compare string with user", ""},
		{"count of a string", croql.Strings, `count of text > 0`, nil, diag.Error, diag.ClassLogic, typecheck.RuleNotCollection, "text", "needs a collection", ""},
		{"enterprise field in standard", croql.Strings, `isPassedWorkflow`, nil, diag.Error, diag.ClassLogic, typecheck.RuleEdition, "isPassedWorkflow", "enterprise", ""},
		{"in list", croql.Strings, `id in (1, 2)`, nil, diag.Error, diag.ClassSyntax, "", "", "or", ""},
		{"unknown enum value", croql.Strings, `count of translations where (provider = "gogle") > 0`, nil, diag.Warning, diag.ClassWarning, typecheck.RuleEnum, `"gogle"`, "google", `"google"`},
		{"single-quoted string", croql.Strings, `text = 'Welcome!'`, nil, diag.Warning, diag.ClassWarning, typecheck.RuleSingleQuoted, `'Welcome!'`, "double quotes", `"Welcome!"`},
		{"enterprise field allowed", croql.Strings, `isPassedWorkflow and count of fields where (slug = "x") > 0`, croql.WithEdition(croql.Enterprise), -1, "", "", "", "", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var opts []croql.Option
			if tc.edition != nil {
				opts = append(opts, tc.edition)
			}
			q, diags := mustEnv(t, tc.ctx, opts...).Check(tc.src)
			if tc.sev < 0 {
				assert.Empty(t, diags)
				require.NotNil(t, q)
				assert.NotNil(t, q.Root)
				assert.Equal(t, diags, q.Diags)
				return
			}
			require.NotEmpty(t, diags, "expected a diagnostic")
			d := diags[0]
			assert.Equal(t, tc.sev, d.Severity, "%+v", d)
			assert.Equal(t, tc.code, d.Code, "%+v", d)
			if tc.rule != "" {
				assert.Equal(t, tc.rule, d.Rule, "%+v", d)
			}
			if tc.at != "" {
				assert.Equal(t, span(t, tc.src, tc.at), d.Span, "%+v", d)
			}
			assert.Contains(t, d.Message+" "+d.Hint, tc.msg)
			if tc.fix != "" {
				var fixes []string
				for _, f := range d.Fixes {
					fixes = append(fixes, f.Text)
				}
				assert.Contains(t, fixes, tc.fix)
			}
			if tc.sev == diag.Warning {
				assert.False(t, diags.HasErrors(), "a warning alone must not fail the query")
				require.NotNil(t, q)
				assert.NotNil(t, q.Root)
			} else {
				assert.Nil(t, q)
			}
		})
	}
}

func TestIndependentErrorsAllReported(t *testing.T) {
	src := `is hiden and fileId = 5 and count of text > 0`
	_, diags := mustEnv(t, croql.Strings).Check(src)
	errs := diags.Errors()
	require.Len(t, errs, 3, "%v", errs)
	assert.Equal(t, span(t, src, "is hiden"), errs[0].Span)
	assert.Equal(t, span(t, src, "fileId"), errs[1].Span)
	assert.Equal(t, span(t, src, "text"), errs[2].Span)
	for i := 1; i < len(errs); i++ {
		assert.Less(t, errs[i-1].Span.Start, errs[i].Span.Start, "sorted by position")
	}
}

func TestNamesResolveByNormalForm(t *testing.T) {
	pairs := []struct{ ctx, a, b string }{
		{croql.TM, `count of records where (usage count > 0) > 0`, `count of records where (usageCount > 0) > 0`},
		{croql.Strings, `is hidden`, `isHidden`},
		{croql.Strings, `is hidden`, `IS HIDDEN`},
		{croql.Strings, `count of languages summary where (approvalsCount >= 1) > 0`, `count of languagesSummary where (approvals count >= 1) > 0`},
	}
	for _, p := range pairs {
		env := mustEnv(t, p.ctx)
		qa, da := env.Check(p.a)
		qb, db := env.Check(p.b)
		require.Empty(t, da, p.a)
		require.Empty(t, db, p.b)
		fa, fb := fieldsOf(qa.Root), fieldsOf(qb.Root)
		require.NotEmpty(t, fa)
		assert.Equal(t, fa, fb, "%s vs %s", p.a, p.b)
	}
}

// fieldsOf lists the resolved fields of a checked tree, in order.
func fieldsOf(n typecheck.Node) []string {
	var out []string
	var walk func(typecheck.Node)
	walk = func(n typecheck.Node) {
		switch n := n.(type) {
		case *typecheck.Field:
			out = append(out, fmt.Sprintf("%s@%d", n.F.Name, n.Scope))
		case *typecheck.Member:
			walk(n.X)
			out = append(out, "."+n.F.Name)
		case *typecheck.Count:
			walk(n.X)
		case *typecheck.Filter:
			walk(n.X)
			walk(n.Pred)
		case *typecheck.Compare:
			walk(n.X)
			walk(n.Y)
		case *typecheck.Logic:
			walk(n.X)
			walk(n.Y)
		case *typecheck.Not:
			walk(n.X)
		}
	}
	walk(n)
	return out
}

func TestUserAndLanguageDirectories(t *testing.T) {
	env := mustEnv(t, croql.Strings, croql.WithUserIDs(map[string]int64{"alice": 1, "bob": 2}), croql.WithLanguages("de", "fr", "uk"))
	_, diags := env.Check(`count of translations where (user = @user:"alice" and language = @language:"de") > 0`)
	require.Empty(t, diags)

	_, diags = env.Check(`count of comments where (user = @user:"alcie") > 0`)
	require.Len(t, diags, 1)
	assert.Equal(t, typecheck.RuleUnknownUser, diags[0].Rule)
	assert.Contains(t, diags[0].Hint, `@user:"alice"`)

	_, diags = env.Check(`count of translations where (language = @language:"ed") > 0`)
	require.Len(t, diags, 1)
	assert.Equal(t, typecheck.RuleUnknownLanguage, diags[0].Rule)
	assert.Contains(t, diags[0].Hint, `@language:"de"`)
}

func TestLintPositions(t *testing.T) {
	src := "is hidden and\n  text = \"ünï😀\" and fileId = 5"
	got := croql.Lint(src, croql.Strings)
	require.Len(t, got, 1)
	d := got[0]
	assert.Equal(t, span(t, src, "fileId"), d.Span)
	assert.Equal(t, 2, d.Start.Line)
	// `  text = "ünï😀" and ` is 20 runes before fileId: column 21.
	assert.Equal(t, 21, d.Start.Column)
	// In UTF-16 the emoji counts twice: 21 units before fileId, 0-based.
	assert.Equal(t, 21, d.Start.UTF16)
	assert.Equal(t, 27, d.End.Column)
	assert.Equal(t, 27, d.End.UTF16)

	bad := croql.Lint("is hidden", "nope")
	require.Len(t, bad, 1)
	assert.Contains(t, bad[0].Message, "unknown context")
}

func TestFormatUsesDocumentedSpelling(t *testing.T) {
	env := mustEnv(t, croql.Strings)
	out, diags := env.Format(`COUNT   OF languagesSummary WHERE (IsApproved)>0 AND ishidden`)
	require.Empty(t, diags)
	assert.Equal(t, `count of languages summary where (is approved) > 0 and is hidden`, out)
}

func ExampleEnv_Check() {
	env, err := croql.NewEnv(croql.Strings)
	if err != nil {
		panic(err)
	}
	text := `is hiden and count of translations > 0`
	_, diags := env.Check(text)
	src := diag.NewSource(text)
	for _, d := range diags {
		p := src.Position(d.Span.Start)
		fmt.Printf("%d:%d %s/%s %s\n", p.Line, p.Column, d.Code, d.Rule, d.Message)
	}
	// Output:
	// 1:1 croqlInvalidLogic/unknown-field `is hiden` is not a field of a source string; did you mean `is hidden`?
}

// The environment's settings, for a package that parses and checks text
// in steps of its own (package editor keeps the tolerant parse of a text
// being typed, and checks its tree).
func ExampleEnv_CheckConfig() {
	env, err := croql.NewEnv(croql.Translations, croql.WithEdition(croql.Enterprise),
		croql.WithUserIDs(map[string]int64{"alice": 1}))
	if err != nil {
		panic(err)
	}
	cfg := env.CheckConfig()
	fmt.Println(cfg.Context.Name, cfg.Edition, cfg.Users["alice"])
	src := `user = @user:"alise"`
	part := env.Parser().ParseTolerant(src)
	for _, d := range typecheck.Check(cfg, src, part.Tree).Diags {
		fmt.Println(d.Rule, d.Message)
	}
	// Output:
	// translations enterprise 1
	// unknown-user no user with login "alise"
}

// CheckConfig and Parser carry every option the Env was built with.
func TestEnvCheckConfigAndParser(t *testing.T) {
	now := func() time.Time { return time.Date(2024, 5, 1, 0, 0, 0, 0, time.UTC) }
	env := mustEnv(t, croql.Strings, croql.WithEdition(croql.Enterprise), croql.WithUserIDs(map[string]int64{"bob": 7}),
		croql.WithLanguages("de"), croql.WithClock(now), croql.WithFoldContains(true), croql.WithLimits(parser.Limits{MaxSource: 10}))
	cfg := env.CheckConfig()
	assert.Same(t, env.Context(), cfg.Context)
	assert.Same(t, env.Catalog(), cfg.Catalog)
	assert.Equal(t, croql.Enterprise, cfg.Edition)
	assert.Equal(t, map[string]int64{"bob": 7}, cfg.Users)
	assert.Equal(t, []string{"de"}, cfg.Languages)
	assert.True(t, cfg.FoldContains)
	assert.Equal(t, now(), cfg.Now())
	assert.Equal(t, time.UTC, cfg.Location)
	_, diags := env.Parser().Parse(`is hidden and is visible`)
	assert.True(t, diags.HasErrors(), "the parser keeps the Env's limits")
	// The defaults of an Env without options.
	cfg = mustEnv(t, croql.Strings).CheckConfig()
	assert.Equal(t, croql.Standard, cfg.Edition)
	assert.Nil(t, cfg.Users)
	assert.NotNil(t, cfg.Now)
}
