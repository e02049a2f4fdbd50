package eval_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/croql/croql/demo"
	"github.com/croql/croql/eval"
	"github.com/croql/croql/internal/corpus"
	"github.com/croql/croql/internal/refeval"
	"github.com/croql/croql/schema"
	"github.com/croql/croql/typecheck"
)

// dataset is the objects of every context, as pointers to root values.
type dataset map[string][]any

// demoData is the demo project, a larger generated one, and a copy of the
// larger one with optional values and collections randomly removed, so
// that every null rule is exercised.
func demoData() (dataset, []schema.UserRef) {
	d := dataset{}
	base := demo.Default()
	add := func(p *schema.Project) {
		for i := range p.Strings {
			s := &p.Strings[i]
			d[schema.CtxStrings] = append(d[schema.CtxStrings], s)
			for j := range s.Translations {
				d[schema.CtxTranslations] = append(d[schema.CtxTranslations], &s.Translations[j])
			}
		}
		for i := range p.TMSegments {
			d[schema.CtxTM] = append(d[schema.CtxTM], &p.TMSegments[i])
		}
		for i := range p.GlossaryTerms {
			d[schema.CtxGlossary] = append(d[schema.CtxGlossary], &p.GlossaryTerms[i])
		}
		for i := range p.GlossaryConcepts {
			d[schema.CtxConcepts] = append(d[schema.CtxConcepts], &p.GlossaryConcepts[i])
		}
	}
	add(base)
	big := demo.Generate(demo.Options{Strings: 300, Seed: 7})
	add(big)
	add(holes(demo.Generate(demo.Options{Strings: 300, Seed: 7}), 42))
	// Users the directory does not know.
	d[schema.CtxTranslations] = append(d[schema.CtxTranslations], &schema.Translation{User: 999, Text: "orphan"})
	return d, base.Users
}

// holes removes optional values from p at random (p is modified).
func holes(p *schema.Project, seed uint64) *schema.Project {
	r := rand.New(rand.NewPCG(seed, 1))
	coin := func() bool { return r.IntN(3) == 0 }
	for i := range p.Strings {
		s := &p.Strings[i]
		if coin() {
			s.MaxLength = nil
		}
		if coin() {
			s.File = nil
		}
		if coin() {
			s.Branch = nil
		}
		if coin() {
			s.Updated = nil
		}
		if coin() {
			s.Comments = nil
		}
		if coin() {
			s.Translations = nil
		}
		if coin() {
			s.Text = ""
		}
		for j := range s.Translations {
			t := &s.Translations[j]
			if coin() {
				t.Provider = nil
			}
			if coin() {
				t.Votes = nil
			}
			if coin() {
				t.User = 999 // not in the directory
			}
		}
		for j := range s.LanguagesSummary {
			if coin() {
				s.LanguagesSummary[j].TranslationUpdated = nil
			}
		}
	}
	for i := range p.GlossaryTerms {
		g := &p.GlossaryTerms[i]
		if coin() {
			g.Status, g.Type, g.Gender, g.PartOfSpeech = nil, nil, nil, nil
		}
		if coin() {
			g.UpdatedAt = nil
		}
	}
	return p
}

