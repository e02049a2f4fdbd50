package typecheck_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/croql/croql/diag"
	"github.com/croql/croql/internal/corpus"
	"github.com/croql/croql/parser"
	"github.com/croql/croql/schema"
	"github.com/croql/croql/typecheck"
)

// nested is the issue's reproducer: depth levels of `count of translations
// where (...) > 0` around `text = "x"`.
func nested(depth int) string {
	q := `text = "x"`
	for range depth {
		q = "count of translations where (" + q + ") > 0"
	}
	return q
}

func checkStrings(t testing.TB, src string) *typecheck.Query {
	t.Helper()
	cat := schema.New()
	tree, pd := parser.New(parser.Limits{}).Parse(src)
	require.False(t, pd.HasErrors(), "%v", pd)
	q := typecheck.Check(config(t, cat, "strings", "enterprise"), src, tree)
	require.False(t, q.Diags.HasErrors(), "%v", q.Diags)
	return q
}

// TestCostCorpusUnderBudget: every corpus query that checks clean (the
// seed's patterns among them) costs less than the default budget.
func TestCostCorpusUnderBudget(t *testing.T) {
	cases, err := corpus.Load("../testdata/corpus")
	require.NoError(t, err)
	cat := schema.New()
	m := typecheck.DefaultCostModel()
	n, dearest, which := 0, 0.0, ""
	for _, c := range cases {
		tree, pd := parser.Parse(c.Query())
		if pd.HasErrors() {
			continue
		}
		q := typecheck.Check(config(t, cat, c.Context(), c.Edition()), c.Query(), tree)
		if q.Diags.HasErrors() {
			continue
		}
		n++
		cost := q.Cost(m)
		assert.Positive(t, cost, "%s", c.Where())
		if cost > dearest {
			dearest, which = cost, c.Where()+" "+c.Query()
		}
		_, over := q.CostError(m, 0)
		assert.False(t, over, "%s: %s costs %g", c.Where(), c.Query(), cost)
	}
	require.Greater(t, n, 60)
	t.Logf("%d corpus queries; the dearest costs %g: %s", n, dearest, which)
	assert.Less(t, dearest*10, typecheck.DefaultMaxCost, "the default budget leaves a margin of 10 over the corpus")
}

// TestCostNestedTranslations: the 8-deep reproducer is refused by
// the default budget, with the span of the outermost count and a hint
// naming the estimate and the budget; each level multiplies the estimate.
func TestCostNestedTranslations(t *testing.T) {
	m := typecheck.DefaultCostModel()
	prev := 0.0
	for depth := 1; depth <= 8; depth++ {
		q := checkStrings(t, nested(depth))
		c := q.Cost(m)
		if depth > 1 {
			assert.InDelta(t, 20, c/prev, 1.5, "depth %d multiplies by the translations per string", depth)
		}
		prev = c
	}
	src := nested(8)
	q := checkStrings(t, src)
	d, over := q.CostError(m, 0)
	require.True(t, over, "the 8-deep query costs %g", q.Cost(m))
	assert.Equal(t, diag.ClassLogic, d.Code)
	assert.Equal(t, typecheck.RuleTooCostly, d.Rule)
	assert.Equal(t, diag.Error, d.Severity)
	assert.Equal(t, diag.Span{Start: 0, End: len(src) - len(" > 0")}, d.Span, "the outermost count")
	assert.Contains(t, d.Message, typecheck.Approx(q.Cost(m)))
	assert.Contains(t, d.Message, typecheck.Approx(typecheck.DefaultMaxCost))
	assert.Contains(t, d.Hint, "multiplies")
	assert.Contains(t, d.Hint, "estimated "+typecheck.Approx(q.Cost(m))+" steps per object against a budget of 1M")

	// Beside a cheap condition, the span is the costly part alone.
	prefix := "is hidden and "
	q = checkStrings(t, prefix+src)
	d, over = q.CostError(m, 0)
	require.True(t, over)
	assert.Equal(t, diag.Span{Start: len(prefix), End: len(prefix) + len(src) - len(" > 0")}, d.Span)

	// A negative budget is unlimited; a raised one accepts it.
	_, over = q.CostError(m, -1)
	assert.False(t, over)
	_, over = q.CostError(m, 1e12)
	assert.False(t, over)
}

