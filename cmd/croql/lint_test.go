package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func runLint(t *testing.T, stdin string, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(append([]string{"lint"}, args...), strings.NewReader(stdin), &out, &errb)
	return code, out.String(), errb.String()
}

func TestLintClean(t *testing.T) {
	code, out, _ := runLint(t, "", "count of translations where (is pre translated) > 0")
	assert.Equal(t, 0, code)
	assert.Empty(t, out)
}

func TestLintErrorsText(t *testing.T) {
	code, out, _ := runLint(t, "", "is hiden and fileId = 5")
	assert.Equal(t, 1, code)
	assert.Contains(t, out, "<arg>:1:1: error: `is hiden` is not a field of a source string; did you mean `is hidden`? [croqlInvalidLogic/unknown-field]")
	assert.Contains(t, out, "<arg>:1:14: error: `fileId`")
	assert.Contains(t, out, "  is hiden and fileId = 5\n               ^^^^^^\n")
}

func TestLintWarningExitsZero(t *testing.T) {
	code, out, _ := runLint(t, "", `text = 'Welcome!'`)
	assert.Equal(t, 0, code)
	assert.Contains(t, out, "warning:")
	assert.Contains(t, out, `did you mean: "Welcome!"`)
}

func TestLintJSON(t *testing.T) {
	code, out, _ := runLint(t, "not is approved", "--context", "translations", "--format", "json", "-")
	assert.Equal(t, 1, code)
	var got []struct {
		Severity string `json:"severity"`
		Code     string `json:"code"`
		Rule     string `json:"rule"`
		Message  string `json:"message"`
		Span     struct{ Start, End int }
		Start    struct{ Line, Column, UTF16 int }
		End      struct{ Line, Column, UTF16 int }
	}
	require.NoError(t, json.Unmarshal([]byte(out), &got), out)
	require.Len(t, got, 1)
	assert.Equal(t, "error", got[0].Severity)
	assert.Equal(t, "croqlInvalidLogic", got[0].Code)
	assert.Equal(t, 4, got[0].Span.Start)
	assert.Equal(t, 15, got[0].Span.End)
	assert.Equal(t, 1, got[0].Start.Line)
	assert.Equal(t, 5, got[0].Start.Column)
	assert.Equal(t, 4, got[0].Start.UTF16)
	assert.Contains(t, got[0].Message, "languages summary")

	code, out, _ = runLint(t, "", "--format", "json", "is hidden")
	assert.Equal(t, 0, code)
	assert.Equal(t, "[]\n", out)
}

func TestLintEditionAndUsage(t *testing.T) {
	code, _, _ := runLint(t, "", "isPassedWorkflow")
	assert.Equal(t, 1, code)
	code, _, _ = runLint(t, "", "--edition", "enterprise", "isPassedWorkflow")
	assert.Equal(t, 0, code)
	code, _, errs := runLint(t, "", "--edition", "gold", "is hidden")
	assert.Equal(t, 2, code)
	assert.Contains(t, errs, "--edition")
	code, _, _ = runLint(t, "", "--context", "nope", "is hidden")
	assert.Equal(t, 2, code)
	code, _, _ = runLint(t, "", "--format", "xml", "is hidden")
	assert.Equal(t, 2, code)
	code, _, _ = runLint(t, "", "--bogus")
	assert.Equal(t, 2, code)
}

func TestLintSyntaxError(t *testing.T) {
	code, out, _ := runLint(t, "", "id in (1, 2)")
	assert.Equal(t, 1, code)
	assert.Contains(t, out, "croqlInvalidSyntax")
}
