package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func nestedTranslations(depth int) string {
	q := `text contains "e"`
	for range depth {
		q = "count of translations where (" + q + ") > 0"
	}
	return q
}

// TestQueryMaxCost: `croql query` refuses the 8-deep query by
// default (exit 1, a too-costly diagnostic) instead of running for
// seconds; --max-cost raises the budget, and a negative one removes it.
func TestQueryMaxCost(t *testing.T) {
	code, out, stderr := runQuery(t, "", "--ids", nestedTranslations(8))
	assert.Equal(t, 1, code)
	assert.Empty(t, out)
	assert.Contains(t, stderr, "croqlInvalidLogic/too-costly")
	assert.Contains(t, stderr, "over the budget of 1M")

	code, _, stderr = runQuery(t, "", "--ids", nestedTranslations(5))
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, "too-costly")
	for _, budget := range []string{"1e9", "-1"} {
		code, out, stderr = runQuery(t, "", "--ids", "--max-cost", budget, nestedTranslations(5))
		require.Equal(t, 0, code, stderr)
		assert.NotEqual(t, "none", idLines(out))
	}
}
