package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestFmt(t *testing.T) {
	for in, want := range map[string]string{
		`count  of translations WHERE ( is up )>0`:          "count of translations where (is up) > 0\n",
		`(is hidden)AND(NOT is duplicate)`:                  "is hidden and not is duplicate\n",
		`text ≠ "a" or max length ≥ 3`:                      "text != \"a\" or max length >= 3\n",
		`((a or b)) and c`:                                  "(a or b) and c\n",
		"user = @User:\"alice\"":                            "user = @user:\"alice\"\n",
		`if a then b else (c or d)`:                         "if a then b else c or d\n",
		`text = "tab\there"`:                                "text = \"tab\\there\"\n",
		`added between '2024-01-01' and '2024-02-01' and x`: "added between '2024-01-01' and '2024-02-01' and x\n",
	} {
		code, out, errOut := runCLI("", "fmt", in)
		assert.Equal(t, 0, code, errOut)
		assert.Equal(t, want, out, in)
		assert.Empty(t, errOut)

		// idempotent
		code, again, _ := runCLI("", "fmt", out[:len(out)-1])
		assert.Equal(t, 0, code)
		assert.Equal(t, out, again)
	}
}

func TestFmtStdin(t *testing.T) {
	for _, args := range [][]string{{"fmt"}, {"fmt", "-"}} {
		code, out, errOut := runCLI("is hidden\nand is duplicate\n", args...)
		assert.Equal(t, 0, code, errOut)
		assert.Equal(t, "is hidden and is duplicate\n", out)
	}
}

func TestFmtJoinsArguments(t *testing.T) {
	code, out, _ := runCLI("", "fmt", "is", "hidden", "and", "is", "duplicate")
	assert.Equal(t, 0, code)
	assert.Equal(t, "is hidden and is duplicate\n", out)
}

func TestFmtDiagnostics(t *testing.T) {
	code, out, errOut := runCLI("", "fmt", `text == "a" && is hidden`)
	assert.Equal(t, 1, code)
	assert.Empty(t, out)
	assert.Equal(t, "<arg>:1:6: error: CroQL has no `==`: write `=` [croqlInvalidSyntax/double-equals]\n"+
		"  text == \"a\" && is hidden\n"+
		"       ^^\n"+
		"  did you mean: =\n"+
		"<arg>:1:13: error: CroQL has no `&&`: write `and` [croqlInvalidSyntax/double-ampersand]\n"+
		"  text == \"a\" && is hidden\n"+
		"              ^^\n"+
		"  did you mean: and\n", errOut)

	code, _, errOut = runCLI("", "fmt", "")
	assert.Equal(t, 1, code)
	assert.Contains(t, errOut, "[croqlInvalidSyntax/unexpected-eof]")
}

func TestFmtBadUsage(t *testing.T) {
	code, out, errOut := runCLI("", "fmt", "-nope", "a")
	assert.Equal(t, 2, code)
	assert.Empty(t, out)
	assert.Contains(t, errOut, "unknown shorthand flag: 'n' in -nope")
	assert.Contains(t, errOut, "Run 'croql fmt --help' for usage.")

	// A query starting with "-" goes after "--".
	code, out, _ = runCLI("", "fmt", "--", "-max length < 0")
	assert.Equal(t, 0, code)
	assert.Equal(t, "-max length < 0\n", out)
}

// TestFmtDocumentedSpelling: fmt prints every field of the context in its
// documented spelling, and keeps names that are no field as written.
func TestFmtDocumentedSpelling(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"IS HIDDEN and isduplicate and ID OF FILE = 3"}, "is hidden and is duplicate and id of file = 3\n"},
		{[]string{"--context", "tm", "count of records where (UsageCount > 0) > 0"}, "count of records where (usageCount > 0) > 0\n"},
		{[]string{"Nope AND IS HIDDEN"}, "Nope and is hidden\n"},
	} {
		code, out, errOut := runCLI("", append([]string{"fmt"}, tc.args...)...)
		assert.Equal(t, 0, code, errOut)
		assert.Equal(t, tc.want, out, "%v", tc.args)
	}
	code, _, _ := runCLI("", "fmt", "--context", "nope", "is hidden")
	assert.Equal(t, 2, code)
}

// TestFmtLower: --lower prints the platform form on stdout and each
// rewrite on stderr, the relative date with its clock; what is not sugar
// stays an error of the rewritten query.
func TestFmtLower(t *testing.T) {
	code, out, errOut := runCLI("", "fmt", "--lower", "--now", "2024-03-15 09:30:00",
		`identifier IN ("a","b") and added > 'today - 7 days' and file is absent and "hello"`)
	assert.Equal(t, 0, code, errOut)
	assert.Equal(t, `(identifier = "a" or identifier = "b") and added > '2024-03-08' and not (id of file >= 0 or id of file < 0) and `+
		`(text contains "hello" or identifier contains "hello")`+"\n", out)
	assert.Contains(t, errOut, "<arg>: lowered `identifier IN (\"a\",\"b\")` to `(identifier = \"a\" or identifier = \"b\")` [in-list]\n")
	assert.Contains(t, errOut, "<arg>: lowered `file is absent` to `not (id of file >= 0 or id of file < 0)` [null-test]\n")
	assert.Contains(t, errOut, "with the clock at 2024-03-15 09:30:00 UTC it is '2024-03-08'")
	assert.Contains(t, errOut, "<arg>: lowered `\"hello\"` to `(text contains \"hello\" or identifier contains \"hello\")` [not-bool]\n")

	// The output is platform CroQL: fmt --lower of it changes nothing.
	code, again, errOut := runCLI("", "fmt", "--lower", out[:len(out)-1])
	assert.Equal(t, 0, code, errOut)
	assert.Equal(t, out, again)
	assert.Empty(t, errOut)

	code, out, errOut = runCLI("", "fmt", "--lower", "--context", "glossary", "languageId = \"de\" and is hiden")
	assert.Equal(t, 1, code)
	assert.Empty(t, out)
	assert.Contains(t, errOut, "lowered `languageId` to `language` [unknown-field]")
	assert.Contains(t, errOut, "<arg> (lowered):1:21: error: `is hiden`")

	code, _, errOut = runCLI("", "fmt", "--lower", "--now", "soon", "is hidden")
	assert.Equal(t, 2, code, errOut)
}

// TestFmtLowerAPINames: an in-list or a null test over a name of the
// platform API (the first queries an API user writes), and other
// languages' operators and bool literals, lower to platform CroQL that
// lints clean.
func TestFmtLowerAPINames(t *testing.T) {
	for src, want := range map[string]string{
		"fileId in (1, 2)":    "id of file = 1 or id of file = 2",
		"updatedAt is absent": "not (updated >= '1970-01-01' or updated < '1970-01-01')",
		"fileId == 1 && !is hidden || type = \"plural\" and is duplicate = false": "id of file = 1 and not is hidden or type is plural and not is duplicate",
	} {
		code, out, errOut := runCLI("", "fmt", "--lower", src)
		require.Equal(t, 0, code, errOut)
		assert.Equal(t, want+"\n", out)
		assert.Contains(t, errOut, "<arg>: lowered `")
		code, out, errOut = runCLI("", "lint", want)
		assert.Equal(t, 0, code, "%s: %s", want, errOut)
		assert.Empty(t, out+errOut)
	}
}
