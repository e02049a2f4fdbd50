package playground

import (
	"encoding/json"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/croql/croql"
	"github.com/croql/croql/editor"
	"github.com/croql/croql/internal/corpus"
)

var strs = Options{Context: "strings"}

func TestLintMisspelledFieldHasFix(t *testing.T) {
	pg := Demo()
	src := "is hiden and id of file = 7"
	ds := pg.Lint(src, strs)
	if len(ds) != 1 {
		t.Fatalf("want 1 diagnostic, got %+v", ds)
	}
	d := ds[0]
	if d.From != 0 || d.To != 8 || d.Severity != "error" || d.Rule != "unknown-field" {
		t.Errorf("diagnostic = %+v, want error unknown-field on 0-8", d)
	}
	if len(d.Fixes) == 0 || d.Fixes[0].Text != "is hidden" || d.Fixes[0].From != 0 || d.Fixes[0].To != 8 {
		t.Fatalf("fixes = %+v, want is hidden on 0-8", d.Fixes)
	}
	// Applying the fix leaves a query without diagnostics.
	fixed := src[:d.Fixes[0].From] + d.Fixes[0].Text + src[d.Fixes[0].To:]
	if ds := pg.Lint(fixed, strs); len(ds) != 0 {
		t.Errorf("after the fix %q: %+v", fixed, ds)
	}
}

// Offsets are UTF-16 code units: text before the error with characters
// of 2, 3 and 4 UTF-8 bytes (the last a surrogate pair in UTF-16) moves
// the range by 1, 1 and 2.
func TestLintRangesCountUTF16(t *testing.T) {
	pg := Demo()
	prefix := `text contains "é☕🌙" and `
	src := prefix + "is hiden"
	ds := pg.Lint(src, strs)
	if len(ds) != 1 {
		t.Fatalf("want 1 diagnostic, got %+v", ds)
	}
	from := len(utf16.Encode([]rune(prefix)))
	if ds[0].From != from || ds[0].To != from+8 {
		t.Errorf("range %d-%d, want %d-%d", ds[0].From, ds[0].To, from, from+8)
	}
	if f := ds[0].Fixes; len(f) == 0 || f[0].From != from || f[0].To != from+8 {
		t.Errorf("fix = %+v, want on %d-%d", f, from, from+8)
	}
}

func TestOffsetsRoundTrip(t *testing.T) {
	src := "a é ☕ 🌙 z"
	o := newOffsets(src)
	u := 0
	for i, r := range src {
		if got := o.utf16(i); got != u {
			t.Errorf("utf16(%d) = %d, want %d", i, got, u)
		}
		if got := o.byteOf(u); got != i {
			t.Errorf("byteOf(%d) = %d, want %d", u, got, i)
		}
		if r >= 0x10000 {
			// Between the halves of the pair: the rune's start.
			if got := o.byteOf(u + 1); got != i {
				t.Errorf("byteOf(%d) inside a pair = %d, want %d", u+1, got, i)
			}
			u++
		}
		u++
	}
	if got := o.utf16(len(src)); got != u {
		t.Errorf("utf16(end) = %d, want %d", got, u)
	}
	if got := o.byteOf(u + 5); got != len(src) {
		t.Errorf("byteOf past the end = %d, want %d", got, len(src))
	}
	if got := o.byteOf(-3); got != 0 {
		t.Errorf("byteOf(-3) = %d", got)
	}
}

func TestFormat(t *testing.T) {
	pg := Demo()
	f := pg.Format("IS HIDDEN   AND (id of file = 7)", strs)
	if !f.OK || f.Text != "is hidden and id of file = 7" {
		t.Errorf("Format = %+v", f)
	}
	if f := pg.Format("is hidden and (", strs); f.OK || f.Error == "" {
		t.Errorf("Format of a syntax error = %+v, want an error", f)
	}
}

func TestSQLEveryDialect(t *testing.T) {
	pg := Demo()
	want := map[string]string{"postgres": "$1", "sqlite": "?", "mysql": "?"}
	for _, d := range Dialects {
		s := pg.SQL(`id of file = 7 and text contains "x"`, strs, d)
		if s.Error != "" {
			t.Fatalf("%s: %s", d, s.Error)
		}
		if !strings.Contains(s.Where, want[d]) || !strings.HasPrefix(s.Select, "SELECT ") {
			t.Errorf("%s: where %q select %q", d, s.Where, s.Select)
		}
		if len(s.Args) != 2 || s.Args[0] != (Arg{Type: "int", Value: "7"}) || s.Args[1] != (Arg{Type: "string", Value: `"x"`}) {
			t.Errorf("%s: args %+v", d, s.Args)
		}
	}
	if s := pg.SQL("is hiden", strs, "postgres"); s.Error == "" || s.Where != "" {
		t.Errorf("SQL of a wrong query = %+v", s)
	}
	if s := pg.SQL("is hidden", strs, "oracle"); s.Error == "" {
		t.Errorf("SQL for an unknown dialect = %+v", s)
	}
}

