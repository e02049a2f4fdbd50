package editor_test

import (
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/croql/croql"
	"github.com/croql/croql/editor"
	"github.com/croql/croql/internal/corpus"
)

func labels(items []editor.CompletionItem) []string {
	out := make([]string, len(items))
	for i, it := range items {
		out[i] = it.Label
	}
	return out
}

func indexOf(items []editor.CompletionItem, label string) int {
	for i, it := range items {
		if it.Label == label {
			return i
		}
	}
	return -1
}

// complete is the completion at off of src opened in env.
func complete(env *croql.Env, src string, off int) []editor.CompletionItem {
	return editor.Open(env, src).Complete(off)
}

// hover is the hover at off of src opened in env.
func hover(env *croql.Env, src string, off int) *editor.HoverInfo {
	return editor.Open(env, src).Hover(off)
}

func strEnv(t *testing.T, opts ...croql.Option) *croql.Env {
	t.Helper()
	env, err := croql.NewEnv(croql.Strings, opts...)
	require.NoError(t, err)
	return env
}

// The case: inside `count of translations where (is )` the
// translation's `is pre translated` ranks before every field of the string.
func TestCompleteInnerScopeFirst(t *testing.T) {
	env := strEnv(t)
	src := `count of translations where (is ) > 0`
	off := strings.Index(src, "is ") + 3
	items := complete(env, src, off)
	pre := indexOf(items, "is pre translated")
	require.GreaterOrEqual(t, pre, 0, "%v", labels(items))
	for _, outer := range []string{"is hidden", "is visible", "is duplicate"} {
		i := indexOf(items, outer)
		require.GreaterOrEqual(t, i, 0, "%s offered: %v", outer, labels(items))
		assert.Less(t, pre, i)
		assert.Less(t, items[pre].SortText, items[i].SortText)
	}
	it := items[pre]
	assert.Equal(t, editor.CompleteField, it.Kind)
	assert.Equal(t, "bool", it.Detail)
	assert.Equal(t, "standard", it.Edition)
	assert.NotEmpty(t, it.Doc)
	assert.Equal(t, "is ", src[it.Range.Start:it.Range.End])
	assert.Equal(t, "is pre translated", it.InsertText)
	// Fields that do not start with `is` are filtered out.
	assert.Equal(t, -1, indexOf(items, "text"))
	// Applying the item gives a query that checks.
	got := src[:it.Range.Start] + it.InsertText + src[it.Range.End:]
	_, diags := env.Check(got)
	assert.Empty(t, diags, got)
}

func TestCompleteOperandStart(t *testing.T) {
	env := strEnv(t)
	items := complete(env, "", 0)
	assert.Greater(t, indexOf(items, "is hidden"), -1)
	assert.Greater(t, indexOf(items, "not"), indexOf(items, "is hidden"))
	assert.Greater(t, indexOf(items, `@user:"`), -1)
	// Enterprise-only fields are left out of the standard edition.
	assert.Equal(t, -1, indexOf(items, "isPassedWorkflow"))
	ent := strEnv(t, croql.WithEdition(croql.Enterprise))
	i := indexOf(complete(ent, "", 0), "isPassedWorkflow")
	require.Greater(t, i, -1)
	assert.Equal(t, "enterprise", complete(ent, "", 0)[i].Edition)
}

func TestCompleteAfterOperand(t *testing.T) {
	env := strEnv(t)
	// A complete bool field: the logical keywords come first.
	items := complete(env, "is hidden ", 10)
	require.NotEmpty(t, items)
	assert.Equal(t, "and", items[0].Label)
	assert.Equal(t, 10, items[0].Range.Start)
	assert.Equal(t, -1, indexOf(items, "between"))
	// `an` of `is hidden an` (one name to the scanner) completes to and.
	items = complete(env, "is hidden an", 12)
	require.NotEmpty(t, items)
	assert.Equal(t, "and", items[0].Label)
	assert.Equal(t, "an", "is hidden an"[items[0].Range.Start:items[0].Range.End])
	// An int: comparisons and between.
	items = complete(env, "max length ", 11)
	assert.Greater(t, indexOf(items, "between"), -1)
	assert.Greater(t, indexOf(items, ">"), -1)
	assert.Equal(t, -1, indexOf(items, "and"))
	// A collection: where and with.
	items = complete(env, "translations ", 13)
	assert.Equal(t, "where", items[0].Label)
	// After a parenthesis.
	items = complete(env, "(is hidden) ", 12)
	assert.Greater(t, indexOf(items, "and"), -1)
	// Inside an if: then, then else.
	assert.Greater(t, indexOf(complete(env, "if is hidden ", 13), "then"), -1)
	assert.Greater(t, indexOf(complete(env, "if is hidden then 1 ", 20), "else"), -1)
	// count: of.
	assert.Equal(t, "of", complete(env, "count ", 6)[0].Label)
}

