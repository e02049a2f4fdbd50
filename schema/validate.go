package schema

import (
	"bytes"
	stdjson "encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"slices"
	"strings"
)

// maxErrors is how many problems Validate reports at most.
const maxErrors = 10

// Validate checks a project the way the SQL loader does, so that the
// in-memory evaluator and the SQL engines answer alike:
//
//   - ids are unique among users, files, branches, languages, strings, the
//     strings' own translations (see [Project.Translations]), TM segments,
//     glossary terms and concepts; logins are unique among users;
//   - a string's file or branch given by id alone ({"id": 3}) is an entry
//     of Files or Branches, and one given whole equals the entry of its id;
//     labels of the same id are equal;
//   - a translation a duplicate shares (its StringID names another string)
//     is one of that string's own translations, unchanged;
//   - enum values: a string's type, a translation's plural form, a vote's
//     mark; a translation and a languages summary
//     element have a language.
//
// It also links each string's file and branch to the project's entry of
// the same id, sets a translation's StringID when it is 0 and its
// PluralForm when it is empty ("none"). It reports at most ten problems.
//
// A translation's provider and a glossary term's part of speech, status,
// type and gender are open enums: the platform adds values over time, and
// queries compare them as strings. Only the strict reader
// (ReadOptions.Strict) holds them to the documented lists.
func (p *Project) Validate() error { return p.validate(nil, false) }

// lineIndex holds the line each element of a JSON project starts on.
type lineIndex struct {
	users, files, branches, languages, strings, tm, terms, concepts []int
}

func (p *Project) validate(lines *lineIndex, strict bool) error {
	if lines == nil {
		lines = &lineIndex{}
	}
	var errs []error
	report := func(what string, at []int, i int, err error) bool {
		if l := lineOf(at, i); l > 0 {
			err = fmt.Errorf("line %d: %s[%d]: %w", l, what, i, err)
		} else {
			err = fmt.Errorf("%s[%d]: %w", what, i, err)
		}
		errs = append(errs, err)
		return len(errs) >= maxErrors
	}
	done := func() error { return errors.Join(errs...) }

	userIDs, logins := map[int64]int{}, map[string]int{}
	for i, u := range p.Users {
		if j, ok := userIDs[u.ID]; ok && report("users", lines.users, i, fmt.Errorf("user %d: the id is taken by users[%d]", u.ID, j)) {
			return done()
		}
		if j, ok := logins[u.Login]; ok && report("users", lines.users, i, fmt.Errorf("user %d: login %q is taken by users[%d]", u.ID, u.Login, j)) {
			return done()
		}
		userIDs[u.ID], logins[u.Login] = i, i
	}
	langs := map[string]int{}
	for i, l := range p.Languages {
		if j, ok := langs[l.ID]; ok && report("languages", lines.languages, i, fmt.Errorf("language %q is given twice (languages[%d])", l.ID, j)) {
			return done()
		}
		langs[l.ID] = i
	}
	files := map[int64]int{}
	for i, f := range p.Files {
		if j, ok := files[f.ID]; ok && report("files", lines.files, i, fmt.Errorf("file %d: the id is taken by files[%d]", f.ID, j)) {
			return done()
		}
		files[f.ID] = i
	}
	branches := map[int64]int{}
	for i, b := range p.Branches {
		if j, ok := branches[b.ID]; ok && report("branches", lines.branches, i, fmt.Errorf("branch %d: the id is taken by branches[%d]", b.ID, j)) {
			return done()
		}
		branches[b.ID] = i
	}

	r := newResolver(p)
	r.strict = strict
	strs := map[int64]int{}
	own := map[int64]*Translation{}
	labels := map[int64]Label{}
	for i := range p.Strings {
		s := &p.Strings[i]
		if j, ok := strs[s.ID]; ok {
			if report("strings", lines.strings, i, fmt.Errorf("string %d: the id is taken by strings[%d]", s.ID, j)) {
				return done()
			}
			continue
		}
		strs[s.ID] = i
		if err := r.string(s, true); err != nil {
			if report("strings", lines.strings, i, err) {
				return done()
			}
			continue
		}
		for k := range s.Translations {
			t := &s.Translations[k]
			if t.StringID != s.ID {
				continue
			}
			if _, ok := own[t.ID]; ok {
				if report("strings", lines.strings, i, fmt.Errorf("string %d: translation %d: the id is taken by an earlier translation", s.ID, t.ID)) {
					return done()
				}
				continue
			}
			own[t.ID] = t
		}
		for _, l := range s.Labels {
			if prev, ok := labels[l.ID]; ok && prev != l {
				if report("strings", lines.strings, i, fmt.Errorf("string %d: label %d differs from the earlier label of that id", s.ID, l.ID)) {
					return done()
				}
				continue
			}
			labels[l.ID] = l
		}
	}
	// Shared translations, once every string's own are known.
	for i := range p.Strings {
		s := &p.Strings[i]
		for k := range s.Translations {
			t := &s.Translations[k]
			if t.StringID == s.ID {
				continue
			}
			var err error
			if _, ok := strs[t.StringID]; !ok {
				err = fmt.Errorf("string %d: translation %d is shared from string %d, which is not in the project", s.ID, t.ID, t.StringID)
			} else if m := own[t.ID]; m == nil || m.StringID != t.StringID {
				err = fmt.Errorf("string %d: translation %d is shared from string %d, which has no translation %d", s.ID, t.ID, t.StringID, t.ID)
			} else if !reflect.DeepEqual(*m, *t) {
				err = fmt.Errorf("string %d: translation %d differs from string %d's translation of that id", s.ID, t.ID, t.StringID)
			}
			if err != nil && report("strings", lines.strings, i, err) {
				return done()
			}
		}
	}
	seg := map[int64]int{}
	for i, s := range p.TMSegments {
		if j, ok := seg[s.ID]; ok && report("tmSegments", lines.tm, i, fmt.Errorf("tm segment %d: the id is taken by tmSegments[%d]", s.ID, j)) {
			return done()
		}
		seg[s.ID] = i
	}
	terms := map[int64]int{}
	for i := range p.GlossaryTerms {
		t := &p.GlossaryTerms[i]
		var err error
		if strict {
			err = checkTerm(t)
		}
		if j, ok := terms[t.ID]; ok {
			err = fmt.Errorf("term %d: the id is taken by glossaryTerms[%d]", t.ID, j)
		}
		terms[t.ID] = i
		if err != nil && report("glossaryTerms", lines.terms, i, err) {
			return done()
		}
	}
	concepts := map[int64]int{}
	for i, c := range p.GlossaryConcepts {
		if j, ok := concepts[c.ID]; ok && report("glossaryConcepts", lines.concepts, i, fmt.Errorf("concept %d: the id is taken by glossaryConcepts[%d]", c.ID, j)) {
			return done()
		}
		concepts[c.ID] = i
	}
	return done()
}

