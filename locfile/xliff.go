package locfile

import (
	"encoding/xml"
	"io"
	"path"
	"regexp"
	"strconv"
	"strings"
)

// XLIFF12 reads XLIFF 1.2 (OASIS): each <trans-unit> is a unit keyed by
// its resname (its id when it has none), with its <source>, <target>
// (state, state-qualifier), <note>s, <context> elements, maxwidth (in
// characters) and translate="no". Inline markup (<g>, <x/>, <ph>) is kept
// in the texts as written. The languages are those of the first <file>;
// a later <file> with other languages is an error.
type XLIFF12 struct{}

// XLIFF2 reads XLIFF 2.0 and 2.1 (OASIS): each <unit> is a unit keyed by
// its name (its id when it has none); the texts are its segments'
// <source> and <target> joined (with <ignorable> content), the state the
// first segment's; <notes>, slr:sizeRestriction and translate="no" are
// read too.
type XLIFF2 struct{}

// Type is "xliff".
func (XLIFF12) Type() string { return "xliff" }

// Type is "xliff_two".
func (XLIFF2) Type() string { return "xliff_two" }

var xliffVersion = regexp.MustCompile(`<(?:[\w.-]+:)?xliff\b[^>]*?\bversion\s*=\s*["']([0-9.]+)["']`)

func isXLIFF(name string, head []byte) (version string, ok bool) {
	switch strings.ToLower(path.Ext(name)) {
	case ".xlf", ".xliff", ".xml", ".sdlxliff", ".mxliff":
	default:
		return "", false
	}
	m := xliffVersion.FindSubmatch(head)
	if m == nil {
		return "", false
	}
	return string(m[1]), true
}

// Match: a .xlf, .xliff or .xml name whose content has an <xliff> element
// of version 1.x.
func (XLIFF12) Match(name string, head []byte) bool {
	v, ok := isXLIFF(name, head)
	return ok && strings.HasPrefix(v, "1.")
}

// Match: as XLIFF12, version 2.x.
func (XLIFF2) Match(name string, head []byte) bool {
	v, ok := isXLIFF(name, head)
	return ok && strings.HasPrefix(v, "2.")
}

// states12 maps XLIFF 1.2 target states.
var states12 = map[string]State{
	"new": StateNew, "needs-translation": StateNew,
	"needs-adaptation": StateNeedsReview, "needs-l10n": StateNeedsReview,
	"needs-review-translation": StateNeedsReview, "needs-review-adaptation": StateNeedsReview, "needs-review-l10n": StateNeedsReview,
	"translated": StateTranslated, "signed-off": StateApproved, "final": StateApproved,
}

var states2 = map[string]State{"initial": StateNew, "translated": StateTranslated, "reviewed": StateApproved, "final": StateApproved}

// origin12 maps XLIFF 1.2 state qualifiers that name a source.
var origin12 = map[string]string{
	"exact-match": "tm", "fuzzy-match": "tm", "leveraged-tm": "tm", "leveraged-inherited": "tm", "id-match": "tm",
	"leveraged-mt": "mt", "mt-suggestion": "mt",
}

// Parse reads an XLIFF 1.2 document.
func (XLIFF12) Parse(r io.Reader, lim Limits, f *File, emit func(*Unit) error) error {
	lim = lim.withDefaults()
	f.Bilingual = true
	x := newXMLReader(r, lim)
	cnt := counter{max: lim.MaxUnits}
	seenFile := false
	original := ""
	for {
		tok, err := x.next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		s, ok := tok.(xml.StartElement)
		if !ok {
			continue
		}
		switch s.Name.Local {
		case "file":
			src, _ := attr(s, "source-language")
			trg, _ := attr(s, "target-language")
			original, _ = attr(s, "original")
			if !seenFile {
				f.Language, f.TargetLanguage, seenFile = src, trg, true
			} else if src != f.Language || trg != f.TargetLanguage {
				return x.errorf("xliff: <file> of languages %q → %q after one of %q → %q: one file, one pair of languages", src, trg, f.Language, f.TargetLanguage)
			}
		case "trans-unit":
			line, _ := x.pos()
			if err := cnt.add(line); err != nil {
				return err
			}
			u, err := transUnit(x, s, line)
			if err != nil {
				return err
			}
			u.Original = original
			if err := emit(u); err != nil {
				return err
			}
		case "bin-unit", "header":
			if err := x.skip(); err != nil {
				return err
			}
		}
	}
}

