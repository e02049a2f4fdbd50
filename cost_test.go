package croql_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/croql/croql"
	"github.com/croql/croql/diag"
	"github.com/croql/croql/schema"
	"github.com/croql/croql/typecheck"
)

// nestedTranslations is the issue's H1 reproducer: depth levels of `count
// of translations where (...) > 0` around `text = "x"`.
func nestedTranslations(depth int) string {
	q := `text = "x"`
	for range depth {
		q = "count of translations where (" + q + ") > 0"
	}
	return q
}

// TestMaxCostRefusesNesting: by default Check and Compile refuse the
// 8-deep reproducer with one too-costly error spanning the outermost count;
// WithMaxCost(-1) (unlimited) and a raised budget accept it.
func TestMaxCostRefusesNesting(t *testing.T) {
	src := nestedTranslations(8)
	env := mustEnv(t, croql.Strings)
	checked, diags := env.Check(src)
	require.Len(t, diags, 1, "%v", diags)
	d := diags[0]
	assert.Equal(t, diag.Error, d.Severity)
	assert.Equal(t, diag.ClassLogic, d.Code)
	assert.Equal(t, typecheck.RuleTooCostly, d.Rule)
	assert.Equal(t, diag.Span{Start: 0, End: len(src) - len(" > 0")}, d.Span)
	assert.Contains(t, d.Message, "137G", "the estimate")
	assert.Contains(t, d.Message, "1M", "the budget")
	assert.Nil(t, checked, "a refused query has no tree to run")

	q, diags := env.Compile(src)
	assert.Nil(t, q)
	require.Len(t, diags, 1)
	assert.Equal(t, typecheck.RuleTooCostly, diags[0].Rule)

	cost, diags := env.Cost(src)
	assert.Empty(t, diags, "Cost reports the estimate whatever the budget")
	assert.InEpsilon(t, 1.4e11, cost, 0.05)

	for _, budget := range []float64{-1, 1e12} {
		q, diags := mustEnv(t, croql.Strings, croql.WithMaxCost(budget)).Compile(src)
		require.Empty(t, diags, "budget %g", budget)
		require.NotNil(t, q)
		assert.Equal(t, cost, q.Cost())
	}
	// A budget below a cheap query's cost refuses it too.
	_, diags = mustEnv(t, croql.Strings, croql.WithMaxCost(5)).Compile(`count of translations > 0`)
	require.Len(t, diags, 1)
	assert.Equal(t, typecheck.RuleTooCostly, diags[0].Rule)
	assert.Equal(t, typecheck.DefaultMaxCost, env.MaxCost())
}

// TestMaxCostDepths: the default budget accepts four nested levels and
// refuses five (20 translations per string by default).
func TestMaxCostDepths(t *testing.T) {
	env := mustEnv(t, croql.Strings)
	for depth := 1; depth <= 8; depth++ {
		_, diags := env.Compile(nestedTranslations(depth))
		assert.Equal(t, depth > 4, diags.HasErrors(), "depth %d: %v", depth, diags)
	}
}

// TestCostModelOption: the cost model's sizes decide the estimate.
func TestCostModelOption(t *testing.T) {
	src := nestedTranslations(8)
	small := typecheck.CostModel{Sizes: map[string]float64{"translations": 2}}
	q, diags := mustEnv(t, croql.Strings, croql.WithCostModel(small)).Compile(src)
	require.Empty(t, diags)
	assert.Positive(t, q.Cost())
	assert.Less(t, q.Cost(), 5000.0, "8 levels of 2 translations: about 2^8 visits, 12 steps each")
}

func ExampleWithMaxCost() {
	env, err := croql.NewEnv(croql.Strings)
	if err != nil {
		panic(err)
	}
	// Inside `where (...)`, a bare `translations` is the string's again:
	// each level multiplies the work by the translations per string.
	src := `count of translations where (count of translations where (count of translations where (count of translations where (count of translations where (is pre translated) > 0) > 0) > 0) > 0) > 0`
	_, diags := env.Compile(src)
	for _, d := range diags {
		fmt.Println(d.Code, d.Rule, d.Message)
	}
	q, _ := env.Compile(`count of translations where (is pre translated) > 0`)
	fmt.Println("cost of a plain filter:", q.Cost())
	// Output:
	// croqlInvalidLogic too-costly the query is too costly: about 11M steps per object, over the budget of 1M
	// cost of a plain filter: 65
}

// TestQueryMatchContext: with the budget raised, a 1 s deadline stops the
// 8-deep reproducer inside one string's evaluation (the issue's acceptance
// for H1). The bound is generous on purpose: the test asserts that it
// returns with the deadline's error, not how fast.
func TestQueryMatchContext(t *testing.T) {
	q, diags := mustEnv(t, croql.Strings, croql.WithMaxCost(-1)).Compile(nestedTranslations(8))
	require.Empty(t, diags)
	s := &schema.SourceString{ID: 1, Text: "x"}
	for range 20 {
		s.Translations = append(s.Translations, schema.Translation{StringID: 1, Language: "de", Text: "y"})
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	done := make(chan error, 1)
	go func() {
		_, err := q.MatchContext(ctx, s)
		done <- err
	}()
	select {
	case err := <-done:
		require.ErrorIs(t, err, context.DeadlineExceeded)
	case <-time.After(60 * time.Second):
		t.Fatal("MatchContext did not return within 60 s of a 1 s deadline")
	}
	ok, err := q.MatchContext(context.Background(), &schema.SourceString{})
	require.NoError(t, err)
	assert.False(t, ok)
}