func TestCompleteOfOffersObjects(t *testing.T) {
	env := strEnv(t)
	items := complete(env, "count of ", 9)
	assert.Greater(t, indexOf(items, "translations"), -1)
	assert.Equal(t, -1, indexOf(items, "is hidden"))
}

func TestCompleteMentions(t *testing.T) {
	env := strEnv(t, croql.WithUserIDs(map[string]int64{"alice": 1, "bob": 2, "albert": 3}), croql.WithLanguages("de", "fr", "es"))
	src := `count of translations where (user = @user:"al`
	items := complete(env, src, len(src))
	assert.Equal(t, []string{"albert", "alice"}, labels(items))
	assert.Equal(t, `bert"`, items[0].InsertText[2:])
	assert.Equal(t, "al", src[items[0].Range.Start:items[0].Range.End])
	assert.Equal(t, "user id 3", items[0].Detail)
	// A closed string: the content is replaced, no quote added.
	src = `@language:"d" = language`
	items = complete(env, src, 12)
	assert.Equal(t, []string{"de"}, labels(items))
	assert.Equal(t, "de", items[0].InsertText)
	assert.Equal(t, "d", src[items[0].Range.Start:items[0].Range.End])
	// The kinds after @.
	items = complete(env, "user = @", 8)
	assert.Equal(t, []string{`@user:"`, `@language:"`}, labels(items))
	assert.Equal(t, "@", "user = @"[items[0].Range.Start:items[0].Range.End])
	// After a comparison with a user field, the user mention first.
	src = "count of translations where (user = "
	items = complete(env, src, len(src))
	assert.Equal(t, `@user:"`, items[0].Label)
}

func TestCompleteEnumValues(t *testing.T) {
	env := strEnv(t)
	src := `count of translations where (provider = "`
	items := complete(env, src, len(src))
	assert.Contains(t, labels(items), "google")
	assert.Contains(t, labels(items), "deepl")
	src = `count of translations where (provider = "de") > 0`
	off := strings.Index(src, `"de`) + 3
	items = complete(env, src, off)
	assert.Equal(t, []string{"deepl"}, labels(items))
	got := src[:items[0].Range.Start] + items[0].InsertText + src[items[0].Range.End:]
	assert.Equal(t, `count of translations where (provider = "deepl") > 0`, got)
	_, diags := env.Check(got)
	assert.Empty(t, diags)
	// Without the quote: quoted values.
	src = `count of translations where (provider = `
	items = complete(env, src, len(src))
	assert.Equal(t, `"tm"`, items[0].Label)
}

func TestHover(t *testing.T) {
	env := strEnv(t, croql.WithUserIDs(map[string]int64{"alice": 7}))
	src := `max length > 10 and count of translations where (is pre translated and user = @user:"alice") > 0`
	h := hover(env, src, 3)
	require.NotNil(t, h)
	assert.Equal(t, "field", h.Kind)
	assert.Equal(t, "max length", h.Name)
	assert.Equal(t, "int", h.Type)
	assert.True(t, h.Nullable)
	assert.Equal(t, "standard", h.Edition)
	assert.Equal(t, "source string", h.Of)
	assert.Contains(t, h.Markdown(), "`int`")
	h = hover(env, src, strings.Index(src, "pre"))
	require.NotNil(t, h)
	assert.Equal(t, "is pre translated", h.Name)
	assert.Equal(t, "translation", h.Of)
	h = hover(env, src, strings.Index(src, "@user")+2)
	require.NotNil(t, h)
	assert.Equal(t, "mention", h.Kind)
	require.NotNil(t, h.ID)
	assert.Equal(t, int64(7), *h.ID)
	h = hover(env, src, strings.Index(src, "count"))
	require.NotNil(t, h)
	assert.Equal(t, "count of", h.Name)
	// Incomplete text: the scope is still known.
	h = hover(env, `count of translations where (plural form = `, 30)
	require.NotNil(t, h)
	assert.Equal(t, "plural form", h.Name)
	assert.Contains(t, h.Values, "few")
	assert.Nil(t, hover(env, "is hidden   ", 11))
	// A member name is resolved in its object.
	h = hover(env, `name of file = "a.json"`, 1)
	require.NotNil(t, h)
	assert.Equal(t, "name", h.Name)
	assert.Equal(t, "file", h.Of)
	assert.Equal(t, "string", h.Type)
}

