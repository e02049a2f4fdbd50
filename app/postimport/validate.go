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

// Validate checks the strings an app answers, against the contract and the
// job's languages. Only what the app changed or added is checked: a string
// passed through unchanged is always accepted (its problems, if any, are the
// platform's, see CheckJob), and in a string derived from a job's string
// (edited, or a Clone) only the members that differ from the original are.
//
//   - uniqId non-empty and unique (two strings passed through unchanged
//     may repeat one that job.Strings repeats: the platform sent them so),
//     identifier non-empty;
//   - maxLength, when set, not negative;
//   - text a plain string unless hasPlurals, else a non-empty object whose
//     keys are among the source language's pluralCategoryNames ("other",
//     which every language has in CLDR, is always accepted);
//   - translations only for the job's target languages (when it lists
//     any), with the same text rule against the target language's
//     categories: a subset is allowed, as the platform's documentation
//     sends one/few/many for Ukrainian;
//   - statuses among untranslated, translated, approved; for plural
//     strings an object whose keys are among the language's categories.
//
// When a language object carries no pluralCategoryNames, plural texts only
// need to be non-empty objects. It returns nil or a *ValidationError.
func Validate(job *Job, strs []String) error {
	_, err := validate(job, strs, repeatedIDs(job.Strings))
	return err
}

// repeatedIDs returns the uniqIds that occur more than once.
func repeatedIDs(strs []String) map[string]bool {
	seen := make(map[string]bool, len(strs))
	var rep map[string]bool
	for i := range strs {
		id := strs[i].UniqID
		if seen[id] {
			if rep == nil {
				rep = make(map[string]bool)
			}
			rep[id] = true
		}
		seen[id] = true
	}
	return rep
}

// validate is Validate with the uniqIds the platform itself repeated
// (inputRepeats): two unchanged strings may repeat only those. It also
// returns which strings are unchanged (so the encoder copies their wire
// bytes without comparing them again).
func validate(job *Job, strs []String, inputRepeats map[string]bool) ([]bool, error) {
	var p problems
	seen := make(map[string]int, len(strs))
	untouched := make([]bool, len(strs))
	for i := range strs {
		s := &strs[i]
		orig, decoded := s.Original()
		if decoded && s.untouchedSince(&orig) {
			untouched[i] = true
			if j, dup := seen[s.UniqID]; dup && (!untouched[j] || !inputRepeats[s.UniqID]) {
				p.add(i, s, "uniqId repeats string %d", j+1)
			} else if !dup {
				seen[s.UniqID] = i
			}
			continue
		}
		var o *String
		if decoded {
			o = &orig
		}
		if s.UniqID == "" {
			p.add(i, s, "uniqId is empty")
		} else if j, dup := seen[s.UniqID]; dup {
			p.add(i, s, "uniqId repeats string %d", j+1)
		} else {
			seen[s.UniqID] = i
		}
		checkString(&p, job, i, s, o, false)
	}
	if p.e.Total > 0 {
		return untouched, &p.e
	}
	return untouched, nil
}

// CheckJob checks the strings the platform sent with the rules of Validate
// (all of them, and the source texts' plural keys against exactly the
// source language's categories). The handler logs what it finds as a
// warning and goes on: input the platform sends is never blamed on the app.
func CheckJob(job *Job) error {
	var p problems
	seen := make(map[string]int, len(job.Strings))
	for i := range job.Strings {
		s := &job.Strings[i]
		if s.UniqID == "" {
			p.add(i, s, "uniqId is empty")
		} else if j, dup := seen[s.UniqID]; dup {
			p.add(i, s, "uniqId repeats string %d", j+1)
		} else {
			seen[s.UniqID] = i
		}
		checkString(&p, job, i, s, nil, true)
	}
	if p.e.Total > 0 {
		return &p.e
	}
	return nil
}

