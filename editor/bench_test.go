package editor_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/croql/croql"
	"github.com/croql/croql/diag"
	"github.com/croql/croql/editor"
)

// editorQuery is a 200-byte query as a person types it, the cursor inside
// the innermost filter.
const editorQuery = `is hidden = false and (text contains "Save" or max length between 10 and 80) and ` +
	`count of translations where (is pre translated and provider = "deepl" and count of votes where (is up) > 2 and is ) > 0`

// BenchmarkEditorKeystroke is what an editor pays per keystroke on a
// 200-character query: one Document (one tolerant parse), its lint (every
// diagnostic with lines and UTF-16 columns) and the completion at the
// cursor.
//
//	go test -run '^$' -bench 'BenchmarkEditor' -benchmem ./editor
func BenchmarkEditorKeystroke(b *testing.B) {
	env, err := croql.NewEnv(croql.Strings)
	require.NoError(b, err)
	src := editorQuery
	require.Len(b, src, 200)
	off := strings.LastIndex(src, "is ") + 3
	require.NotEmpty(b, editor.Open(env, src).Complete(off))
	b.ReportAllocs()
	for b.Loop() {
		doc := editor.Open(env, src)
		located := doc.Lint()
		items := doc.Complete(off)
		if len(located) == 0 || len(items) == 0 {
			b.Fatal("no diagnostics or no items")
		}
	}
}

// BenchmarkEditorSeparateCalls is the same keystroke through separate
// calls: Env.Check's lint and a Document's completion parse the text once
// each.
func BenchmarkEditorSeparateCalls(b *testing.B) {
	env, err := croql.NewEnv(croql.Strings)
	require.NoError(b, err)
	off := strings.LastIndex(editorQuery, "is ") + 3
	b.ReportAllocs()
	for b.Loop() {
		_, diags := env.Check(editorQuery)
		located := diag.NewSource(editorQuery).Locate(diags)
		if len(located) == 0 || len(editor.Open(env, editorQuery).Complete(off)) == 0 {
			b.Fatal("no diagnostics or no items")
		}
	}
}

// BenchmarkEditorComplete is the completion alone.
func BenchmarkEditorComplete(b *testing.B) {
	env, err := croql.NewEnv(croql.Strings)
	require.NoError(b, err)
	off := strings.LastIndex(editorQuery, "is ") + 3
	b.ReportAllocs()
	for b.Loop() {
		if len(editor.Open(env, editorQuery).Complete(off)) == 0 {
			b.Fatal("no items")
		}
	}
}

// BenchmarkEditorHoverTokens is a hover plus the semantic tokens of the
// whole text, each from a Document of its own (two parses).
func BenchmarkEditorHoverTokens(b *testing.B) {
	env, err := croql.NewEnv(croql.Strings)
	require.NoError(b, err)
	off := strings.Index(editorQuery, "max length") + 2
	b.ReportAllocs()
	for b.Loop() {
		if editor.Open(env, editorQuery).Hover(off) == nil || len(editor.Open(env, editorQuery).SemanticTokens()) == 0 {
			b.Fatal("no hover or tokens")
		}
	}
}
