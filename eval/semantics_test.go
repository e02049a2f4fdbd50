package eval_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/croql/croql/diag"
	"github.com/croql/croql/eval"
	"github.com/croql/croql/internal/refeval"
	"github.com/croql/croql/parser"
	"github.com/croql/croql/schema"
	"github.com/croql/croql/typecheck"
)

// Two hand-made source strings: s1 has most optional values absent, s2 has
// them set. The expected results below are worked out by hand from
// language.md section 4, not taken from a run.
func semanticsStrings() [2]*schema.SourceString {
	s1 := &schema.SourceString{
		ID: 1, Type: "plain", Text: "Hello World", Identifier: "hello",
		IsHidden: true,
		Branch:   &schema.Branch{ID: 2, Name: "main"},
		Comments: []schema.Comment{{ID: 1, User: 11, HasIssue: true, HasUnresolvedIssue: true}},
		Translations: []schema.Translation{
			{ID: 10, Text: "Hallo Welt", Language: "de", User: 11, PluralForm: "none",
				Votes: []schema.Vote{{Mark: "up", User: 12}}},
			{ID: 11, Text: "hello", Language: "fr", User: 12, PluralForm: "none", Provider: ptr("deepl"),
				Approvals: []schema.Approval{{User: 13}}},
		},
		LanguagesSummary: []schema.LanguageSummary{{Language: "de", IsTranslated: true, Rating: 1}},
		Added:            1700000000, // 2023-11-14 22:13:20 UTC
	}
	s2 := &schema.SourceString{
		ID: 2, Type: "icu", Text: "ÄRGER über \u212Aelvin", Identifier: "x", // U+212A KELVIN SIGN
		MaxLength:        ptr[int64](20),
		IsDuplicate:      true,
		File:             &schema.File{ID: 7, Name: "a.json", Title: ptr("T")},
		LanguagesSummary: []schema.LanguageSummary{{Language: "fr", TranslationUpdated: ptr[schema.Time](1710000000)}}, // 2024-03-09
		Added:            1600000000,                                                                                   // 2020-09-13
		Updated:          ptr[schema.Time](1700000000),
	}
	return [2]*schema.SourceString{s1, s2}
}

