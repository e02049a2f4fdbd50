package croql_test

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/croql/croql"
	"github.com/croql/croql/diag"
	"github.com/croql/croql/internal/corpus"
	"github.com/croql/croql/schema"
)

// badQuery is a query with a diagnostic, in its context and edition.
type badQuery struct {
	ctx     string
	edition schema.Edition
	src     string
	from    string // where it comes from, for failures
}

// badQueries are the inputs of the fix property: every corpus case with a
// diagnostic; the inputs of the bad-query tests (the acceptance
// diagnostics, the null tests, the sugar forms), written out for every
// field of every context: each sugar form, a misspelt name, a field of an
// element at the root, a count or a collection as a condition, a string as
// a condition, the API names; and each of these paired with the next by
// `and`, so that queries with several independent errors are in too.
func badQueries(t *testing.T) []badQuery {
	t.Helper()
	cases, err := corpus.Load("testdata/corpus")
	require.NoError(t, err)
	var out []badQuery
	for _, c := range cases {
		if !c.Has("diag") {
			continue
		}
		ed := schema.Standard
		if c.Edition() == "enterprise" {
			ed = schema.Enterprise
		}
		out = append(out, badQuery{c.Context(), ed, c.Query(), c.Where()})
	}
	// The inputs of the bad-query tests of the parser, the checker and the
	// CLI, in the strings context.
	for _, q := range []string{
		`text == "a" && id in (1, 2) or max length is null`,
		`id in (1, 2) and b in ("x") or c not in (3) and d is not null and e is empty`,
		`x == 1 and id in ("a\q", 2)`, `count of x where (id in (1, 2`, `a, b in (1, 2)`, `a in (1, 2) and x = = 1`,
		`max length is not null or identifier is not empty`, strings.Repeat("a in (1) and ", 12) + "a",
		`fileId = 5`, `is hiden`, `not is approved`, `11111111111`, `count of translations`, `text = @user:"x"`,
		`count of text > 0`, `isPassedWorkflow`, `count of translations where (provider = "gogle") > 0`, `text = 'Welcome!'`,
		`is hiden and fileId = 5 and count of text > 0`, "is hidden and\n  text = \"ünï😀\" and fileId = 5",
		`is hiden and fileId = 5 and text = 'a'`, `is hidden and max length IS NOT NULL`,
		`count of translations where (provider is null) > 0`, `id of file is null`, `context is empty`,
		`count of comments = 0 or translations is not empty`, `translation.text = "a"`, `user = @user:"alcie"`,
		`count of votes > 0`, `provider = "tm" and is hidden or "x"`, `count of translations where (votes) > 0`,
	} {
		out = append(out, badQuery{schema.CtxStrings, schema.Standard, q, "tests"})
	}
	cat := schema.New()
	for _, ctx := range cat.Contexts {
		var qs []string
		add := func(q ...string) { qs = append(qs, q...) }
		for _, f := range ctx.Root.Fields {
			add(f.Name+" is null", f.Name+" IS NOT NULL", f.Name+" is absent", "not "+f.Name+" is not absent",
				f.Name+" is empty", f.Name+" is not empty")
			lits := literals(f.Type)
			add(f.Name+" in ("+strings.Join(lits, ", ")+")", "is hidden or "+f.Name+" not in ("+lits[0]+")")
			if f.Type.Kind == schema.Datetime {
				add(f.Name+" > 'today - 7 days'", f.Name+" < '3 months ago'", f.Name+" >= '-2w'", f.Name+" between 'yesterday' and 'tomorrow'")
			}
			if len(f.Name) > 3 {
				add(f.Name[:1] + f.Name[2:]) // misspelt
			}
			add(f.Name) // a non-bool as a condition
			if f.Type.Kind == schema.Collection && f.Type.Obj != nil {
				add("count of " + f.Name)
				for _, g := range f.Type.Obj.Fields {
					gl := literals(g.Type)
					add(g.Name, g.Name+" = "+gl[0], "count of "+g.Name+" > 0", g.Name+" in ("+strings.Join(gl, ", ")+")",
						"count of "+f.Name+" where ("+g.Name+" is null) > 0",
						"count of "+f.Name+" where ("+g.Name+" in ("+gl[0]+")) > 0")
				}
			}
			if f.Type.Obj != nil && f.Type.Kind != schema.Collection {
				for _, g := range f.Type.Obj.Fields {
					add(g.Name+" of "+f.Name+" in ("+strings.Join(literals(g.Type), ", ")+")", g.Name+" of "+f.Name+" is null")
				}
			}
		}
		add(`"hello"`, `"hello" and not "x"`, `count of comments`, `1`,
			`fileId = 1`, `branchId = 1`, `stringId = 1`, `languageId = "de"`, `projectId = 1`, `createdAt > '2024-01-01'`,
			`updatedAt < '2024-01-01'`, `userId = 1`, `conceptId = 1`, `termId = 1`, `fileName = "a"`,
			`id in (1, 2)`, `text == "a" or text is null`, `translation.text = "a"`, `added > 'today - 1 month' and identifier in ("a")`)
		n := len(qs)
		for i := range n {
			qs = append(qs, qs[i]+" and "+qs[(i+7)%n])
		}
		for _, q := range qs {
			out = append(out, badQuery{ctx.Name, schema.Enterprise, q, "generated"})
		}
	}
	return out
}

