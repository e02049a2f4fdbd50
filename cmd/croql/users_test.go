package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCmdSQLUsers(t *testing.T) {
	const q = `count of translations where (count of approvals where (user = @user:"bob smith") > 0) > 0`
	dir := t.TempDir()
	files := map[string]string{
		"map.json":   `{"bob smith": 12, "alice": 11}`,
		"refs.json":  `[{"id": 11, "login": "alice"}, {"id": 12, "login": "bob smith"}]`,
		"proj.json":  `{"id": 1, "users": [{"id": 12, "login": "bob smith"}]}`,
		"logins.txt": "# login id\nalice 11\n\nbob smith\t12\n",
	}
	for name, text := range files {
		path := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(path, []byte(text), 0o600))
		code, out, errs := runSQLCmd(t, "", "--users", path, q)
		require.Equal(t, 0, code, "%s: %s", name, errs)
		assert.Empty(t, errs, name)
		assert.Contains(t, out, `(t3."user_id" = $1::bigint)`, name)
		assert.Contains(t, out, `-- arg 1 (int): 12`, name)
		assert.NotContains(t, out, `"users"`, name)
	}

	// Without --users: the subselect, and a warning naming the flag.
	code, out, errs := runSQLCmd(t, "", q)
	require.Equal(t, 0, code, errs)
	assert.Contains(t, out, `(SELECT t4."id" FROM "users" AS t4 WHERE t4."login" = ($1::text COLLATE "C"))`)
	assert.Contains(t, errs, "warning: 1 @user mention(s) compiled to a subselect")
	assert.Contains(t, errs, "--users FILE")
	// No mention, no warning.
	code, _, errs = runSQLCmd(t, "", `id of file = 7`)
	require.Equal(t, 0, code, errs)
	assert.Empty(t, errs)

	// An unknown login is an error once a directory is given.
	code, _, errs = runSQLCmd(t, "", "--users", filepath.Join(dir, "map.json"), `count of translations where (user = @user:"carol") > 0`)
	assert.Equal(t, 1, code)
	assert.Contains(t, errs, `no user with login "carol"`)

	// Bad files are usage errors that say where.
	for name, text := range map[string]string{
		"bad.txt":    "alice\n",
		"twice.txt":  "alice 11\nalice 12\n",
		"bad.json":   `{"alice": "x"}`,
		"empty.json": `[{"id": 3, "login": ""}]`,
	} {
		path := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(path, []byte(text), 0o600))
		code, _, errs := runSQLCmd(t, "", "--users", path, q)
		assert.Equal(t, 2, code, name)
		assert.Contains(t, errs, "--users "+path, name)
	}
	code, _, errs = runSQLCmd(t, "", "--users", filepath.Join(dir, "missing"), q)
	assert.Equal(t, 2, code)
	assert.Contains(t, errs, "--users")
}