// checkTerm checks the enum members of a glossary term.
func checkTerm(t *GlossaryTerm) error {
	for _, e := range []struct {
		name   string
		v      *string
		values []string
	}{
		{"partOfSpeech", t.PartOfSpeech, PartsOfSpeech()},
		{"status", t.Status, TermStatuses()},
		{"type", t.Type, TermTypes()},
		{"gender", t.Gender, TermGenders()},
	} {
		if e.v != nil && !slices.Contains(e.values, *e.v) {
			return fmt.Errorf("term %d: %s %q is not one of %s", t.ID, e.name, *e.v, strings.Join(e.values, ", "))
		}
	}
	return nil
}

// resolver links strings to the files and branches of a project.
type resolver struct {
	files    map[int64]*File
	branches map[int64]*Branch
	// strict holds the open enums (a translation's provider) to their
	// documented values too.
	strict bool
}

func newResolver(p *Project) *resolver {
	r := &resolver{files: map[int64]*File{}, branches: map[int64]*Branch{}}
	for i := range p.Files {
		r.files[p.Files[i].ID] = &p.Files[i]
	}
	for i := range p.Branches {
		r.branches[p.Branches[i].ID] = &p.Branches[i]
	}
	return r
}

func sameFile(a, b *File) bool {
	return a.ID == b.ID && a.Name == b.Name && a.Type == b.Type && a.Context == b.Context && sameStr(a.Title, b.Title)
}

func sameBranch(a, b *Branch) bool {
	return a.ID == b.ID && a.Name == b.Name && sameStr(a.Title, b.Title)
}

func sameStr(a, b *string) bool { return a == b || (a != nil && b != nil && *a == *b) }

