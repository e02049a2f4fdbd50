package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/croql/croql/schema"
)

func TestDemoDefaultIsTheCommittedProject(t *testing.T) {
	var out, errOut bytes.Buffer
	require.Equal(t, 0, run([]string{"demo", "--strings", "60", "--seed", "1"}, nil, &out, &errOut), errOut.String())
	want, err := os.ReadFile(filepath.Join("..", "..", "testdata", "demo", "project.json"))
	require.NoError(t, err)
	assert.True(t, bytes.Equal(want, out.Bytes()), "croql demo output differs from testdata/demo/project.json")

	var noFlags bytes.Buffer
	require.Equal(t, 0, run([]string{"demo"}, nil, &noFlags, &errOut))
	assert.True(t, bytes.Equal(out.Bytes(), noFlags.Bytes()), "no flags means the built-in demo")
}

func TestDemoNDJSON(t *testing.T) {
	var out, errOut bytes.Buffer
	require.Equal(t, 0, run([]string{"demo", "--strings=25", "--seed=9", "--format=ndjson"}, nil, &out, &errOut), errOut.String())
	assert.True(t, strings.HasPrefix(out.String(), `{"kind":"project"`))
	p, err := schema.ReadProject(&out)
	require.NoError(t, err)
	assert.Len(t, p.Strings, 25)
}

func TestDemoBadArgs(t *testing.T) {
	for _, args := range [][]string{{"--format", "xml"}, {"--strings", "-1"}, {"--strings", "x"}, {"extra"}, {"--nope"}} {
		var out, errOut bytes.Buffer
		assert.Equal(t, 2, run(append([]string{"demo"}, args...), nil, &out, &errOut), "%v", args)
		assert.Empty(t, out.String())
		assert.NotEmpty(t, errOut.String())
	}
	var out, errOut bytes.Buffer
	assert.Equal(t, 0, run([]string{"demo", "-h"}, nil, &out, &errOut))
	assert.Contains(t, out.String(), "croql demo [--strings N]")
}
