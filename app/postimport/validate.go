package postimport

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// maxProblems bounds how many problems a ValidationError lists.
const maxProblems = 10

// ValidationError lists what is wrong with a set of strings.
type ValidationError struct {
	// Problems holds up to 10 descriptions; Total counts all of them.
	Problems []string
	Total    int
}

func (e *ValidationError) Error() string {
	msg := strings.Join(e.Problems, "; ")
	if e.Total > len(e.Problems) {
		msg += fmt.Sprintf("; and %d more", e.Total-len(e.Problems))
	}
	return fmt.Sprintf("%d problem(s) in the strings: %s", e.Total, msg)
}

type problems struct{ e ValidationError }

func (p *problems) add(i int, s *String, format string, args ...any) {
	p.e.Total++
	if len(p.e.Problems) < maxProblems {
		p.e.Problems = append(p.e.Problems, fmt.Sprintf("string %d (uniqId %q): ", i+1, s.UniqID)+fmt.Sprintf(format, args...))
	}
}

// Validate checks strings against the contract and the job's languages:
//   - uniqId non-empty and unique, identifier non-empty;
//   - maxLength, when set, not negative;
//   - text a plain string unless hasPlurals, else an object whose keys are
//     exactly the source language's pluralCategoryNames;
//   - translations only for the job's target languages (when it lists
//     any), with the same text rule against the target language's
//     categories;
//   - statuses among untranslated, translated, approved; for plural
//     strings an object whose keys are among the language's categories.
//
// When a language object carries no pluralCategoryNames, plural texts only
// need to be non-empty objects. It returns nil or a *ValidationError.
func Validate(job *Job, strs []String) error {
	var p problems
	seen := make(map[string]int, len(strs))
	for i := range strs {
		s := &strs[i]
		if s.UniqID == "" {
			p.add(i, s, "uniqId is empty")
		} else if j, dup := seen[s.UniqID]; dup {
			p.add(i, s, "uniqId repeats string %d", j+1)
		} else {
			seen[s.UniqID] = i
		}
		if strings.TrimSpace(s.Identifier) == "" {
			p.add(i, s, "identifier is empty")
		}
		if s.MaxLength != nil && *s.MaxLength < 0 {
			p.add(i, s, "maxLength %d is negative", *s.MaxLength)
		}
		checkText(&p, i, s, "text", s.Text, s.HasPlurals, job.SourceLanguage)
		for _, lang := range slices.Sorted(maps.Keys(s.Translations)) {
			t := s.Translations[lang]
			target, ok := job.TargetLanguage(lang)
			if !ok {
				if len(job.TargetLanguages) > 0 {
					p.add(i, s, "translation for %q, which is not a target language of the job", lang)
					continue
				}
				target = Language{ID: lang}
			}
			where := fmt.Sprintf("translations[%q]", lang)
			checkText(&p, i, s, where+".text", t.Text, s.HasPlurals, target)
			if t.Status != nil {
				checkStatus(&p, i, s, where+".status", *t.Status, s.HasPlurals, target)
			}
		}
	}
	if p.e.Total > 0 {
		return &p.e
	}
	return nil
}

func checkText(p *problems, i int, s *String, where string, t Text, plural bool, lang Language) {
	switch {
	case plural && !t.IsPlural():
		p.add(i, s, "%s is a plain string but hasPlurals is true", where)
	case !plural && t.IsPlural():
		p.add(i, s, "%s is an object but hasPlurals is false", where)
	case plural:
		keys := slices.Sorted(maps.Keys(t.Plural))
		if len(lang.PluralCategoryNames) == 0 {
			if len(keys) == 0 {
				p.add(i, s, "%s has no plural forms", where)
			}
			return
		}
		want := slices.Sorted(slices.Values(lang.PluralCategoryNames))
		want = slices.Compact(want)
		if !slices.Equal(keys, want) {
			p.add(i, s, "%s has plural forms %v but language %q has categories %v", where, keys, lang.ID, lang.PluralCategoryNames)
		}
	}
}

func validStatus(v string) bool {
	return v == StatusUntranslated || v == StatusTranslated || v == StatusApproved
}

func checkStatus(p *problems, i int, s *String, where string, st Status, plural bool, lang Language) {
	switch {
	case plural && !st.IsPlural():
		p.add(i, s, "%s is a plain string but hasPlurals is true", where)
	case !plural && st.IsPlural():
		p.add(i, s, "%s is an object but hasPlurals is false", where)
	case !plural:
		if !validStatus(st.Plain) {
			p.add(i, s, "%s %q is not one of untranslated, translated, approved", where, st.Plain)
		}
	default:
		for _, k := range slices.Sorted(maps.Keys(st.Plural)) {
			if len(lang.PluralCategoryNames) > 0 && !slices.Contains(lang.PluralCategoryNames, k) {
				p.add(i, s, "%s has plural form %q but language %q has categories %v", where, k, lang.ID, lang.PluralCategoryNames)
			}
			if !validStatus(st.Plural[k]) {
				p.add(i, s, "%s[%q] %q is not one of untranslated, translated, approved", where, k, st.Plural[k])
			}
		}
	}
}