// stressQueries are hand-written queries, by context, that lean on the
// corners of the semantics: nulls, division by zero, if, nested where,
// outer-scope references inside where, with, logins, fold.
var stressQueries = map[string][]string{
	schema.CtxStrings: {
		// The first tests of a query that check for a nil object
		// themselves (lowerRoot), and one-pass element loops.
		`id of file != 1 and is hidden`,
		`id of file = 1 and count of comments where (has unresolved issue) > 0`,
		`identifier != "checkout.title" and not is hidden`,
		`added >= '2024-01-01' and count of translations < 3`,
		`count of translations where (language = @language:"de" and (count of approvals > 0 or count of votes > 0)) = 0`,
		`count of translations where (language = "fr" and (count of approvals >= 2 or count of votes = 0)) > 0`,
		`count of translations where (language = "de" and (user = @user:"alice" or user = @user:"bob")) = 0`,
		`count of translations where (language != "de" and (count of approvals > 0 or count of votes > 0)) > 0`,
		`max length > 10`,
		`not (max length > 10)`,
		`max length = max length`,
		`max length != 30 and max length != 35`,
		`max length between 15 and 30`,
		`max length between 15 and 30.5`,
		`max length / (count of translations - 4) > 2`,
		`(max length + count of comments) * 2 >= 50`,
		`-max length < -20`,
		`max length / 0 = count of comments / 0`,
		`count of translations / count of comments > 1.5`,
		`(if max length > 20 then max length else count of translations) > 5`,
		`(if is hidden then "h" else identifier) contains "_"`,
		`(if id of file = 1 then title of file else name of file) = "Checkout flow"`,
		`(if updated > added then updated else added) > '2024-01-01'`,
		`(if max length > 0 then is hidden else is duplicate) = is visible`,
		`id of file = 1 or id of branch = 2`,
		`title of file = title of branch`,
		`title of file != "Android app"`,
		`title of file contains "☕"`,
		`file with (id = 1 and type = "json")`,
		`branch with (title contains "Dark")`,
		`not branch with (id > 0)`,
		`updated between '2024-01-01' and '2024-12-31 23:59:59'`,
		`updated > added`,
		`updated = updated`,
		`added < '2024-06-01' xor is hidden`,
		`count of translations where (text = identifier) > 0`,
		`count of translations where (text contains identifier or identifier contains text) > 0`,
		`count of translations where (updated > added) > 0`,
		`count of translations where (count of votes where (user = user) > 0) > 0`,
		`count of translations where (votes with (user with (login = "alice"))) > 0`,
		`count of translations where (approvals with (login of user = "bob" and added > '2024-01-01')) > 0`,
		`count of translations where (user with (login contains "a")) >= 2`,
		`count of translations where (login of user = login of user) = count of translations`,
		`translations with (provider = "deepl" or provider = "tm")`,
		`translations with (provider != "deepl" and not is pre translated)`,
		`count of translations where (provider = provider) = count of translations`,
		`count of (translations where (language = @language:"de")) where (count of votes > 0) > 0`,
		`count of translations where (language = @language:"de" and count of votes where (is up) > count of votes where (is down)) > 0`,
		`count of languages summary where (translation updated) > 0`,
		`count of languages summary where (not translation updated) > 0`,
		`count of languages summary where (translation updated between '2024-01-01' and '2025-01-01') > 0`,
		`count of languages summary where (rating / approvalsCount > 0.5) > 0`,
		`count of languages summary where (if is approved then rating > 0 else rating < 0) > 0`,
		`count of comments where (user = @user:"alice" or has issue) = count of comments`,
		`count of comments where (count of translations where (user = user) > 0) > 0`,
		`count of labels where (is system) > 0 or count of labels where (title contains "web") > 0`,
		`count of screenshots > 1`,
		`text contains "café"`,
		`text contains "CAFÉ"`,
		`text contains ""`,
		`identifier contains "."`,
		`text < identifier`,
		`identifier between "a" and "m"`,
		`context >= "M"`,
		`type is plural or type is icu or type is asset`,
		`is visible = (not is hidden)`,
		`count of translations = 0 xor count of languages summary = 0`,
		`count of translations > 3 and count of translations <= 6`,
		`count of translations < 1`,
		`count of translations >= 1`,
		`count of translations != 0`,
		`0 < count of translations`,
		`0 = count of translations where (is pre translated)`,
		// shapes the evaluator fuses into inline loops
		`count of translations where (not is pre translated and user != 11 and plural form = "one") >= 2`,
		`count of translations where (votes with (not (user = 12) and not is up)) > 0`,
		`count of languages summary where (not (rating > 0) and approvalsCount <= 1) = count of languages summary`,
		`count of labels = count of labels where (not is system)`,
		`count of translations != count of translations where (text contains "a")`,
		`count of translations where (count of votes > 0) = count of translations`,
		`count of translations where (user = 11) = count of translations where (user = 11)`,
		`count of comments where (not has issue and not (user != 12)) < 2`,
		`count of translations where (language != "de" and not (language = "fr")) between 1 and 4`,
		`count of languages summary where (not type is plain) > 0`,
		`is hidden and not is duplicate and type is plain`,
		`not (type is icu or is hidden) and identifier != "x" or context = "Checkout"`,
		`count of translations where (count of votes where (is up) >= 2) > 0`,
		`count of translations where (count of votes = 2 or count of approvals where (user = 15) = 0) >= 3`,
		`count of translations where (not (count of votes > 0) and language != "de") > 1`,
		`count of translations where (language != "de" and not votes with (is up)) = 0`,
		`count of translations where (language = "uk" and (count of votes > 0 or count of approvals > 0)) = 0`,
		`count of translations where (votes with (is up and user = 12) xor is pre translated) > 0`,
		`count of languages summary where (is translated and not is approved or rating < 0) > 0`,
		`count of translations where (count of approvals where (user = @user:"erin") > 0) > 0`,
	},
	schema.CtxTranslations: {
		`user = @user:"alice" or count of votes where (is up) >= 2`,
		`user with (login = "alice")`,
		`not user with (id > 0)`,
		`login of user = "bob"`,
		`login of user = login of user`,
		`id of user = 999`,
		`provider = "deepl"`,
		`provider != "deepl"`,
		`provider contains "m"`,
		`text contains "Ü"`,
		`plural form = "one" and count of approvals > 0`,
		`count of votes where (added > updated) > 0`,
		`count of approvals where (added > updated) > 0`,
		`votes with (is down and user with (login = "carol"))`,
		`(if provider = "tm" then 1 else 0) + count of votes > 1`,
		`count of votes = count of votes where (is up)`,
		`count of votes where (is down) = count of votes`,
		`count of votes where (is up and user != 12 and added > '2024-01-01') >= 1`,
	},
	schema.CtxTM: {
		`count of records where (usageCount > 0) > 0`,
		`count of records where (createdBy = @user:"alice") > 0`,
		`count of records where (createdBy = updatedBy) > 0`,
		`records with (updatedAt > createdAt and text contains "e")`,
		`count of records where (usageCount / (usageCount - 1) > 1) > 0`,
		`records with (createdBy with (login = "dave"))`,
	},
	schema.CtxGlossary: {
		`status = "preferred"`,
		`status != "preferred"`,
		`status = status`,
		`type = "acronym" or gender = "feminine"`,
		`partOfSpeech contains "n"`,
		`updatedAt > createdAt`,
		`not (updatedAt > createdAt)`,
		`concept = 3 and language = @language:"de"`,
		`user with (login = "alice")`,
		`text contains lemma`,
	},
	schema.CtxConcepts: {
		`translatable`,
		`not translatable and updatedAt > '2024-01-01'`,
		`definition contains subject`,
		`user = @user:"bob" or id > 3`,
		`user with (login = "erin")`,
	},
}

