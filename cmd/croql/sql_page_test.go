package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestCmdSQLPage: --page compiles for a page (correlated forms), without
// it the whole-set forms; both on SQLite, whose forms differ (over
// collections whose counts the strings' rows do not keep).
func TestCmdSQLPage(t *testing.T) {
	for _, c := range []struct {
		query, whole, page string
	}{
		{`count of labels = 3`, `t0."id" IN (SELECT t1."string_id" FROM "string_labels" AS t1 GROUP BY`, `((SELECT COUNT(*) FROM "string_labels" AS t1 WHERE t1."string_id" = t0."id") = ?)`},
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

// TestCmdSQLVitessNotes: on vitess, --page says that a page is compiled in
// the whole-set forms, and a form the compiler will not send to vtgate
// says that croql query and croql serve answer it through the
// coordinator.
func TestCmdSQLVitessNotes(t *testing.T) {
	code, out, errOut := runSQLCmd(t, "", "--dialect", "vitess", "--page", `count of translations = 3`)
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "GROUP BY t1.`string_id` HAVING COUNT(*) = ?")
	assert.Contains(t, errOut, "note: on vitess a page is compiled in the whole-set forms")
	code, _, errOut = runSQLCmd(t, "", "--dialect", "vitess", `count of translations = 3`)
	require.Equal(t, 0, code, errOut)
	assert.NotContains(t, errOut, "note:")
	code, _, errOut = runSQLCmd(t, "", "--dialect", "vitess", "--context", "translations", `(if count of approvals > 0 then @user:"bob" else user) with (id = user)`)
	assert.Equal(t, 1, code)
	assert.Contains(t, errOut, "note: croql query --engine vitess and croql serve answer this query through croql's coordinator")
	code, _, errOut = runSQLCmd(t, "", "--dialect", "mysql", "--page", `count of translations = 3`)
	require.Equal(t, 0, code, errOut)
	assert.NotContains(t, errOut, "note:")
}
