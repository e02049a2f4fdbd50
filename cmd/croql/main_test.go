package main

import (
	"bytes"
	"io"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
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
	assert.Contains(t, errOut, "usage: croql <command>")

	code, out, _ = runCLI("", "help")
	assert.Equal(t, 0, code)
	for _, c := range commands() {
		assert.Contains(t, out, "  "+c.name+" ")
	}

	code, out, _ = runCLI("", "help", "fmt")
	assert.Equal(t, 0, code)
	assert.Contains(t, out, "usage: croql fmt")

	code, _, errOut = runCLI("", "help", "nope")
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, `unknown command "nope"`)
}

func TestUnknownCommand(t *testing.T) {
	code, out, errOut := runCLI("", "frobnicate", "x")
	assert.Equal(t, 2, code)
	assert.Empty(t, out)
	assert.Contains(t, errOut, `unknown command "frobnicate"`)
}

func TestCommandNamesUnique(t *testing.T) {
	seen := map[string]bool{}
	for _, c := range commands() {
		assert.False(t, seen[c.name], c.name)
		seen[c.name] = true
		assert.NotNil(t, c.run)
		assert.NotEmpty(t, c.summary)
	}
}

func TestReadQuery(t *testing.T) {
	q, err := readQuery([]string{"is", "hidden"}, nil)
	assert.NoError(t, err)
	assert.Equal(t, "is hidden", q)
	q, err = readQuery([]string{"-"}, strings.NewReader("is hidden\n"))
	assert.NoError(t, err)
	assert.Equal(t, "is hidden", q)
	q, err = readQuery(nil, strings.NewReader("a\nand b\r\n"))
	assert.NoError(t, err)
	assert.Equal(t, "a\nand b", q)
	_, err = readQuery(nil, nil)
	assert.Error(t, err)
}