// TestCostShapes pins the model's arithmetic on small queries.
func TestCostShapes(t *testing.T) {
	m := typecheck.CostModel{Sizes: map[string]float64{"translations": 4, "votes": 3}, Default: 2}
	for _, tc := range []struct {
		src  string
		want float64
	}{
		{`is hidden`, 1},
		{`count of translations > 0`, 1 + 1 + (1 + 4) + 1},
		{`count of translations where (is pre translated) > 0`, 1 + 1 + 1 + (1 + 4) + 4*(1+1) + 1},
		{`translations with (count of votes > 1)`, 1 + (1 + 4) + 4*(1+(1+1+(1+3)+1))},
		{`count of comments > 0`, 1 + 1 + (1 + 2) + 1},
		{`file with (id = 1)`, 1 + 1 + (1 + 1 + 1)},
	} {
		q := checkStrings(t, tc.src)
		assert.Equal(t, tc.want, q.Cost(m), tc.src)
	}
}

// TestCostChainedWhere: chained `where`s cost linearly in their number.
func TestCostChainedWhere(t *testing.T) {
	m := typecheck.DefaultCostModel()
	chain := func(n int) string {
		return "count of translations" + strings.Repeat(` where (text = "x")`, n) + " > 0"
	}
	a, b := checkStrings(t, chain(10)).Cost(m), checkStrings(t, chain(20)).Cost(m)
	assert.InDelta(t, 1, (b-a)/(a-checkStrings(t, chain(0)).Cost(m)), 0.01, "ten more cost as much as the first ten")
}

// TestMeasureSizes: the measured model has the largest collection of each
// kind, nested ones included.
func TestMeasureSizes(t *testing.T) {
	s := []schema.SourceString{
		{Translations: []schema.Translation{{Votes: make([]schema.Vote, 4)}, {}}},
		{Translations: make([]schema.Translation, 3), Comments: make([]schema.Comment, 1)},
	}
	m := typecheck.MeasureSizes(schema.New(), s, &s[0])
	assert.Equal(t, 3.0, m.Sizes["translations"])
	assert.Equal(t, 4.0, m.Sizes["votes"])
	assert.Equal(t, 1.0, m.Sizes["comments"])
	assert.Equal(t, 0.0, m.Sizes["approvals"])
	f := &schema.Field{Name: "approvals"}
	assert.Equal(t, 0.0, m.Size(f))
}

func TestApprox(t *testing.T) {
	for c, want := range map[float64]string{
		0: "0", 950.4: "950", 12345: "12k", 3.44e6: "3.4M", 17.18e6: "17M", 1.37e11: "137G", 2.5e13: "25T", 1.4e15: "1.4e15",
	} {
		assert.Equal(t, want, typecheck.Approx(c), "%g", c)
	}
}

// TestCostTextLengths: with TextLengths, `contains` costs the haystack's
// length times the needle's and a text comparison both lengths; without,
// a text operation is one step (the default is unchanged).
func TestCostTextLengths(t *testing.T) {
	plain := typecheck.CostModel{Sizes: map[string]float64{"translations": 4}}
	withLen := plain
	withLen.TextLengths = map[string]float64{"text": 100, "identifier": 10}
	needle := strings.Repeat("a", 60000) + "b"
	for _, tc := range []struct {
		src         string
		plain, text float64
	}{
		{`text contains "abc"`, 1 + 1 + 1, 1 + 1 + 1 + 100*3},
		{`text contains "` + needle + `"`, 3, 3 + 100*60001},
		{`identifier = "abcd"`, 3, 3 + 10 + 4},
		// A text field the map does not list takes the longest length.
		{`context = ""`, 3, 3 + 100},
		{`text between "a" and "bb"`, 4, 4 + 100 + 1 + 2},
		{`count of translations where (text contains "x") > 0`, 1 + 1 + 1 + (1 + 4) + 4*(1+3) + 1, 1 + 1 + 1 + (1 + 4) + 4*(1+3+100) + 1},
		// Language codes and numbers cost as before.
		{`count of translations where (language = @language:"de") > 0`, 1 + 1 + 1 + (1 + 4) + 4*(1+3) + 1, 1 + 1 + 1 + (1 + 4) + 4*(1+3+2) + 1},
		{`is hidden`, 1, 1},
	} {
		q := checkStrings(t, tc.src)
		assert.Equal(t, tc.plain, q.Cost(plain), "plain: %.60s", tc.src)
		assert.Equal(t, tc.text, q.Cost(withLen), "with lengths: %.60s", tc.src)
	}
	_, over := checkStrings(t, `text contains "`+needle+`"`).CostError(withLen, 0)
	assert.True(t, over, "a 60,000-character needle over 100-character texts is over the default budget")
}
