package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/croql/croql"
	"github.com/croql/croql/demo"
	"github.com/croql/croql/internal/corpus"
	"github.com/croql/croql/internal/whytest"
	"github.com/croql/croql/schema"
)

// runCmd runs `croql args...` through the CLI's dispatcher.
func runCmd(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = run(args, strings.NewReader(""), &out, &errOut)
	return code, out.String(), errOut.String()
}

// demoEnv is the environment croql why and croql query build over the
// demo project for the context ctx.
func demoEnv(t *testing.T, p *schema.Project, ctx string) *croql.Env {
	t.Helper()
	env, err := croql.NewEnv(ctx, croql.WithUserIDs(p.UserIDs()), croql.WithLanguages(p.LanguageCodes()...))
	require.NoError(t, err)
	return env
}

// TestWhySeedPatternsOnDemo: `croql why` on every seed pattern, for five
// objects each of the demo project (matches and non-matches): the printed
// result (text and JSON) is the evaluator's, and each clause's printed
// value is the reference interpreter's (internal/whytest re-evaluates
// `(clause) = value` with internal/refeval).
func TestWhySeedPatternsOnDemo(t *testing.T) {
	cases, err := corpus.LoadFile(filepath.Join(corpusDir, "seed_patterns.txt"))
	require.NoError(t, err)
	require.NotEmpty(t, cases)
	p := demo.Default()
	users := p.UserLogins()
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			env := demoEnv(t, p, c.Context())
			q, diags := env.Compile(c.Query())
			require.False(t, diags.HasErrors(), "%v", diags)
			objs, err := whytest.Five(q, p.Objects(env.Context()))
			require.NoError(t, err)
			require.Len(t, objs, 5)
			for _, o := range objs {
				id, ok := schema.ObjectID(o)
				require.True(t, ok)
				ids := strconv.FormatInt(id, 10)
				code, out, stderr := runCmd(t, "why", "--context", c.Context(), "--id", ids, "--format", "json", c.Query())
				require.Equal(t, 0, code, stderr)
				var e croql.Explanation
				require.NoError(t, json.Unmarshal([]byte(out), &e))
				assert.Equal(t, id, e.ID)
				assert.Equal(t, mustMatch(t, q, o), e.Match, "object %d", id)
				assert.NoError(t, whytest.Check(env, users, o, &e), "object %d:\n%s", id, out)

				code, text, stderr := runCmd(t, "why", "--context", c.Context(), "--id", ids, c.Query())
				require.Equal(t, 0, code, stderr)
				result := "no match"
				if mustMatch(t, q, o) {
					result = "match"
				}
				first, _, _ := strings.Cut(text, "\n")
				assert.Equal(t, fmt.Sprintf("%d: %s", id, result), first)
				lines := strings.Split(strings.TrimSpace(text), "\n")
				require.GreaterOrEqual(t, len(lines), 2)
				assert.True(t, strings.HasSuffix(lines[1], " is "+strconv.FormatBool(mustMatch(t, q, o))), "the whole query's line: %s", lines[1])
			}
		})
	}
}

// TestWhyText: the text form on one string of a project file, clause by
// clause, with the clauses that decided marked.
func TestWhyText(t *testing.T) {
	p := &schema.Project{Name: "why", SourceLanguage: "en", TargetLanguages: []string{"de", "fr"}, Users: []schema.UserRef{{ID: 11, Login: "alice"}},
		Strings: []schema.SourceString{{ID: 7, Type: "plain", Text: "Welcome", Translations: []schema.Translation{
			{ID: 70, StringID: 7, Language: "de", Text: "Willkommen", User: 11}, {ID: 71, StringID: 7, Language: "fr", Text: "Bienvenue", User: 12}}}}}
	var buf bytes.Buffer
	require.NoError(t, p.WriteJSON(&buf))
	data := filepath.Join(t.TempDir(), "p.json")
	require.NoError(t, os.WriteFile(data, buf.Bytes(), 0o644))
	code, out, stderr := runCmd(t, "why", "--data", data, "--id", "7",
		`text contains "Welcome" and count of translations where (user = @user:"alice") = 0`)
	require.Equal(t, 0, code, stderr)
	assert.Equal(t, "7: no match\n"+
		"`text contains \"Welcome\" and count of translations where (user = @user:\"alice\") = 0` is false\n"+
		"  `text` = \"Welcome\"; `contains \"Welcome\"` is true\n"+
		"  `count of translations where (user = @user:\"alice\")` = 1 (1 of 2 `translations`); `= 0` is false  (decides)\n", out)
}

// TestWhyUsage: a missing --id and a bad format are usage errors; an id
// the data does not have, and a query with an error, exit 1.
func TestWhyUsage(t *testing.T) {
	code, _, stderr := runCmd(t, "why", "is hidden")
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, "--id is required")
	code, _, stderr = runCmd(t, "why", "--id", "1", "--format", "xml", "is hidden")
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, "--format must be text or json")
	code, _, stderr = runCmd(t, "why", "--id", "999999", "is hidden")
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, "no object with id 999999")
	code, _, stderr = runCmd(t, "why", "--id", "1", "is hiden")
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, "did you mean `is hidden`")
}

// mustMatch is q.Match with a misuse failing the test.
func mustMatch(t *testing.T, q *croql.Query, obj any) bool {
	t.Helper()
	ok, err := q.Match(obj)
	require.NoError(t, err)
	return ok
}

// TestWhyJSONZeroCounts: in `why --format json`, a clause that counts the
// elements of a collection has `matched` and `total` even when they are 0
// (a string with no comments), and a clause that counts nothing has
// neither.
func TestWhyJSONZeroCounts(t *testing.T) {
	p := &schema.Project{Name: "why", SourceLanguage: "en", TargetLanguages: []string{"de"},
		Strings: []schema.SourceString{{ID: 7, Type: "plain", Text: "Welcome", Translations: []schema.Translation{
			{ID: 70, StringID: 7, Language: "de", Text: "Willkommen", User: 11}}}}, Users: []schema.UserRef{{ID: 11, Login: "alice"}}}
	var buf bytes.Buffer
	require.NoError(t, p.WriteJSON(&buf))
	data := filepath.Join(t.TempDir(), "p.json")
	require.NoError(t, os.WriteFile(data, buf.Bytes(), 0o644))
	code, out, stderr := runCmd(t, "why", "--data", data, "--id", "7", "--format", "json",
		`count of comments where (has issue) = 0 and count of translations where (is pre translated) = 0`)
	require.Equal(t, 0, code, stderr)
	var e struct {
		Match  bool `json:"match"`
		Clause struct {
			Clauses []struct {
				Clauses []map[string]any `json:"clauses"`
			} `json:"clauses"`
		} `json:"clause"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &e), out)
	assert.True(t, e.Match)
	require.Len(t, e.Clause.Clauses, 2, out)
	want := []struct {
		of             string
		matched, total float64
	}{{"comments", 0, 0}, {"translations", 0, 1}}
	for i, w := range want {
		require.Len(t, e.Clause.Clauses[i].Clauses, 1, out)
		c := e.Clause.Clauses[i].Clauses[0]
		assert.Equal(t, w.of, c["of"], out)
		assert.Contains(t, c, "matched", out)
		assert.Contains(t, c, "total", out)
		assert.Equal(t, w.matched, c["matched"], out)
		assert.Equal(t, w.total, c["total"], out)
	}
	assert.NotContains(t, out[:strings.Index(out, `"clauses"`)], `"matched"`, "the whole query counts nothing")
}