// string checks s and links its file and branch. With intern, a file or
// branch a string gives whole that the project does not list becomes the
// entry later strings are held to; without it the resolver is only read
// (the streaming reader's workers share it).
func (r *resolver) string(s *SourceString, intern bool) error {
	if s.File != nil {
		f, ok := r.files[s.File.ID]
		switch {
		case ok && (*s.File == File{ID: f.ID} || sameFile(s.File, f)):
			s.File = f
		case ok:
			return fmt.Errorf("string %d: file %d differs from the file of that id: give it by id alone, {\"id\": %d}", s.ID, f.ID, f.ID)
		case *s.File == File{ID: s.File.ID}:
			return fmt.Errorf("string %d: file %d is not a file of the project (file lines come before the strings)", s.ID, s.File.ID)
		case intern:
			r.files[s.File.ID] = s.File
		}
	}
	if s.Branch != nil {
		b, ok := r.branches[s.Branch.ID]
		switch {
		case ok && (*s.Branch == Branch{ID: b.ID} || sameBranch(s.Branch, b)):
			s.Branch = b
		case ok:
			return fmt.Errorf("string %d: branch %d differs from the branch of that id: give it by id alone, {\"id\": %d}", s.ID, b.ID, b.ID)
		case *s.Branch == Branch{ID: s.Branch.ID}:
			return fmt.Errorf("string %d: branch %d is not a branch of the project (branch lines come before the strings)", s.ID, s.Branch.ID)
		case intern:
			r.branches[s.Branch.ID] = s.Branch
		}
	}
	if !slices.Contains(StringTypes(), s.Type) {
		return fmt.Errorf("string %d: type %q is not one of %s", s.ID, s.Type, strings.Join(StringTypes(), ", "))
	}
	for i := range s.Translations {
		t := &s.Translations[i]
		if t.StringID == 0 {
			t.StringID = s.ID
		}
		if t.Language == "" {
			return fmt.Errorf("string %d: translation %d has no language", s.ID, t.ID)
		}
		if t.PluralForm == "" {
			t.PluralForm = "none"
		}
		if !slices.Contains(PluralForms(), t.PluralForm) {
			return fmt.Errorf("string %d: translation %d: plural form %q is not one of %s", s.ID, t.ID, t.PluralForm, strings.Join(PluralForms(), ", "))
		}
		if r.strict && t.Provider != nil && !slices.Contains(Providers(), *t.Provider) {
			return fmt.Errorf("string %d: translation %d: provider %q is not one of %s (or null)", s.ID, t.ID, *t.Provider, strings.Join(Providers(), ", "))
		}
		for _, v := range t.Votes {
			if v.Mark != "up" && v.Mark != "down" {
				return fmt.Errorf("string %d: translation %d: vote mark %q is neither up nor down", s.ID, t.ID, v.Mark)
			}
		}
	}
	for _, l := range s.LanguagesSummary {
		if l.Language == "" {
			return fmt.Errorf("string %d: languages summary element has no language", s.ID)
		}
	}
	return nil
}

// repeatedKey reports the first member name repeated within one object
// of the JSON value b (names compared as the decoder matches them,
// without regard to case). It walks encoding/json's token stream, which
// also rejects text that is not JSON.
func repeatedKey(b []byte) error {
	type frame struct {
		names    map[string]bool // nil for an array
		wantName bool            // in an object: the next string is a name
	}
	dec := stdjson.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var open []frame
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		var top *frame
		if len(open) > 0 {
			top = &open[len(open)-1]
		}
		if d, ok := tok.(stdjson.Delim); ok && (d == '}' || d == ']') {
			open = open[:len(open)-1]
			continue
		}
		if top != nil && top.names != nil {
			if top.wantName {
				name, _ := tok.(string)
				key := strings.ToLower(name)
				if top.names[key] {
					return fmt.Errorf("member %q is given twice in one object", name)
				}
				top.names[key] = true
				top.wantName = false
				continue
			}
			top.wantName = true // this token starts the member's value
		}
		if d, ok := tok.(stdjson.Delim); ok {
			if len(open) >= maxDepth {
				return fmt.Errorf("nested deeper than %d levels", maxDepth)
			}
			f := frame{}
			if d == '{' {
				f = frame{names: map[string]bool{}, wantName: true}
			}
			open = append(open, f)
		}
	}
}

const maxDepth = 10000

// lineError is an error that already names its line.
type lineError struct {
	line int
	err  error
}

func (e lineError) Error() string { return fmt.Sprintf("line %d: %v", e.line, e.err) }
func (e lineError) Unwrap() error { return e.err }