// Evaluate counts what the project holds, computed here from the data.
func TestEvaluateCounts(t *testing.T) {
	pg := Demo()
	p := pg.Project()
	var hidden, file1 []int64
	for _, s := range p.Strings {
		if s.IsHidden {
			hidden = append(hidden, s.ID)
		}
		if s.File != nil && s.File.ID == 1 {
			file1 = append(file1, s.ID)
		}
	}
	if len(hidden) == 0 || len(hidden) == len(p.Strings) || len(file1) == 0 {
		t.Fatalf("demo project: %d hidden, %d in file 1 of %d strings; the test needs some of each", len(hidden), len(file1), len(p.Strings))
	}
	for _, c := range []struct {
		src  string
		want []int64
	}{{"is hidden", hidden}, {"id of file = 1", file1}} {
		ev := pg.Evaluate(c.src, strs, 0)
		if ev.Error != "" || ev.Count != len(c.want) || ev.Total != len(p.Strings) || len(ev.Matches) != len(c.want) {
			t.Fatalf("%s: %+v, want %d of %d", c.src, ev, len(c.want), len(p.Strings))
		}
		for i, m := range ev.Matches {
			if m.ID != c.want[i] {
				t.Errorf("%s: match %d is %d, want %d", c.src, i, m.ID, c.want[i])
			}
		}
	}
	// The limit caps the list, not the count.
	ev := pg.Evaluate("not is hidden", strs, 3)
	if ev.Count != len(p.Strings)-len(hidden) || len(ev.Matches) != 3 {
		t.Errorf("limit 3: count %d, %d listed", ev.Count, len(ev.Matches))
	}
	if s := p.Strings[0]; ev.Matches[0].Label != s.Text && !s.IsHidden {
		t.Errorf("label %q, want the string's text %q", ev.Matches[0].Label, s.Text)
	}
	if ev := pg.Evaluate("is hiden", strs, 0); ev.Error == "" || ev.Count != 0 {
		t.Errorf("a wrong query: %+v", ev)
	}
}

// Mentions resolve against the project's users: the count equals the
// translations whose author is alice.
func TestEvaluateMentionsAndContexts(t *testing.T) {
	pg := Demo()
	alice := pg.Project().UserIDs()["alice"]
	if alice == 0 {
		t.Fatal("the demo project has no alice")
	}
	want := 0
	for _, tr := range pg.Project().Translations() {
		if tr.User == alice {
			want++
		}
	}
	ev := pg.Evaluate(`user = @user:"alice"`, Options{Context: "translations"}, 0)
	if ev.Error != "" || ev.Count != want || want == 0 {
		t.Errorf("translations by alice: %+v, want %d", ev, want)
	}
	for ctx, src := range map[string]string{"tm": "count of records >= 0", "glossary": "id > 0", "concepts": "id > 0"} {
		ev := pg.Evaluate(src, Options{Context: ctx}, 0)
		if ev.Error != "" || ev.Count != ev.Total || ev.Total == 0 || ev.Matches[0].Label == "" {
			t.Errorf("%s: %+v", ctx, ev)
		}
	}
	ds := pg.Lint("is hidden", Options{Context: "nowhere"})
	if len(ds) != 1 || ds[0].Rule != "options" || !strings.Contains(ds[0].Message, "nowhere") {
		t.Errorf("unknown context: %+v", ds)
	}
	if ev := pg.Evaluate("is hidden", Options{Edition: "platinum"}, 0); !strings.Contains(ev.Error, "platinum") {
		t.Errorf("unknown edition: %+v", ev)
	}
}

func TestAnalyzeEncodes(t *testing.T) {
	a := Demo().Analyze("is hiden", strs)
	b, err := json.Marshal(a)
	if err != nil {
		t.Fatal(err)
	}
	var back map[string]any
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"diagnostics", "formatted", "sql", "evaluation"} {
		if _, ok := back[k]; !ok {
			t.Errorf("no %q in %s", k, b)
		}
	}
	if len(a.SQL) != len(Dialects) || a.SQL[0].Error == "" || len(a.Diagnostics) != 1 {
		t.Errorf("analysis of a wrong query: %s", b)
	}
}