// differential runs src in context over every object of the context and
// compares the fast evaluator with the reference interpreter. It returns
// how many objects matched.
func differential(t *testing.T, cat *schema.Catalog, data dataset, users []schema.UserRef, context, edition, src string, fold bool) int {
	t.Helper()
	logins := map[string]int64{}
	dir := map[int64]string{}
	for _, u := range users {
		logins[u.Login] = u.ID
		dir[u.ID] = u.Login
	}
	// Logins the directory lacks (corpus cases mention some) get ids of
	// their own, so that every good query checks.
	for i, l := range mentionedUsers(t, cat, context, src) {
		if _, ok := logins[l]; !ok {
			logins[l], dir[int64(5000+i)] = int64(5000+i), l
		}
	}
	o := checkOpts{users: logins, fold: fold}
	if edition == "enterprise" {
		o.edition = schema.Enterprise
	}
	q := check(t, cat, context, src, o)
	p, err := eval.Compile(q, eval.WithUsers(dir))
	require.NoError(t, err, src)
	plain, err := eval.Compile(q, eval.WithUsers(dir), eval.WithoutOptimizations())
	require.NoError(t, err, src)
	ref := &refeval.Interp{Users: dir}
	// The typed funcs (Typed.Func) of the strings context, both ways.
	var fast, slow func(*schema.SourceString) bool
	if context == schema.CtxStrings {
		tp, err := eval.Bind[schema.SourceString](p)
		require.NoError(t, err, src)
		tq, err := eval.Bind[schema.SourceString](plain)
		require.NoError(t, err, src)
		fast, slow = tp.Func(), tq.Func()
		require.False(t, fast(nil), "%s: nil", src)
		require.False(t, slow(nil), "%s: nil (plain)", src)
	}
	matched := 0
	for i, obj := range data[context] {
		want, err := ref.Match(q, obj)
		require.NoError(t, err, src)
		if got := p.Match(obj); got != want {
			t.Fatalf("%s (fold %v): object %d of %s: fast %v, reference %v", src, fold, i, context, got, want)
		}
		if got := plain.Match(obj); got != want {
			t.Fatalf("%s (fold %v): object %d of %s: plain (WithoutOptimizations) %v, reference %v", src, fold, i, context, got, want)
		}
		if s, ok := obj.(*schema.SourceString); ok && fast != nil {
			if got := fast(s); got != want {
				t.Fatalf("%s (fold %v): object %d: Typed.Func %v, reference %v", src, fold, i, got, want)
			}
			if got := slow(s); got != want {
				t.Fatalf("%s (fold %v): object %d: Typed.Func (WithoutOptimizations) %v, reference %v", src, fold, i, got, want)
			}
		}
		if want {
			matched++
		}
	}
	return matched
}