func TestSemanticTokens(t *testing.T) {
	env := strEnv(t)
	src := "# croql: context=strings\ncount of translations where (text contains \"a\" and user = @user:\"x\") >= 2 and nope"
	toks := editor.Open(env, src).SemanticTokens()
	var got []string
	for _, tk := range toks {
		s := tk.Kind.String() + ":" + src[tk.Span.Start:tk.Span.End]
		if tk.Unknown {
			s += "?"
		}
		got = append(got, s)
	}
	assert.Equal(t, []string{
		"comment:# croql: context=strings",
		"keyword:count", "keyword:of", "field:translations", "keyword:where", "field:text", "keyword:contains",
		`literal:"a"`, "keyword:and", "field:user", "operator:=", `mention:@user:"x"`, "operator:>=", "literal:2",
		"keyword:and", "field:nope?",
	}, got)
}

func TestDirective(t *testing.T) {
	d, body := editor.ParseDirective("# croql: context=translations edition=enterprise\nis pre translated")
	assert.Equal(t, "translations", d.Context)
	assert.Equal(t, "enterprise", d.Edition)
	assert.Empty(t, d.Diags)
	assert.Len(t, body, len("# croql: context=translations edition=enterprise\nis pre translated"))
	env, err := croql.NewEnv(d.Context)
	require.NoError(t, err)
	_, diags := env.Check(body)
	assert.Empty(t, diags)
	d, _ = editor.ParseDirective("# croql: contxt=tm edition=gold")
	assert.Len(t, d.Diags, 2)
	d, body = editor.ParseDirective("is hidden")
	assert.Equal(t, "is hidden", body)
	assert.Zero(t, d.Span)
}

// Every offset of every corpus query gives completions and hovers whose
// ranges lie in the text and contain the cursor, without a panic.
func TestEditorCorpusOffsets(t *testing.T) {
	env := strEnv(t, croql.WithUserIDs(map[string]int64{"alice": 1}), croql.WithLanguages("de"))
	for _, src := range []string{
		`count of translations where (is pre translated and provider = "deepl") > 0`,
		`if is hidden then 1 else max length between 1 and @user:"alice"`,
		`"unterminated`, `((`, `@`, `@user:`, `name of file = "a" and `, `'2024-01-01' < added or not`,
		`languages summary with (language = @language:"de" and translation updated)`,
	} {
		for raw := 0; raw <= len(src); raw++ {
			off := runeStart(src, raw)
			for _, it := range complete(env, src, raw) {
				assert.True(t, it.Range.Start <= off && off <= it.Range.End && it.Range.End <= len(src), "%q@%d: %+v", src, off, it)
			}
			if h := hover(env, src, raw); h != nil {
				assert.True(t, h.Range.Start <= off && off <= h.Range.End, "%q@%d: %+v", src, off, h)
			}
		}
	}
}

// A Document's diagnostics are Check's, for every corpus query; every
// offset of it completes and hovers without a panic.
func TestDocumentMatchesCheck(t *testing.T) {
	cases, err := corpus.Load("../testdata/corpus")
	require.NoError(t, err)
	envs := map[string]*croql.Env{}
	for _, c := range cases {
		key := c.Context() + "/" + c.Edition()
		env := envs[key]
		if env == nil {
			var opts []croql.Option
			if c.Edition() == "enterprise" {
				opts = append(opts, croql.WithEdition(croql.Enterprise))
			}
			env, err = croql.NewEnv(c.Context(), append(opts, croql.WithUserIDs(map[string]int64{"alice": 1}), croql.WithLanguages("de", "fr"))...)
			require.NoError(t, err, c.Where())
			envs[key] = env
		}
		src := c.Query()
		doc := editor.Open(env, src)
		_, diags := env.Check(src)
		assert.Equal(t, diags, doc.Diagnostics(), "%s: %q", c.Where(), src)
		for raw := 0; raw <= len(src); raw += 3 {
			off := runeStart(src, raw)
			for _, it := range doc.Complete(raw) {
				assert.True(t, it.Range.Start <= off && off <= it.Range.End && it.Range.End <= len(src), "%s@%d: %+v", src, off, it)
			}
			doc.Hover(raw)
		}
		for _, tk := range doc.SemanticTokens() {
			assert.True(t, tk.Span.End <= len(src))
		}
	}
}

