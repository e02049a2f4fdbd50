package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/croql/croql/internal/sarifcheck"
)

var sarifSchema = filepath.Join("..", "..", "testdata", "sarif", "sarif-schema-2.1.0.json")

// TestDiagnosticsGCCForm: diagnostics read "file:line:col: severity:
// message [code/rule]", <arg> for arguments and <stdin> for stdin, so
// problem matchers of editors and CI pick them up.
func TestDiagnosticsGCCForm(t *testing.T) {
	gcc := regexp.MustCompile(`(?m)^(<arg>|<stdin>|[^:\n]+):(\d+):(\d+): (error|warning|info): (.*) \[(\w+)/([\w-]+)\]$`)

	code, out, _ := runCLI("", "lint", "is hiden")
	assert.Equal(t, 1, code)
	m := gcc.FindStringSubmatch(out)
	require.NotNil(t, m, out)
	assert.Equal(t, []string{"<arg>", "1", "1", "error"}, m[1:5])
	assert.Equal(t, "unknown-field", m[7])

	code, out, _ = runCLI("is duplicate and\n  is hiden", "lint", "-")
	assert.Equal(t, 1, code)
	m = gcc.FindStringSubmatch(out)
	require.NotNil(t, m, out)
	assert.Equal(t, []string{"<stdin>", "2", "3", "error"}, m[1:5])

	code, out, _ = runCLI("text = 'Welcome!'", "lint")
	assert.Equal(t, 0, code)
	m = gcc.FindStringSubmatch(out)
	require.NotNil(t, m, out)
	assert.Equal(t, []string{"<stdin>", "1", "8", "warning"}, m[1:5])

	file := filepath.Join(t.TempDir(), "hidden.croql")
	require.NoError(t, os.WriteFile(file, []byte("is hidden and\nis hiden\n"), 0o600))
	code, out, _ = runCLI("", "lint", "--file", file)
	assert.Equal(t, 1, code)
	assert.Contains(t, out, file+":2:1: error: `is hiden`")
	code, _, errOut := runCLI("", "lint", "--file", file, "is hidden")
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, "not both")
	code, _, _ = runCLI("", "lint", "--file", filepath.Join(t.TempDir(), "none.croql"))
	assert.Equal(t, 1, code)

	// The other commands name the query the same way.
	for _, args := range [][]string{{"fmt", "a == b"}, {"explain", "a == b"}, {"sql", "a == b"}, {"query", "a == b"}} {
		code, _, errOut := runCLI("", args...)
		assert.Equal(t, 1, code, "%v", args)
		assert.Regexp(t, `^<arg>:1:3: error: `, errOut, "%v", args)
	}
}

// TestCaretsByDisplayWidth: carets stand under the span with a tab and
// wide characters before it.
func TestCaretsByDisplayWidth(t *testing.T) {
	code, out, _ := runCLI("", "lint", "text = \"日本\"\tand is hiden")
	assert.Equal(t, 1, code)
	lines := strings.Split(out, "\n")
	require.GreaterOrEqual(t, len(lines), 3, out)
	assert.Equal(t, `  text = "日本"   and is hiden`, lines[1], "the tab expands to the next stop of 8")
	assert.Equal(t, `                      ^^^^^^^^`, lines[2])
}