// literals returns two literals of type t, for in-lists and comparisons.
func literals(t schema.Type) []string {
	switch t.Kind {
	case schema.Int, schema.Float:
		return []string{"1", "2"}
	case schema.Datetime:
		return []string{"'2024-01-01'", "'2024-06-01'"}
	case schema.Bool:
		return []string{"true", "false"}
	case schema.User:
		return []string{`@user:"alice"`, "2"}
	case schema.Language:
		return []string{`@language:"de"`, `"fr"`}
	}
	return []string{`"a"`, `"b"`}
}

// hidden are the syntax rules a spelling or a lexical error hides
// (docs/language.md, "Syntax diagnostics": only when there is none of these
// does the grammar report its first other error), and the cap of the
// syntax errors, which counts the rest.
var hidden = map[string]bool{
	"unexpected-token": true, "unexpected-eof": true, "chained-comparison": true,
	"if-operand": true, "member-name": true, "too-many-errors": true,
}

// writeHint is a hint that ends with the replacement text whole ("write
// `Q`", "compare the count: `Q`"); an example ("for example `Q`") is not
// one.
var writeHint = regexp.MustCompile("(?:^write |: |: write )`([^`]*)`$")

// TestFixesRecheck is the property that every hint and fix re-checks. For
// every bad query and every fix of each of its diagnostics, the text with
// the fix applied, checked again:
//
//  1. has no diagnostic of the fix's own rule that overlaps the replaced
//     text, and no error there at all (the fix removes its finding);
//  2. has no new error: each of its errors is another error of the
//     original, of the same rule over the same text, or, where the
//     original had a syntax error, an error that one hid: a logic error
//     (the checker runs only on a query that parses) or one of the
//     grammar's errors the spellings hide (hidden). So a fix of a query's
//     only logic error, or of its only error when no error hides behind
//     it, yields a query that checks clean.
//
// And a hint that ends with "write `Q`" or ": `Q`" is the text of one of
// its diagnostic's fixes: such a hint is checked as the fix is.
func TestFixesRecheck(t *testing.T) {
	queries := badQueries(t)
	envs := map[string]*croql.Env{}
	clock := func() time.Time { return time.Date(2025, 6, 15, 12, 0, 0, 0, time.UTC) }
	fixes, clean, withDiag := 0, 0, 0
	rules := map[string]int{}
	for _, bq := range queries {
		key := fmt.Sprint(bq.ctx, bq.edition)
		env := envs[key]
		if env == nil {
			var err error
			env, err = croql.NewEnv(bq.ctx, croql.WithEdition(bq.edition), croql.WithClock(clock))
			require.NoError(t, err)
			envs[key] = env
		}
		_, diags := env.Check(bq.src)
		if len(diags) == 0 {
			continue
		}
		withDiag++
		syntax := slices.ContainsFunc(diags, func(d diag.Diagnostic) bool { return d.Code == diag.ClassSyntax })
		for di, d := range diags {
			if m := writeHint.FindStringSubmatch(d.Hint); m != nil {
				if !slices.ContainsFunc(d.Fixes, func(f diag.Fix) bool { return f.Text == m[1] }) {
					t.Errorf("%s: %s: %q: the hint %q is no fix: %+v", bq.from, bq.ctx, bq.src, d.Hint, d.Fixes)
				}
			}
			for _, f := range d.Fixes {
				fixes++
				rules[d.Rule]++
				fixed := bq.src[:f.Span.Start] + f.Text + bq.src[f.Span.End:]
				region := diag.Span{Start: f.Span.Start, End: f.Span.Start + len(f.Text)}
				_, again := env.Check(fixed)
				if !again.HasErrors() {
					clean++
				}
				for _, e := range again {
					over := e.Span.Start < region.End && region.Start < e.Span.End
					if over && (e.Rule == d.Rule || e.Severity == diag.Error) {
						t.Errorf("%s: %s: %q: fix %q gives %q, still %s", bq.from, bq.ctx, bq.src, f.Text, fixed, e.Error())
						continue
					}
					if e.Severity != diag.Error || syntax && (e.Code == diag.ClassLogic || hidden[e.Rule]) {
						continue
					}
					shifted := func(o diag.Diagnostic) bool {
						return o.Rule == e.Rule && bq.src[o.Span.Start:o.Span.End] == fixed[e.Span.Start:e.Span.End]
					}
					others := slices.Delete(slices.Clone(diags), di, di+1)
					if !slices.ContainsFunc(others, shifted) {
						t.Errorf("%s: %s: %q: fix %q gives %q with a new error %s", bq.from, bq.ctx, bq.src, f.Text, fixed, e.Error())
					}
				}
			}
		}
	}
	t.Logf("%d bad queries, %d with diagnostics; %d fixes re-checked (%d clean): %v", len(queries), withDiag, fixes, clean, rules)
	require.Greater(t, fixes, 1000, "the property saw fixes")
	for _, r := range []string{"in-list", "null-test", "bad-datetime", "not-bool", "unknown-field", "dotted-path"} {
		require.Greater(t, rules[r], 0, "fixes of rule %s were checked", r)
	}
}