func transUnit(x *xmlReader, s xml.StartElement, line int) (*Unit, error) {
	u := &Unit{Line: line}
	id, _ := attr(s, "id")
	u.Key = id
	if rn, ok := attr(s, "resname"); ok && rn != "" {
		u.Key = rn
	}
	if u.Key == "" {
		return nil, errAt(line, 0, "xliff: a <trans-unit> without an id")
	}
	if v, _ := attr(s, "translate"); v == "no" {
		u.Hidden = true
	}
	if v, ok := attr(s, "maxwidth"); ok {
		unit, _ := attr(s, "size-unit")
		if unit == "" || unit == "char" {
			n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
			if err != nil || n < 0 {
				return nil, errAt(line, 0, "xliff: trans-unit %q: maxwidth %q is not a number", u.Key, v)
			}
			u.MaxLength = &n
		}
	}
	approved, _ := attr(s, "approved")
	var contexts []string
	hasTarget := false
	for {
		tok, err := x.next()
		if err != nil {
			return nil, err
		}
		switch t := tok.(type) {
		case xml.EndElement:
			u.Context = strings.Join(contexts, "\n")
			u.ICU = isICU(u.Source.Text)
			switch {
			case !hasTarget || u.Target.IsZero():
				u.State = StateNew
			case approved == "yes":
				u.State = StateApproved
			case u.State == StateNone:
				u.State = StateTranslated
			}
			return u, nil
		case xml.StartElement:
			var err error
			switch t.Name.Local {
			case "source":
				u.Source.Text, err = x.inner(true)
			case "target":
				hasTarget = true
				if st, ok := attr(t, "state"); ok {
					u.State = states12[st]
				}
				if q, ok := attr(t, "state-qualifier"); ok {
					u.Origin = origin12[q]
				}
				u.Target.Text, err = x.inner(true)
			case "note":
				var n string
				n, err = x.inner(false)
				if n = strings.TrimSpace(n); n != "" {
					u.Notes = append(u.Notes, n)
				}
			case "context":
				var c string
				c, err = x.inner(false)
				if c = strings.TrimSpace(c); c != "" {
					contexts = append(contexts, c)
				}
			case "context-group":
				// its <context> children are read one by one
			default:
				err = x.skip()
			}
			if err != nil {
				return nil, err
			}
		}
	}
}

// Parse reads an XLIFF 2.x document.
func (XLIFF2) Parse(r io.Reader, lim Limits, f *File, emit func(*Unit) error) error {
	lim = lim.withDefaults()
	f.Bilingual = true
	x := newXMLReader(r, lim)
	cnt := counter{max: lim.MaxUnits}
	original := ""
	for {
		tok, err := x.next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		s, ok := tok.(xml.StartElement)
		if !ok {
			continue
		}
		switch s.Name.Local {
		case "xliff":
			f.Language, _ = attr(s, "srcLang")
			f.TargetLanguage, _ = attr(s, "trgLang")
		case "file":
			original, _ = attr(s, "original")
			if original == "" {
				original, _ = attr(s, "id")
			}
		case "unit":
			line, _ := x.pos()
			if err := cnt.add(line); err != nil {
				return err
			}
			u, err := unit2(x, s, line)
			if err != nil {
				return err
			}
			u.Original = original
			if err := emit(u); err != nil {
				return err
			}
		}
	}
}

func unit2(x *xmlReader, s xml.StartElement, line int) (*Unit, error) {
	u := &Unit{Line: line}
	u.Key, _ = attr(s, "id")
	if n, ok := attr(s, "name"); ok && n != "" {
		u.Key = n
	}
	if u.Key == "" {
		return nil, errAt(line, 0, "xliff: a <unit> without an id")
	}
	if v, _ := attr(s, "translate"); v == "no" {
		u.Hidden = true
	}
	if v, ok := attr(s, "sizeRestriction"); ok {
		n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
		if err != nil || n < 0 {
			return nil, errAt(line, 0, "xliff: unit %q: sizeRestriction %q is not a number", u.Key, v)
		}
		u.MaxLength = &n
	}
	var src, trg strings.Builder
	hasTarget, stateSet := false, false
	depth := 0 // of <segment>/<ignorable>
	for {
		tok, err := x.next()
		if err != nil {
			return nil, err
		}
		switch t := tok.(type) {
		case xml.EndElement:
			if depth > 0 {
				depth--
				continue
			}
			u.Source.Text, u.Target.Text = src.String(), trg.String()
			u.ICU = isICU(u.Source.Text)
			switch {
			case !hasTarget || u.Target.IsZero():
				u.State = StateNew
			case u.State == StateNew:
				u.State = StateNeedsReview
			case u.State == StateNone:
				u.State = StateTranslated
			}
			return u, nil
		case xml.StartElement:
			var text string
			var err error
			switch t.Name.Local {
			case "segment", "ignorable":
				if st, ok := attr(t, "state"); ok && !stateSet {
					u.State, stateSet = states2[st], true
				}
				depth++
			case "source":
				text, err = x.inner(true)
				src.WriteString(text)
			case "target":
				hasTarget = true
				text, err = x.inner(true)
				trg.WriteString(text)
			case "notes":
				// its <note> children are read one by one
				depth++
			case "note":
				text, err = x.inner(false)
				if text = strings.TrimSpace(text); text != "" {
					u.Notes = append(u.Notes, text)
				}
			default:
				err = x.skip()
			}
			if err != nil {
				return nil, err
			}
			if src.Len()+trg.Len() > x.lim.MaxText {
				return nil, limitAt(line, 0, "unit %q: a text longer than %d bytes", u.Key, x.lim.MaxText)
			}
		}
	}
}

// icuArg finds an ICU argument with a plural, select or selectordinal
// type: {count, plural, ...}.
var icuArg = regexp.MustCompile(`\{\s*[\p{L}\p{N}_]+\s*,\s*(?:plural|select|selectordinal)\s*,`)

// isICU reports whether s is an ICU message with a plural or select
// argument.
func isICU(s string) bool {
	return strings.IndexByte(s, '{') >= 0 && icuArg.MatchString(s)
}