// TestLintSARIF: `croql lint --format sarif` writes a log that validates
// against the SARIF 2.1.0 schema, for a query with errors, warnings and
// fixes, for a clean one, from arguments, stdin and a file.
func TestLintSARIF(t *testing.T) {
	file := filepath.Join(t.TempDir(), "my queries", "q.croql")
	require.NoError(t, os.MkdirAll(filepath.Dir(file), 0o700))
	require.NoError(t, os.WriteFile(file, []byte("is hiden and text = 'x'"), 0o600))
	for _, tc := range []struct {
		stdin string
		args  []string
		code  int
	}{
		{"", []string{"is hiden and fileId = 5 and text = 'a'"}, 1},
		{"", []string{"is hidden"}, 0},
		{"text == \"日本\" &&\n (is hidden", []string{"-"}, 1},
		{"", []string{"--file", file}, 1},
		{"", []string{"--context", "translations", "not is approved"}, 1},
	} {
		args := append([]string{"lint", "--format", "sarif"}, tc.args...)
		code, out, errOut := runCLI(tc.stdin, args...)
		assert.Equal(t, tc.code, code, "%v: %s", args, errOut)
		require.NoError(t, sarifcheck.Validate(sarifSchema, []byte(out)), "%v:\n%s", args, out)
		var log struct {
			Version string
			Runs    []struct {
				Results []struct {
					RuleID string
					Level  string
				}
				Artifacts []struct {
					Location *struct{ URI string }
				}
			}
		}
		require.NoError(t, json.Unmarshal([]byte(out), &log))
		assert.Equal(t, "2.1.0", log.Version)
		require.Len(t, log.Runs, 1)
		if tc.code == 0 {
			assert.Empty(t, log.Runs[0].Results)
		} else {
			assert.NotEmpty(t, log.Runs[0].Results)
		}
		if tc.args[0] == "--file" {
			require.NotNil(t, log.Runs[0].Artifacts[0].Location)
			assert.True(t, strings.HasSuffix(log.Runs[0].Artifacts[0].Location.URI, "/my%20queries/q.croql"), log.Runs[0].Artifacts[0].Location.URI)
		}
	}
}

// TestSQLJSONErrors: `croql sql --format json` prints diagnostics as JSON
// on stdout, errors included, and nothing on stderr.
func TestSQLJSONErrors(t *testing.T) {
	code, out, errOut := runCLI("", "sql", "--format", "json", "is hiden")
	assert.Equal(t, 1, code)
	assert.Empty(t, errOut)
	var got struct {
		Dialect     string
		Where       string
		Diagnostics []struct {
			Severity, Code, Rule, Message string
			Start                         struct{ Line, Column int }
		}
	}
	require.NoError(t, json.Unmarshal([]byte(out), &got), out)
	assert.Equal(t, "postgres", got.Dialect)
	assert.Empty(t, got.Where)
	require.Len(t, got.Diagnostics, 1)
	assert.Equal(t, "error", got.Diagnostics[0].Severity)
	assert.Equal(t, "unknown-field", got.Diagnostics[0].Rule)
	assert.Equal(t, 1, got.Diagnostics[0].Start.Column)

	code, out, errOut = runCLI("", "sql", "--format", "json", "identifier = 'x'")
	assert.Equal(t, 0, code, errOut)
	assert.Empty(t, errOut)
	require.NoError(t, json.Unmarshal([]byte(out), &got), out)
	assert.NotEmpty(t, got.Where)
	require.Len(t, got.Diagnostics, 1, "the warning")
	assert.Equal(t, "warning", got.Diagnostics[0].Severity)
}

// TestLimitHintsNameRealFlags: the diagnostic of each parser limit names
// a flag that exists on every command that parses, and raising it with
// that flag lets the query through.
func TestLimitHintsNameRealFlags(t *testing.T) {
	flagRe := regexp.MustCompile(`--max-[a-z]+`)
	long := strings.Repeat("is hidden or ", 5000) + "is hidden" // 10001 nodes in 65009 bytes
	deep := strings.Repeat("(", 200) + "is hidden" + strings.Repeat(")", 200)
	big := "text = \"" + strings.Repeat("x", 70<<10) + "\""
	for _, tc := range []struct {
		name, src, flag, raise string
	}{
		{"nodes", long, "--max-nodes", "20000"},
		{"depth", deep, "--max-depth", "300"},
		{"source", big, "--max-source", "100000"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, _ := runCLI(tc.src, "lint", "-")
			require.Equal(t, 1, code)
			assert.Contains(t, out, "[croqlInvalidSyntax/limit-"+tc.name+"]")
			named := flagRe.FindAllString(out, -1)
			require.Equal(t, []string{tc.flag}, named, "the hint names one flag: %s", out)
			for _, cmd := range []string{"lint", "sql", "query", "fmt", "explain"} {
				code, _, errOut := runCLI(tc.src, cmd, tc.flag, tc.raise, "-")
				assert.Equal(t, 0, code, "%s %s %s: %s", cmd, tc.flag, tc.raise, firstLine(errOut))
			}
		})
	}
	code, _, errOut := runCLI("", "lint", "--max-nodes", "0", "is hidden")
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, "--max-nodes must be 1 or more")
}

func firstLine(s string) string {
	l, _, _ := strings.Cut(s, "\n")
	return l
}
