package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/croql/croql/internal/corpus"
	"github.com/croql/croql/schema"
)

var (
	smallFixture = filepath.Join("..", "..", "testdata", "fixtures", "small.json")
	corpusDir    = filepath.Join("..", "..", "testdata", "corpus")
)

// runQuery runs `croql query args...` through the CLI's dispatcher.
func runQuery(t *testing.T, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = run(append([]string{"query"}, args...), strings.NewReader(stdin), &out, &errOut)
	return code, out.String(), errOut.String()
}

// idLines turns --ids output into "1 4 7", or "none".
func idLines(s string) string {
	f := strings.Fields(s)
	if len(f) == 0 {
		return "none"
	}
	return strings.Join(f, " ")
}

// TestQuerySeedPatternsOnDemo runs every seed pattern in its context on
// the built-in demo project: each must succeed without a diagnostic, and
// print as many objects as ids.
func TestQuerySeedPatternsOnDemo(t *testing.T) {
	cases, err := corpus.LoadFile(filepath.Join(corpusDir, "seed_patterns.txt"))
	require.NoError(t, err)
	require.NotEmpty(t, cases)
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			code, ids, stderr := runQuery(t, "", "--context", c.Context(), "--ids", c.Query())
			require.Equal(t, 0, code, stderr)
			assert.Empty(t, stderr)
			for _, line := range strings.Fields(ids) {
				_, err := strconv.ParseInt(line, 10, 64)
				assert.NoError(t, err, "id line %q", line)
			}
			code, objs, stderr := runQuery(t, "", "--context", c.Context(), c.Query())
			require.Equal(t, 0, code, stderr)
			assert.Equal(t, len(strings.Fields(ids)), strings.Count(objs, "\n"), "one NDJSON line per id")
		})
	}
}

// serverSample is the fixture cases the server engines run through the
// command. Each run loads the data into a scratch schema (seconds on
// PostgreSQL), and compile/'s own tests run the whole fixture on every
// dialect; these check the command's wiring.
var serverSample = map[string]bool{
	"fixture-seed-no-approved-or-voted-in-language": true,
	"fixture-seed-translations-by-user-or-upvoted":  true,
	"fixture-edge-glossary-status-not-equal":        true,
}

// TestQueryFixtureIDs runs the cases of the hand-checked fixture corpus
// through the command, all of them in memory and on embedded SQLite, and
// serverSample on PostgreSQL and MySQL/MariaDB when CROQL_POSTGRES_DSN and
// CROQL_MYSQL_DSN are set (as CI sets them), and compares the ids with the
// hand-worked ones.
func TestQueryFixtureIDs(t *testing.T) {
	cases, err := corpus.LoadFile(filepath.Join(corpusDir, "fixture_small.txt"))
	require.NoError(t, err)
	require.NotEmpty(t, cases)
	engines := [][]string{{"--engine", "memory"}, {"--engine", "sqlite"}}
	for _, e := range []struct{ name, env string }{{"postgres", "CROQL_POSTGRES_DSN"}, {"mysql", "CROQL_MYSQL_DSN"}} {
		if dsn := os.Getenv(e.env); dsn != "" {
			engines = append(engines, []string{"--engine", e.name, "--dsn", dsn})
		}
	}
	for _, engine := range engines {
		for _, c := range cases {
			if server := engine[1] == "postgres" || engine[1] == "mysql"; server && !serverSample[c.Name] {
				continue
			}
			t.Run(engine[1]+"/"+c.Name, func(t *testing.T) {
				require.Equal(t, "small", c.Get("fixture"))
				args := append(slices.Clone(engine), "--data", smallFixture, "--ids",
					"--context", c.Context(), "--edition", c.Edition(), c.Query())
				code, out, stderr := runQuery(t, "", args...)
				require.Equal(t, 0, code, stderr)
				assert.Equal(t, c.Get("ids"), idLines(out), "%s: %s", c.Where(), c.Query())
			})
		}
	}
}

// TestQueryEngineObjects: a SQL engine's matches print as the same NDJSON
// objects as the evaluator's, in ascending id order.
func TestQueryEngineObjects(t *testing.T) {
	q := `count of comments > 0 or is duplicate`
	code, mem, stderr := runQuery(t, "", "--data", smallFixture, q)
	require.Equal(t, 0, code, stderr)
	code, sql, stderr := runQuery(t, "", "--data", smallFixture, "--engine", "sqlite", q)
	require.Equal(t, 0, code, stderr)
	assert.Equal(t, mem, sql)
	assert.Equal(t, 6, strings.Count(sql, "\n"), "strings 2 4 5 7 8 10")

	code, out, stderr := runQuery(t, "", "--engine", "sqlite", "--ids", `is hiden`)
	assert.Equal(t, 1, code)
	assert.Empty(t, out)
	assert.Contains(t, stderr, "is hidden", "the diagnostic suggests the field")
}