// checkString checks the members of s that differ from orig (all of them
// when orig is nil). exactSource compares plural source texts with exactly
// the source language's categories.
func checkString(p *problems, job *Job, i int, s *String, orig *String, exactSource bool) {
	if orig == nil || s.Identifier != orig.Identifier {
		if strings.TrimSpace(s.Identifier) == "" {
			p.add(i, s, "identifier is empty")
		}
	}
	if s.MaxLength != nil && *s.MaxLength < 0 && (orig == nil || !ptrEqual(s.MaxLength, orig.MaxLength)) {
		p.add(i, s, "maxLength %d is negative", *s.MaxLength)
	}
	pluralsChanged := orig == nil || s.HasPlurals != orig.HasPlurals
	if pluralsChanged || !textEqual(s.Text, orig.Text) {
		checkText(p, i, s, "text", s.Text, s.HasPlurals, job.SourceLanguage)
		if exactSource && s.HasPlurals && s.Text.IsPlural() && len(job.SourceLanguage.PluralCategoryNames) > 0 {
			keys := slices.Sorted(maps.Keys(s.Text.Plural))
			want := slices.Compact(slices.Sorted(slices.Values(job.SourceLanguage.PluralCategoryNames)))
			if !slices.Equal(keys, want) {
				p.add(i, s, "text has plural forms %v but the source language %q has categories %v", keys, job.SourceLanguage.ID, job.SourceLanguage.PluralCategoryNames)
			}
		}
	}
	for _, lang := range slices.Sorted(maps.Keys(s.Translations)) {
		t := s.Translations[lang]
		if !pluralsChanged {
			if ot, ok := orig.Translations[lang]; ok && translationEqual(t, ot) {
				continue
			}
		}
		target, ok := job.TargetLanguage(lang)
		if !ok {
			if hasTargetIDs(job) {
				p.add(i, s, "translation for %q, which is not a target language of the job", lang)
				continue
			}
			target = Language{ID: lang}
		}
		where := fmt.Sprintf("translations[%q]", lang)
		checkText(p, i, s, where+".text", t.Text, s.HasPlurals, target)
		if t.Status != nil {
			checkStatus(p, i, s, where+".status", *t.Status, s.HasPlurals, target)
		}
	}
}

// hasTargetIDs reports whether the job names its target languages (the
// documentation's example sends one language object without members).
func hasTargetIDs(job *Job) bool {
	return slices.ContainsFunc(job.TargetLanguages, func(l Language) bool { return l.ID != "" })
}

// categoryOK reports whether k is a plural category of lang. "other" is
// always one: CLDR gives it to every language.
func categoryOK(lang Language, k string) bool {
	return len(lang.PluralCategoryNames) == 0 || k == "other" || slices.Contains(lang.PluralCategoryNames, k)
}

func checkText(p *problems, i int, s *String, where string, t Text, plural bool, lang Language) {
	switch {
	case plural && !t.IsPlural():
		p.add(i, s, "%s is a plain string but hasPlurals is true", where)
	case !plural && t.IsPlural():
		p.add(i, s, "%s is an object but hasPlurals is false", where)
	case plural:
		keys := slices.Sorted(maps.Keys(t.Plural))
		if len(keys) == 0 {
			p.add(i, s, "%s has no plural forms", where)
			return
		}
		var bad []string
		for _, k := range keys {
			if !categoryOK(lang, k) {
				bad = append(bad, k)
			}
		}
		if len(bad) > 0 {
			p.add(i, s, "%s has plural forms %v that language %q does not have (its categories: %v)", where, bad, lang.ID, lang.PluralCategoryNames)
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
			if !categoryOK(lang, k) {
				p.add(i, s, "%s has plural form %q but language %q has categories %v", where, k, lang.ID, lang.PluralCategoryNames)
			}
			if !validStatus(st.Plural[k]) {
				p.add(i, s, "%s[%q] %q is not one of untranslated, translated, approved", where, k, st.Plural[k])
			}
		}
	}
}
