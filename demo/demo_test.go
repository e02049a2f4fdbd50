package demo_test

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/croql/croql/demo"
	"github.com/croql/croql/schema"
)

var update = flag.Bool("update", false, "rewrite testdata/demo/project.json from the generator")

func itoa(n int) string { return strconv.Itoa(n) }

var goldenPath = filepath.Join("..", "testdata", "demo", "project.json")

// TestGolden fails when testdata/demo/project.json differs from the
// generator's default project. Regenerate with
//
//	go run ./cmd/croql demo --strings 60 --seed 1 > testdata/demo/project.json
//
// or go test ./demo -run TestGolden -update.
func TestGolden(t *testing.T) {
	var buf bytes.Buffer
	require.NoError(t, demo.Default().WriteJSON(&buf))
	if *update {
		require.NoError(t, os.WriteFile(goldenPath, buf.Bytes(), 0o644))
	}
	want, err := os.ReadFile(goldenPath)
	require.NoError(t, err)
	if !bytes.Equal(want, buf.Bytes()) {
		t.Fatalf("%s is stale: regenerate it with `go run ./cmd/croql demo --strings 60 --seed 1 > testdata/demo/project.json`", goldenPath)
	}
	// The committed file reads back to the same project.
	p, err := schema.ReadProject(bytes.NewReader(want))
	require.NoError(t, err)
	assert.Equal(t, demo.Default(), p)
}

func TestDeterministic(t *testing.T) {
	a := demo.Generate(demo.Options{Strings: 300, Seed: 7})
	b := demo.Generate(demo.Options{Strings: 300, Seed: 7})
	assert.Equal(t, a, b)
	c := demo.Generate(demo.Options{Strings: 300, Seed: 8})
	assert.NotEqual(t, a.Strings, c.Strings)
	// A larger project starts with the same strings' texts and keys.
	d := demo.Generate(demo.Options{Strings: 310, Seed: 7})
	for i := range a.Strings {
		assert.Equal(t, a.Strings[i].Identifier, d.Strings[i].Identifier)
	}
	assert.Empty(t, demo.Generate(demo.Options{Strings: 0, Seed: 1}).Strings)
	assert.Empty(t, demo.Generate(demo.Options{Strings: -5, Seed: 1}).Strings)
}

func TestShape(t *testing.T) {
	p := demo.Default()
	require.Len(t, p.Strings, 60)
	logins := p.UserIDs()
	for _, l := range []string{"alice", "bob", "carol", "dave", "erin", "frank", "grace", "heidi"} {
		assert.Contains(t, logins, l)
	}
	plural := map[string][]string{}
	for _, l := range p.Languages {
		plural[l.ID] = l.PluralCategoryNames
	}
	assert.Equal(t, []string{"one", "few", "many", "other"}, plural["uk"])
	assert.Equal(t, []string{"other"}, plural["ja"])
	assert.Equal(t, []string{"one", "other"}, plural["de"])
	assert.GreaterOrEqual(t, len(p.TargetLanguages), 4)
	assert.LessOrEqual(t, len(p.TargetLanguages), 6)

	types := map[string]int{}
	ids := map[string]bool{}
	for _, s := range p.Strings {
		types[s.Type]++
		assert.False(t, ids[s.Identifier], "identifier %s repeats", s.Identifier)
		ids[s.Identifier] = true
	}
	for _, ty := range schema.StringTypes() {
		assert.Positive(t, types[ty], "no %s string", ty)
	}
	providers := map[string]bool{}
	for _, tr := range p.Translations() {
		if tr.Provider == nil {
			providers["human"] = true
		} else {
			providers[*tr.Provider] = true
		}
	}
	for _, want := range []string{"tm", "global_tm", "deepl", "google", "custom_mt", "ai", "human"} {
		assert.True(t, providers[want], "no translation from %s", want)
	}
	assert.True(t, ids["checkout.button.pay"])

	var unicode struct{ emoji, cjk, accent bool }
	for _, s := range p.Strings {
		for _, tr := range s.Translations {
			for _, r := range tr.Text + s.Text {
				switch {
				case r >= 0x1F300:
					unicode.emoji = true
				case r >= 0x3040 && r <= 0x9FFF:
					unicode.cjk = true
				case r >= 0xC0 && r <= 0x17F:
					unicode.accent = true
				}
			}
		}
	}
	assert.True(t, unicode.emoji && unicode.cjk && unicode.accent, "%+v", unicode)
}

// inRange checks every datetime of the project lies in 2023-2025.
func TestTimesInRange(t *testing.T) {
	p := demo.Default()
	var walk func(v reflect.Value)
	n := 0
	walk = func(v reflect.Value) {
		switch v.Kind() {
		case reflect.Pointer:
			if !v.IsNil() {
				walk(v.Elem())
			}
		case reflect.Slice:
			for i := range v.Len() {
				walk(v.Index(i))
			}
		case reflect.Struct:
			for i := range v.NumField() {
				walk(v.Field(i))
			}
		case reflect.Int64:
			if v.Type() == reflect.TypeFor[schema.Time]() {
				n++
				tm := schema.Time(v.Int())
				assert.True(t, tm >= demo.MinTime && tm <= demo.MaxTime, "time %v", tm)
			}
		}
	}
	walk(reflect.ValueOf(p))
	assert.Greater(t, n, 500)
}

