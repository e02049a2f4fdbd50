package main

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// runCLI runs croql with args and stdin and returns the exit status,
// stdout and stderr.
func runCLI(stdin string, args ...string) (int, string, string) {
	var out, errOut bytes.Buffer
	var in io.Reader = strings.NewReader(stdin)
	code := run(args, in, &out, &errOut)
	return code, out.String(), errOut.String()
}

func TestUsage(t *testing.T) {
	code, out, errOut := runCLI("")
	assert.Equal(t, 2, code)
	assert.Empty(t, out)
	assert.Contains(t, errOut, "croql [command]")

	code, out, _ = runCLI("", "help")
	assert.Equal(t, 0, code)
	c := &cli{}
	for _, newCmd := range commands() {
		assert.Contains(t, out, "  "+newCmd(c).Name()+" ")
	}
	assert.Contains(t, out, "  completion ")

	for _, args := range [][]string{{"help", "fmt"}, {"fmt", "--help"}, {"fmt", "-h"}, {"fmt", "-help"}} {
		code, out, _ = runCLI("", args...)
		assert.Equal(t, 0, code, "%v", args)
		assert.Contains(t, out, "croql fmt [--context C] [QUERY|-]", "%v", args)
		assert.Contains(t, out, "--help", "%v", args)
	}

	code, _, errOut = runCLI("", "help", "nope")
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, `unknown command "nope"`)
}

// TestHelpHelp: `croql help help` shows the help of help.
func TestHelpHelp(t *testing.T) {
	code, out, errOut := runCLI("", "help", "help")
	assert.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "croql help [command]")
}

// TestUnknownCommandSuggests: a misspelt command is a usage error with a
// did-you-mean, for the command and for help.
func TestUnknownCommandSuggests(t *testing.T) {
	code, out, errOut := runCLI("", "frobnicate", "x")
	assert.Equal(t, 2, code)
	assert.Empty(t, out)
	assert.Contains(t, errOut, `unknown command "frobnicate"`)

	code, out, errOut = runCLI("", "lnt", "is hidden")
	assert.Equal(t, 2, code)
	assert.Empty(t, out)
	assert.Contains(t, errOut, "Did you mean this?\n\tlint\n")

	code, _, errOut = runCLI("", "help", "qeury")
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, `unknown command "qeury"; did you mean query?`)
}

func TestCommandNamesUnique(t *testing.T) {
	seen := map[string]bool{"help": true, "completion": true}
	c := &cli{}
	for _, newCmd := range commands() {
		cmd := newCmd(c)
		assert.False(t, seen[cmd.Name()], cmd.Name())
		seen[cmd.Name()] = true
		assert.NotNil(t, cmd.RunE, cmd.Name())
		assert.NotEmpty(t, cmd.Short, cmd.Name())
	}
}

// TestFlagsAfterQuery: flags may follow the query (interspersed); they do
// not become part of it.
func TestFlagsAfterQuery(t *testing.T) {
	// usageCount is a field of TM records, not of source strings.
	q := "count of records where (usageCount > 0) > 0"
	code, out, _ := runCLI("", "lint", q)
	assert.Equal(t, 1, code, out)
	code, out, _ = runCLI("", "lint", q, "--context", "tm")
	assert.Equal(t, 0, code, out)
	code, out, _ = runCLI("", "lint", "count", "of", "records", "--context=tm", "where", "(usageCount > 0) > 0")
	assert.Equal(t, 0, code, out)

	code, out, errOut := runCLI("", "query", "is duplicate", "--data", smallFixture, "--ids")
	require.Equal(t, 0, code, errOut)
	assert.Equal(t, "7 8 10", idLines(out))

	// Go-style one-dash long flags still work.
	code, out, _ = runCLI("", "lint", "-context", "tm", q)
	assert.Equal(t, 0, code, out)
	code, out, _ = runCLI("", "lint", "-context=tm", q)
	assert.Equal(t, 0, code, out)
}

// TestQueryStartingWithDash: a query that starts with "-" goes after
// "--", and the error says so.
func TestQueryStartingWithDash(t *testing.T) {
	code, out, errOut := runCLI("", "fmt", "-max length < 0")
	assert.Equal(t, 2, code)
	assert.Empty(t, out)
	assert.Contains(t, errOut, "A query that starts with '-' goes after '--': croql fmt -- '-max length < 0'")

	code, out, errOut = runCLI("", "lint", "--context", "strings", "-count of translations > 0")
	assert.Equal(t, 2, code)
	assert.Empty(t, out)
	assert.Contains(t, errOut, "croql lint -- '-count of translations > 0'")

	code, out, errOut = runCLI("", "fmt", "--", "-max length < 0")
	assert.Equal(t, 0, code, errOut)
	assert.Equal(t, "-max length < 0\n", out)
	code, out, errOut = runCLI("", "lint", "--context", "strings", "--", "-max length < 0")
	assert.Equal(t, 0, code, errOut)
	assert.Empty(t, out)
}

