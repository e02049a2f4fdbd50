package fuzz

import (
	"encoding/json"
	"fmt"
	"math/rand"
	"reflect"
	"slices"

	"github.com/leanovate/gopter"

	"github.com/croql/croql/schema"
)

// Data is a generated project. Its String form is the compact JSON of the
// objects (the directory of users, languages, files and branches left out),
// which is what a failing property prints.
type Data struct {
	P *schema.Project
}

func (d Data) String() string {
	if d.P == nil {
		return "<no data>"
	}
	v := struct {
		Strings  []schema.SourceString    `json:"strings,omitempty"`
		TM       []schema.TMSegment       `json:"tmSegments,omitempty"`
		Terms    []schema.GlossaryTerm    `json:"glossaryTerms,omitempty"`
		Concepts []schema.GlossaryConcept `json:"glossaryConcepts,omitempty"`
	}{d.P.Strings, d.P.TMSegments, d.P.GlossaryTerms, d.P.GlossaryConcepts}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprintf("<data: %v>", err)
	}
	return string(b)
}

// GenProject generates small projects: up to four source strings, three
// TM segments, three glossary terms and three concepts, with absent values
// (nil pointers, no file or branch), empty collections and now and then a
// large one, text made of Unicode pieces that case folding and byte order
// treat specially, user ids inside and outside the directory of [Users],
// and boundary datetimes. The shrinker empties and removes collection
// elements, one at a time.
func GenProject() gopter.Gen {
	return func(params *gopter.GenParameters) *gopter.GenResult {
		d := &dataGen{r: params.Rng, pools: newPools()}
		return gopter.NewGenResult(Data{P: d.project()}, shrinkData)
	}
}

type dataGen struct {
	r     *rand.Rand
	pools *pools
	ids   int64
}

func (d *dataGen) chance(p float64) bool { return d.r.Float64() < p }

func (d *dataGen) id() int64 { d.ids++; return d.ids }

func dpick[T any](d *dataGen, xs []T) T { return xs[d.r.Intn(len(xs))] }

func (d *dataGen) text() string { return d.pools.text(d.r) }

func (d *dataGen) optText() *string {
	if d.chance(0.3) {
		return nil
	}
	s := d.text()
	return &s
}

func (d *dataGen) time() schema.Time { return dpick(d, d.pools.times) }

func (d *dataGen) optTime() *schema.Time {
	if d.chance(0.3) {
		return nil
	}
	t := d.time()
	return &t
}

func (d *dataGen) user() int64 {
	if d.chance(0.1) {
		return unknownUser
	}
	return dpick(d, d.pools.users).ID
}

func (d *dataGen) smallInt() int64 { return dpick(d, d.pools.smallInts) }

// size is the length of a collection: mostly empty or short, rarely
// large. nested collections (votes of a translation) stay short.
func (d *dataGen) size(nested bool) int {
	switch {
	case d.chance(0.3):
		return 0
	case !nested && d.chance(0.05):
		return 10 + d.r.Intn(30)
	default:
		return 1 + d.r.Intn(3)
	}
}

func (d *dataGen) enum(values []string) *string {
	switch {
	case d.chance(0.2):
		return nil
	case d.chance(0.05):
		s := "unknown_value" // the platform adds values over time
		return &s
	}
	s := dpick(d, values)
	return &s
}

// subset returns distinct elements of xs, in random order.
func subset[T any](d *dataGen, xs []T, n int) []T {
	idx := d.r.Perm(len(xs))
	out := make([]T, 0, min(n, len(xs)))
	for _, i := range idx[:min(n, len(xs))] {
		out = append(out, xs[i])
	}
	return out
}

