package locfile

import (
	"errors"
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/croql/croql/schema"
)

// Options tell [Build] what the files do not say.
type Options struct {
	// Name is the project's name (default "files").
	Name string
	// SourceLanguage is the source language. When empty it is the source
	// language the first bilingual file gives (XLIFF), else the first
	// English (en, en-US, ...) of a monolingual file, else "en".
	SourceLanguage string
	// TargetLanguage is the target language of a bilingual file that
	// names none, in its content or its path (a PO file without a
	// Language header, messages.xlf without target-language).
	TargetLanguage string
	// Added is the time given to every string and translation as when it
	// was added (the files do not say).
	Added schema.Time
}

// languageOf returns the language of a monolingual file: what the file
// says, else what its path says; "" when neither says.
func languageOf(f *File) string {
	if f.Language != "" {
		return normLanguage(f.Language)
	}
	c, _ := PathLanguage(f.Name)
	return c
}

type entryKey struct {
	g            *group
	key, context string
}

// entry is one source string being built.
type entry struct {
	group   *group
	key     string
	context string
	source  *Unit
	targets map[string]*Unit // language → the unit whose Target is the translation
	order   []string
}

type group struct {
	resource string
	typ      string
	name     string // the source file's name, when read
}

// Build makes a project of files: one source string per unit of the
// source language, each with its translations into every target
// language.
//
// Files of one resource in several languages (de.lproj/Localizable.strings
// and fr.lproj/Localizable.strings, values/strings.xml and
// values-de/strings.xml, de.po and fr.po; see [PathLanguage]) are one
// file of the project: a unit's key and context name one string in it.
// A monolingual file whose language (from its content or path) is the
// source language, or that names no language, gives the source texts; one
// of another language gives translations into it. A bilingual file
// gives both; a PO template (.pot) the source texts of every PO file of
// the set when it is the only template. An XLIFF document of several
// <file> elements of different original attributes makes a file of the
// project of each, named by its original. A translation without a source
// unit makes a string with an empty text.
//
// Each string gets the type plural (plural forms), icu (an ICU plural or
// select) or plain; its context is the unit's context and notes, one per
// line; its max length and hidden flag the unit's. Each translation's
// plural form is its CLDR category ("none" for a string without plural
// forms); an approved unit's translation has one approval (user 0); a
// "tm" or "mt" origin makes it pre-translated with provider tm or
// custom_mt. Every string has a languages summary element per translated
// language (translated, approved, partially for plural forms, translation
// as source).
func Build(files []*File, opts Options) (*schema.Project, error) {
	opts.SourceLanguage, opts.TargetLanguage = normLanguage(opts.SourceLanguage), normLanguage(opts.TargetLanguage)
	if opts.Name == "" {
		opts.Name = "files"
	}
	src := opts.SourceLanguage
	if src == "" {
		for _, f := range files {
			if f.Bilingual && f.Language != "" {
				src = normLanguage(f.Language)
				break
			}
		}
	}
	if src == "" { // English, in the form the files write it (en-US)
		for _, f := range files {
			if l := languageOf(f); !f.Bilingual && baseLanguage(l) == "en" {
				src = l
				break
			}
		}
	}
	if src == "" {
		src = "en"
	}
	var (
		groups   []*group
		byRes    = map[string]*group{}
		entries  []*entry
		byKey    = map[entryKey]*entry{}
		targets  []string
		potGroup *group
	)
	pots := 0
	for _, f := range files {
		if f.Template {
			pots++
		}
	}
	groupOf := func(f *File) *group {
		_, res := PathLanguage(f.Name)
		if f.Type == "gettext" {
			if pots == 1 && potGroup != nil {
				return potGroup
			}
			if strings.HasSuffix(res, ".pot") { // x.pot and x.po alike
				res = strings.TrimSuffix(res, "t")
			}
		}
		k := f.Type + "\x00" + res
		g := byRes[k]
		if g == nil {
			g = &group{resource: res, typ: f.Type}
			byRes[k] = g
			groups = append(groups, g)
		}
		if f.Template && pots == 1 {
			potGroup = g
		}
		return g
	}
	// The template first, so that the PO files join its group; then the
	// source-language files, so that strings come in their order.
	rank := func(f *File) int {
		switch {
		case f.Template:
			return 0
		case !f.Bilingual && (languageOf(f) == "" || languageOf(f) == src):
			return 1
		}
		return 2
	}
	ordered := slices.Clone(files)
	slices.SortStableFunc(ordered, func(a, b *File) int { return rank(a) - rank(b) })
	addTarget := func(l string) {
		if l != "" && l != src && !slices.Contains(targets, l) {
			targets = append(targets, l)
		}
	}
	get := func(g *group, u *Unit) *entry {
		k := entryKey{g, u.Key, u.Context}
		e := byKey[k]
		if e == nil {
			e = &entry{group: g, key: u.Key, context: u.Context, targets: map[string]*Unit{}}
			byKey[k] = e
			entries = append(entries, e)
		}
		return e
	}
	// partOf is the group of a part of a document of several parts (the
	// <file original> elements of an XLIFF document): each is a file of
	// the project, named by its original.
	partOf := func(f *File, original string) *group {
		k := f.Type + "\x00part\x00" + original
		g := byRes[k]
		if g == nil {
			g = &group{resource: original, typ: f.Type, name: original}
			byRes[k] = g
			groups = append(groups, g)
		}
		return g
	}
	for _, f := range ordered {
		g := groupOf(f)
		parts := false
		seen := make(map[[3]string]int, len(f.Units))
		for i := range f.Units {
			u := &f.Units[i]
			parts = parts || u.Original != f.Units[0].Original
			k := [3]string{u.Original, u.Key, u.Context}
			if line, dup := seen[k]; dup {
				return nil, fmt.Errorf("%s: line %d: key %q (context %q) is given twice, first on line %d", f.Name, u.Line, u.Key, u.Context, line)
			}
			seen[k] = u.Line
		}
		if f.Bilingual {
			if opts.SourceLanguage == "" && f.Language != "" && normLanguage(f.Language) != src {
				return nil, fmt.Errorf("%s: the source language is %q, another file's is %q: give --source-language", f.Name, f.Language, src)
			}
			tl := normLanguage(f.TargetLanguage)
			if tl == "" {
				tl, _ = PathLanguage(f.Name)
			}
			if tl == "" && !f.Template {
				tl = opts.TargetLanguage
			}
			if g.name == "" || f.Template {
				g.name = f.Name
			}
			addTarget(tl)
			for i := range f.Units {
				u := &f.Units[i]
				ug := g
				if parts {
					ug = partOf(f, u.Original)
				}
				e := get(ug, u)
				if e.source == nil {
					e.source = u
				}
				if tl != "" && tl != src && !u.Target.IsZero() {
					if e.targets[tl] == nil {
						e.order = append(e.order, tl)
					}
					e.targets[tl] = u
				}
			}
			continue
		}
		lang := languageOf(f)
		if lang == "" || lang == src {
			if g.name == "" || lang == src {
				g.name = f.Name
			}
			for i := range f.Units {
				e := get(g, &f.Units[i])
				e.source = &f.Units[i]
			}
			continue
		}
		addTarget(lang)
		for i := range f.Units {
			u := &f.Units[i]
			if u.Source.IsZero() {
				continue
			}
			e := get(g, u)
			// a monolingual unit's text is in the file's language: make it the target
			t := *u
			t.Target, t.State = u.Source, StateTranslated
			if e.targets[lang] == nil {
				e.order = append(e.order, lang)
			}
			e.targets[lang] = &t
		}
	}

	p := &schema.Project{Name: opts.Name, SourceLanguage: src, TargetLanguages: targets}
	for _, l := range append([]string{src}, targets...) {
		p.Languages = append(p.Languages, schema.LanguageInfo{ID: l, PluralCategoryNames: PluralCategories(l)})
	}
	used := map[*group]bool{}
	for _, e := range entries {
		used[e.group] = true
	}
	fileIdx := map[*group]int{}
	for _, g := range groups {
		if !used[g] {
			continue
		}
		name := g.name
		if name == "" {
			name = g.resource
		}
		fileIdx[g] = len(p.Files)
		p.Files = append(p.Files, schema.File{ID: int64(len(p.Files) + 1), Name: path.Clean(name), Type: g.typ})
	}
	var tid int64
	p.Strings = make([]schema.SourceString, 0, len(entries))
	for i, e := range entries {
		s := schema.SourceString{ID: int64(i + 1), Identifier: e.key, Type: "plain", Added: opts.Added,
			File: &schema.File{ID: p.Files[fileIdx[e.group]].ID}}
		base := e.source
		if base == nil { // translations only: the string's facts from one of them
			base = e.targets[e.order[0]]
			s.Type = base.Type()
		} else {
			s.Type = base.Type()
			s.Text = base.Source.Text
		}
		s.Context = base.JoinedContext()
		s.MaxLength = base.MaxLength
		s.IsHidden = base.Hidden
		for _, lang := range targets {
			u := e.targets[lang]
			if u == nil {
				continue
			}
			ts := translations(&s, u, lang, opts.Added, &tid)
			s.Translations = append(s.Translations, ts...)
			if sum, ok := summarize(&s, lang, ts); ok {
				s.LanguagesSummary = append(s.LanguagesSummary, sum)
			}
		}
		p.Strings = append(p.Strings, s)
	}
	if err := p.Validate(); err != nil {
		return nil, fmt.Errorf("building the project: %w", err)
	}
	return p, nil
}

