package lsp_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.lsp.dev/protocol"
)

// TestSugarHidesNothing: an in-list over an API name (`fileId in (1, 2)`,
// the first query an API user writes), or `==`, is an error with a quick
// fix that writes platform CroQL, and the errors elsewhere in the query
// are shown with it, at their places in the text, with their own fixes; a
// null test next to an in-list gets its fix too. Applying every quick fix
// leaves a query that checks clean.
func TestSugarHidesNothing(t *testing.T) {
	s := start(t)
	s.initialize("", map[string]any{"context": "strings"})
	pub := s.open(doc, "is hidden")
	require.Empty(t, pub.Diagnostics)
	for i, c := range []struct {
		src   string
		rules []string
		fixes []string // the first quick fix of each diagnostic, in order
		fixed string
	}{
		{"fileId in (1, 2) and is hiden and createdAt > '2024-01-01'",
			[]string{"in-list", "unknown-field", "unknown-field"},
			[]string{"(id of file = 1 or id of file = 2)", "is hidden", "added"},
			"(id of file = 1 or id of file = 2) and is hidden and added > '2024-01-01'"},
		{"fileId in (1, 2) and is hiden and updatedAt is absent",
			[]string{"in-list", "unknown-field", "null-test"},
			[]string{"(id of file = 1 or id of file = 2)", "is hidden", "not (updated >= '1970-01-01' or updated < '1970-01-01')"},
			"(id of file = 1 or id of file = 2) and is hidden and not (updated >= '1970-01-01' or updated < '1970-01-01')"},
		{`text == "Save" && is hiden`,
			[]string{"double-equals", "double-ampersand", "unknown-field"},
			[]string{"=", "and", "is hidden"},
			`text = "Save" and is hidden`},
	} {
		pub := s.change(doc, int32(i+2), c.src)
		var rules []string
		for _, d := range pub.Diagnostics {
			rules = append(rules, d.Code.(string))
		}
		require.Equal(t, c.rules, rules, "%s: %+v", c.src, pub.Diagnostics)
		hiden := pub.Diagnostics[slicesIndex(rules, "unknown-field")]
		if at := strings.Index(c.src, "is hiden"); at >= 0 && strings.Contains(hiden.Message, "is hiden") {
			assert.Equal(t, protocol.Range{Start: pos(0, uint32(at)), End: pos(0, uint32(at+8))}, hiden.Range, c.src)
		}
		fixed := c.src
		for j := len(pub.Diagnostics) - 1; j >= 0; j-- {
			d := pub.Diagnostics[j]
			actions, err := s.server.CodeAction(s.ctx, &protocol.CodeActionParams{
				TextDocument: protocol.TextDocumentIdentifier{URI: doc}, Range: d.Range,
				Context: protocol.CodeActionContext{Diagnostics: []protocol.Diagnostic{d}}})
			require.NoError(t, err)
			var edit *protocol.TextEdit
			for _, a := range actions {
				if len(a.Diagnostics) == 1 && a.Diagnostics[0].Message == d.Message && a.Edit != nil {
					e := a.Edit.Changes[doc][0]
					edit = &e
					break
				}
			}
			require.NotNil(t, edit, "%s: a quick fix for %s", c.src, d.Message)
			assert.Equal(t, c.fixes[j], edit.NewText, d.Message)
			// One line, ASCII: columns are byte offsets. From the end, so the
			// earlier ranges stay put.
			fixed = fixed[:edit.Range.Start.Character] + edit.NewText + fixed[edit.Range.End.Character:]
		}
		assert.Equal(t, c.fixed, fixed)
		pub = s.change(doc, int32(i+100), fixed)
		assert.Empty(t, pub.Diagnostics, "%s: the fixed query checks clean", fixed)
	}
	s.stop()
}

func slicesIndex(xs []string, x string) int {
	for i, y := range xs {
		if y == x {
			return i
		}
	}
	return -1
}
