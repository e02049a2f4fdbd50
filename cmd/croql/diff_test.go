package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/prop"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/croql/croql/ast"
	"github.com/croql/croql/schema"
	"github.com/croql/croql/store/fuzz"
)

// idSet is the ids of `croql query --ids` output.
func idSet(t *testing.T, out string) map[int64]bool {
	t.Helper()
	m := map[int64]bool{}
	for _, f := range strings.Fields(out) {
		id, err := strconv.ParseInt(f, 10, 64)
		require.NoError(t, err)
		m[id] = true
	}
	return m
}

// minus is the ids of a not in b, ascending.
func minus(a, b map[int64]bool) []int64 {
	out := []int64{}
	for id := range a {
		if !b[id] {
			out = append(out, id)
		}
	}
	slices.Sort(out)
	return out
}

func sorted(ids []int64) []int64 {
	out := slices.Clone(ids)
	slices.Sort(out)
	return out
}

// TestPropDiffIsQueryDifference: for generated projects and generated
// pairs of queries (fuzz.GenProject, fuzz.Generator.Preds) of every
// context, `croql diff --format json OLD NEW` lists as onlyOld the ids of
// `croql query --ids OLD` that `croql query --ids NEW` lacks, as onlyNew
// the converse, and counts the rest as both.
func TestPropDiffIsQueryDifference(t *testing.T) {
	cases := 100
	if testing.Short() {
		cases = 10
	}
	if v := os.Getenv("CROQL_PROP_CASES"); v != "" {
		n, err := strconv.Atoi(v)
		require.NoError(t, err)
		cases = n
	}
	seed := int64(22)
	if v := os.Getenv("CROQL_PROP_SEED"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		require.NoError(t, err)
		seed = n
	}
	dir := t.TempDir()
	for _, ctxName := range contextNames {
		t.Run(ctxName, func(t *testing.T) {
			g, err := fuzz.NewGenerator(fuzz.Config{Context: ctxName, Edition: schema.Enterprise})
			require.NoError(t, err)
			params := gopter.DefaultTestParametersWithSeed(seed)
			params.MinSuccessfulTests = cases
			params.MaxShrinkCount = 100
			props := gopter.NewProperties(params)
			n := 0
			props.Property("diff = query --ids OLD minus query --ids NEW, and the converse", prop.ForAll(
				func(d fuzz.Data, c fuzz.Case) bool {
					n++
					data := filepath.Join(dir, ctxName+strconv.Itoa(n)+".json")
					var buf bytes.Buffer
					if err := d.P.WriteJSON(&buf); err != nil {
						t.Log(err)
						return false
					}
					if err := os.WriteFile(data, buf.Bytes(), 0o644); err != nil {
						t.Log(err)
						return false
					}
					defer os.Remove(data)
					old, new := ast.Print(c.Parts[0]), ast.Print(c.Parts[1])
					common := []string{"--data", data, "--context", ctxName, "--edition", "enterprise",
						"--now", fuzz.Now().String(), "--max-cost", "-1"}
					ids := func(src string) map[int64]bool {
						code, out, stderr := runCmd(t, append(append([]string{"query", "--ids"}, common...), "--", src)...)
						if code != 0 {
							t.Logf("query %s: exit %d: %s", src, code, stderr)
							return nil
						}
						return idSet(t, out)
					}
					a, b := ids(old), ids(new)
					if a == nil || b == nil {
						return false
					}
					code, out, stderr := runCmd(t, append(append([]string{"diff", "--format", "json"}, common...), "--", old, new)...)
					if code != 0 {
						t.Logf("diff: exit %d: %s", code, stderr)
						return false
					}
					var got diffJSON
					if err := json.Unmarshal([]byte(out), &got); err != nil {
						t.Log(err)
						return false
					}
					both := len(a) - len(minus(a, b))
					ok := slices.Equal(sorted(got.OnlyOld), minus(a, b)) && slices.Equal(sorted(got.OnlyNew), minus(b, a)) &&
						got.Both == both &&
						// JSON carries text as UTF-8; generated strings may have other bytes.
						(got.Old == old || !utf8.ValidString(old)) && (got.New == new || !utf8.ValidString(new))
					if !ok {
						t.Logf("diff %s\n%s\ngot %+v\nquery --ids: old %v, new %v", old, new, got, a, b)
					}
					return ok
				},
				fuzz.GenProject(), g.Preds()))
			if !props.Run(gopter.ConsoleReporter(false)) {
				t.Errorf("failed with seed %d: rerun with CROQL_PROP_SEED=%d go test ./cmd/croql -run TestPropDiffIsQueryDifference", seed, seed)
			}
			assert.GreaterOrEqual(t, n, cases)
		})
	}
}

