package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/croql/croql/schema"
)

// TestQueryLanguage: --language selects the translations of one language,
// as the platform's per-language endpoint, in memory and on SQLite.
func TestQueryLanguage(t *testing.T) {
	// The fixture's French translations (testdata/fixtures/small.json).
	const fr = "102 202 602 1102 1201 1302"
	for _, engine := range []string{"memory", "sqlite"} {
		code, out, errOut := runCLI("", "query", "--data", smallFixture, "--context", "translations", "--engine", engine,
			"--ids", "--language", "fr", `text != "@@"`)
		require.Equal(t, 0, code, errOut)
		assert.Equal(t, fr, idLines(out), engine)
	}
	code, out, errOut := runCLI("", "query", "--data", smallFixture, "--context", "translations", "--language", "de", `is pre translated or not is pre translated`)
	require.Equal(t, 0, code, errOut)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	require.NotEmpty(t, lines)
	for _, l := range lines {
		var tr schema.Translation
		require.NoError(t, json.Unmarshal([]byte(l), &tr))
		assert.Equal(t, "de", tr.Language)
	}

	code, _, errOut = runCLI("", "query", "--data", smallFixture, "--context", "translations", "--language", "es", "is pre translated")
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, `--language "es" is not a language of the data`)
	code, _, errOut = runCLI("", "query", "--language", "de", "is hidden")
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, "the strings context has none")
	code, out, errOut = runCLI("", "query", "--context", "glossary", "--language", "de", "--ids", `text != "@@"`)
	require.Equal(t, 0, code, errOut)
	assert.NotEmpty(t, out, "glossary terms in German")
}

// TestLintData: with --data, lint checks mentions against the project's
// users and languages as query does; without it any login passes.
func TestLintData(t *testing.T) {
	q := `count of comments where (user = @user:"alcie") > 0`
	code, out, _ := runCLI("", "lint", q)
	assert.Equal(t, 0, code, "no directory: any login: %s", out)

	code, out, _ = runCLI("", "lint", "--data", smallFixture, q)
	assert.Equal(t, 1, code)
	assert.Contains(t, out, "[croqlInvalidLogic/unknown-user]")
	assert.Contains(t, out, `did you mean: @user:"alice"`)

	code, _, _ = runCLI("", "lint", "--data", smallFixture, `count of comments where (user = @user:"alice") > 0`)
	assert.Equal(t, 0, code)
	code, out, _ = runCLI("", "lint", "--data", smallFixture, "--context", "translations",
		`count of votes where (user = @user:"bob") > 0`)
	assert.Equal(t, 0, code, out)
	code, out, _ = runCLI("", "lint", "--data", smallFixture, `count of translations where (language = @language:"es") > 0`)
	assert.Equal(t, 1, code, "es is not a language of the fixture")
	assert.Contains(t, out, "unknown-language")

	code, _, _ = runCLI("", "lint", "--data", "/nonexistent/project.json", "is hidden")
	assert.Equal(t, 1, code)
	code, _, errOut := runCLI("is hidden", "lint", "--data", "-")
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, "give the query as an argument")
}

// TestFields: the fields of each context, with their types, as text and
// JSON; nested fields indented.
func TestFields(t *testing.T) {
	code, out, errOut := runCLI("", "fields")
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "Fields of source strings")
	assert.Regexp(t, `(?m)^max length +int, may be absent +Maximum length`, out)
	assert.Regexp(t, `(?m)^translations +collection of translation`, out)
	assert.Regexp(t, `(?m)^  text +string`, out, "a translation's text, indented")

	code, out, errOut = runCLI("", "fields", "--context", "translations")
	require.Equal(t, 0, code, errOut)
	assert.Regexp(t, `(?m)^provider +string, may be absent .*Known values: tm, global_tm`, out)

	for _, ctx := range contextNames {
		code, out, errOut := runCLI("", "fields", "--context", ctx, "--format", "json")
		require.Equal(t, 0, code, errOut)
		var fields []struct {
			Name, Type string
			Nullable   bool
			Fields     []json.RawMessage
		}
		require.NoError(t, json.Unmarshal([]byte(out), &fields), ctx)
		assert.NotEmpty(t, fields, ctx)
		cat := schema.New()
		c, ok := cat.Context(ctx)
		require.True(t, ok)
		require.Len(t, fields, len(c.Root.Fields), ctx)
		for i, f := range c.Root.Fields {
			assert.Equal(t, f.Name, fields[i].Name)
			assert.Equal(t, f.Type.String(), fields[i].Type)
			assert.Equal(t, f.Nullable, fields[i].Nullable)
		}
	}

	code, out, _ = runCLI("", "fields", "--context", "strings")
	require.Equal(t, 0, code)
	code, ent, _ := runCLI("", "fields", "--context", "strings", "--edition", "enterprise")
	require.Equal(t, 0, code)
	assert.Contains(t, out, "[enterprise only]")
	assert.NotContains(t, ent, "[enterprise only]")

	code, _, _ = runCLI("", "fields", "--context", "nope")
	assert.Equal(t, 2, code)
	code, _, _ = runCLI("", "fields", "extra")
	assert.Equal(t, 2, code)
}
