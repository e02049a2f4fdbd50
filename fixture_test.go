package croql_test

import (
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/croql/croql"
	"github.com/croql/croql/demo"
	"github.com/croql/croql/internal/corpus"
	"github.com/croql/croql/schema"
)

// loadFixture reads testdata/fixtures/<name>.json.
func loadFixture(t testing.TB, name string) *schema.Project {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", "fixtures", name+".json"))
	require.NoError(t, err)
	defer f.Close()
	p, err := schema.ReadProject(f)
	require.NoError(t, err, "fixture %s", name)
	return p
}

// fixtureEnv is the environment a fixture case runs in: the fixture's users
// and languages, the case's context and edition.
func fixtureEnv(t testing.TB, p *schema.Project, c corpus.Case) *croql.Env {
	t.Helper()
	var langs []string
	for _, l := range p.Languages {
		langs = append(langs, l.ID)
	}
	ed := croql.Standard
	if c.Edition() == "enterprise" {
		ed = croql.Enterprise
	}
	env, err := croql.NewEnv(c.Context(), croql.WithUserIDs(p.UserIDs()), croql.WithLanguages(langs...), croql.WithEdition(ed))
	require.NoError(t, err)
	return env
}

// wantIDs reads a case's `ids:` key: ids in ascending order, or "none".
func wantIDs(t testing.TB, c corpus.Case) []int64 {
	t.Helper()
	require.True(t, c.Has("ids"), "%s: a fixture case needs ids:", c.Where())
	v := c.Get("ids")
	if v == "none" {
		return nil
	}
	var ids []int64
	for _, f := range strings.Fields(v) {
		id, err := strconv.ParseInt(f, 10, 64)
		require.NoError(t, err, "%s: ids", c.Where())
		ids = append(ids, id)
	}
	require.True(t, slices.IsSorted(ids), "%s: ids in ascending order", c.Where())
	require.Len(t, slices.Compact(slices.Clone(ids)), len(ids), "%s: ids without repeats", c.Where())
	return ids
}

// fixtureCases returns every corpus case that names a fixture.
func fixtureCases(t testing.TB) []corpus.Case {
	t.Helper()
	all, err := corpus.Load(filepath.Join("testdata", "corpus"))
	require.NoError(t, err)
	var cases []corpus.Case
	for _, c := range all {
		if c.Has("fixture") {
			cases = append(cases, c)
		}
	}
	require.NotEmpty(t, cases)
	return cases
}

// TestFixtureCases runs every fixture case of the corpus through the facade
// and compares the matching ids with the ids worked out by hand.
func TestFixtureCases(t *testing.T) {
	projects := map[string]*schema.Project{}
	for _, c := range fixtureCases(t) {
		t.Run(c.Name, func(t *testing.T) {
			name := c.Get("fixture")
			p, ok := projects[name]
			if !ok {
				p = loadFixture(t, name)
				projects[name] = p
			}
			env := fixtureEnv(t, p, c)
			q, diags := env.Compile(c.Query())
			require.False(t, diags.HasErrors(), "%s: %v", c.Where(), diags)
			require.NotNil(t, q)
			var got []int64
			for _, o := range p.Objects(env.Context()) {
				if mustMatch(t, q, o) {
					id, ok := schema.ObjectID(o)
					require.True(t, ok)
					got = append(got, id)
				}
			}
			slices.Sort(got)
			assert.Equal(t, wantIDs(t, c), got, "%s: %s", c.Where(), c.Query())
		})
	}
}

// TestFixtureCoversSeedPatterns: every seed pattern has a fixture case with
// the same query and context that selects some objects but not all.
func TestFixtureCoversSeedPatterns(t *testing.T) {
	seeds, err := corpus.LoadFile(filepath.Join("testdata", "corpus", "seed_patterns.txt"))
	require.NoError(t, err)
	byName := map[string]corpus.Case{}
	for _, c := range fixtureCases(t) {
		byName[c.Name] = c
	}
	p := loadFixture(t, "small")
	cat := schema.New()
	for _, s := range seeds {
		f, ok := byName["fixture-"+s.Name]
		if !assert.True(t, ok, "seed case %s has no fixture-%s case", s.Name, s.Name) {
			continue
		}
		assert.Equal(t, s.Query(), f.Query(), "fixture-%s: the seed's query", s.Name)
		assert.Equal(t, s.Context(), f.Context(), "fixture-%s: the seed's context", s.Name)
		assert.Equal(t, "small", f.Get("fixture"))
		ctx, ok := cat.Context(f.Context())
		require.True(t, ok)
		n := len(wantIDs(t, f))
		assert.Positive(t, n, "fixture-%s selects nothing", s.Name)
		assert.Less(t, n, len(p.Objects(ctx)), "fixture-%s selects everything", s.Name)
	}
}