// Random texts from CroQL's vocabulary (mostly not queries): completion,
// hover and tokens at every offset stay in range and never panic.
func TestEditorRandomTexts(t *testing.T) {
	env := strEnv(t, croql.WithUserIDs(map[string]int64{"alice": 1}), croql.WithLanguages("de"))
	words := []string{"is", "hidden", "pre", "translated", "count", "of", "translations", "where", "with", "(", ")", "and", "or",
		"not", "if", "then", "else", "between", "=", "!=", ">", "1", "2.5", `"x`, `"y"`, "'today'", "@user:\"alice\"", "@",
		"@language:\"", "provider", "max length", "é", "😀", "\n", "==", "#", "votes", "user", "contains", "-", "text"}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 400 {
		var b strings.Builder
		for n := rng.IntN(12); n >= 0; n-- {
			b.WriteString(words[rng.IntN(len(words))])
			if rng.IntN(3) > 0 {
				b.WriteByte(' ')
			}
		}
		src := b.String()
		doc := editor.Open(env, src)
		doc.Diagnostics()
		for off := 0; off <= len(src); off++ {
			for _, it := range doc.Complete(off) {
				require.True(t, it.Range.Start <= it.Range.End && it.Range.End <= len(src), "%q@%d: %+v", src, off, it)
				require.True(t, utf8.ValidString(src[it.Range.Start:it.Range.End]), "%q@%d: %+v", src, off, it)
			}
			if h := doc.Hover(off); h != nil {
				require.True(t, h.Range.End <= len(src), "%q@%d: %+v", src, off, h)
			}
		}
		for _, tk := range doc.SemanticTokens() {
			require.True(t, tk.Span.Start < tk.Span.End && tk.Span.End <= len(src), "%q: %+v", src, tk)
		}
	}
}

// runeStart is the offset the editor calls use for off: the start of the
// character it falls in.
func runeStart(src string, off int) int {
	for off > 0 && off < len(src) && !utf8.RuneStart(src[off]) {
		off--
	}
	return off
}

// Right after `(` the cursor is in the filter's scope; nested filters put
// the innermost element's fields first.
func TestCompleteAfterParen(t *testing.T) {
	env := strEnv(t)
	src := `languages summary with (`
	items := complete(env, src, len(src))
	require.NotEmpty(t, items)
	assert.Equal(t, "language", items[0].Label)
	src = `count of translations where (votes where (`
	items = complete(env, src, len(src))
	require.NotEmpty(t, items)
	assert.Equal(t, []string{"is up", "is down", "user", "added"}, labels(items[:4]))
	assert.Less(t, indexOf(items, "added"), indexOf(items, "is pre translated"))
	assert.Less(t, indexOf(items, "is pre translated"), indexOf(items, "is hidden"))
	// A keyword still being typed gets nothing; a name written out is not
	// offered again.
	assert.Empty(t, complete(env, "is hidden and", 13))
	assert.Equal(t, -1, indexOf(complete(env, "is hidden ", 10), "is hidden"))
}

// FuzzEditor: completion, hover and tokens at any offset of any text do
// not panic and stay in the text.
//
//	go test ./editor -run '^$' -fuzz FuzzEditor -fuzztime 50000x
func FuzzEditor(f *testing.F) {
	for _, s := range []string{`count of translations where (is ) > 0`, `@user:"al`, `provider = "`, `if is hidden then`, "# croql: context=tm\nrecords with (", "é😀 and"} {
		f.Add(s, len(s)/2)
	}
	env, err := croql.NewEnv(croql.Strings, croql.WithUserIDs(map[string]int64{"alice": 1}), croql.WithLanguages("de"))
	require.NoError(f, err)
	f.Fuzz(func(t *testing.T, src string, off int) {
		if len(src) > 2048 {
			return
		}
		doc := editor.Open(env, src)
		doc.Diagnostics()
		for _, it := range doc.Complete(off) {
			if it.Range.Start < 0 || it.Range.Start > it.Range.End || it.Range.End > len(src) {
				t.Fatalf("%q@%d: %+v", src, off, it)
			}
		}
		if h := doc.Hover(off); h != nil && (h.Range.Start < 0 || h.Range.End > len(src)) {
			t.Fatalf("%q@%d: %+v", src, off, h)
		}
		for _, tk := range doc.SemanticTokens() {
			if tk.Span.Start < 0 || tk.Span.Start >= tk.Span.End || tk.Span.End > len(src) {
				t.Fatalf("%q: %+v", src, tk)
			}
		}
	})
}

// Inside the directive line, its settings and their values complete.
func TestCompleteDirective(t *testing.T) {
	env := strEnv(t)
	src := "# croql: context=tr\nis hidden"
	items := complete(env, src, len("# croql: context=tr"))
	assert.Equal(t, []string{"translations"}, labels(items))
	assert.Equal(t, "tr", src[items[0].Range.Start:items[0].Range.End])
	src = "# croql: context=tm e\nrecords with (text = \"\")"
	items = complete(env, src, len("# croql: context=tm e"))
	assert.Equal(t, []string{"edition="}, labels(items))
	items = complete(env, "# croql: edition=\n", len("# croql: edition="))
	assert.Equal(t, []string{"standard", "enterprise"}, labels(items))
	// Not fields: the directive is no query.
	items = complete(env, "# croql: context=tm\n", 9)
	assert.Equal(t, []string{"context=", "edition="}, labels(items))
	assert.Equal(t, 9, items[0].Range.End)
}
