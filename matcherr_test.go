package croql_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/croql/croql"
	"github.com/croql/croql/schema"
)

// mustMatch is q.Match(obj) for a test that passes a right value: an error
// fails the test.
func mustMatch(t testing.TB, q *croql.Query, obj any) bool {
	t.Helper()
	ok, err := q.Match(obj)
	require.NoError(t, err)
	return ok
}

// TestMatchReportsMisuse: every value Match cannot evaluate (a value
// instead of a pointer, another type, a nil pointer, nil) is an error of
// Match, MatchContext, the deprecated MatchErr and CheckValue, each saying
// what to pass; none is a plain false.
func TestMatchReportsMisuse(t *testing.T) {
	env, err := croql.NewEnv(croql.Strings)
	require.NoError(t, err)
	q, diags := env.Compile(`is hidden`)
	require.False(t, diags.HasErrors())

	s := schema.SourceString{IsHidden: true}
	ok, err := q.Match(&s)
	assert.NoError(t, err)
	assert.True(t, ok)
	ok, err = q.MatchContext(context.Background(), &s)
	assert.NoError(t, err)
	assert.True(t, ok)
	assert.NoError(t, q.CheckValue(&s))

	var nilPtr *schema.SourceString
	type mine struct{ Hidden bool }
	for _, tc := range []struct {
		v    any
		want string
	}{
		{s, "got a schema.SourceString value, want a pointer to it (*schema.SourceString): pass &v"},
		{nil, "got nil, want a *schema.SourceString"},
		{nilPtr, "a nil *schema.SourceString"},
		{&schema.Translation{}, "got *schema.Translation; the strings context evaluates *schema.SourceString"},
		{&mine{Hidden: true}, "package bind evaluates your own types"},
		{42, "got int"},
	} {
		for name, match := range map[string]func(any) (bool, error){
			"Match":        q.Match,
			"MatchErr":     q.MatchErr,
			"MatchContext": func(v any) (bool, error) { return q.MatchContext(context.Background(), v) },
		} {
			ok, err := match(tc.v)
			assert.False(t, ok, "%s(%T)", name, tc.v)
			require.Error(t, err, "%s(%T)", name, tc.v)
			assert.ErrorIs(t, err, croql.ErrMisuse)
			assert.Contains(t, err.Error(), tc.want)
			assert.Equal(t, err.Error(), q.CheckValue(tc.v).Error())
		}
	}
}

// TestMatchEveryContext: Match takes each context's root type, and only
// that one.
func TestMatchEveryContext(t *testing.T) {
	for _, tc := range []struct {
		ctx    string
		src    string
		hit    any
		miss   any
		others []any
	}{
		{croql.Strings, `is hidden`, &schema.SourceString{IsHidden: true}, &schema.SourceString{}, []any{&schema.Translation{}}},
		{croql.Translations, `user = 7`, &schema.Translation{User: 7}, &schema.Translation{User: 8}, []any{&schema.SourceString{}}},
		{croql.TM, `count of records > 0`, &schema.TMSegment{Records: []schema.TMRecord{{ID: 1}}}, &schema.TMSegment{}, []any{&schema.GlossaryTerm{}}},
		{croql.Glossary, `text = "a"`, &schema.GlossaryTerm{Text: "a"}, &schema.GlossaryTerm{Text: "b"}, []any{&schema.TMSegment{}}},
		{croql.Concepts, `id = 3`, &schema.GlossaryConcept{ID: 3}, &schema.GlossaryConcept{ID: 4}, []any{&schema.GlossaryTerm{}}},
	} {
		env, err := croql.NewEnv(tc.ctx)
		require.NoError(t, err)
		q, diags := env.Compile(tc.src)
		require.False(t, diags.HasErrors(), "%s: %v", tc.src, diags)
		assert.True(t, mustMatch(t, q, tc.hit), tc.src)
		assert.False(t, mustMatch(t, q, tc.miss), tc.src)
		for _, o := range tc.others {
			_, err := q.Match(o)
			assert.ErrorIs(t, err, croql.ErrMisuse, "%s on %T", tc.ctx, o)
		}
	}
}