// TestFixtureSmallFollowsTheSummaryRules holds the hand-written languages
// summaries of small.json to the rules of docs/data-format.md, as the
// demo generator computes them (demo.Summarize). The QA flags a QA check
// would set (all but empty translation and length) are the fixture's own
// choice; has qa issues must still be their disjunction.
func TestFixtureSmallFollowsTheSummaryRules(t *testing.T) {
	p := loadFixture(t, "small")
	plural := map[string][]string{}
	for _, l := range p.Languages {
		plural[l.ID] = l.PluralCategoryNames
	}
	for i := range p.Strings {
		s := &p.Strings[i]
		var want []schema.LanguageSummary
		for _, lang := range p.TargetLanguages {
			if l, ok := demo.Summarize(s, lang, plural[lang]); ok {
				want = append(want, l)
			}
		}
		got := slices.Clone(s.LanguagesSummary)
		for j := range got {
			g := &got[j]
			assert.Equal(t, demo.AnyQAIssue(g), g.HasQAIssues, "string %d %s: has qa issues", s.ID, g.Language)
			// Keep only what Summarize derives.
			empty, length := g.HasEmptyTranslationQAIssues, g.HasTranslationLengthQAIssues
			clearQA(g)
			g.HasEmptyTranslationQAIssues, g.HasTranslationLengthQAIssues = empty, length
			g.HasQAIssues = empty || length
		}
		if len(want) == 0 && len(got) == 0 {
			continue
		}
		assert.Equal(t, want, got, "string %d: languages summary", s.ID)
	}
}

// clearQA clears every has…QaIssues flag of l.
func clearQA(l *schema.LanguageSummary) {
	v := reflect.ValueOf(l).Elem()
	for i := range v.NumField() {
		if f := v.Type().Field(i); strings.HasPrefix(f.Name, "Has") && strings.HasSuffix(f.Name, "QAIssues") {
			v.Field(i).SetBool(false)
		}
	}
}

// TestFixtureSmallShape pins the facts the hand-worked cases rely on, so an
// edit of the data that would silently change their answers fails here.
func TestFixtureSmallShape(t *testing.T) {
	p := loadFixture(t, "small")
	assert.Equal(t, map[string]int64{"alice": 1, "bob": 2, "carol": 3, "dave": 4}, p.UserIDs())
	assert.Equal(t, []string{"de", "fr", "uk"}, p.TargetLanguages)
	assert.Len(t, p.Strings, 13)
	assert.Len(t, p.Translations(), 22, "the translations context counts shared translations once")
	assert.Len(t, p.TMSegments, 5)
	assert.Len(t, p.GlossaryTerms, 7)
	assert.Len(t, p.GlossaryConcepts, 3)
	for i, s := range p.Strings {
		assert.Equal(t, int64(i+1), s.ID, "strings are numbered 1..13 in order")
		if s.File != nil {
			assert.Same(t, s.File, fileByID(p, s.File.ID), "string %d links to the project's file", s.ID)
		}
	}
	// The shared translations of duplicates 7 and 8 are string 6's.
	for _, id := range []int{7, 8} {
		for _, tr := range p.Strings[id-1].Translations {
			if tr.StringID != int64(id) {
				assert.Equal(t, int64(6), tr.StringID)
				assert.True(t, slices.ContainsFunc(p.Strings[5].Translations, func(m schema.Translation) bool {
					return reflect.DeepEqual(m, tr)
				}), "string %d shares translation %d as string 6 has it", id, tr.ID)
			}
		}
	}
}

func fileByID(p *schema.Project, id int64) *schema.File {
	for i := range p.Files {
		if p.Files[i].ID == id {
			return &p.Files[i]
		}
	}
	return nil
}