func TestSemanticsStrings(t *testing.T) {
	cases := []struct {
		src  string
		fold bool
		want [2]bool // for s1, s2
	}{
		// ordering with an absent operand is false; not of it is true
		{src: `max length > 10`, want: [2]bool{false, true}},
		{src: `not (max length > 10)`, want: [2]bool{true, false}},
		{src: `-max length < 0`, want: [2]bool{false, true}},
		// = is null-safe, != is not =
		{src: `max length = max length`, want: [2]bool{true, true}},
		{src: `max length != 5`, want: [2]bool{true, true}},
		{src: `max length = 20`, want: [2]bool{false, true}},
		{src: `20 = max length`, want: [2]bool{false, true}},
		{src: `max length + 1 = max length`, want: [2]bool{true, false}},
		{src: `title of branch = title of file`, want: [2]bool{true, false}},
		{src: `title of file != "T"`, want: [2]bool{true, false}},
		// division by zero is absent
		{src: `10 / 0 = 10 / 0`, want: [2]bool{true, true}},
		{src: `1 / 0 > 0`, want: [2]bool{false, false}},
		{src: `not (1 / 0 < 1)`, want: [2]bool{true, true}},
		{src: `count of comments / 0 = max length`, want: [2]bool{true, false}},
		{src: `max length / 4 = 5`, want: [2]bool{false, true}},
		{src: `count of comments * 2.5 = 2.5`, want: [2]bool{true, false}},
		// integer arithmetic whose exact result leaves the 64-bit range is
		// absent (a wrapped result would be negative where these ask for
		// not < 0, and the reverse)
		{src: `9223372036854775807 + 0 = 9223372036854775807`, want: [2]bool{true, true}},
		{src: `9223372036854775807 + 1 > 0`, want: [2]bool{false, false}},
		{src: `not (9223372036854775807 + 1 < 0)`, want: [2]bool{true, true}},
		{src: `9223372036854775807 + 1 = 9223372036854775807 + 2`, want: [2]bool{true, true}},
		{src: `-9223372036854775807 - 1 < 0`, want: [2]bool{true, true}},
		{src: `-9223372036854775807 - 2 < 0`, want: [2]bool{false, false}},
		{src: `not (1 - -9223372036854775807 < 0)`, want: [2]bool{true, true}},
		{src: `-(-9223372036854775807) = 9223372036854775807`, want: [2]bool{true, true}},
		{src: `not (-(-9223372036854775807 - 1) < 0)`, want: [2]bool{true, true}},
		{src: `-4611686018427387904 * 2 < 0`, want: [2]bool{true, true}},
		{src: `not (4611686018427387904 * 2 < 0)`, want: [2]bool{true, true}},
		{src: `(-9223372036854775807 - 1) * 1 < 0`, want: [2]bool{true, true}},
		{src: `(-9223372036854775807 - 1) * -1 < 0`, want: [2]bool{false, false}},
		{src: `-1 * (-9223372036854775807 - 1) < 0`, want: [2]bool{false, false}},
		{src: `max length * 461168601842738790 > 0`, want: [2]bool{false, true}},
		{src: `not (max length * 461168601842738791 < 0)`, want: [2]bool{true, true}},
		{src: `max length * -461168601842738791 < 0`, want: [2]bool{false, false}},
		{src: `count of comments - 9223372036854775807 - 2 < 0`, want: [2]bool{true, false}},
		{src: `(if count of comments = 1 then 9223372036854775807 + 1 else 0) = 0`, want: [2]bool{false, true}},
		// M of null is null, null with P is false
		{src: `id of file = 7`, want: [2]bool{false, true}},
		{src: `id of file != 7`, want: [2]bool{true, false}},
		{src: `file with (id = 7)`, want: [2]bool{false, true}},
		{src: `not file with (id > 0)`, want: [2]bool{true, false}},
		{src: `branch with (id = 2)`, want: [2]bool{true, false}},
		// count of an empty collection is 0
		{src: `count of labels = 0`, want: [2]bool{true, true}},
		{src: `count of translations = 2`, want: [2]bool{true, false}},
		// comparisons with constants at the int64 edges (empty and full ranges)
		{src: `count of translations > 9223372036854775807`, want: [2]bool{false, false}},
		{src: `not (count of translations > 9223372036854775807)`, want: [2]bool{true, true}},
		{src: `count of translations <= 9223372036854775807`, want: [2]bool{true, true}},
		{src: `count of comments < 1 and count of labels >= 0`, want: [2]bool{false, true}},
		{src: `max length < 9223372036854775807`, want: [2]bool{false, true}},
		{src: `count of translations where (count of votes > 9223372036854775807) = 0`, want: [2]bool{true, true}},
		{src: `count of translations where (count of votes < 1) = 1 and count of translations where (count of approvals != 0) = 1`, want: [2]bool{true, false}},
		// datetimes
		{src: `updated between '2000-01-01' and '2030-01-01'`, want: [2]bool{false, true}},
		{src: `added between '2023-11-01' and '2023-11-30'`, want: [2]bool{true, false}},
		{src: `added < '2021-01-01'`, want: [2]bool{false, true}},
		{src: `count of languages summary where (translation updated) = 0`, want: [2]bool{true, false}},
		{src: `count of languages summary where (translation updated between '2024-01-01' and '2024-12-31') > 0`, want: [2]bool{false, true}},
		// if: an absent or false condition takes else
		{src: `(if max length > 5 then 1 else 2) = 2`, want: [2]bool{true, false}},
		{src: `(if is hidden then max length else 3) = 3`, want: [2]bool{false, true}},
		{src: `(if is hidden then max length else 3) = max length`, want: [2]bool{true, false}},
		// bools
		{src: `is hidden xor is duplicate`, want: [2]bool{true, true}},
		{src: `is visible = is duplicate`, want: [2]bool{true, true}},
		{src: `is visible = is hidden`, want: [2]bool{false, false}},
		{src: `type is plain and not type is icu`, want: [2]bool{true, false}},
		// strings
		{src: `identifier < "hellp" and identifier >= "hello"`, want: [2]bool{true, false}},
		{src: `text contains ""`, want: [2]bool{true, true}},
		{src: `text contains "World"`, want: [2]bool{true, false}},
		{src: `text contains "world"`, want: [2]bool{false, false}},
		{src: `text contains "world"`, fold: true, want: [2]bool{true, false}},
		{src: `text contains "ärger ÜBER"`, want: [2]bool{false, false}},
		{src: `text contains "ärger ÜBER"`, fold: true, want: [2]bool{false, true}},
		{src: `text contains "kelvin"`, fold: true, want: [2]bool{false, true}},
		{src: `text contains "KELVIN"`, want: [2]bool{false, false}},
		{src: `text contains identifier`, want: [2]bool{false, false}},
		{src: `text contains identifier`, fold: true, want: [2]bool{true, false}},
		{src: `title of file contains ""`, want: [2]bool{false, true}},
		// where, with, nested scopes and outer references
		{src: `count of translations where (text = identifier) > 0`, want: [2]bool{true, false}},
		{src: `count of translations where (count of approvals where (user = @user:"carol") > 0) = 1`, want: [2]bool{true, false}},
		{src: `count of translations where (user with (login = "alice")) = 1`, want: [2]bool{true, false}},
		{src: `translations with (login of user = "bob" and provider = "deepl")`, want: [2]bool{true, false}},
		{src: `count of translations where (provider = "deepl") = 1`, want: [2]bool{true, false}},
		{src: `count of translations where (provider != "deepl") = 1`, want: [2]bool{true, false}},
		{src: `count of translations where (votes with (is up and user = @user:"bob")) > 0`, want: [2]bool{true, false}},
		{src: `count of translations where (language = @language:"de") = 1`, want: [2]bool{true, false}},
		{src: `count of (translations where (user = 11)) where (language = "fr") = 0`, want: [2]bool{true, true}},
		{src: `count of comments where (has unresolved issue and user = @user:"alice") > 0`, want: [2]bool{true, false}},
	}
	cat := schema.New()
	objs := semanticsStrings()
	ref := &refeval.Interp{Users: idToLogin(testLogins)}
	for _, tc := range cases {
		name := tc.src
		if tc.fold {
			name += " (fold)"
		}
		t.Run(name, func(t *testing.T) {
			q := check(t, cat, schema.CtxStrings, tc.src, checkOpts{users: testLogins, fold: tc.fold})
			p, err := eval.Compile(q, eval.WithUsers(idToLogin(testLogins)))
			require.NoError(t, err)
			plain, err := eval.Compile(q, eval.WithUsers(idToLogin(testLogins)), eval.WithoutOptimizations())
			require.NoError(t, err)
			for i, o := range objs {
				assert.Equal(t, tc.want[i], p.Match(o), "fast evaluator, s%d", i+1)
				assert.Equal(t, tc.want[i], plain.Match(o), "plain evaluator, s%d", i+1)
				got, err := ref.Match(q, o)
				require.NoError(t, err)
				assert.Equal(t, tc.want[i], got, "reference interpreter, s%d", i+1)
			}
		})
	}
}