// TestForBindsTheRootType: For takes the context's root type and refuses
// another; the Matcher's only run-time misuse, a nil pointer, is an error.
func TestForBindsTheRootType(t *testing.T) {
	env, err := croql.NewEnv(croql.Translations)
	require.NoError(t, err)
	q, _ := env.Compile(`user = 7`)
	m, err := croql.For[schema.Translation](q)
	require.NoError(t, err)
	ok, err := m.Match(&schema.Translation{User: 7})
	assert.NoError(t, err)
	assert.True(t, ok)
	ok, err = m.Match(&schema.Translation{User: 8})
	assert.NoError(t, err)
	assert.False(t, ok)
	ok, err = m.Match(nil)
	assert.False(t, ok)
	assert.ErrorIs(t, err, croql.ErrMisuse)
	assert.EqualError(t, err, "croql: not a value of the query's context: a nil *schema.Translation")

	_, err = croql.For[schema.SourceString](q)
	assert.ErrorIs(t, err, croql.ErrMisuse)
	assert.EqualError(t, err, "croql: not a value of the query's context: the translations context evaluates *schema.Translation, not *schema.SourceString")
	_, err = croql.For[schema.Translation](nil)
	assert.ErrorIs(t, err, croql.ErrMisuse)
}

// TestMatchAllocatesNothing: on a right value Match, MatchErr,
// MatchContext and a Matcher allocate nothing, and a root on the caller's
// stack stays there.
func TestMatchAllocatesNothing(t *testing.T) {
	if testing.CoverMode() != "" {
		t.Skip("coverage instrumentation allocates")
	}
	env, _ := croql.NewEnv(croql.Strings)
	q, _ := env.Compile(`is hidden and text contains "a"`)
	s := &schema.SourceString{IsHidden: true, Text: "abc"}
	m, err := croql.For[schema.SourceString](q)
	require.NoError(t, err)
	var v any = s
	ctx := context.Background()
	allocs := testing.AllocsPerRun(1000, func() {
		if ok, err := q.Match(v); !ok || err != nil {
			t.Fatal("no match")
		}
		if ok, err := q.MatchErr(v); !ok || err != nil {
			t.Fatal("no match")
		}
		if ok, err := m.Match(s); !ok || err != nil {
			t.Fatal("no match")
		}
		if ok, err := q.MatchContext(ctx, v); !ok || err != nil {
			t.Fatal("no match")
		}
		local := schema.SourceString{IsHidden: true, Text: "abc"}
		if ok, err := q.Match(&local); !ok || err != nil {
			t.Fatal("no match")
		}
		local2 := schema.SourceString{IsHidden: true, Text: "abc"}
		if ok, err := m.Match(&local2); !ok || err != nil {
			t.Fatal("no match")
		}
	})
	assert.Zero(t, allocs)
}

// A loop over objects binds the query to their type once, with For; the
// compiler then checks every call, and only a nil pointer is an error.
func ExampleFor() {
	env, err := croql.NewEnv(croql.Strings)
	if err != nil {
		panic(err)
	}
	q, diags := env.Compile(`text contains "pay" and not is hidden`)
	if diags.HasErrors() {
		panic(diags.Err())
	}
	m, err := croql.For[schema.SourceString](q)
	if err != nil {
		panic(err) // the strings context evaluates *schema.SourceString
	}
	strs := []schema.SourceString{{ID: 1, Text: "Pay now"}, {ID: 2, Text: "pay later"}, {ID: 3, Text: "pay", IsHidden: true}}
	for i := range strs {
		ok, err := m.Match(&strs[i])
		if err != nil {
			panic(err)
		}
		fmt.Println(strs[i].ID, ok)
	}
	// Output:
	// 1 false
	// 2 true
	// 3 false
}

// Match reports a misuse as an error wrapping ErrMisuse, never as a plain
// false.
func ExampleQuery_Match() {
	env, _ := croql.NewEnv(croql.Strings)
	q, _ := env.Compile(`is hidden`)
	s := schema.SourceString{IsHidden: true}
	ok, err := q.Match(&s)
	fmt.Println(ok, err)
	_, err = q.Match(s) // a value, not a pointer
	fmt.Println(errors.Is(err, croql.ErrMisuse), err)
	// Output:
	// true <nil>
	// true croql: not a value of the query's context: got a schema.SourceString value, want a pointer to it (*schema.SourceString): pass &v
}
