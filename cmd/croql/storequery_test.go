package main

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestQueryLoadedStore: croql query, diff and why over the store croql
// load wrote, without --data, answer as they do over the file: the same
// ids for queries of every context, the same difference, the same
// explanation.
func TestQueryLoadedStore(t *testing.T) {
	demo := filepath.Join("..", "..", "testdata", "demo", "project.json")
	db := filepath.Join(t.TempDir(), "p.db")
	code, stderr := runLoad(t, "--dsn", db, demo)
	require.Equal(t, 0, code, stderr)
	sorted := func(out string) []string {
		l := strings.Fields(out)
		slices.Sort(l)
		return l
	}
	for _, c := range []struct{ ctx, lang, q string }{
		{"strings", "", `count of translations where (count of approvals > 0) > 0`},
		{"strings", "", `count of comments where (user = @user:"alice") > 0 or is hidden`},
		{"strings", "", `text contains "Save" and not is duplicate`},
		{"translations", "de", `text contains "a"`},
		{"translations", "", `is pre translated or count of votes > 0`},
		{"tm", "", `count of records > 1`},
		{"glossary", "", `text contains "e"`},
	} {
		args := []string{"--context", c.ctx, "--ids"}
		if c.lang != "" {
			args = append(args, "--language", c.lang)
		}
		code, want, stderr := runQuery(t, "", append(slices.Clone(args), "--data", demo, c.q)...)
		require.Equal(t, 0, code, stderr)
		code, got, stderr := runQuery(t, "", append(slices.Clone(args), "--dsn", db, c.q)...)
		require.Equal(t, 0, code, "%s: %s", c.q, stderr)
		assert.NotEmpty(t, sorted(want), c.q)
		assert.Equal(t, sorted(want), sorted(got), "%s (%s)", c.q, c.ctx)
	}
	// The objects come back from the store too.
	code, out, stderr := runQuery(t, "", "--dsn", db, "--fields", "id,identifier", `is hidden`)
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, out, `"identifier":"cart.button.remove"`)

	_, wantDiff, _ := runCmd(t, "diff", "--data", demo, "is hidden", "is hidden or is duplicate")
	code, gotDiff, stderr := runCmd(t, "diff", "--dsn", db, "is hidden", "is hidden or is duplicate")
	require.Equal(t, 0, code, stderr)
	assert.Equal(t, wantDiff, gotDiff)

	_, wantWhy, _ := runCmd(t, "why", "--data", demo, "--id", "6", "is hidden and count of translations > 0")
	code, gotWhy, stderr := runCmd(t, "why", "--dsn", db, "--id", "6", "is hidden and count of translations > 0")
	require.Equal(t, 0, code, stderr)
	assert.Equal(t, wantWhy, gotWhy)

	// A store that is not there is an error, not an empty answer.
	code, _, stderr = runQuery(t, "", "--dsn", filepath.Join(t.TempDir(), "none.db"), "--ids", "is hidden")
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, "none.db")
}
