package lsp_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/croql/croql"
	"github.com/croql/croql/demo"
	"github.com/croql/croql/internal/whytest"
	"github.com/croql/croql/lsp"
)

// TestExecuteCommandWhy: croql.why explains the document's query on an
// object of the project file, given as an argument or by the settings,
// in the document's context (its directive), as Query.Why does; the
// reference interpreter agrees with every clause.
func TestExecuteCommandWhy(t *testing.T) {
	root := t.TempDir()
	p := demo.Default()
	var buf bytes.Buffer
	require.NoError(t, p.WriteJSON(&buf))
	require.NoError(t, os.WriteFile(filepath.Join(root, "project.json"), buf.Bytes(), 0o644))

	s := start(t)
	res := s.initialize(root, nil)
	require.NotNil(t, res.Capabilities.ExecuteCommandProvider)
	assert.Equal(t, []string{lsp.CommandWhy}, res.Capabilities.ExecuteCommandProvider.Commands)

	src := `count of votes where (is up) > 0 and provider = "deepl"`
	doc := protocol.DocumentURI(uri.File(filepath.Join(root, "q.croql")))
	s.open(doc, "# croql: context=translations\n"+src)

	env, err := croql.NewEnv(croql.Translations, croql.WithUserIDs(p.UserIDs()), croql.WithLanguages(p.LanguageCodes()...))
	require.NoError(t, err)
	q, diags := env.Compile(src)
	require.False(t, diags.HasErrors())
	objs := p.Objects(env.Context())
	for i, o := range objs[:5] {
		want, err := q.Why(o)
		require.NoError(t, err)
		got, err := s.server.ExecuteCommand(s.ctx, &protocol.ExecuteCommandParams{Command: lsp.CommandWhy,
			Arguments: []any{map[string]any{"uri": doc, "id": want.ID, "data": "project.json"}}})
		require.NoError(t, err, "object %d", i)
		raw, err := json.Marshal(got)
		require.NoError(t, err)
		var r lsp.WhyResult
		require.NoError(t, json.Unmarshal(raw, &r))
		assert.Equal(t, want.String(), r.Text)
		assert.Equal(t, want.Match, r.Explanation.Match)
		assert.Equal(t, want.ID, r.Explanation.ID)
		// The directive's line is blanked, not removed: the spans are the
		// document's, so the text differs from src by the directive only.
		assert.NoError(t, whytest.Check(env, p.UserLogins(), o, &croql.Explanation{
			Query: src, ID: r.Explanation.ID, Match: r.Explanation.Match, Clause: r.Explanation.Clause}))
	}
}

// TestExecuteCommandWhyErrors: without a project file, with an id the
// project lacks, on a query with an error and for an unknown command the
// server answers an error that says what is missing.
func TestExecuteCommandWhyErrors(t *testing.T) {
	root := t.TempDir()
	var buf bytes.Buffer
	require.NoError(t, demo.Default().WriteJSON(&buf))
	require.NoError(t, os.WriteFile(filepath.Join(root, "p.json"), buf.Bytes(), 0o644))
	s := start(t)
	s.initialize(root, nil)
	doc := protocol.DocumentURI(uri.File(filepath.Join(root, "q.croql")))
	s.open(doc, "is hidden")
	bad := protocol.DocumentURI(uri.File(filepath.Join(root, "bad.croql")))
	s.open(bad, "is hiden")
	call := func(command string, args ...any) error {
		_, err := s.server.ExecuteCommand(s.ctx, &protocol.ExecuteCommandParams{Command: command, Arguments: args})
		return err
	}
	assert.ErrorContains(t, call(lsp.CommandWhy, map[string]any{"uri": doc, "id": 1}), "needs a project file")
	assert.ErrorContains(t, call(lsp.CommandWhy, map[string]any{"uri": doc, "id": 999999, "data": "p.json"}), "no object with id 999999")
	assert.ErrorContains(t, call(lsp.CommandWhy, map[string]any{"uri": bad, "id": 1, "data": "p.json"}), "the query has errors")
	assert.ErrorContains(t, call(lsp.CommandWhy, map[string]any{"uri": doc, "id": 1, "data": "missing.json"}), "missing.json")
	assert.ErrorContains(t, call("croql.nothing"), "unknown command")
	assert.ErrorContains(t, call(lsp.CommandWhy), "one argument")
}

// TestExecuteCommandWhySettingsProject: the project of the settings is
// the default data.
func TestExecuteCommandWhySettingsProject(t *testing.T) {
	root := t.TempDir()
	var buf bytes.Buffer
	require.NoError(t, demo.Default().WriteJSON(&buf))
	require.NoError(t, os.WriteFile(filepath.Join(root, "p.json"), buf.Bytes(), 0o644))
	s := start(t)
	s.initialize(root, map[string]any{"project": "p.json"})
	doc := protocol.DocumentURI(uri.File(filepath.Join(root, "q.croql")))
	s.open(doc, "count of translations > 3")
	got, err := s.server.ExecuteCommand(s.ctx, &protocol.ExecuteCommandParams{Command: lsp.CommandWhy,
		Arguments: []any{map[string]any{"uri": doc, "id": 3}}})
	require.NoError(t, err)
	raw, err := json.Marshal(got)
	require.NoError(t, err)
	var r lsp.WhyResult
	require.NoError(t, json.Unmarshal(raw, &r))
	assert.Equal(t, "3: match\n`count of translations` = 7; `> 3` is true\n", r.Text)
}
