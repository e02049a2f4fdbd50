package corpus

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/croql/croql/diag"
)

func TestParseBlocks(t *testing.T) {
	text := `# a comment
case: one
query: count of translations > 0
tree: (> (of count translations) 0)
diag: syntax/double-equals 2-4
diag: logic/unknown-field 0-1
x-sql-sqlite: SELECT 1

  # indented comment
case: two
context: tm
query<<EOF
count of records
  where (usageCount > 0) > 0
EOF
edition: enterprise
`
	cases, err := Parse("f.txt", text)
	require.NoError(t, err)
	require.Len(t, cases, 2)

	one := cases[0]
	assert.Equal(t, "one", one.Name)
	assert.Equal(t, "f.txt:2", one.Where())
	assert.Equal(t, "count of translations > 0", one.Query())
	assert.Equal(t, "strings", one.Context())
	assert.Equal(t, "standard", one.Edition())
	assert.Equal(t, []string{"syntax/double-equals 2-4", "logic/unknown-field 0-1"}, one.All("diag"))
	assert.Equal(t, "SELECT 1", one.Get("x-sql-sqlite"), "unknown keys are kept")
	assert.Equal(t, []string{"case", "query", "tree", "diag", "x-sql-sqlite"}, one.Keys)
	ds, err := one.Diags()
	require.NoError(t, err)
	assert.Equal(t, []Diag{
		{Code: diag.ClassSyntax, Rule: "double-equals", Span: diag.Span{Start: 2, End: 4}},
		{Code: diag.ClassLogic, Rule: "unknown-field", Span: diag.Span{Start: 0, End: 1}},
	}, ds)

	two := cases[1]
	assert.Equal(t, "count of records\n  where (usageCount > 0) > 0", two.Query())
	assert.Equal(t, "tm", two.Context())
	assert.Equal(t, "enterprise", two.Edition())
	assert.Equal(t, 10, two.Line)
	assert.False(t, two.Has("diag"))
}

func TestParseEmptyValueAndHeredocKeepsBlankLines(t *testing.T) {
	cases, err := Parse("f.txt", "case: empty\nquery:\n\ncase: blank\nquery<<END\na\n\n# not a comment\nEND\n")
	require.NoError(t, err)
	require.Len(t, cases, 2)
	assert.True(t, cases[0].Has("query"))
	assert.Equal(t, "", cases[0].Query())
	assert.Equal(t, "a\n\n# not a comment", cases[1].Query())
}

func TestParseErrors(t *testing.T) {
	for name, text := range map[string]string{
		"no case first":    "query: a\n",
		"empty case name":  "case:\n",
		"two cases":        "case: a\ncase: b\n",
		"no colon":         "case: a\njust text\n",
		"bad key":          "case: a\nbad key: x\n",
		"unclosed heredoc": "case: a\nquery<<EOF\nx\n",
		"bad heredoc":      "case: a\nquery<<\n",
	} {
		t.Run(name, func(t *testing.T) {
			_, err := Parse("f.txt", text)
			assert.Error(t, err)
		})
	}
}

func TestParseDiag(t *testing.T) {
	d, err := ParseDiag("croqlInvalidSyntax/missing-paren 0-1")
	require.NoError(t, err)
	assert.Equal(t, Diag{Code: diag.ClassSyntax, Rule: "missing-paren", Span: diag.Span{Start: 0, End: 1}}, d)
	assert.Equal(t, "syntax/missing-paren 0-1", d.String())
	for _, bad := range []string{"syntax", "syntax/x", "syntax/x 3", "syntax/x 4-3", "/x 1-2", "syntax/x a-b"} {
		_, err := ParseDiag(bad)
		assert.Error(t, err, bad)
	}
}

func TestLoadRejectsDuplicateNames(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "a.txt"), []byte("case: x\nquery: a\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "b.txt"), []byte("case: x\nquery: b\n"), 0o644))
	_, err := Load(dir)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "already defined at a.txt:1")

	_, err = Load(t.TempDir())
	assert.Error(t, err, "an empty directory is an error")
}

func TestLoadRepositoryCorpus(t *testing.T) {
	cases, err := Load("../../testdata/corpus")
	require.NoError(t, err)
	assert.NotEmpty(t, cases)
	for _, c := range cases {
		assert.True(t, c.Has("query"), "%s: case %s has no query", c.Where(), c.Name)
		_, err := c.Diags()
		assert.NoError(t, err)
	}
}