func TestQueryNDJSONObjects(t *testing.T) {
	code, out, stderr := runQuery(t, "", "--data", smallFixture, `count of translations = 3`)
	require.Equal(t, 0, code, stderr)
	var got []int64
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var s schema.SourceString
		require.NoError(t, json.Unmarshal(sc.Bytes(), &s), sc.Text())
		assert.Len(t, s.Translations, 3)
		got = append(got, s.ID)
	}
	assert.Equal(t, []int64{1, 11, 13}, got)
	assert.Contains(t, out, `"text":"Welcome to Café Olé"`, "no HTML escaping, UTF-8 kept")

	code, out, stderr = runQuery(t, "", "--data", smallFixture, "--context", "translations", `text = ""`)
	require.Equal(t, 0, code, stderr)
	var tr schema.Translation
	require.NoError(t, json.Unmarshal([]byte(out), &tr))
	assert.Equal(t, int64(1103), tr.ID)
	assert.Equal(t, "uk", tr.Language)
}

// TestQueryNowAndTZ: 'today' is midnight of --now's day in --tz.
func TestQueryNowAndTZ(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		// today = 2024-01-15 00:00 UTC: added on 01-31 (2) and 02-01 (12);
		// 11 was added at exactly 01-15 00:00, not after.
		{"utc", []string{"--now", "2024-01-15 10:30:00", `added > 'today'`}, "2 12"},
		{"utc-inclusive", []string{"--now", "2024-01-15", `added >= 'today'`}, "2 11 12"},
		// In Tokyo (UTC+9) --now 2024-01-01 03:00 is that day, so today is
		// 2023-12-31 15:00 UTC: string 3 (2023-12-31 23:59:59 UTC) is on it.
		{"tokyo", []string{"--now", "2024-01-01 03:00:00", "--tz", "Asia/Tokyo", `added >= 'today'`}, "1 2 3 5 11 12"},
		{"tokyo-utc", []string{"--now", "2024-01-01 03:00:00", `added >= 'today'`}, "1 2 5 11 12"},
		// A literal without an offset is read in --tz: 2024-01-01 00:00 in
		// Kyiv (UTC+2) is 2023-12-31 22:00 UTC.
		{"literal-in-zone", []string{"--tz", "Europe/Kyiv", `added between '2024-01-01 00:00:00' and '2024-01-31 23:59:59'`}, "1 3 5 11"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{"--data", smallFixture, "--ids"}, tc.args...)
			code, out, stderr := runQuery(t, "", args...)
			require.Equal(t, 0, code, stderr)
			assert.Equal(t, tc.want, idLines(out))
		})
	}
}

func TestQueryFold(t *testing.T) {
	code, out, stderr := runQuery(t, "", "--data", smallFixture, "--ids", `text contains "welcome"`)
	require.Equal(t, 0, code, stderr)
	assert.Equal(t, "none", idLines(out), "contains is case-sensitive by default")
	code, out, stderr = runQuery(t, "", "--data", smallFixture, "--ids", "--fold", `text contains "welcome"`)
	require.Equal(t, 0, code, stderr)
	assert.Equal(t, "1 2 9 12", idLines(out))
}

func TestQueryWarningStillRuns(t *testing.T) {
	code, out, stderr := runQuery(t, "", "--data", smallFixture, "--ids", `identifier = 'welcome_title'`)
	require.Equal(t, 0, code, stderr)
	assert.Equal(t, "1 2 9", idLines(out))
	assert.Contains(t, stderr, "warning")
}

func TestQueryStdin(t *testing.T) {
	code, out, stderr := runQuery(t, "is duplicate\n", "--data", smallFixture, "--ids", "-")
	require.Equal(t, 0, code, stderr)
	assert.Equal(t, "7 8 10", idLines(out))

	code, out, stderr = runQuery(t, "is duplicate", "--data", smallFixture, "--ids")
	require.Equal(t, 0, code, stderr)
	assert.Equal(t, "7 8 10", idLines(out))

	data, err := os.ReadFile(smallFixture)
	require.NoError(t, err)
	code, out, stderr = runQuery(t, string(data), "--data", "-", "--ids", "is", "duplicate")
	require.Equal(t, 0, code, stderr)
	assert.Equal(t, "7 8 10", idLines(out), "--data - reads the project from stdin; arguments join into the query")
}

func TestQueryMentionsResolveAgainstData(t *testing.T) {
	// The fixture's alice is user 1; the demo project's alice is 11.
	code, out, stderr := runQuery(t, "", "--data", smallFixture, "--ids", "--context", "glossary", `user = @user:"alice"`)
	require.Equal(t, 0, code, stderr)
	assert.Equal(t, "1 4", idLines(out))

	code, out, stderr = runQuery(t, "", "--data", smallFixture, "--ids", `count of comments where (user = @user:"alcie") > 0`)
	assert.Equal(t, 1, code)
	assert.Empty(t, out)
	assert.Contains(t, stderr, `@user:"alice"`, "did-you-mean from the data's users")

	code, out, stderr = runQuery(t, "", "--data", smallFixture, "--ids", `count of translations where (language = @language:"es") > 0`)
	assert.Equal(t, 1, code, "es is not a language of the fixture")
	assert.Empty(t, out)
	assert.Contains(t, stderr, "es")

	code, _, stderr = runQuery(t, "", "--ids", `count of translations where (language = @language:"es") > 0`)
	assert.Equal(t, 0, code, "es is a language of the demo project: %s", stderr)
}

