package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestCmdSQLPage: --page compiles for a page (correlated forms), without
// it the whole-set forms; both on SQLite, whose forms differ.
func TestCmdSQLPage(t *testing.T) {
	for _, c := range []struct {
		query, whole, page string
	}{
		{`count of translations = 3`, `t0."id" IN (SELECT t1."string_id" FROM "string_translations" AS t1 GROUP BY`, `((SELECT COUNT(*) FROM "string_translations" AS t1 WHERE t1."string_id" = t0."id") = ?)`},
		{`count of comments where (has unresolved issue) > 0`, `(t0."id" IN (SELECT t1."string_id" FROM "comments" AS t1 WHERE`, `EXISTS (SELECT 1 FROM "comments" AS t2 WHERE t2."string_id" = t0."id" AND t2."has_unresolved_issue" LIMIT 1)`},
	} {
		code, out, errOut := runSQLCmd(t, "", "--dialect", "sqlite", c.query)
		require.Equal(t, 0, code, errOut)
		assert.Contains(t, out, c.whole)
		code, out, errOut = runSQLCmd(t, "", "--dialect", "sqlite", "--page", c.query)
		require.Equal(t, 0, code, errOut)
		assert.Contains(t, out, c.page)
		assert.NotContains(t, out, " IN (SELECT")
	}
}
