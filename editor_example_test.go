package croql_test

import (
	"fmt"
	"strings"

	"github.com/croql/croql"
)

// Completion inside a filter offers the element's fields first.
func ExampleEnv_Complete() {
	env, _ := croql.NewEnv(croql.Strings)
	src := `count of translations where (is ) > 0`
	items := env.Complete(src, strings.Index(src, ")"))
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
func ExampleEnv_Complete_mention() {
	env, _ := croql.NewEnv(croql.Translations, croql.WithUserIDs(map[string]int64{"alice": 1, "albert": 2, "bob": 3}))
	src := `user = @user:"al`
	for _, it := range env.Complete(src, len(src)) {
		fmt.Printf("%s: replace %q with %q\n", it.Label, src[it.Range.Start:it.Range.End], it.InsertText)
	}
	// Output:
	// albert: replace "al" with "albert\""
	// alice: replace "al" with "alice\""
}

func ExampleEnv_Hover() {
	env, _ := croql.NewEnv(croql.Strings)
	h := env.Hover(`max length > 80 and`, 2)
	fmt.Println(h.Name, h.Type, h.Edition)
	fmt.Println(h.Markdown())
	// Output:
	// max length int standard
	// **max length**: `int` (may be absent) — field of source string
	//
	// Maximum length of a translation; absent when there is no limit.
}

func ExampleEnv_SemanticTokens() {
	env, _ := croql.NewEnv(croql.Strings)
	src := `count of labels > 2`
	for _, t := range env.SemanticTokens(src) {
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
	d, body := croql.ParseDirective("# croql: context=translations\nis pre translated")
	env, _ := croql.NewEnv(d.Context)
	_, diags := env.Check(body)
	fmt.Println(d.Context, len(diags))
	// Output: translations 0
}

// One Document per text version: diagnostics, completion and hover share
// one parse. The text does not parse yet (its syntax errors are reported),
// and completion still knows the cursor is after `provider = "` inside a
// translation.
func ExampleEnv_Open() {
	env, _ := croql.NewEnv(croql.Strings)
	doc := env.Open(`is hiden and count of translations where (provider = "`)
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