// Inside `count of translations where (`, the translation's fields come
// before the string's, and the item replaces the words typed so far.
func TestCompleteInsideAFilter(t *testing.T) {
	pg := Demo()
	src := "count of translations where (is pr"
	c := pg.Complete(src, strs, len(src))
	if c.Error != "" {
		t.Fatal(c.Error)
	}
	var labels []string
	pre := -1
	for i, it := range c.Items {
		labels = append(labels, it.Label)
		if it.Label == "is pre translated" {
			pre = i
			if it.From != len("count of translations where (") || it.To != len(src) || it.Insert != "is pre translated" || it.Kind != "field" {
				t.Errorf("item %+v, want a field replacing 29-%d", it, len(src))
			}
		}
	}
	if pre < 0 {
		t.Fatalf("no `is pre translated` in %q", labels)
	}
	// At `(is |` both scopes' fields are offered, the inner first.
	src = "count of translations where (is "
	c = pg.Complete(src, strs, len(src))
	inner, outer := -1, -1
	for i, it := range c.Items {
		switch it.Label {
		case "is pre translated":
			inner = i
		case "is hidden":
			outer = i
		}
	}
	if inner < 0 || outer < 0 || inner > outer {
		t.Errorf("is pre translated at %d, is hidden at %d: the inner scope must come first", inner, outer)
	}
}

// Logins come from the project; offsets are UTF-16 after a non-ASCII
// prefix.
func TestCompleteLoginsAfterNonASCII(t *testing.T) {
	pg := Demo()
	prefix := `text contains "🌙" and count of translations where (user = @user:"`
	src := prefix + "al"
	c := pg.Complete(src, strs, len(utf16.Encode([]rune(src))))
	var alice *CompletionItem
	for i := range c.Items {
		if c.Items[i].Label == "alice" {
			alice = &c.Items[i]
		}
	}
	if alice == nil {
		t.Fatalf("no alice in %+v", c.Items)
	}
	start := len(utf16.Encode([]rune(prefix)))
	if alice.From != start || alice.To != start+2 || alice.Kind != "value" {
		t.Errorf("alice: %+v, want a value on %d-%d", alice, start, start+2)
	}
}

func TestHover(t *testing.T) {
	pg := Demo()
	src := `max length > 5 and count of translations where (user = @user:"frank") > 0`
	h := pg.Hover(src, strs, 2)
	if !h.Found || h.Kind != "field" || h.Type != "int" || h.From != 0 || h.To != len("max length") ||
		!strings.Contains(h.Markdown, "int") {
		t.Errorf("hover on max length: %+v", h)
	}
	at := strings.Index(src, "@user")
	h = pg.Hover(src, strs, at+3)
	frank := pg.Project().UserIDs()["frank"]
	if !h.Found || h.Kind != "mention" || h.ID == nil || *h.ID != frank {
		t.Errorf("hover on @user:\"frank\": %+v, want id %d", h, frank)
	}
	if h := pg.Hover("is hidden   ", strs, 11); h.Found {
		t.Errorf("hover on white space: %+v", h)
	}
}

func TestTokens(t *testing.T) {
	pg := Demo()
	src := `is hidden and text contains "x"`
	var got []string
	for _, tk := range pg.Tokens(src, strs) {
		got = append(got, tk.Kind+":"+src[tk.From:tk.To])
	}
	want := []string{"field:is hidden", "keyword:and", "field:text", "keyword:contains", `literal:"x"`}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("tokens %q, want %q", got, want)
	}
}

// A directive on the first line sets the context; the checks, the SQL and
// the evaluation run on the rest with the offsets unchanged.
func TestDirective(t *testing.T) {
	pg := Demo()
	src := "# croql: context=translations\nis pre translated and is hiden"
	a := pg.Analyze(src, strs)
	if a.Options.Context != "translations" {
		t.Errorf("options %+v", a.Options)
	}
	if len(a.Diagnostics) != 1 || src[a.Diagnostics[0].From:a.Diagnostics[0].To] != "is hiden" {
		t.Errorf("diagnostics %+v", a.Diagnostics)
	}
	src = "# croql: context=translations\nis pre translated"
	a = pg.Analyze(src, strs)
	want := 0
	for _, tr := range pg.Project().Translations() {
		if tr.IsPreTranslated {
			want++
		}
	}
	if len(a.Diagnostics) != 0 || a.Evaluation.Count != want || a.SQL[0].Error != "" ||
		a.Formatted.Text != src {
		t.Errorf("analysis %+v, want %d matches", a, want)
	}
	if ds := pg.Lint("# croql: colour=red\nis hidden", strs); len(ds) != 1 || ds[0].Severity != "warning" {
		t.Errorf("unknown directive setting: %+v", ds)
	}
}

