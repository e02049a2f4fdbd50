package croql_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/croql/croql"
	"github.com/croql/croql/schema"
)

// TestMatchErrReportsMisuse: the values Match silently takes as false are
// errors of MatchErr and CheckValue, each saying what to pass.
func TestMatchErrReportsMisuse(t *testing.T) {
	env, err := croql.NewEnv(croql.Strings)
	require.NoError(t, err)
	q, diags := env.Compile(`is hidden`)
	require.False(t, diags.HasErrors())

	s := schema.SourceString{IsHidden: true}
	ok, err := q.MatchErr(&s)
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
		assert.False(t, q.Match(tc.v), "%T: Match is false", tc.v)
		ok, err := q.MatchErr(tc.v)
		assert.False(t, ok)
		require.Error(t, err, "%T", tc.v)
		assert.True(t, errors.Is(err, croql.ErrMisuse))
		assert.Contains(t, err.Error(), tc.want)
		assert.Equal(t, err.Error(), q.CheckValue(tc.v).Error())
	}
}

// TestMatchErrAllocatesNothing: on a right value MatchErr is Match's fast
// path.
func TestMatchErrAllocatesNothing(t *testing.T) {
	env, _ := croql.NewEnv(croql.Strings)
	q, _ := env.Compile(`is hidden and text contains "a"`)
	s := &schema.SourceString{IsHidden: true, Text: "abc"}
	var v any = s
	allocs := testing.AllocsPerRun(1000, func() {
		if ok, err := q.MatchErr(v); !ok || err != nil {
			t.Fatal("no match")
		}
	})
	assert.Zero(t, allocs)
}