func TestQueryDiagnostics(t *testing.T) {
	for _, q := range []string{`is hiden`, `count of translations`, `a == b`, `is duplicate and`} {
		code, out, stderr := runQuery(t, "", q)
		assert.Equal(t, 1, code, q)
		assert.Empty(t, out, q)
		assert.Contains(t, stderr, "1:", "%s: line:col of the diagnostic", q)
	}
	code, _, stderr := runQuery(t, "", "--edition", "standard", "isPassedWorkflow")
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, "enterprise")
	code, _, stderr = runQuery(t, "", "--edition", "enterprise", "isPassedWorkflow")
	assert.Equal(t, 0, code, stderr)
}

func TestQueryBadUsage(t *testing.T) {
	for _, args := range [][]string{
		{"--context", "nope", "is hidden"},
		{"--edition", "premium", "is hidden"},
		{"--tz", "Mars/Olympus", "is hidden"},
		{"--now", "yesterday", "is hidden"},
		{"--data", "-", "-"},
		{"--nope", "is hidden"},
		{"--engine", "oracle", "is hidden"},
		{"--dsn", "postgres://x", "--data", smallFixture, "is hidden"},
		{"--engine", "postgres", "is hidden"},
	} {
		code, out, stderr := runQuery(t, "is hidden", args...)
		assert.Equal(t, 2, code, "%v", args)
		assert.Empty(t, out, "%v", args)
		assert.NotEmpty(t, stderr, "%v", args)
	}
	code, stdout, _ := runQuery(t, "", "-h")
	assert.Equal(t, 0, code)
	assert.Contains(t, stdout, "croql query [--context C]")
}

func TestQueryBadData(t *testing.T) {
	dir := t.TempDir()
	code, out, stderr := runQuery(t, "", "--data", filepath.Join(dir, "missing.json"), "is hidden")
	assert.Equal(t, 1, code)
	assert.Empty(t, out)
	assert.Contains(t, stderr, "missing.json")

	bad := filepath.Join(dir, "bad.json")
	require.NoError(t, os.WriteFile(bad, []byte(`{"strings": [{"id": 1, "type": "poem", "added": "2024-01-01"}]}`), 0o600))
	code, out, stderr = runQuery(t, "", "--data", bad, "is hidden")
	assert.Equal(t, 1, code)
	assert.Empty(t, out)
	assert.Contains(t, stderr, "poem")
}

func TestIsTerminal(t *testing.T) {
	assert.False(t, isTerminal(&bytes.Buffer{}))
	f, err := os.CreateTemp(t.TempDir(), "x")
	require.NoError(t, err)
	defer f.Close()
	assert.False(t, isTerminal(f), "a regular file is not a terminal")
	null, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	require.NoError(t, err)
	defer null.Close()
	assert.False(t, isTerminal(null), "/dev/null is a character device but not a terminal")
	var buf bytes.Buffer
	p := newProgress(&buf, "x: ", false)
	p.show("x %d", 1)
	p.step("y")
	p.done()
	assert.Empty(t, buf.String(), "no progress when off")
	p = newProgress(&buf, "croql x: ", true)
	p.show("at %d", 1)
	p.show("at %d", 2) // within progressEvery of the first: not shown
	p.step("next")
	p.done()
	assert.Equal(t, "\r\x1b[Kcroql x: at 1\r\x1b[Kcroql x: next\r\x1b[K", buf.String())
}

// TestQueryEngineRefusesLiteral: a value PostgreSQL cannot hold (NUL) is
// a diagnostic on that literal, as `croql sql` prints it, not a failure
// over the whole query. Runs when CROQL_POSTGRES_DSN is set.
func TestQueryEngineRefusesLiteral(t *testing.T) {
	dsn := os.Getenv("CROQL_POSTGRES_DSN")
	if dsn == "" {
		t.Skip("CROQL_POSTGRES_DSN is not set")
	}
	code, out, stderr := runQuery(t, "", "--data", smallFixture, "--engine", "postgres", "--dsn", dsn, "--ids", `is hidden or text = "a\u0000"`)
	assert.Equal(t, 1, code, stderr)
	assert.Empty(t, out)
	assert.Contains(t, stderr, "<arg>:1:21: error: ", "column 21: the literal")
	assert.Contains(t, stderr, "[croqlInvalidLogic/sql]")
}