func TestSummaryConsistent(t *testing.T) {
	for _, opts := range []demo.Options{demo.DefaultOptions(), {Strings: 2000, Seed: 42}} {
		p := demo.Generate(opts)
		plural := map[string][]string{}
		for _, l := range p.Languages {
			plural[l.ID] = l.PluralCategoryNames
		}
		byID := map[int64]*schema.SourceString{}
		for i := range p.Strings {
			byID[p.Strings[i].ID] = &p.Strings[i]
		}
		for i := range p.Strings {
			checkString(t, &p.Strings[i], plural, byID)
		}
	}
}

func checkString(t *testing.T, s *schema.SourceString, plural map[string][]string, byID map[int64]*schema.SourceString) {
	t.Helper()
	byLang := map[string][]schema.Translation{}
	for _, tr := range s.Translations {
		require.NotEmpty(t, tr.Language)
		byLang[tr.Language] = append(byLang[tr.Language], tr)
		if tr.StringID != s.ID {
			require.True(t, s.IsDuplicate, "string %d lists translation %d of string %d", s.ID, tr.ID, tr.StringID)
			m := byID[tr.StringID]
			require.NotNil(t, m)
			assert.False(t, m.IsDuplicate)
			assert.Equal(t, m.Text, s.Text)
		}
		if s.Type == "plural" {
			assert.Contains(t, plural[tr.Language], tr.PluralForm)
		} else {
			assert.Equal(t, "none", tr.PluralForm)
		}
		assert.False(t, tr.IsPreTranslated && tr.Provider == nil, "a person's translation is not pre-translated")
	}
	for _, c := range s.Comments {
		assert.False(t, c.HasUnresolvedIssue && !c.HasIssue)
	}
	langs := map[string]bool{}
	for _, l := range s.LanguagesSummary {
		assert.False(t, langs[l.Language], "string %d: two summaries of %s", s.ID, l.Language)
		langs[l.Language] = true
		trs := byLang[l.Language]
		require.NotEmpty(t, trs, "string %d: summary of %s without translations", s.ID, l.Language)

		var approvals int64
		approvedForms, translatedForms := map[string]bool{}, map[string]bool{}
		edited := false
		maxApprovals := 0
		for _, tr := range trs {
			approvals += int64(len(tr.Approvals))
			translatedForms[tr.PluralForm] = true
			if len(tr.Approvals) > 0 {
				approvedForms[tr.PluralForm] = true
			}
			edited = edited || tr.Updated > tr.Added
			maxApprovals = max(maxApprovals, len(tr.Approvals))
		}
		forms := 1
		if s.Type == "plural" {
			forms = len(plural[l.Language])
		}
		assert.Equal(t, approvals, l.ApprovalsCount, "string %d %s approvalsCount", s.ID, l.Language)
		assert.Equal(t, len(approvedForms) == forms, l.IsApproved, "string %d %s is approved", s.ID, l.Language)
		assert.Equal(t, len(approvedForms) > 0 && len(approvedForms) < forms, l.IsPartiallyApproved)
		assert.Equal(t, len(translatedForms) == forms, l.IsTranslated)
		assert.Equal(t, len(translatedForms) < forms, l.IsPartiallyTranslated)
		assert.Equal(t, edited, l.TranslationUpdated != nil)

		ti := demo.Top(s, l.Language)
		require.GreaterOrEqual(t, ti, 0)
		top := s.Translations[ti]
		assert.Equal(t, l.Language, top.Language)
		assert.Equal(t, maxApprovals, len(top.Approvals), "the top translation is the most approved")
		var up, down int64
		for _, v := range top.Votes {
			switch v.Mark {
			case "up":
				up++
			case "down":
				down++
			default:
				t.Errorf("vote mark %q", v.Mark)
			}
		}
		assert.Equal(t, up-down, l.Rating, "string %d %s rating", s.ID, l.Language)
		prov := ""
		if top.Provider != nil {
			prov = *top.Provider
		}
		assert.Equal(t, prov == "tm" || prov == "global_tm", l.IsTranslatedByTM)
		assert.Equal(t, slices.Contains(schema.MTProviders(), prov), l.IsTranslatedByMT)
		assert.Equal(t, prov == "ai", l.IsTranslatedByAI)
		assert.Equal(t, prov != "", l.IsAutoTranslated)
		assert.Equal(t, top.Text == s.Text, l.HasTranslationAsSource)
		assert.Equal(t, top.Text == "", l.HasEmptyTranslationQAIssues)
		assert.Equal(t, s.IsDuplicate && top.StringID != s.ID, l.HasSharedTranslation)
		assert.Equal(t, demo.AnyQAIssue(&l), l.HasQAIssues)
		assert.Equal(t, s.Updated != nil && *s.Updated > top.Updated, l.IsSourceChangedAfterTranslation)
	}
	for lang := range byLang {
		assert.True(t, langs[lang], "string %d: no summary of %s", s.ID, lang)
	}
}

