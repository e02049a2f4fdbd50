package lsp_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.lsp.dev/protocol"
)

// TestSugarHidesNothing: an in-list over an API name (`fileId in (1, 2)`,
// the first query an API user writes) is an error with a quick fix that
// writes platform CroQL, and the errors elsewhere in the query are shown
// with it, at their places in the text, with their own fixes.
func TestSugarHidesNothing(t *testing.T) {
	s := start(t)
	s.initialize("", map[string]any{"context": "strings"})
	src := "fileId in (1, 2) and is hiden and createdAt > '2024-01-01'"
	pub := s.open(doc, src)
	var rules []string
	for _, d := range pub.Diagnostics {
		rules = append(rules, d.Code.(string))
	}
	require.Equal(t, []string{"in-list", "unknown-field", "unknown-field"}, rules, "%+v", pub.Diagnostics)

	hiden := pub.Diagnostics[1]
	at := uint32(strings.Index(src, "is hiden"))
	assert.Equal(t, protocol.Range{Start: pos(0, at), End: pos(0, at+8)}, hiden.Range)
	assert.Contains(t, hiden.Message, "did you mean `is hidden`?")

	want := []string{"(id of file = 1 or id of file = 2)", "is hidden", "added"}
	fixed := src
	for i := len(pub.Diagnostics) - 1; i >= 0; i-- {
		d := pub.Diagnostics[i]
		actions, err := s.server.CodeAction(s.ctx, &protocol.CodeActionParams{
			TextDocument: protocol.TextDocumentIdentifier{URI: doc}, Range: d.Range,
			Context: protocol.CodeActionContext{Diagnostics: []protocol.Diagnostic{d}}})
		require.NoError(t, err)
		require.NotEmpty(t, actions, d.Message)
		edit := actions[0].Edit.Changes[doc][0]
		assert.Equal(t, want[i], edit.NewText, d.Message)
		// One line, ASCII: columns are byte offsets. From the end, so the
		// earlier ranges stay put.
		fixed = fixed[:edit.Range.Start.Character] + edit.NewText + fixed[edit.Range.End.Character:]
	}
	assert.Equal(t, "(id of file = 1 or id of file = 2) and is hidden and added > '2024-01-01'", fixed)
	pub = s.change(doc, 2, fixed)
	assert.Empty(t, pub.Diagnostics, "the fixed query checks clean")
	s.stop()
}