func (d *dataGen) project() *schema.Project {
	p := &schema.Project{
		Name:            "fuzz",
		SourceLanguage:  "en",
		TargetLanguages: slices.Clone(d.pools.languages),
		Users:           slices.Clone(d.pools.users),
	}
	for _, code := range append([]string{"en"}, d.pools.languages...) {
		p.Languages = append(p.Languages, schema.LanguageInfo{ID: code, Name: code, PluralCategoryNames: []string{"one", "other"}})
	}
	for i := range 2 {
		p.Files = append(p.Files, schema.File{ID: int64(i + 1), Name: d.text(), Title: d.optText(), Type: dpick(d, []string{"json", "android", "xliff"}), Context: d.text()})
		p.Branches = append(p.Branches, schema.Branch{ID: int64(i + 1), Name: d.text(), Title: d.optText()})
	}
	labels := make([]schema.Label, 3)
	for i := range labels {
		labels[i] = schema.Label{ID: int64(i + 1), Title: d.text(), IsSystem: d.chance(0.3)}
	}
	for i := range d.r.Intn(5) {
		p.Strings = append(p.Strings, d.sourceString(p, int64(i+1), labels))
	}
	for i := range d.r.Intn(4) {
		p.TMSegments = append(p.TMSegments, d.segment(int64(i+1)))
	}
	for i := range d.r.Intn(4) {
		p.GlossaryConcepts = append(p.GlossaryConcepts, schema.GlossaryConcept{
			ID: int64(i + 1), User: d.user(), Subject: d.text(), Definition: d.text(), URL: d.text(), Note: d.text(),
			Translatable: d.chance(0.5), CreatedAt: d.time(), UpdatedAt: d.optTime(),
		})
	}
	for i := range d.r.Intn(4) {
		p.GlossaryTerms = append(p.GlossaryTerms, schema.GlossaryTerm{
			ID: int64(i + 1), User: d.user(), ConceptID: d.smallInt(), Text: d.text(), Description: d.text(),
			Note: d.text(), Lemma: d.text(), URL: d.text(), Language: dpick(d, d.pools.languages),
			PartOfSpeech: d.enum(schema.PartsOfSpeech()), Status: d.enum(schema.TermStatuses()),
			Type: d.enum(schema.TermTypes()), Gender: d.enum(schema.TermGenders()),
			CreatedAt: d.time(), UpdatedAt: d.optTime(),
		})
	}
	return p
}

func (d *dataGen) sourceString(p *schema.Project, id int64, labels []schema.Label) schema.SourceString {
	s := schema.SourceString{
		ID: id, Type: dpick(d, schema.StringTypes()), Text: d.text(), Identifier: d.text(), Context: d.text(),
		IsHidden: d.chance(0.5), IsDuplicate: d.chance(0.3), IsPassedWorkflow: d.chance(0.5),
		Added: d.time(), Updated: d.optTime(),
	}
	if d.chance(0.7) {
		n := d.smallInt()
		s.MaxLength = &n
	}
	if d.chance(0.75) {
		s.File = &p.Files[d.r.Intn(len(p.Files))]
	}
	if d.chance(0.5) {
		s.Branch = &p.Branches[d.r.Intn(len(p.Branches))]
	}
	for range d.size(false) {
		c := schema.Comment{ID: d.id(), Text: d.text(), User: d.user(), HasIssue: d.chance(0.5), Added: d.time()}
		c.HasUnresolvedIssue = c.HasIssue && d.chance(0.5)
		s.Comments = append(s.Comments, c)
	}
	for range d.size(false) {
		s.Screenshots = append(s.Screenshots, schema.Screenshot{ID: d.id(), Name: d.text()})
	}
	for range d.size(false) {
		s.Translations = append(s.Translations, d.translation(id))
	}
	for _, lang := range subset(d, d.pools.languages, d.size(true)) {
		s.LanguagesSummary = append(s.LanguagesSummary, d.summary(lang))
	}
	s.Labels = subset(d, labels, d.size(true))
	for range d.size(true) {
		s.Fields = append(s.Fields, schema.CustomField{Name: d.text(), Slug: d.text(), Value: d.text(), Type: dpick(d, []string{"text", "select", "checkbox"})})
	}
	return s
}

func (d *dataGen) translation(stringID int64) schema.Translation {
	t := schema.Translation{
		ID: d.id(), StringID: stringID, Text: d.text(), PluralForm: dpick(d, schema.PluralForms()),
		IsPreTranslated: d.chance(0.3), Provider: d.enum(schema.Providers()), Language: dpick(d, d.pools.languages),
		User: d.user(), Added: d.time(), Updated: d.time(),
	}
	for range d.size(true) {
		t.Votes = append(t.Votes, schema.Vote{Mark: dpick(d, []string{"up", "down"}), User: d.user(), Added: d.time()})
	}
	for range d.size(true) {
		t.Approvals = append(t.Approvals, schema.Approval{User: d.user(), Added: d.time()})
	}
	return t
}