// observation records what values a catalog field takes over a project.
type observation struct {
	values          map[any]bool
	nils, present   int
	empty, nonEmpty int
}

func observe(o *schema.Object, v reflect.Value, seen map[*schema.Field]*observation) {
	for _, f := range o.Fields {
		ob := seen[f]
		if ob == nil {
			ob = &observation{values: map[any]bool{}}
			seen[f] = ob
		}
		fv := v.FieldByName(f.GoName)
		switch {
		case f.Equals != "":
			ob.values[fv.String() == f.Equals] = true
		case f.Negate:
			ob.values[!fv.Bool()] = true
		case f.Type.Kind == schema.Collection:
			if fv.Len() == 0 {
				ob.empty++
			}
			if fv.Len() > 0 {
				ob.nonEmpty++
			}
			for i := range fv.Len() {
				observe(f.Type.Obj, fv.Index(i), seen)
			}
		case fv.Kind() == reflect.Pointer:
			if fv.IsNil() {
				ob.nils++
				continue
			}
			ob.present++
			if f.Type.Kind == schema.Record {
				observe(f.Type.Obj, fv.Elem(), seen)
			} else {
				ob.values[fv.Elem().Interface()] = true
			}
		default:
			ob.values[fv.Interface()] = true
		}
	}
}

// TestDefaultExercisesEveryField checks that every field of every context
// takes varied values in the default project: both truth values for bools,
// absent and present values for nullable fields, empty and non-empty
// collections, and two values or more for everything else.
func TestDefaultExercisesEveryField(t *testing.T) {
	p := demo.Default()
	cat := schema.New()
	seen := map[*schema.Field]*observation{}
	for _, ctx := range cat.Contexts {
		objs := p.Objects(ctx)
		require.NotEmpty(t, objs, ctx.Name)
		for _, obj := range objs {
			observe(ctx.Root, reflect.ValueOf(obj).Elem(), seen)
		}
	}
	for _, o := range cat.Objects {
		if o == cat.UserObj {
			continue // users are ids in the data; the directory is p.Users
		}
		for _, f := range o.Fields {
			ob := seen[f]
			if !assert.NotNil(t, ob, "%s.%s never seen", o.Name, f.Name) {
				continue
			}
			name := o.Name + "." + f.Name
			switch {
			case f.Type.Kind == schema.Collection:
				assert.Positive(t, ob.empty, "%s: never empty", name)
				assert.Positive(t, ob.nonEmpty, "%s: never non-empty", name)
			case f.Type.Kind == schema.Record:
				assert.Positive(t, ob.nils, "%s: never absent", name)
				assert.Positive(t, ob.present, "%s: never present", name)
			case f.Type.Kind == schema.Bool:
				assert.Len(t, ob.values, 2, "%s: not both true and false", name)
			default:
				assert.GreaterOrEqual(t, len(ob.values), 2, "%s: a single value %v", name, ob.values)
				if f.Nullable {
					assert.Positive(t, ob.nils, "%s: never absent", name)
					assert.Positive(t, ob.present, "%s: never present", name)
				}
			}
		}
	}
	// Users: ids that data refers to are in the directory.
	logins := p.UserLogins()
	for _, tr := range p.Translations() {
		assert.Contains(t, logins, tr.User)
	}
}

func TestTranslationsContext(t *testing.T) {
	p := demo.Default()
	cat := schema.New()
	ctx, _ := cat.Context("translations")
	objs := p.Objects(ctx)
	ids := map[int64]bool{}
	own := 0
	for _, s := range p.Strings {
		for _, tr := range s.Translations {
			if tr.StringID == s.ID {
				own++
			}
		}
	}
	require.Len(t, objs, own)
	for _, o := range objs {
		tr := o.(*schema.Translation)
		assert.False(t, ids[tr.ID], "translation %d listed twice", tr.ID)
		ids[tr.ID] = true
		assert.NotEmpty(t, tr.Language)
		assert.NotZero(t, tr.StringID)
	}
}

func TestStreamMatchesGenerate(t *testing.T) {
	for _, opts := range []demo.Options{demo.DefaultOptions(), {Strings: 500, Seed: 11}, {Strings: 0, Seed: 1}} {
		var buf bytes.Buffer
		require.NoError(t, demo.Stream(opts, schema.NewNDJSONWriter(&buf)))
		got, err := schema.ReadProject(&buf)
		require.NoError(t, err)
		want := demo.Generate(opts)
		// Streamed strings hold their own copies of files and branches.
		assert.Equal(t, want, got)
	}
}
