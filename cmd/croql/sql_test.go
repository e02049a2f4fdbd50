package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/croql/croql"
	"github.com/croql/croql/eval"
	"github.com/croql/croql/schema"
)

func runSQLCmd(t *testing.T, stdin string, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(append([]string{"sql"}, args...), strings.NewReader(stdin), &out, &errb)
	return code, out.String(), errb.String()
}

func TestCmdSQL(t *testing.T) {
	code, out, errs := runSQLCmd(t, "", "--dialect", "postgres", `identifier = "a'b" and id of file = 7`)
	require.Equal(t, 0, code, errs)
	assert.Contains(t, out, `(t0."identifier" = ($1::text COLLATE "C")) AND (t0."file_id" = $2::bigint)`)
	assert.Contains(t, out, `-- arg 1 (string): "a'b"`)
	assert.Contains(t, out, `-- arg 2 (int): 7`)

	code, out, errs = runSQLCmd(t, `count of records where (usageCount > 1) > 0`, "--dialect", "mysql", "--context", "tm", "--format", "json", "-")
	require.Equal(t, 0, code, errs)
	var j struct {
		Dialect, From, Key, Where, Select string
		Args                              []struct {
			Type  string
			Value any
		}
	}
	require.NoError(t, json.Unmarshal([]byte(out), &j))
	assert.Equal(t, "mysql", j.Dialect)
	assert.Equal(t, "`tm_segments` AS t0", j.From)
	assert.True(t, strings.HasPrefix(j.Where, "EXISTS (SELECT 1 FROM `tm_records`"), j.Where)
	assert.True(t, strings.HasPrefix(j.Select, "SELECT t0.`id` FROM"), j.Select)
	require.Len(t, j.Args, 1)
	assert.Equal(t, "int", j.Args[0].Type)

	code, _, errs = runSQLCmd(t, "", "--dialect", "sqlite", `text contains`)
	assert.Equal(t, 1, code)
	assert.NotEmpty(t, errs)
	code, _, errs = runSQLCmd(t, "", "--dialect", "postgres", `text = "\u0000"`)
	assert.Equal(t, 1, code)
	assert.Contains(t, errs, "NUL")
	// The diagnostic is on the literal PostgreSQL cannot hold (column 22),
	// not on the whole query.
	code, _, errs = runSQLCmd(t, "", "--dialect", "postgres", `is hidden and text = "\u0000"`)
	assert.Equal(t, 1, code)
	assert.Contains(t, errs, "<arg>:1:22: error: ")
	code, _, _ = runSQLCmd(t, "", "--dialect", "oracle", `is hidden`)
	assert.Equal(t, 2, code)
	code, _, _ = runSQLCmd(t, "", "--format", "xml", `is hidden`)
	assert.Equal(t, 2, code)
}

// TestRunOnEngine runs a query in each available engine and compares the
// ids with the evaluator's.
func TestRunOnEngine(t *testing.T) {
	f, err := os.Open(filepath.Join("..", "..", "testdata", "fixtures", "small.json"))
	require.NoError(t, err)
	p, err := schema.ReadProject(f)
	f.Close()
	require.NoError(t, err)
	engines := map[string]string{"sqlite": ""}
	for name, env := range map[string]string{"postgres": "CROQL_POSTGRES_DSN", "mysql": "CROQL_MYSQL_DSN"} {
		if dsn := os.Getenv(env); dsn != "" {
			engines[name] = dsn
		} else {
			t.Logf("%s not tested: %s is not set", name, env)
		}
	}
	env, err := croql.NewEnv(croql.Strings, croql.WithUserIDs(p.UserIDs()))
	require.NoError(t, err)
	src := `count of translations where (user = @user:"alice") > 0 or count of comments = 1`
	q, diags := env.Check(src)
	require.False(t, diags.HasErrors())
	prog, err := eval.Compile(q, eval.WithUserRefs(p.Users...))
	require.NoError(t, err)
	want := []int64{}
	for _, o := range p.Objects(q.Context) {
		if prog.Match(o) {
			id, _ := schema.ObjectID(o)
			want = append(want, id)
		}
	}
	require.NotEmpty(t, want)
	for name, dsn := range engines {
		got, err := runOnEngine(context.Background(), name, dsn, p, q)
		require.NoError(t, err, name)
		assert.Equal(t, want, got, name)
	}
	_, err = runOnEngine(context.Background(), "postgres", "", p, q)
	assert.ErrorContains(t, err, "--dsn")
}