// JoinedContext is the context of the string the unit makes, as croql
// query --data and croql serve's uploads store it: the unit's context,
// then each of its notes not already given, one per line.
func (u *Unit) JoinedContext() string {
	if len(u.Notes) == 0 {
		return u.Context
	}
	parts := make([]string, 0, 1+len(u.Notes))
	if u.Context != "" {
		parts = append(parts, u.Context)
	}
	for _, n := range u.Notes {
		if n != "" && !slices.Contains(parts, n) {
			parts = append(parts, n)
		}
	}
	return strings.Join(parts, "\n")
}

// translations makes the translations of u's target into lang.
func translations(s *schema.SourceString, u *Unit, lang string, added schema.Time, tid *int64) []schema.Translation {
	mk := func(text, form string) schema.Translation {
		*tid++
		t := schema.Translation{ID: *tid, StringID: s.ID, Text: text, PluralForm: form, Language: lang, Added: added, Updated: added}
		if u.State == StateApproved {
			t.Approvals = []schema.Approval{{User: 0, Added: added}}
		}
		switch u.Origin {
		case "tm":
			t.IsPreTranslated, t.Provider = true, ptr("tm")
		case "mt":
			t.IsPreTranslated, t.Provider = true, ptr("custom_mt")
		}
		return t
	}
	var out []schema.Translation
	switch {
	case u.Target.Plural != nil:
		for _, c := range categories {
			if text, ok := u.Target.Plural[c]; ok && text != "" {
				out = append(out, mk(text, c))
			}
		}
	case u.Target.Text == "":
	case s.Type == "plural":
		out = append(out, mk(u.Target.Text, "other"))
	default:
		out = append(out, mk(u.Target.Text, "none"))
	}
	return out
}