func TestVersion(t *testing.T) {
	code, out, errOut := runCLI("", "version")
	require.Equal(t, 0, code, errOut)
	assert.True(t, strings.HasPrefix(out, "croql "), out)
	assert.Contains(t, out, " linux/")

	code, out, _ = runCLI("", "--version")
	assert.Equal(t, 0, code)
	assert.True(t, strings.HasPrefix(out, "croql "), out)

	code, _, _ = runCLI("", "version", "extra")
	assert.Equal(t, 2, code)

	bi := &debug.BuildInfo{GoVersion: "go1.26.0", Main: debug.Module{Path: "github.com/croql/croql", Version: "v0.3.1"},
		Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "0123456789abcdef0123"}, {Key: "vcs.modified", Value: "true"}}}
	assert.Regexp(t, `^croql v0\.3\.1 \(commit 0123456789ab, modified; go1\.26\.0 \w+/\w+\)$`, versionLine(bi, true))
	bi = &debug.BuildInfo{GoVersion: "go1.26.0", Main: debug.Module{Path: "github.com/croql/croql", Version: "(devel)"}}
	assert.Regexp(t, `^croql \(devel\) \(go1\.26\.0 \w+/\w+\)$`, versionLine(bi, true))
	assert.Regexp(t, `^croql \(unknown\) \(go`, versionLine(nil, false))
}

// TestCompletion: the completion scripts, and what the shell asks croql
// to complete.
func TestCompletion(t *testing.T) {
	code, out, errOut := runCLI("", "completion", "bash")
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "# bash completion V2 for croql")
	if bash, err := exec.LookPath("bash"); err == nil {
		script := filepath.Join(t.TempDir(), "croql.bash")
		require.NoError(t, os.WriteFile(script, []byte(out), 0o600))
		msg, err := exec.Command(bash, "-n", script).CombinedOutput()
		assert.NoError(t, err, "bash -n: %s", msg)
	} else {
		t.Log("bash not found: the script's syntax is not checked")
	}
	for _, shell := range []string{"zsh", "fish"} {
		code, out, errOut := runCLI("", "completion", shell)
		require.Equal(t, 0, code, errOut)
		assert.Contains(t, out, "croql", shell)
	}

	code, out, _ = runCLI("", "__complete", "l")
	assert.Equal(t, 0, code)
	assert.Contains(t, out, "lint\t")
	code, out, _ = runCLI("", "__complete", "lint", "--context", "")
	assert.Equal(t, 0, code)
	for _, c := range contextNames {
		assert.Contains(t, out, c+"\n")
	}
	code, out, _ = runCLI("", "__complete", "sql", "--dialect", "my")
	assert.Equal(t, 0, code)
	assert.Contains(t, out, "mysql\n")
	code, out, _ = runCLI("", "__complete", "help", "ex")
	assert.Equal(t, 0, code)
	assert.Contains(t, out, "explain\t")
}

func TestReadQuery(t *testing.T) {
	c := &cli{}
	q, name, err := c.readQuery([]string{"is", "hidden"})
	assert.NoError(t, err)
	assert.Equal(t, "is hidden", q)
	assert.Equal(t, "<arg>", name)
	c.stdin = strings.NewReader("is hidden\n")
	q, name, err = c.readQuery([]string{"-"})
	assert.NoError(t, err)
	assert.Equal(t, "is hidden", q)
	assert.Equal(t, "<stdin>", name)
	c.stdin = strings.NewReader("a\nand b\r\n")
	q, _, err = c.readQuery(nil)
	assert.NoError(t, err)
	assert.Equal(t, "a\nand b", q)
	c.stdin = nil
	_, _, err = c.readQuery(nil)
	assert.Error(t, err)
}

func TestShellQuote(t *testing.T) {
	for in, want := range map[string]string{
		"--nope":         "--nope",
		"-max length":    "'-max length'",
		"-x'y":           `'-x'\''y'`,
		"":               "''",
		"--context=tm":   "--context=tm",
		"-text = \"a\"":  `'-text = "a"'`,
		"-count of x>0 ": "'-count of x>0 '",
	} {
		assert.Equal(t, want, shellQuote(in), in)
	}
}