// Over the conformance corpus, in every context and edition a case names:
// the diagnostics are the library's (same rules, same spans converted),
// every range lies in the text, and completion, hover and tokens answer
// at every cursor position without leaving it.
func TestCorpusRangesStayInTheText(t *testing.T) {
	cases, err := corpus.Load(filepath.Join("..", "..", "testdata", "corpus"))
	if err != nil {
		t.Fatal(err)
	}
	pg := Demo()
	users := pg.Project().UserIDs()
	langs := pg.Project().LanguageCodes()
	checked := 0
	for i, c := range cases {
		src := c.Query()
		if src == "" {
			continue
		}
		o := Options{Context: c.Context(), Edition: c.Edition()}
		n := len(utf16.Encode([]rune(src)))
		in := func(what string, from, to int) {
			if from < 0 || from > to || to > n {
				t.Errorf("%s: %s range %d-%d outside 0-%d of %q", c.Where(), what, from, to, n, src)
			}
		}
		a := pg.Analyze(src, o)
		ed := croql.Standard
		if Effective(src, o).Edition == "enterprise" {
			ed = croql.Enterprise
		}
		lib := croql.Lint(src, Effective(src, o).Context, croql.WithEdition(ed), croql.WithUserIDs(users), croql.WithLanguages(langs...))
		if !strings.HasPrefix(src, editor.DirectivePrefix) && len(lib) != len(a.Diagnostics) {
			t.Errorf("%s: %d diagnostics, the library has %d", c.Where(), len(a.Diagnostics), len(lib))
		}
		for j, d := range a.Diagnostics {
			in("diagnostic", d.From, d.To)
			if j < len(lib) && (d.Rule != lib[j].Rule || d.From != newOffsets(src).utf16(lib[j].Span.Start)) {
				t.Errorf("%s: diagnostic %d is %s at %d, the library's %s at %d", c.Where(), j, d.Rule, d.From, lib[j].Rule, lib[j].Span.Start)
			}
			for _, f := range d.Fixes {
				in("fix", f.From, f.To)
			}
		}
		for _, tk := range pg.Tokens(src, o) {
			in("token", tk.From, tk.To)
		}
		// Every position for a sample of the cases (all of them would take
		// long under -race), the end of the text for every case.
		step := n + 1
		if i%7 == 0 {
			step = 1
		}
		for at := n % step; at <= n; at += step {
			for _, it := range pg.Complete(src, o, at).Items {
				in("completion", it.From, it.To)
				if it.From > at || it.To < at {
					t.Errorf("%s: completion %q replaces %d-%d, not around the cursor %d", c.Where(), it.Label, it.From, it.To, at)
				}
			}
			if h := pg.Hover(src, o, at); h.Found {
				in("hover", h.From, h.To)
			}
		}
		checked++
	}
	if checked < 100 {
		t.Fatalf("only %d corpus queries checked", checked)
	}
	t.Logf("%d corpus queries", checked)
}

// Analyze, which compiles once, answers what the separate calls answer.
func TestAnalyzeEqualsTheSeparateCalls(t *testing.T) {
	cases, err := corpus.Load(filepath.Join("..", "..", "testdata", "corpus"))
	if err != nil {
		t.Fatal(err)
	}
	pg := Demo()
	extra := []string{"# croql: context=tm\ncount of records > 0", `is hidden and text contains "☕"`, ""}
	n := 0
	for _, c := range cases {
		if c.Query() == "" {
			continue
		}
		for _, src := range append([]string{c.Query()}, extra[n%len(extra)]) {
			o := Options{Context: c.Context(), Edition: c.Edition()}
			a := pg.Analyze(src, o)
			want := Analysis{Options: Effective(src, o), Diagnostics: pg.Lint(src, o), Formatted: pg.Format(src, o),
				Evaluation: pg.Evaluate(src, o, 0)}
			for _, d := range Dialects {
				want.SQL = append(want.SQL, pg.SQL(src, o, d))
			}
			if !reflect.DeepEqual(a, want) {
				t.Errorf("%s: %q:\nAnalyze %+v\ncalls   %+v", c.Where(), src, a, want)
			}
		}
		n++
	}
	if n < 100 {
		t.Fatalf("only %d corpus queries", n)
	}
}
