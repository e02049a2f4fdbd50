package locfile

import (
	"bufio"
	"errors"
	"io"
	"path"
	"strconv"
	"strings"
	"unicode/utf8"
)

// PO reads gettext PO files and POT templates: each entry is a unit keyed
// by its msgid, with msgctxt as its context, #. and # comments as notes,
// the fuzzy flag as needs review, msgid_plural and msgstr[N] as plural
// forms (the Plural-Forms header maps each N to a CLDR category for the
// header's Language), and the header's Language as the target language.
// Obsolete entries (#~) are skipped. It reads line by line.
type PO struct{}

// Type is "gettext".
func (PO) Type() string { return "gettext" }

// Match: a .po or .pot name.
func (PO) Match(name string, _ []byte) bool {
	switch strings.ToLower(path.Ext(name)) {
	case ".po", ".pot":
		return true
	}
	return false
}

type poEntry struct {
	line                    int
	ctx, id, idPlural       *string
	str                     map[int]*string
	notes                   []string
	fuzzy, obsolete, exists bool
	last                    *string // the field a continuation line extends
}

// Parse reads a PO file.
func (PO) Parse(r io.Reader, lim Limits, f *File, emit func(*Unit) error) error {
	lim = lim.withDefaults()
	f.Bilingual = true
	f.Template = strings.EqualFold(path.Ext(f.Name), ".pot")
	if f.TargetLanguage == "" && !f.Template {
		f.TargetLanguage, _ = PathLanguage(f.Name)
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), lim.MaxText+1024)
	cnt := counter{max: lim.MaxUnits}
	var (
		e        poEntry
		forms    []string
		formsErr error
		header   = true
		lineNo   int
	)
	flush := func() error {
		if !e.exists {
			return nil
		}
		defer func() { e = poEntry{} }()
		if e.obsolete {
			return nil
		}
		if e.id == nil {
			return errAt(e.line, 0, "po: an entry without msgid")
		}
		if header && *e.id == "" && e.ctx == nil {
			header = false
			h := ""
			if s := e.str[0]; s != nil {
				h = *s
			}
			var pf string
			for _, l := range strings.Split(h, "\n") {
				k, v, ok := strings.Cut(l, ":")
				if !ok {
					continue
				}
				switch strings.TrimSpace(k) {
				case "Language":
					if v = strings.TrimSpace(v); v != "" {
						f.TargetLanguage = v
					}
				case "Plural-Forms":
					pf = v
				}
			}
			forms, formsErr = poForms(f.TargetLanguage, pf)
			if formsErr != nil {
				return errAt(e.line, 0, "po: the header: %v", formsErr)
			}
			return nil
		}
		header = false
		if err := cnt.add(e.line); err != nil {
			return err
		}
		u := &Unit{Key: *e.id, Line: e.line, Notes: e.notes}
		if e.ctx != nil {
			u.Context = *e.ctx
		}
		if e.idPlural != nil {
			if forms == nil {
				forms, formsErr = poForms(f.TargetLanguage, "nplurals=2; plural=(n != 1);")
				if formsErr != nil {
					return errAt(e.line, 0, "po: %v", formsErr)
				}
			}
			u.Source.Plural = map[string]string{"one": *e.id, "other": *e.idPlural}
			u.Source.Text = *e.idPlural
			for i, s := range e.str {
				if i < 0 || i >= len(forms) {
					return errAt(e.line, 0, "po: msgid %q: msgstr[%d] beyond the %d plural forms of the header", *e.id, i, len(forms))
				}
				if *s == "" {
					continue
				}
				if u.Target.Plural == nil {
					u.Target.Plural = map[string]string{}
				}
				u.Target.Plural[forms[i]] = *s
			}
			u.Target.Text = u.Target.Plural["other"]
		} else {
			u.Source.Text = *e.id
			if s := e.str[0]; s != nil {
				u.Target.Text = *s
			}
			if len(e.str) > 1 || (len(e.str) == 1 && e.str[0] == nil) {
				return errAt(e.line, 0, "po: msgid %q: msgstr[N] without msgid_plural", *e.id)
			}
		}
		u.ICU = isICU(u.Source.Text)
		switch {
		case u.Target.IsZero():
			u.State = StateNew
		case e.fuzzy:
			u.State = StateNeedsReview
		default:
			u.State = StateTranslated
		}
		return emit(u)
	}
	start := func() error {
		// a keyword or comment after a msgstr begins a new entry
		if e.exists && len(e.str) > 0 {
			if err := flush(); err != nil {
				return err
			}
		}
		if !e.exists {
			e.exists, e.line, e.str = true, lineNo, map[int]*string{}
		}
		return nil
	}
	for sc.Scan() {
		lineNo++
		if raw := sc.Bytes(); !utf8.Valid(raw) {
			off, _, col, _ := firstNotUTF8(raw)
			return notUTF8(lineNo, col, raw[off], -1)
		}
		line := strings.TrimSpace(sc.Text())
		if lineNo == 1 {
			line = strings.TrimPrefix(line, "\ufeff")
		}
		switch {
		case line == "":
			if err := flush(); err != nil {
				return err
			}
			continue
		case strings.HasPrefix(line, "#~"):
			if err := start(); err != nil {
				return err
			}
			e.obsolete = true
			continue
		case strings.HasPrefix(line, "#,"):
			if err := start(); err != nil {
				return err
			}
			for _, fl := range strings.Split(line[2:], ",") {
				if strings.TrimSpace(fl) == "fuzzy" {
					e.fuzzy = true
				}
			}
			continue
		case strings.HasPrefix(line, "#."), strings.HasPrefix(line, "# "), line == "#":
			if err := start(); err != nil {
				return err
			}
			n := strings.TrimSpace(strings.TrimPrefix(strings.TrimPrefix(line, "#."), "#"))
			if n != "" {
				e.notes = append(e.notes, n)
			}
			continue
		case strings.HasPrefix(line, "#"): // #: references, #| previous, other comments
			if err := start(); err != nil {
				return err
			}
			continue
		case line[0] == '"':
			if e.last == nil {
				return errAt(lineNo, 1, "po: a string continues no keyword")
			}
			s, err := poString(line)
			if err != nil {
				return errAt(lineNo, 1, "po: %v", err)
			}
			if len(*e.last)+len(s) > lim.MaxText {
				return limitAt(lineNo, 0, "a text longer than %d bytes", lim.MaxText)
			}
			*e.last += s
			continue
		}
		kw, rest := line, ""
		if i := strings.IndexAny(line, " \t"); i >= 0 {
			kw, rest = line[:i], strings.TrimSpace(line[i:])
		}
		if kw == "msgctxt" || kw == "msgid" {
			if err := start(); err != nil {
				return err
			}
		} else if !e.exists {
			return errAt(lineNo, 1, "po: %s before msgid", kw)
		}
		s, err := poString(rest)
		if err != nil {
			return errAt(lineNo, len(kw)+2, "po: %s: %v", kw, err)
		}
		if len(s) > lim.MaxText {
			return limitAt(lineNo, 0, "a text longer than %d bytes", lim.MaxText)
		}
		v := &s
		switch {
		case kw == "msgctxt":
			if e.ctx != nil || e.id != nil {
				return errAt(lineNo, 1, "po: msgctxt after msgctxt or msgid")
			}
			e.ctx = v
		case kw == "msgid":
			if e.id != nil {
				return errAt(lineNo, 1, "po: a second msgid in one entry")
			}
			e.id = v
		case kw == "msgid_plural":
			if e.id == nil || e.idPlural != nil {
				return errAt(lineNo, 1, "po: msgid_plural without a msgid before it")
			}
			e.idPlural = v
		case kw == "msgstr":
			if e.id == nil || e.str[0] != nil {
				return errAt(lineNo, 1, "po: msgstr without a msgid before it")
			}
			e.str[0] = v
		case strings.HasPrefix(kw, "msgstr[") && strings.HasSuffix(kw, "]"):
			i, err := strconv.Atoi(kw[len("msgstr[") : len(kw)-1])
			if err != nil || i < 0 || i > 5 {
				return errAt(lineNo, 1, "po: %s: the index must be 0 to 5", kw)
			}
			if e.id == nil || e.idPlural == nil || e.str[i] != nil {
				return errAt(lineNo, 1, "po: %s without msgid_plural, or given twice", kw)
			}
			e.str[i] = v
		default:
			return errAt(lineNo, 1, "po: unknown keyword %q", kw)
		}
		e.last = v
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return limitAt(lineNo+1, 0, "a line longer than %d bytes", lim.MaxText+1024)
		}
		return &Error{Line: lineNo + 1, Err: err}
	}
	return flush()
}

