// Package demo generates a realistic, deterministic localization project to
// query: users, languages with plural categories, files and branches,
// plain, plural, ICU and asset strings with comments, screenshots, labels,
// custom fields and translations from people, TMs, MT engines and AI, with
// votes and approvals and a languages summary consistent with them, TM
// segments, and a glossary.
//
// The same Options always give the same project. [Default] is the built-in
// demo project that testdata/demo/project.json holds.
package demo

import (
	"math/rand/v2"
	"slices"
	"strconv"
	"unicode/utf8"

	"github.com/croql/croql/schema"
)

// Options shape a generated project.
type Options struct {
	// Strings is the number of source strings (0 or less gives none).
	Strings int
	// Seed selects the project; the same seed gives the same project.
	Seed int64
	// Progress, when not nil, is called now and then while the strings
	// are generated, with how many of total are done, and once at the end
	// with done == total. It does not change the project.
	Progress func(done, total int)
}

// progressEvery is how many strings are generated between two calls of
// Options.Progress.
const progressEvery = 1024

func (o Options) progress(done, total int) {
	if o.Progress != nil && (done%progressEvery == 0 || done == total) {
		o.Progress(done, total)
	}
}

// DefaultOptions returns the options of the built-in demo project:
// 60 strings, seed 1.
func DefaultOptions() Options { return Options{Strings: 60, Seed: 1} }

// Default returns the built-in demo project: Generate(DefaultOptions()).
func Default() *schema.Project { return Generate(DefaultOptions()) }

// Every instant of the project lies in [MinTime, MaxTime].
const (
	MinTime schema.Time = 1672531200 // 2023-01-01 00:00:00 UTC
	MaxTime schema.Time = 1767225599 // 2025-12-31 23:59:59 UTC
)

const day = 24 * 60 * 60

// Generate builds a project of opts.Strings source strings, about a third
// as many TM segments, and a glossary of about a tenth as many concepts
// with a term in each language.
func Generate(opts Options) *schema.Project {
	n := max(opts.Strings, 0)
	p := header()
	g := newStringGen(opts.Seed, p)
	p.Strings = make([]schema.SourceString, n)
	for i := range p.Strings {
		opts.progress(i, n)
		g.fill(&p.Strings[i], i)
	}
	opts.progress(n, n)
	nTM, nConcepts := sizes(n)
	p.TMSegments = make([]schema.TMSegment, 0, nTM)
	_ = genTM(opts.Seed, nTM, func(seg *schema.TMSegment) error {
		p.TMSegments = append(p.TMSegments, *seg)
		return nil
	})
	p.GlossaryConcepts = make([]schema.GlossaryConcept, 0, nConcepts)
	p.GlossaryTerms = make([]schema.GlossaryTerm, 0, nConcepts*(1+len(targetLangs)))
	_ = genGlossary(opts.Seed, nConcepts, func(c *schema.GlossaryConcept, terms []schema.GlossaryTerm) error {
		p.GlossaryConcepts = append(p.GlossaryConcepts, *c)
		p.GlossaryTerms = append(p.GlossaryTerms, terms...)
		return nil
	})
	if n == 0 { // empty collections are nil, as a reader gives them
		p.Strings, p.TMSegments, p.GlossaryConcepts, p.GlossaryTerms = nil, nil, nil, nil
	}
	return p
}