// summary fills every bool of a languages summary element at random, by
// reflection, so that fields added later are covered too.
func (d *dataGen) summary(lang string) schema.LanguageSummary {
	l := schema.LanguageSummary{Language: lang, TranslationUpdated: d.optTime(), Rating: d.smallInt() - 5, ApprovalsCount: d.smallInt()}
	v := reflect.ValueOf(&l).Elem()
	for i := range v.NumField() {
		if f := v.Field(i); f.Kind() == reflect.Bool {
			f.SetBool(d.chance(0.4))
		}
	}
	return l
}

func (d *dataGen) segment(id int64) schema.TMSegment {
	seg := schema.TMSegment{ID: id}
	for range d.size(false) {
		seg.Records = append(seg.Records, schema.TMRecord{
			ID: d.id(), Language: dpick(d, d.pools.languages), Text: d.text(), UsageCount: d.smallInt(),
			CreatedBy: d.user(), UpdatedBy: d.user(), CreatedAt: d.time(), UpdatedAt: d.time(),
		})
	}
	return seg
}

// ---- shrinking ----

// shrinkData offers projects with one collection emptied, then with one
// element removed, everywhere but the directory lists (users, languages,
// files, branches) that objects refer to.
func shrinkData(v any) gopter.Shrink {
	d, ok := v.(Data)
	if !ok || d.P == nil {
		return gopter.NoShrink
	}
	n := len(removalSites(reflect.ValueOf(d.P).Elem()))
	k := 0
	return func() (any, bool) {
		for k < n {
			cp := deepCopy(reflect.ValueOf(d.P).Elem())
			p := reflect.New(cp.Type())
			p.Elem().Set(cp)
			sites := removalSites(p.Elem())
			s := sites[k]
			k++
			if s.apply() {
				return Data{P: p.Interface().(*schema.Project)}, true
			}
		}
		return nil, false
	}
}

// site is one shrinking step: empty a slice (i < 0) or remove element i.
type site struct {
	slice reflect.Value // addressable
	i     int
}

func (s site) apply() bool {
	n := s.slice.Len()
	if s.i < 0 {
		if n <= 1 {
			return false // removing the one element is the same candidate
		}
		s.slice.Set(reflect.Zero(s.slice.Type()))
		return true
	}
	out := reflect.MakeSlice(s.slice.Type(), 0, n-1)
	out = reflect.AppendSlice(out, s.slice.Slice(0, s.i))
	out = reflect.AppendSlice(out, s.slice.Slice(s.i+1, n))
	s.slice.Set(out)
	return true
}

// directory reports whether a Project field is a list objects refer to,
// never shrunk.
func directory(name string) bool {
	switch name {
	case "Users", "Languages", "Files", "Branches", "TargetLanguages":
		return true
	}
	return false
}

// removalSites lists, in a fixed order, every shrinking step of v (an
// addressable struct): for each slice of structs, emptying it, then
// removing each element, outer collections before inner ones.
func removalSites(v reflect.Value) []site {
	var out, inner []site
	t := v.Type()
	for i := range v.NumField() {
		if t == reflect.TypeFor[schema.Project]() && directory(t.Field(i).Name) {
			continue
		}
		f := v.Field(i)
		if f.Kind() != reflect.Slice || f.Type().Elem().Kind() != reflect.Struct {
			continue
		}
		out = append(out, site{f, -1})
		for j := range f.Len() {
			out = append(out, site{f, j})
			inner = append(inner, removalSites(f.Index(j))...)
		}
	}
	return append(out, inner...)
}

// deepCopy copies structs and slices of v; pointers are shared (generated
// data never writes through them).
func deepCopy(v reflect.Value) reflect.Value {
	switch v.Kind() {
	case reflect.Slice:
		if v.IsNil() {
			return v
		}
		out := reflect.MakeSlice(v.Type(), v.Len(), v.Len())
		for i := range v.Len() {
			out.Index(i).Set(deepCopy(v.Index(i)))
		}
		return out
	case reflect.Struct:
		out := reflect.New(v.Type()).Elem()
		out.Set(v)
		for i := range v.NumField() {
			if k := v.Field(i).Kind(); k == reflect.Slice || k == reflect.Struct {
				out.Field(i).Set(deepCopy(v.Field(i)))
			}
		}
		return out
	}
	return v
}
