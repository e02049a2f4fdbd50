package sarif_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/croql/croql"
	"github.com/croql/croql/diag"
	"github.com/croql/croql/diag/sarif"
	"github.com/croql/croql/internal/sarifcheck"
)

var schemaPath = filepath.Join("..", "..", "testdata", "sarif", "sarif-schema-2.1.0.json")

func lint(t *testing.T, src string) diag.List {
	t.Helper()
	env, err := croql.NewEnv(croql.Strings)
	require.NoError(t, err)
	_, diags := env.Check(src)
	return diags
}

// TestLogValidates: logs of files, of queries without a file, with errors,
// warnings, fixes, multi-line and empty spans, and of no diagnostic at all
// are valid SARIF 2.1.0.
func TestLogValidates(t *testing.T) {
	inputs := []sarif.Input{
		{Name: "queries/hidden strings.croql", Text: "is hiden and\n  text = 'Welcome!'"},
		{Name: "<arg>", Text: "text == \"日本語\" && (is hidden"},
		{Name: "<stdin>", Text: "is hidden"},
		{Name: "/abs/path/q.croql", Text: "count of translations"},
		{Name: "<arg>", Text: ""},
	}
	for i := range inputs {
		inputs[i].Diags = lint(t, inputs[i].Text)
	}
	var buf bytes.Buffer
	require.NoError(t, sarif.Write(&buf, sarif.Tool{Name: "croql", Version: "v0.1.0", InformationURI: "https://github.com/croql/croql"}, inputs...))
	require.NoError(t, sarifcheck.Validate(schemaPath, buf.Bytes()), buf.String())

	var log sarif.Log
	require.NoError(t, json.Unmarshal(buf.Bytes(), &log))
	require.Len(t, log.Runs, 1)
	run := log.Runs[0]
	require.Len(t, run.Artifacts, len(inputs))
	assert.Equal(t, "queries/hidden%20strings.croql", run.Artifacts[0].Location.URI)
	assert.Nil(t, run.Artifacts[1].Location, "<arg> has no file")
	assert.Equal(t, inputs[1].Text, run.Artifacts[1].Contents.Text, "a query without a file is carried in the log")
	assert.Equal(t, "file:///abs/path/q.croql", run.Artifacts[3].Location.URI)

	var first *sarif.Result
	for i := range run.Results {
		if run.Results[i].RuleID == "croqlInvalidLogic/unknown-field" {
			first = &run.Results[i]
			break
		}
	}
	require.NotNil(t, first)
	assert.Equal(t, "error", first.Level)
	reg := first.Locations[0].PhysicalLocation.Region
	assert.Equal(t, [4]int{1, 1, 1, 9}, [4]int{reg.StartLine, reg.StartColumn, reg.EndLine, reg.EndColumn})
	assert.Equal(t, "is hiden", reg.Snippet.Text)
	require.NotEmpty(t, first.Fixes)
	assert.Equal(t, "is hidden", first.Fixes[0].ArtifactChanges[0].Replacements[0].InsertedContent.Text)
	assert.Equal(t, first.RuleID, run.Tool.Driver.Rules[first.RuleIndex].ID)

	levels := map[string]bool{}
	for _, r := range run.Results {
		levels[r.Level] = true
	}
	assert.True(t, levels["warning"], "the single-quoted string warning")
}

// TestValidatorRejects: the schema check fails on logs that are not
// SARIF, so a passing validation means something.
func TestValidatorRejects(t *testing.T) {
	for _, bad := range []string{
		`{}`,
		`{"version": "2.1.0", "runs": [{}]}`,
		`{"version": "2.0.0", "runs": []}`,
		`{"version": "2.1.0", "runs": [{"tool": {"driver": {"name": "x"}}, "results": [{"message": {"text": "m"}, "level": "fatal"}]}]}`,
		`{"version": "2.1.0", "runs": [{"tool": {"driver": {"name": "x"}}, "results": [{"message": {"text": "m"}, "locations": [{"physicalLocation": {"region": {"startLine": 0}}}]}]}]}`,
	} {
		assert.Error(t, sarifcheck.Validate(schemaPath, []byte(bad)), bad)
	}
	ok := `{"version": "2.1.0", "runs": [{"tool": {"driver": {"name": "x"}}, "results": []}]}`
	assert.NoError(t, sarifcheck.Validate(schemaPath, []byte(ok)))
	assert.Error(t, sarifcheck.Validate(filepath.Join(t.TempDir(), "none.json"), []byte(ok)))
}

func ExampleWrite() {
	src := "is hiden"
	env, _ := croql.NewEnv(croql.Strings)
	_, diags := env.Check(src)
	var buf bytes.Buffer
	_ = sarif.Write(&buf, sarif.Tool{Name: "croql"}, sarif.Input{Name: "q.croql", Text: src, Diags: diags})
	var log sarif.Log
	_ = json.Unmarshal(buf.Bytes(), &log)
	r := log.Runs[0].Results[0]
	reg := r.Locations[0].PhysicalLocation.Region
	fmt.Println(r.Level, r.RuleID, r.Locations[0].PhysicalLocation.ArtifactLocation.URI, reg.StartLine, reg.StartColumn)
	fmt.Fprintln(os.Stdout, r.Fixes[0].ArtifactChanges[0].Replacements[0].InsertedContent.Text)
	// Output:
	// error croqlInvalidLogic/unknown-field q.croql 1 1
	// is hidden
}