func TestSemanticsUsers(t *testing.T) {
	cat := schema.New()
	known := &schema.Translation{ID: 1, User: 11, Text: "x"}
	unknown := &schema.Translation{ID: 2, User: 99, Text: "y"}
	cases := []struct {
		src  string
		want [2]bool // known user, user not in the directory
	}{
		{`user with (login = "alice")`, [2]bool{true, false}},
		{`user with (id = 11)`, [2]bool{true, false}},
		{`user with (id = 99)`, [2]bool{false, false}}, // a user the directory lacks: with is false
		{`not user with (id > 0)`, [2]bool{false, true}},
		{`id of user = 99`, [2]bool{false, true}}, // the id needs no directory
		{`login of user = "alice"`, [2]bool{true, false}},
		{`login of user = login of user`, [2]bool{true, true}},
		{`login of user != "alice"`, [2]bool{false, true}},
		{`login of user contains "li"`, [2]bool{true, false}},
		{`user = @user:"alice"`, [2]bool{true, false}},
		{`user != @user:"alice"`, [2]bool{false, true}},
		{`user = 99`, [2]bool{false, true}},
		{`@user:"alice" = user`, [2]bool{true, false}},
	}
	ref := &refeval.Interp{Users: idToLogin(testLogins)}
	for _, tc := range cases {
		t.Run(tc.src, func(t *testing.T) {
			q := check(t, cat, schema.CtxTranslations, tc.src, checkOpts{users: testLogins})
			p, err := eval.Compile(q, eval.WithUsers(idToLogin(testLogins)))
			require.NoError(t, err)
			plain, err := eval.Compile(q, eval.WithUsers(idToLogin(testLogins)), eval.WithoutOptimizations())
			require.NoError(t, err)
			for i, o := range []*schema.Translation{known, unknown} {
				assert.Equal(t, tc.want[i], p.Match(o), "fast, object %d", i)
				assert.Equal(t, tc.want[i], plain.Match(o), "plain, object %d", i)
				got, err := ref.Match(q, o)
				require.NoError(t, err)
				assert.Equal(t, tc.want[i], got, "reference, object %d", i)
			}
		})
	}
}