func ptr[T any](v T) *T { return &v }

// summarize makes the languages summary element of a string's
// translations ts into lang.
func summarize(s *schema.SourceString, lang string, ts []schema.Translation) (schema.LanguageSummary, bool) {
	if len(ts) == 0 {
		return schema.LanguageSummary{}, false
	}
	forms := []string{"none"}
	if s.Type == "plural" {
		forms = integerCategories(lang)
		if forms == nil {
			forms = nil
			for _, t := range ts {
				forms = append(forms, t.PluralForm)
			}
		}
	}
	l := schema.LanguageSummary{Language: lang}
	translated, approved := 0, 0
	for _, f := range forms {
		for _, t := range ts {
			if t.PluralForm == f {
				translated++
				if len(t.Approvals) > 0 {
					approved++
				}
				break
			}
		}
	}
	for _, t := range ts {
		l.ApprovalsCount += int64(len(t.Approvals))
	}
	l.IsTranslated = translated == len(forms)
	l.IsPartiallyTranslated = translated > 0 && translated < len(forms)
	l.IsApproved = approved == len(forms)
	l.IsPartiallyApproved = approved > 0 && approved < len(forms)
	top := ts[0]
	if top.Provider != nil {
		l.IsAutoTranslated = true
		l.IsTranslatedByTM = slices.Contains(schema.TMProviders(), *top.Provider)
		l.IsTranslatedByMT = slices.Contains(schema.MTProviders(), *top.Provider)
	}
	l.HasTranslationAsSource = s.Type != "plural" && top.Text == s.Text
	return l, true
}

// ErrNoFiles reports a set of paths that holds no file a parser reads.
var ErrNoFiles = errors.New("no localization file")

// normLanguage writes a language code in BCP 47 form when it is one
// (de_DE → de-DE), else leaves it as it is.
func normLanguage(l string) string {
	if c, ok := LanguageCode(l); ok {
		return c
	}
	return l
}
