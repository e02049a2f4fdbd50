package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestFlagDidYouMean: a misspelt flag names the flags spelt nearest to it
// (not the hint for a query that starts with "-", which stays for what is
// not near any flag).
func TestFlagDidYouMean(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"query", "--contex", "tm", "is hidden"}, "unknown flag: --contex; did you mean --context?"},
		{[]string{"query", "-contex", "tm", "is hidden"}, "did you mean --context?"},
		{[]string{"query", "--contex=tm", "is hidden"}, "did you mean --context?"},
		{[]string{"query", "--max-cots", "5", "is hidden"}, "did you mean --max-cost?"},
		{[]string{"query", "--exit", "is hidden"}, "did you mean --exit-status?"},
		{[]string{"lint", "--fromat", "json", "is hidden"}, "did you mean --format?"},
		{[]string{"sql", "--dialet", "sqlite", "is hidden"}, "did you mean --dialect?"},
	} {
		code, out, errOut := runCLI("", tc.args...)
		assert.Equal(t, 2, code, tc.args)
		assert.Empty(t, out, tc.args)
		assert.Contains(t, errOut, tc.want, tc.args)
		assert.NotContains(t, errOut, "goes after '--'", tc.args)
	}
	// Far from every flag: the query-after-"--" hint, no suggestion.
	code, _, errOut := runCLI("", "query", "-count of translations > 0")
	assert.Equal(t, 2, code)
	assert.NotContains(t, errOut, "did you mean")
	assert.Contains(t, errOut, "croql query -- '-count of translations > 0'")
}

// TestQueryExitStatus: with --exit-status (-e) a run that matches nothing
// exits 1 and prints nothing; one that matches exits 0; without it both
// exit 0. On every path: the demo project, a streamed file, SQLite.
func TestQueryExitStatus(t *testing.T) {
	for _, path := range [][]string{
		nil,
		{"--data", smallFixture},
		{"--data", smallFixture, "--engine", "sqlite"},
	} {
		none := append(append([]string{}, path...), "--ids", `identifier = "no such identifier"`)
		some := append(append([]string{}, path...), "--ids", "count of translations > 0")

		code, out, errOut := runQuery(t, "", append([]string{"--exit-status"}, none...)...)
		assert.Equal(t, 1, code, path)
		assert.Empty(t, out, path)
		assert.Empty(t, errOut, path)
		code, _, _ = runQuery(t, "", append([]string{"-e"}, none...)...)
		assert.Equal(t, 1, code, path)
		code, out, errOut = runQuery(t, "", none...)
		assert.Equal(t, 0, code, path)
		assert.Empty(t, out+errOut, path)

		code, out, errOut = runQuery(t, "", append([]string{"-e"}, some...)...)
		assert.Equal(t, 0, code, errOut)
		assert.NotEmpty(t, out, path)
	}
	// A query error is still 1, with its diagnostic.
	code, _, errOut := runQuery(t, "", "-e", "is hiden")
	assert.Equal(t, 1, code)
	assert.Contains(t, errOut, "did you mean `is hidden`?")
}

// TestQueryFields: --fields prints the named members of each match, in the
// order given, the same on every path; names are matched as CroQL matches
// field names; a wrong name is a usage error with a did-you-mean.
func TestQueryFields(t *testing.T) {
	want := `{"identifier":"sign_in_header","id":7,"maxLength":null,"isHidden":false}` + "\n" +
		`{"identifier":"sign_in_footer","id":8,"maxLength":5,"isHidden":false}` + "\n" +
		`{"identifier":"sign_in_modal","id":10,"maxLength":null,"isHidden":true}` + "\n"
	for _, path := range [][]string{
		{"--data", smallFixture},
		{"--data", smallFixture, "--engine", "sqlite"},
	} {
		args := append(append([]string{}, path...), "--fields", "identifier,id,max length", "--fields", "isHidden,ID", "is duplicate")
		code, out, errOut := runQuery(t, "", args...)
		require.Equal(t, 0, code, errOut)
		assert.Equal(t, want, out, path)
	}

	// Against the whole objects: each projected member equals the object's.
	code, full, errOut := runQuery(t, "", "--context", "translations", "--language", "de", "count of votes > 0")
	require.Equal(t, 0, code, errOut)
	code, proj, errOut := runQuery(t, "", "--context", "translations", "--language", "de", "--fields", "text,votes,stringId", "count of votes > 0")
	require.Equal(t, 0, code, errOut)
	fl, pl := strings.Split(strings.TrimSpace(full), "\n"), strings.Split(strings.TrimSpace(proj), "\n")
	require.Len(t, pl, len(fl))
	require.NotEmpty(t, fl)
	for i := range fl {
		var f, p map[string]json.RawMessage
		require.NoError(t, json.Unmarshal([]byte(fl[i]), &f))
		require.NoError(t, json.Unmarshal([]byte(pl[i]), &p))
		assert.Len(t, p, 3)
		for _, k := range []string{"text", "votes", "stringId"} {
			assert.JSONEq(t, string(f[k]), string(p[k]), k)
		}
	}

	code, out, errOut := runQuery(t, "", "--fields", "txt", "is hidden")
	assert.Equal(t, 2, code)
	assert.Empty(t, out)
	assert.Contains(t, errOut, `--fields: "txt" is not a member of the objects of the strings context; did you mean text?`)
	code, _, errOut = runQuery(t, "", "--fields", "id", "--ids", "is hidden")
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, "--fields and --ids exclude each other")
	code, _, errOut = runQuery(t, "", "--context", "tm", "--fields", "records,identifier", "count of records > 0")
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, `"identifier" is not a member of the objects of the tm context`)
}