func TestCompileErrors(t *testing.T) {
	cat := schema.New()

	// An unresolved mention: the checker had no user directory.
	q := check(t, cat, schema.CtxStrings, `count of comments where (user = @user:"alice") > 0`, checkOpts{})
	_, err := eval.Compile(q, eval.WithUsers(idToLogin(testLogins)))
	require.Error(t, err)
	assert.True(t, errors.Is(err, eval.ErrUnresolvedUser), "%v", err)
	assert.Contains(t, err.Error(), "croql.WithUserIDs")
	assert.Contains(t, err.Error(), `"alice"`)
	sp, ok := diag.SpanOf(err)
	require.True(t, ok, "the error carries the mention's span: %v", err)
	assert.Equal(t, diag.Span{Start: 32, End: 45}, sp, `@user:"alice"`)

	// Reading logins without a directory.
	q = check(t, cat, schema.CtxTranslations, `user with (login = "alice")`, checkOpts{})
	_, err = eval.Compile(q)
	require.Error(t, err)
	assert.True(t, errors.Is(err, eval.ErrNoUsers), "%v", err)
	// ... an empty directory is a directory.
	p, err := eval.Compile(q, eval.WithUsers(map[int64]string{}))
	require.NoError(t, err)
	assert.False(t, p.Match(&schema.Translation{User: 11}))
	// ... and so is a list of users.
	p, err = eval.Compile(q, eval.WithUserRefs(schema.UserRef{ID: 11, Login: "alice"}))
	require.NoError(t, err)
	assert.True(t, p.Match(&schema.Translation{User: 11}))

	// A query with errors, and no query.
	_, err = eval.Compile(nil)
	assert.Error(t, err)
	ctx, _ := cat.Context(schema.CtxStrings)
	tree, _ := parser.Parse(`is hiden`)
	bad := typecheck.Check(typecheck.Config{Catalog: cat, Context: ctx}, `is hiden`, tree)
	require.True(t, bad.Diags.HasErrors())
	_, err = eval.Compile(bad)
	assert.ErrorContains(t, err, "is hiden")
	_, err = eval.Compile(&typecheck.Query{Context: ctx, Scopes: 1})
	assert.Error(t, err, "no root")
}