func TestDifferentialCorpus(t *testing.T) {
	cases, err := corpus.Load("../testdata/corpus")
	require.NoError(t, err)
	cat := schema.New()
	data, users := demoData()
	ran, someMatch := 0, 0
	for _, c := range cases {
		if c.Has("diag") || c.Get("stage") == "parse" {
			continue
		}
		t.Run(c.Name, func(t *testing.T) {
			for _, fold := range []bool{false, true} {
				if differential(t, cat, data, users, c.Context(), c.Edition(), c.Query(), fold) > 0 {
					someMatch++
				}
			}
		})
		ran++
	}
	require.Greater(t, ran, 50, "good corpus cases")
	require.Greater(t, someMatch, ran/2, "most corpus queries match some demo object")
}

func TestDifferentialStress(t *testing.T) {
	cat := schema.New()
	data, users := demoData()
	for context, qs := range stressQueries {
		matched, total := 0, 0
		for _, src := range qs {
			t.Run(fmt.Sprintf("%s/%s", context, src), func(t *testing.T) {
				for _, fold := range []bool{false, true} {
					if differential(t, cat, data, users, context, "enterprise", src, fold) > 0 {
						matched++
					}
					total++
				}
			})
		}
		require.Greater(t, matched, total/3, "%s: the stress queries should not all be empty", context)
	}
}

// mentionedUsers lists the logins src mentions, read from the checked tree
// of a check without a user directory.
func mentionedUsers(t *testing.T, cat *schema.Catalog, context, src string) []string {
	q := check(t, cat, context, src, checkOpts{edition: schema.Enterprise})
	var out []string
	var walk func(n typecheck.Node)
	walk = func(n typecheck.Node) {
		switch n := n.(type) {
		case *typecheck.Const:
			if n.Unresolved {
				out = append(out, n.S)
			}
		case *typecheck.Member:
			walk(n.X)
		case *typecheck.Count:
			walk(n.X)
		case *typecheck.Filter:
			walk(n.X)
			walk(n.Pred)
		case *typecheck.Not:
			walk(n.X)
		case *typecheck.Logic:
			walk(n.X)
			walk(n.Y)
		case *typecheck.Arith:
			walk(n.X)
			walk(n.Y)
		case *typecheck.Neg:
			walk(n.X)
		case *typecheck.Compare:
			walk(n.X)
			walk(n.Y)
		case *typecheck.Between:
			walk(n.X)
			walk(n.Lo)
			walk(n.Hi)
		case *typecheck.Contains:
			walk(n.X)
			walk(n.Sub)
		case *typecheck.If:
			walk(n.Cond)
			walk(n.Then)
			walk(n.Else)
		case *typecheck.ToFloat:
			walk(n.X)
		case *typecheck.IsSet:
			walk(n.X)
		}
	}
	walk(q.Root)
	return out
}

// TestDifferentialCheckedIR guards the test itself: the typecheck result of
// a query with user mentions carries resolved ids.
func TestDifferentialCheckedIR(t *testing.T) {
	cat := schema.New()
	q := check(t, cat, schema.CtxStrings, `count of comments where (user = @user:"alice") > 0`, checkOpts{users: testLogins})
	var found bool
	var walk func(n typecheck.Node)
	walk = func(n typecheck.Node) {
		switch n := n.(type) {
		case *typecheck.Const:
			if n.T.Kind == schema.User {
				found = true
				require.False(t, n.Unresolved)
				require.Equal(t, int64(11), n.I)
			}
		case *typecheck.Compare:
			walk(n.X)
			walk(n.Y)
		case *typecheck.Count:
			walk(n.X)
		case *typecheck.Filter:
			walk(n.X)
			walk(n.Pred)
		}
	}
	walk(q.Root)
	require.True(t, found)
}