// Stream writes the project Generate(opts) would build to w, one object
// at a time, without holding it in memory: memory stays flat however many
// strings are asked for. Reading the output back gives Generate(opts); only
// the order of concept and term lines differs from WriteNDJSON's. It
// flushes w at the end.
func Stream(opts Options, w *schema.NDJSONWriter) error {
	n := max(opts.Strings, 0)
	p := header()
	if err := w.Header(p); err != nil {
		return err
	}
	for _, list := range []any{p.Users, p.Languages, p.Files, p.Branches} {
		if err := writeEach(w, list); err != nil {
			return err
		}
	}
	g := newStringGen(opts.Seed, p)
	for i := range n {
		opts.progress(i, n)
		s := new(schema.SourceString)
		g.fill(s, i)
		if err := w.Write(s); err != nil {
			return err
		}
	}
	opts.progress(n, n)
	nTM, nConcepts := sizes(n)
	if err := genTM(opts.Seed, nTM, func(seg *schema.TMSegment) error { return w.Write(seg) }); err != nil {
		return err
	}
	err := genGlossary(opts.Seed, nConcepts, func(c *schema.GlossaryConcept, terms []schema.GlossaryTerm) error {
		if err := w.Write(c); err != nil {
			return err
		}
		for i := range terms {
			if err := w.Write(&terms[i]); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	return w.Flush()
}

func writeEach(w *schema.NDJSONWriter, list any) error {
	switch l := list.(type) {
	case []schema.UserRef:
		for i := range l {
			if err := w.Write(&l[i]); err != nil {
				return err
			}
		}
	case []schema.LanguageInfo:
		for i := range l {
			if err := w.Write(&l[i]); err != nil {
				return err
			}
		}
	case []schema.File:
		for i := range l {
			if err := w.Write(&l[i]); err != nil {
				return err
			}
		}
	case []schema.Branch:
		for i := range l {
			if err := w.Write(&l[i]); err != nil {
				return err
			}
		}
	}
	return nil
}

// sizes returns how many TM segments and glossary concepts a project of n
// strings has.
func sizes(n int) (tm, glossary int) {
	return max(n/3, min(n, 10)), max(n/10, min(n, len(concepts)))
}

// header returns the project without strings, TM or glossary.
func header() *schema.Project {
	p := &schema.Project{
		Name:            "Café Olé web shop",
		SourceLanguage:  sourceLang,
		TargetLanguages: slices.Clone(targetLangs),
		Languages:       languages(),
		Files:           files(),
		Branches:        branches(),
	}
	for i, l := range userLogins {
		p.Users = append(p.Users, schema.UserRef{ID: userID(i), Login: l})
	}
	return p
}

// gen holds what every generator shares: the random source and id counters.
type gen struct {
	r *rand.Rand
}

func newGen(seed int64, stream uint64) gen {
	return gen{r: rand.New(rand.NewPCG(uint64(seed), stream))}
}

// chance reports true with probability p.
func (g *gen) chance(p float64) bool { return g.r.Float64() < p }

func (g *gen) pick(n int) int { return g.r.IntN(n) }

func (g *gen) user(group []int) int64 { return userID(group[g.r.IntN(len(group))]) }

func (g *gen) anyUser() int64 { return userID(g.r.IntN(len(userLogins))) }

// after returns an instant up to maxDays days (at least a minute) after t,
// capped at the end of 2025.
func (g *gen) after(t schema.Time, maxDays int) schema.Time {
	d := schema.Time(60 + g.r.Int64N(int64(maxDays)*day))
	return min(t+d, MaxTime)
}

// between returns an instant in [from, to).
func (g *gen) between(from, to schema.Time) schema.Time {
	return from + schema.Time(g.r.Int64N(int64(to-from)))
}

// stringGen generates source strings.
type stringGen struct {
	gen
	p        *schema.Project
	pool     []phrase
	plural   map[string][]string // plural categories by language
	master   *schema.SourceString
	masterPh *phrase
	dups     int // duplicates of master so far
	// providers, weighted: nil is a translation a person wrote. The
	// pointers are shared by the translations of one project.
	providers []providerChoice

	// scratch space and slabs
	trBuf         []schema.Translation
	sumBuf        []schema.LanguageSummary
	translations_ slab[schema.Translation]
	summaries     slab[schema.LanguageSummary]
	comments_     slab[schema.Comment]
	shots         slab[schema.Screenshot]
	labelSlab     slab[schema.Label]
	votes         slab[schema.Vote]
	approvals     slab[schema.Approval]
	times         slab[schema.Time]
	ints          slab[int64]
	customFields  slab[schema.CustomField]
	// counters for ids and for cycling through rare features
	translationID, commentID, screenshotID int64
	qaTurn                                 int
}

func newStringGen(seed int64, p *schema.Project) *stringGen {
	g := &stringGen{gen: newGen(seed, 1), p: p, pool: phrasePool(), plural: map[string][]string{}}
	for _, l := range p.Languages {
		g.plural[l.ID] = l.PluralCategoryNames
	}
	g.translationID, g.commentID, g.screenshotID = 1000, 500, 700
	for _, c := range []struct {
		name   string
		weight int
	}{
		{"", 40}, {"tm", 12}, {"global_tm", 5}, {"deepl", 12}, {"google", 9},
		{"custom_mt", 5}, {"ai", 10}, {"microsoft", 3}, {"amazon", 2}, {"modernmt", 2},
	} {
		pc := providerChoice{weight: c.weight}
		if c.name != "" {
			pc.p = ptr(c.name)
		}
		g.providers = append(g.providers, pc)
	}
	return g
}

func ptr[T any](v T) *T { return &v }

// slab hands out small slices carved from large chunks, so that millions
// of strings cost thousands of allocations instead of millions. Each
// slice's capacity is its length: appending to one never touches another.
type slab[T any] struct{ buf []T }

func (s *slab[T]) take(n int) []T {
	if n == 0 {
		return nil
	}
	if cap(s.buf)-len(s.buf) < n {
		s.buf = make([]T, 0, max(1024, n))
	}
	start := len(s.buf)
	s.buf = s.buf[:start+n]
	return s.buf[start : start+n : start+n]
}

// clone copies src into a slice from the slab.
func (s *slab[T]) clone(src []T) []T {
	out := s.take(len(src))
	copy(out, src)
	return out
}

// ptr returns a pointer to a copy of v from the slab.
func (s *slab[T]) ptr(v T) *T {
	p := &s.take(1)[0]
	*p = v
	return p
}

// fill generates string number i into s.
func (g *stringGen) fill(s *schema.SourceString, i int) {
	ph := &g.pool[i%len(g.pool)]
	s.ID = int64(i + 1)
	s.Type = ph.typ
	s.Text = ph.en
	s.Identifier = ph.key
	if round := i / len(g.pool); round > 0 {
		s.Identifier = ph.key + "_" + strconv.Itoa(round+1)
	}
	if g.chance(0.4) {
		s.Context = stringContexts[g.pick(len(stringContexts))]
	}
	if g.chance(0.3) {
		s.MaxLength = g.ints.ptr(int64(10 + 5*g.pick(7)))
	}
	s.IsHidden = g.chance(0.1)
	s.IsPassedWorkflow = g.chance(0.4)
	if !g.chance(0.08) {
		s.File = &g.p.Files[g.pick(len(g.p.Files))]
	}
	if g.chance(0.6) {
		s.Branch = &g.p.Branches[g.pick(len(g.p.Branches))]
	}
	s.Added = g.between(MinTime, MinTime+540*day)
	if g.chance(0.5) {
		s.Updated = g.times.ptr(g.after(s.Added, 400))
	}
	g.comments(s)
	g.screenshots(s)
	g.labels(s)
	g.fields(s)

	// A duplicate repeats the text of the latest master string; most share
	// its translations.
	shared := false
	if m := g.master; m != nil && g.chance(0.12) {
		s.IsDuplicate = true
		s.Type, s.Text = m.Type, m.Text
		g.dups++
		s.Identifier = "legacy." + m.Identifier
		if g.dups > 1 {
			s.Identifier += "_" + strconv.Itoa(g.dups)
		}
		ph = g.masterPh
		if g.chance(0.75) {
			s.Translations = m.Translations
			shared = true
		}
	} else if !s.IsHidden || g.chance(0.5) {
		g.master, g.masterPh, g.dups = s, ph, 0
	}
	if !shared && !g.chance(0.12) {
		g.translations(s, ph)
	}
	g.summarize(s)
}

func (g *stringGen) comments(s *schema.SourceString) {
	if g.chance(0.6) {
		return
	}
	n := 1 + g.pick(3)
	s.Comments = g.comments_.take(n)
	for i := range s.Comments {
		c := &s.Comments[i]
		g.commentID++
		c.ID = g.commentID
		c.Text = commentTexts[g.pick(len(commentTexts))]
		c.User = g.anyUser()
		c.HasIssue = g.chance(0.35)
		c.HasUnresolvedIssue = c.HasIssue && g.chance(0.5)
		c.Added = g.after(s.Added, 200)
	}
}

func (g *stringGen) screenshots(s *schema.SourceString) {
	if g.chance(0.7) {
		return
	}
	n := 1 + g.pick(2)
	s.Screenshots = g.shots.take(n)
	for i := range s.Screenshots {
		g.screenshotID++
		s.Screenshots[i] = schema.Screenshot{ID: g.screenshotID, Name: screenshotNames[g.pick(len(screenshotNames))]}
	}
}

func (g *stringGen) labels(s *schema.SourceString) {
	var buf [3]schema.Label
	labels := buf[:0]
	if s.File != nil && g.chance(0.1) {
		labels = append(labels, schema.Label{ID: 100 + s.File.ID, Title: s.File.Name, IsSystem: true})
	}
	if g.chance(0.5) {
		first := g.pick(len(plainLabels))
		labels = append(labels, plainLabels[first])
		if second := g.pick(len(plainLabels)); second != first && g.chance(0.3) {
			labels = append(labels, plainLabels[second])
		}
	}
	s.Labels = g.labelSlab.clone(labels)
}

func (g *stringGen) fields(s *schema.SourceString) {
	if g.chance(0.7) {
		return
	}
	areas := [...]string{"checkout", "account", "catalog", "marketing"}
	var buf [2]schema.CustomField
	fs := append(buf[:0], schema.CustomField{Name: "Feature area", Slug: "feature-area", Value: areas[g.pick(len(areas))], Type: "select"})
	if g.chance(0.5) {
		v := ""
		if g.chance(0.5) {
			v = "yes"
		}
		fs = append(fs, schema.CustomField{Name: "Reviewed by legal ⚖️", Slug: "legal-review", Value: v, Type: "checkbox"})
	}
	s.Fields = g.customFields.clone(fs)
}

type providerChoice struct {
	p      *string
	weight int
}

func (g *stringGen) provider() *string {
	w := g.pick(100)
	for _, c := range g.providers {
		if w < c.weight {
			return c.p
		}
		w -= c.weight
	}
	return nil
}

// translations adds the string's own translations.
func (g *stringGen) translations(s *schema.SourceString, ph *phrase) {
	g.trBuf = g.trBuf[:0]
	for li, lang := range targetLangs {
		if !g.chance(0.7) {
			continue
		}
		if s.Type == "plural" {
			for _, form := range g.plural[lang] {
				if !g.chance(0.85) {
					continue
				}
				g.translate(s, lang, form, ph.forms[li+1][form], 1+g.extra())
			}
			continue
		}
		g.translate(s, lang, "none", ph.tr[li], 1+g.extra())
	}
	s.Translations = g.translations_.clone(g.trBuf)
}

// extra is how many more translations a language gets besides the first.
func (g *stringGen) extra() int {
	switch x := g.pick(20); {
	case x == 0:
		return 2
	case x < 5:
		return 1
	}
	return 0
}

// translate adds n translations of s into lang (plural category form) to
// g.trBuf and approves at most one of them.
func (g *stringGen) translate(s *schema.SourceString, lang, form, text string, n int) {
	start := len(g.trBuf)
	for k := range n {
		g.translationID++
		t := schema.Translation{
			ID: g.translationID, StringID: s.ID, Text: text, PluralForm: form, Language: lang,
			Provider: g.provider(),
		}
		if k > 0 {
			t.Text = variant(text)
		}
		if g.chance(0.02) {
			t.Text = ""
		}
		if t.Provider != nil {
			t.IsPreTranslated = g.chance(0.8)
			t.User = g.user(managers)
		} else {
			t.User = g.user(translators)
		}
		t.Added = g.after(s.Added, 120)
		t.Updated = t.Added
		if g.chance(0.3) {
			t.Updated = g.after(t.Added, 60)
		}
		if g.chance(0.4) {
			t.Votes = g.votes.take(1 + g.pick(3))
			for i := range t.Votes {
				v := &t.Votes[i]
				v.Mark, v.User, v.Added = "up", g.anyUser(), g.after(t.Added, 30)
				if g.chance(0.25) {
					v.Mark = "down"
				}
			}
		}
		g.trBuf = append(g.trBuf, t)
	}
	if g.chance(0.4) {
		t := &g.trBuf[start+g.pick(n)]
		first := schema.Approval{User: g.user(proofreader), Added: g.after(t.Updated, 20)}
		if g.chance(0.15) {
			t.Approvals = g.approvals.take(2)
			t.Approvals[1] = schema.Approval{User: g.user(managers), Added: g.after(first.Added, 10)}
		} else {
			t.Approvals = g.approvals.take(1)
		}
		t.Approvals[0] = first
	}
}

// variant is another translator's take on text.
func variant(text string) string {
	r, size := utf8.DecodeLastRuneInString(text)
	switch r {
	case '.', '!', '?', '…':
		return text[:len(text)-size]
	}
	return text + "!"
}

// numQAFlags is the number of specific QA flags that qaFlag addresses.
const numQAFlags = 18

// qaFlag addresses the k-th specific QA flag of l that the generator sets
// in turn (empty translation and length are derived from the text).
func qaFlag(l *schema.LanguageSummary, k int) *bool {
	switch k % numQAFlags {
	case 0:
		return &l.HasTagsMismatchQAIssues
	case 1:
		return &l.HasSpacesMismatchQAIssues
	case 2:
		return &l.HasVariablesMismatchQAIssues
	case 3:
		return &l.HasPunctuationMismatchQAIssues
	case 4:
		return &l.HasCharacterCaseMismatchQAIssues
	case 5:
		return &l.HasSpecialCharactersMismatchQAIssues
	case 6:
		return &l.HasIncorrectTranslationQAIssues
	case 7:
		return &l.HasSpellingQAIssues
	case 8:
		return &l.HasICUSyntaxQAIssues
	case 9:
		return &l.HasTermsQAIssues
	case 10:
		return &l.HasDuplicateTranslationQAIssues
	case 11:
		return &l.HasFTLSyntaxQAIssues
	case 12:
		return &l.HasAndroidSyntaxQAIssues
	case 13:
		return &l.HasCustomQAIssues
	case 14:
		return &l.HasNumbersMismatchQAIssues
	case 15:
		return &l.HasAIQAIssues
	case 16:
		return &l.HasOutdatedTranslationQAIssues
	default:
		return &l.HasMDXSyntaxQAIssues
	}
}

// summarize builds the languages summary from the translations; see
// docs/data-format.md for the rules.
func (g *stringGen) summarize(s *schema.SourceString) {
	g.sumBuf = g.sumBuf[:0]
	for _, lang := range targetLangs {
		l, ok := summarize(s, lang, g.plural[lang], &g.times)
		if !ok {
			continue
		}
		g.sumBuf = append(g.sumBuf, l)
		if g.chance(0.2) {
			e := &g.sumBuf[len(g.sumBuf)-1]
			*qaFlag(e, g.qaTurn) = true
			g.qaTurn++
			e.HasQAIssues = true
		}
	}
	s.LanguagesSummary = g.summaries.clone(g.sumBuf)
}

// AnyQAIssue reports whether any specific QA flag of l is set: what
// `has qa issues` summarises.
func AnyQAIssue(l *schema.LanguageSummary) bool {
	return l.HasEmptyTranslationQAIssues || l.HasTranslationLengthQAIssues || l.HasTagsMismatchQAIssues ||
		l.HasSpacesMismatchQAIssues || l.HasVariablesMismatchQAIssues || l.HasPunctuationMismatchQAIssues ||
		l.HasCharacterCaseMismatchQAIssues || l.HasSpecialCharactersMismatchQAIssues ||
		l.HasIncorrectTranslationQAIssues || l.HasSpellingQAIssues || l.HasICUSyntaxQAIssues ||
		l.HasTermsQAIssues || l.HasDuplicateTranslationQAIssues || l.HasFTLSyntaxQAIssues ||
		l.HasAndroidSyntaxQAIssues || l.HasCustomQAIssues || l.HasNumbersMismatchQAIssues ||
		l.HasAIQAIssues || l.HasOutdatedTranslationQAIssues || l.HasMDXSyntaxQAIssues
}

// Top returns the index in s.Translations of the top translation of lang:
// the most approved, then the best rated, then the latest updated, then the
// highest id; -1 if lang has no translation.
func Top(s *schema.SourceString, lang string) int {
	best := -1
	for i := range s.Translations {
		t := &s.Translations[i]
		if t.Language != lang {
			continue
		}
		if best < 0 || better(t, &s.Translations[best]) {
			best = i
		}
	}
	return best
}

func better(a, b *schema.Translation) bool {
	if len(a.Approvals) != len(b.Approvals) {
		return len(a.Approvals) > len(b.Approvals)
	}
	if ra, rb := Rating(a), Rating(b); ra != rb {
		return ra > rb
	}
	if a.Updated != b.Updated {
		return a.Updated > b.Updated
	}
	return a.ID > b.ID
}

// Rating is a translation's up votes minus its down votes.
func Rating(t *schema.Translation) int64 {
	var r int64
	for _, v := range t.Votes {
		if v.Mark == "up" {
			r++
		} else {
			r--
		}
	}
	return r
}

// Summarize computes the languages summary element of s for lang from s's
// translations, all but the QA flags that a QA check would set (it sets
// only the empty-translation and length ones). pluralForms are lang's plural
// categories. It reports false when s has no translation into lang.
func Summarize(s *schema.SourceString, lang string, pluralForms []string) (schema.LanguageSummary, bool) {
	return summarize(s, lang, pluralForms, &slab[schema.Time]{})
}

func summarize(s *schema.SourceString, lang string, pluralForms []string, times *slab[schema.Time]) (schema.LanguageSummary, bool) {
	ti := Top(s, lang)
	if ti < 0 {
		return schema.LanguageSummary{}, false
	}
	top := &s.Translations[ti]
	l := schema.LanguageSummary{Language: lang, Rating: Rating(top)}

	forms := []string{"none"}
	if s.Type == "plural" {
		forms = pluralForms
	}
	translated, approved := 0, 0
	var lastApproval schema.Time = -1
	for _, f := range forms {
		hasT, hasA := false, false
		for i := range s.Translations {
			t := &s.Translations[i]
			if t.Language != lang || t.PluralForm != f {
				continue
			}
			hasT = true
			hasA = hasA || len(t.Approvals) > 0
		}
		if hasT {
			translated++
		}
		if hasA {
			approved++
		}
	}
	l.IsTranslated = translated == len(forms)
	l.IsPartiallyTranslated = translated > 0 && translated < len(forms)
	l.IsApproved = approved == len(forms)
	l.IsPartiallyApproved = approved > 0 && approved < len(forms)

	for i := range s.Translations {
		t := &s.Translations[i]
		if t.Language != lang {
			continue
		}
		l.ApprovalsCount += int64(len(t.Approvals))
		for _, a := range t.Approvals {
			lastApproval = max(lastApproval, a.Added)
		}
		if t.Updated > t.Added && (l.TranslationUpdated == nil || t.Updated > *l.TranslationUpdated) {
			l.TranslationUpdated = times.ptr(t.Updated)
		}
	}
	if lastApproval >= 0 {
		for i := range s.Translations {
			t := &s.Translations[i]
			if t.Language == lang && len(t.Approvals) == 0 && t.Added > lastApproval {
				l.HasTranslationAfterApproval = true
			}
		}
	}

	if top.Provider != nil {
		p := *top.Provider
		l.IsTranslatedByTM = slices.Contains(schema.TMProviders(), p)
		l.IsTranslatedByMT = slices.Contains(schema.MTProviders(), p)
		l.IsTranslatedByAI = p == "ai"
	}
	l.IsAutoTranslated = l.IsTranslatedByTM || l.IsTranslatedByMT || l.IsTranslatedByAI
	l.IsSourceChangedAfterTranslation = s.Updated != nil && *s.Updated > top.Updated
	l.HasTranslationAsSource = top.Text == s.Text
	l.HasSharedTranslation = s.IsDuplicate && top.StringID != s.ID
	l.HasEmptyTranslationQAIssues = top.Text == ""
	l.HasTranslationLengthQAIssues = s.MaxLength != nil && int64(utf8.RuneCountInString(top.Text)) > *s.MaxLength
	l.HasQAIssues = AnyQAIssue(&l)
	return l, true
}

// genTM generates n TM segments with a record in English and some target
// languages (a few segments have no record left) and passes each to emit,
// which must copy it.
func genTM(seed int64, n int, emit func(*schema.TMSegment) error) error {
	g := newGen(seed, 2)
	pool := phrasePool()
	var records slab[schema.TMRecord]
	recordID := int64(5000)
	seg := new(schema.TMSegment)
	for i := range n {
		*seg = schema.TMSegment{ID: int64(3000 + i)}
		if g.chance(0.05) {
			if err := emit(seg); err != nil {
				return err
			}
			continue
		}
		ph := &pool[i%len(pool)]
		langs := 1 + g.pick(len(targetLangs))
		seg.Records = records.take(langs + 1)[:0]
		add := func(lang, text string) {
			recordID++
			rec := schema.TMRecord{ID: recordID, Language: lang, Text: text, CreatedBy: g.anyUser()}
			if !g.chance(0.3) {
				rec.UsageCount = int64(1 + g.pick(40))
			}
			rec.CreatedAt = g.between(MinTime, MinTime+700*day)
			rec.UpdatedBy, rec.UpdatedAt = rec.CreatedBy, rec.CreatedAt
			if g.chance(0.4) {
				rec.UpdatedBy, rec.UpdatedAt = g.anyUser(), g.after(rec.CreatedAt, 300)
			}
			seg.Records = append(seg.Records, rec)
		}
		add(sourceLang, ph.en)
		for li := range langs {
			text := ph.tr[li]
			if ph.typ == "plural" {
				text = ph.forms[li+1]["other"]
			}
			add(targetLangs[li], text)
		}
		if err := emit(seg); err != nil {
			return err
		}
	}
	return nil
}

// genGlossary generates n concepts with a term per language each and
// passes each concept with its terms to emit (which must copy them).
func genGlossary(seed int64, n int, emit func(*schema.GlossaryConcept, []schema.GlossaryTerm) error) error {
	g := newGen(seed, 3)
	c := new(schema.GlossaryConcept)
	terms := make([]schema.GlossaryTerm, 0, 1+len(targetLangs))
	langs := append([]string{sourceLang}, targetLangs...)
	statuses, types := schema.TermStatuses(), schema.TermTypes()
	termID := int64(9000)
	var strs slab[string]
	var times slab[schema.Time]
	for i := range n {
		src := &concepts[i%len(concepts)]
		*c = schema.GlossaryConcept{ID: int64(800 + i)}
		terms = terms[:0]
		c.User = g.user(managers)
		c.Subject, c.Definition, c.URL, c.Note, c.Translatable = src.subject, src.definition, src.url, src.note, src.translatable
		c.CreatedAt = g.between(MinTime, MinTime+500*day)
		if g.chance(0.5) {
			c.UpdatedAt = times.ptr(g.after(c.CreatedAt, 300))
		}
		for li, lang := range langs {
			termID++
			t := schema.GlossaryTerm{
				ID: termID, User: g.anyUser(), ConceptID: c.ID, Text: src.terms[li], Language: lang,
				CreatedAt: g.after(c.CreatedAt, 100),
			}
			if g.chance(0.85) {
				t.PartOfSpeech = strs.ptr(src.pos)
			}
			if g.chance(0.8) {
				t.Status = strs.ptr(statuses[g.pick(len(statuses))])
			}
			if g.chance(0.8) {
				ty := src.termType
				if g.chance(0.15) {
					ty = types[g.pick(len(types))]
				}
				t.Type = strs.ptr(ty)
			}
			if src.genders[li] != "" && g.chance(0.9) {
				t.Gender = strs.ptr(src.genders[li])
			} else if lang == "de" && g.chance(0.3) {
				t.Gender = strs.ptr("common")
			}
			if li == 0 {
				t.Description = src.definition
				t.Lemma = src.terms[0]
				t.URL = src.url
			}
			if g.chance(0.2) {
				t.Note = src.note
				if t.Note == "" {
					t.Note = "Check with the style guide 📘"
				}
			}
			if g.chance(0.4) {
				t.UpdatedAt = times.ptr(g.after(t.CreatedAt, 200))
			}
			terms = append(terms, t)
		}
		if err := emit(c, terms); err != nil {
			return err
		}
	}
	return nil
}
