package croql_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/croql/croql"
	"github.com/croql/croql/demo"
	"github.com/croql/croql/diag"
	"github.com/croql/croql/eval"
	"github.com/croql/croql/schema"
)

func TestCompileAndMatch(t *testing.T) {
	p := demo.Default()
	env := mustEnv(t, croql.Strings, croql.WithUserIDs(p.UserIDs()))
	src := `count of translations where (user with (login = "alice") or user = @user:"bob") > 0 and not is hidden`
	q, diags := env.Compile(src)
	require.Empty(t, diags)
	require.NotNil(t, q)
	assert.Equal(t, src, q.Source())
	assert.Equal(t, src, q.Checked().Source)
	assert.Equal(t, croql.Strings, q.Context().Name)

	// The same answer, worked out in plain Go.
	alice, bob := p.UserIDs()["alice"], p.UserIDs()["bob"]
	want := 0
	for i := range p.Strings {
		s := &p.Strings[i]
		hit := false
		for _, tr := range s.Translations {
			hit = hit || tr.User == alice || tr.User == bob
		}
		if hit && !s.IsHidden {
			want++
		}
		assert.Equal(t, hit && !s.IsHidden, mustMatch(t, q, s), "string %d", s.ID)
	}
	require.Positive(t, want)
	assert.Len(t, eval.Filter(q.Program(), p.Strings), want)
	ok, err := q.Match(&schema.Translation{})
	assert.False(t, ok)
	assert.ErrorIs(t, err, croql.ErrMisuse, "wrong root type")
}

func TestCompileNeedsUsers(t *testing.T) {
	env := mustEnv(t, croql.Strings)
	src := `count of comments where (user = @user:"alice") > 0 or count of translations where (user = @user:"bob") > 0`
	q, diags := env.Compile(src)
	assert.Nil(t, q)
	errs := diags.Errors()
	require.Len(t, errs, 2, "%v", diags)
	assert.Equal(t, croql.RuleUnresolvedUser, errs[0].Rule)
	assert.Equal(t, span(t, src, `@user:"alice"`), errs[0].Span)
	assert.Equal(t, span(t, src, `@user:"bob"`), errs[1].Span)
	assert.Contains(t, errs[0].Hint, "croql.WithUserIDs")

	tenv := mustEnv(t, croql.Translations)
	src = `text = "x" or user with (login = "alice")`
	q, diags = tenv.Compile(src)
	assert.Nil(t, q)
	require.Len(t, diags, 1)
	assert.Equal(t, croql.RuleNoUserDirectory, diags[0].Rule)
	assert.Equal(t, diag.ClassLogic, diags[0].Code)
	assert.Equal(t, span(t, src, "user"), diags[0].Span, "the user whose login is read")
	require.ErrorIs(t, diags.Err(), eval.ErrNoUsers)

	// Without mentions or logins, no directory is needed.
	q, diags = env.Compile(`count of comments where (user = 11) > 0`)
	require.Empty(t, diags)
	assert.True(t, mustMatch(t, q, &schema.SourceString{Comments: []schema.Comment{{User: 11}}}))
}

func TestCompileKeepsWarnings(t *testing.T) {
	env := mustEnv(t, croql.Strings)
	q, diags := env.Compile(`text = 'Welcome!'`)
	require.NotNil(t, q)
	require.Len(t, diags, 1)
	assert.Equal(t, diag.Warning, diags[0].Severity)
	assert.True(t, mustMatch(t, q, &schema.SourceString{Text: "Welcome!"}))
	assert.False(t, mustMatch(t, q, &schema.SourceString{Text: "welcome!"}))

	q, diags = env.Compile(`is hiden`)
	assert.Nil(t, q)
	assert.True(t, diags.HasErrors())
}

func TestCompileFoldContains(t *testing.T) {
	s := &schema.SourceString{Text: "Straße ÉCOLE"}
	plain, diags := mustEnv(t, croql.Strings).Compile(`text contains "école"`)
	require.Empty(t, diags)
	folded, diags := mustEnv(t, croql.Strings, croql.WithFoldContains(true)).Compile(`text contains "école"`)
	require.Empty(t, diags)
	assert.False(t, mustMatch(t, plain, s))
	assert.True(t, mustMatch(t, folded, s))
}

func ExampleEnv_Compile() {
	env, err := croql.NewEnv(croql.Strings, croql.WithUserIDs(map[string]int64{"alice": 11, "bob": 12}))
	if err != nil {
		panic(err)
	}
	q, diags := env.Compile(`count of translations where (user = @user:"alice") > 0 and not is hidden`)
	if diags.HasErrors() {
		panic(diags.Err())
	}
	strs := []schema.SourceString{
		{Identifier: "checkout.title", Translations: []schema.Translation{{Language: "de", User: 11}}},
		{Identifier: "checkout.hidden", IsHidden: true, Translations: []schema.Translation{{Language: "de", User: 11}}},
		{Identifier: "cart.empty", Translations: []schema.Translation{{Language: "fr", User: 12}}},
	}
	for i := range strs {
		ok, err := q.Match(&strs[i])
		if err != nil {
			panic(err)
		}
		if ok {
			fmt.Println(strs[i].Identifier)
		}
	}
	// Output:
	// checkout.title
}

// TestDeprecatedUsersOptions: the old names of the user directory options
// still work for one release and mean what the new ones do.
func TestDeprecatedUsersOptions(t *testing.T) {
	src := `user = @user:"alice" and user with (login = "alice")`
	for name, opt := range map[string]croql.Option{
		"WithUserIDs": croql.WithUserIDs(map[string]int64{"alice": 7}),
		"WithUsers":   croql.WithUsers(map[string]int64{"alice": 7}),
	} {
		env := mustEnv(t, croql.Translations, opt)
		q, diags := env.Compile(src)
		require.Empty(t, diags, name)
		assert.True(t, mustMatch(t, q, &schema.Translation{User: 7}), name)
		assert.False(t, mustMatch(t, q, &schema.Translation{User: 8}), name)
	}
}
