package editor_test

import (
	"fmt"
	"strings"

	"github.com/croql/croql"
	"github.com/croql/croql/editor"
)

// Completion inside a filter offers the element's fields first.
func ExampleDocument_Complete() {
	env, _ := croql.NewEnv(croql.Strings)
	src := `count of translations where (is ) > 0`
	items := editor.Open(env, src).Complete(strings.Index(src, ")"))
	for _, it := range items[:4] {
		fmt.Printf("%s (%s)\n", it.Label, it.Detail)
	}
	// Output:
	// is pre translated (bool)
	// is visible (bool)
	// is hidden (bool)
	// is duplicate (bool)
}

// Completion inside the quotes of a mention offers the directory's values.
func ExampleDocument_Complete_mention() {
	env, _ := croql.NewEnv(croql.Translations, croql.WithUserIDs(map[string]int64{"alice": 1, "albert": 2, "bob": 3}))
	src := `user = @user:"al`
	for _, it := range editor.Open(env, src).Complete(len(src)) {
		fmt.Printf("%s: replace %q with %q\n", it.Label, src[it.Range.Start:it.Range.End], it.InsertText)
	}
	// Output:
	// albert: replace "al" with "albert\""
	// alice: replace "al" with "alice\""
}

func ExampleDocument_Hover() {
	env, _ := croql.NewEnv(croql.Strings)
	h := editor.Open(env, `max length > 80 and`).Hover(2)
	fmt.Println(h.Name, h.Type, h.Edition)
	fmt.Println(h.Markdown())
	// Output:
	// max length int standard
	// **max length**: `int` (may be absent) — field of source string
	//
	// Maximum length of a translation; absent when there is no limit.
}

func ExampleDocument_SemanticTokens() {
	env, _ := croql.NewEnv(croql.Strings)
	src := `count of labels > 2`
	for _, t := range editor.Open(env, src).SemanticTokens() {
		fmt.Printf("%-8s %s\n", t.Kind, src[t.Span.Start:t.Span.End])
	}
	// Output:
	// keyword  count
	// keyword  of
	// field    labels
	// operator >
	// literal  2
}

func ExampleParseDirective() {
	d, body := editor.ParseDirective("# croql: context=translations\nis pre translated")
	env, _ := croql.NewEnv(d.Context)
	_, diags := env.Check(body)
	fmt.Println(d.Context, len(diags))
	// Output: translations 0
}

// One Document per text version: diagnostics, completion and hover share
// one parse. The text does not parse yet (its syntax errors are reported),
// and completion still knows the cursor is after `provider = "` inside a
// translation.
func ExampleOpen() {
	env, _ := croql.NewEnv(croql.Strings)
	doc := editor.Open(env, `is hiden and count of translations where (provider = "`)
	for _, d := range doc.Lint() {
		fmt.Printf("%d:%d %s\n", d.Start.Line, d.Start.Column, d.Rule)
	}
	items := doc.Complete(len(`is hiden and count of translations where (provider = "`))
	fmt.Println(items[0].Label, items[1].Label, items[2].Label)
	// Output:
	// 1:42 missing-paren
	// 1:54 unterminated-string
	// tm global_tm google
}

// A file whose first line is an editor directive is checked in the
// directive's context; the directive itself is a comment token.
func Example_directive() {
	text := "# croql: context=translations\nis pre translated and provider = \"deepl\""
	dir, _ := editor.ParseDirective(text)
	env, _ := croql.NewEnv(dir.Context)
	doc := editor.Open(env, text)
	fmt.Println(len(doc.Diagnostics()), doc.SemanticTokens()[0].Kind)
	// Output: 0 comment
}