func TestMatchWrongTypes(t *testing.T) {
	cat := schema.New()
	p := compile(t, cat, schema.CtxStrings, `count of translations >= 0`)
	s := &schema.SourceString{}
	assert.True(t, p.Match(s))
	assert.False(t, p.Match(*s), "a value, not a pointer")
	assert.False(t, p.Match((*schema.SourceString)(nil)))
	assert.False(t, p.Match(nil))
	assert.False(t, p.Match(&schema.Translation{}))
	assert.False(t, p.Match("text"))
	var anyPtr any = &s
	assert.False(t, p.Match(anyPtr), "a pointer to a pointer")

	typed, err := eval.Bind[schema.SourceString](p)
	require.NoError(t, err)
	assert.True(t, typed.Match(s))
	assert.False(t, typed.Match(nil))
	assert.True(t, typed.Func()(s))
	assert.False(t, typed.Func()(nil))
	assert.False(t, eval.Typed[schema.SourceString]{}.Func()(s), "the zero Typed")
	// A nil root is false whatever the query's shape: each kind of first
	// test checks it (lowerRoot), the closures over a frame too, and the
	// plain closure tree.
	for _, src := range []string{
		`not is hidden`, `not is hidden and not is duplicate`, `count of translations = 0`,
		`count of translations < 2 and not is hidden`, `identifier != "x"`, `identifier != "x" and not is hidden`,
		`not id of file = 1`, `not id of file = 1 and not is hidden`, `not max length > 10`,
		`count of translations where (user = 11) = 0`, `not (count of translations where (user = 11) > 0)`,
		`count of languages summary where (is approved) = 0`, `not translations with (not (user = 11))`,
		`text contains "x" or not is hidden`, `count of translations where (text = identifier) = 0`,
	} {
		q := check(t, cat, schema.CtxStrings, src, checkOpts{users: testLogins})
		for _, opts := range [][]eval.Option{nil, {eval.WithoutOptimizations()}} {
			p, err := eval.Compile(q, opts...)
			require.NoError(t, err, src)
			typed, err := eval.Bind[schema.SourceString](p)
			require.NoError(t, err, src)
			assert.True(t, typed.Func()(&schema.SourceString{}), "%s: the empty string", src)
			assert.False(t, typed.Func()(nil), src)
			assert.False(t, typed.Match(nil), src)
			assert.False(t, p.Match((*schema.SourceString)(nil)), src)
		}
	}
	_, err = eval.Bind[schema.Translation](p)
	assert.Error(t, err)
	assert.Equal(t, cat.Contexts[0].Root.GoType, p.RootType())
}

// TestEveryContext runs one query per context through Match, so every root
// type is recognised.
func TestEveryContext(t *testing.T) {
	cat := schema.New()
	cases := []struct {
		ctx, src string
		yes, no  any
	}{
		{schema.CtxStrings, `identifier = "a"`, &schema.SourceString{Identifier: "a"}, &schema.SourceString{Identifier: "b"}},
		{schema.CtxTranslations, `count of votes where (is up) >= 1`, &schema.Translation{Votes: []schema.Vote{{Mark: "up"}}}, &schema.Translation{Votes: []schema.Vote{{Mark: "down"}}}},
		{schema.CtxTM, `count of records where (usageCount > 0) > 0`, &schema.TMSegment{Records: []schema.TMRecord{{UsageCount: 0}, {UsageCount: 2}}}, &schema.TMSegment{Records: []schema.TMRecord{{UsageCount: 0}}}},
		{schema.CtxGlossary, `status = "preferred"`, &schema.GlossaryTerm{Status: ptr("preferred")}, &schema.GlossaryTerm{}},
		{schema.CtxConcepts, `translatable and updatedAt > createdAt`, &schema.GlossaryConcept{Translatable: true, CreatedAt: 5, UpdatedAt: ptr[schema.Time](6)}, &schema.GlossaryConcept{Translatable: true, CreatedAt: 5}},
	}
	for _, tc := range cases {
		t.Run(tc.ctx, func(t *testing.T) {
			p := compile(t, cat, tc.ctx, tc.src)
			assert.True(t, p.Match(tc.yes))
			assert.False(t, p.Match(tc.no))
		})
	}
}