// poString reads a C string literal: "..." with \n \t \" \\ \r \a \b \f
// \v, octal and \x escapes.
func poString(s string) (string, error) {
	if len(s) < 2 || s[0] != '"' || s[len(s)-1] != '"' {
		return "", errors.New("a string must be in double quotes")
	}
	s = s[1 : len(s)-1]
	if !strings.ContainsAny(s, `\"`) {
		return s, nil
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '"' {
			return "", errors.New("an unescaped \" inside a string")
		}
		if c != '\\' {
			b.WriteByte(c)
			continue
		}
		i++
		if i == len(s) {
			return "", errors.New("a string ends with a backslash")
		}
		switch c := s[i]; c {
		case 'n':
			b.WriteByte('\n')
		case 't':
			b.WriteByte('\t')
		case 'r':
			b.WriteByte('\r')
		case 'a':
			b.WriteByte('\a')
		case 'b':
			b.WriteByte('\b')
		case 'f':
			b.WriteByte('\f')
		case 'v':
			b.WriteByte('\v')
		case '\\', '"', '\'', '?':
			b.WriteByte(c)
		case 'x':
			j := i + 1
			for j < len(s) && j < i+3 && isHex(s[j]) {
				j++
			}
			if j == i+1 {
				return "", errors.New(`\x without hex digits`)
			}
			v, _ := strconv.ParseUint(s[i+1:j], 16, 8)
			b.WriteByte(byte(v))
			i = j - 1
		default:
			if c >= '0' && c <= '7' {
				j := i
				for j < len(s) && j < i+3 && s[j] >= '0' && s[j] <= '7' {
					j++
				}
				v, _ := strconv.ParseUint(s[i:j], 8, 16)
				b.WriteByte(byte(v))
				i = j - 1
				continue
			}
			return "", errors.New(`unknown escape \` + string(c))
		}
	}
	return b.String(), nil
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}