// TestDiffText: the text form is a unified diff of ids with the counts,
// and the same on embedded SQLite.
func TestDiffText(t *testing.T) {
	for _, engine := range []string{"memory", "sqlite"} {
		code, out, stderr := runCmd(t, "diff", "--engine", engine, "count of translations > 2", "count of translations > 3")
		require.Equal(t, 0, code, stderr)
		lines := strings.Split(strings.TrimSpace(out), "\n")
		require.GreaterOrEqual(t, len(lines), 3)
		assert.Equal(t, "--- OLD: count of translations > 2 (46 matches)", lines[0])
		assert.Equal(t, "+++ NEW: count of translations > 3 (33 matches)", lines[1])
		assert.Equal(t, "only OLD: 13, only NEW: 0, both: 33", lines[len(lines)-1])
		assert.Len(t, lines, 3+13)
		for _, l := range lines[2 : len(lines)-1] {
			assert.Regexp(t, `^-\d+\t\S`, l, "-id, a tab and the string's text")
		}
	}
}

// TestDiffUsage: one query, a query with an error (either side) and
// --dsn with --data but without an engine are errors.
func TestDiffUsage(t *testing.T) {
	code, _, stderr := runCmd(t, "diff", "is hidden")
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, "two queries")
	code, _, stderr = runCmd(t, "diff", "is hidden", "is hiden")
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, "<new>:1:1: error")
	code, _, stderr = runCmd(t, "diff", "--dsn", "x", "--data", smallFixture, "is hidden", "is duplicate")
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, "--dsn with --data needs --engine")
}

// TestDiffEngines: croql diff prints the same on every engine: in memory,
// on embedded SQLite, and on PostgreSQL and MySQL/MariaDB when
// CROQL_POSTGRES_DSN and CROQL_MYSQL_DSN are set (a server CROQL_REQUIRE_DB
// lists must be set).
func TestDiffEngines(t *testing.T) {
	engines := [][]string{{"--engine", "sqlite"}}
	for _, e := range []struct{ name, env string }{{"postgres", "CROQL_POSTGRES_DSN"}, {"mysql", "CROQL_MYSQL_DSN"}} {
		dsn := os.Getenv(e.env)
		if dsn == "" {
			if slices.Contains(strings.Split(os.Getenv("CROQL_REQUIRE_DB"), ","), e.name) {
				t.Errorf("CROQL_REQUIRE_DB lists %s but %s is not set", e.name, e.env)
			}
			continue
		}
		engines = append(engines, []string{"--engine", e.name, "--dsn", dsn})
	}
	old, new := "count of comments > 0 or is duplicate", `count of translations where (text contains "a") > 0 and not is hidden`
	code, want, stderr := runCmd(t, "diff", "--data", smallFixture, "--format", "json", old, new)
	require.Equal(t, 0, code, stderr)
	var d diffJSON
	require.NoError(t, json.Unmarshal([]byte(want), &d))
	require.NotEmpty(t, d.OnlyOld)
	require.NotEmpty(t, d.OnlyNew)
	for _, e := range engines {
		t.Run(e[1], func(t *testing.T) {
			code, got, stderr := runCmd(t, append(append([]string{"diff", "--data", smallFixture, "--format", "json"}, e...), old, new)...)
			require.Equal(t, 0, code, stderr)
			assert.Equal(t, want, got)
		})
	}
}
