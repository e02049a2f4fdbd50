package locfile

import (
	"bytes"
	"encoding/xml"
	"io"
	"path"
	"strings"
)

// Android reads Android XML resources: <string name="…"> and <plurals
// name="…"> with <item quantity="…">, in file order; translatable="false"
// marks a hidden unit; the comment just before an element is its note.
// The text is the element's content with inline markup (<b>, <xliff:g>)
// kept as written, the surrounding double quotes dropped and Android's
// escapes (\' \" \n \t \\ \@ \?) resolved. <string-array> is skipped. It
// reads with encoding/xml, one element at a time.
type Android struct{}

// Type is "android".
func (Android) Type() string { return "android" }

// Match: an .xml name whose content has a <resources> element.
func (Android) Match(name string, head []byte) bool {
	return strings.EqualFold(path.Ext(name), ".xml") && bytes.Contains(head, []byte("<resources"))
}

// Parse reads an Android resource file.
func (Android) Parse(r io.Reader, lim Limits, f *File, emit func(*Unit) error) error {
	lim = lim.withDefaults()
	x := newXMLReader(r, lim)
	cnt := counter{max: lim.MaxUnits}
	var note string
	for {
		tok, err := x.next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		switch t := tok.(type) {
		case xml.Comment:
			note = strings.TrimSpace(string(t))
			continue
		case xml.CharData:
			continue
		case xml.EndElement:
			note = ""
			continue
		case xml.StartElement:
			if len(x.stack) != 2 {
				note = ""
				continue // <resources> itself
			}
			line, _ := x.pos()
			name, _ := attr(t, "name")
			u := &Unit{Key: name, Line: line}
			if note != "" {
				u.Notes = []string{note}
			}
			note = ""
			if v, _ := attr(t, "translatable"); v == "false" {
				u.Hidden = true
			}
			switch t.Name.Local {
			case "string":
				if name == "" {
					return errAt(line, 0, "android xml: a <string> without a name")
				}
				inner, err := x.inner(true)
				if err != nil {
					return err
				}
				u.Source.Text = androidText(inner)
			case "plurals":
				if u.Source.Plural, err = androidPlurals(x, name, line); err != nil {
					return err
				}
				u.Source.Text = u.Source.Plural["other"]
			default:
				if err := x.skip(); err != nil {
					return err
				}
				continue
			}
			u.ICU = isICU(u.Source.Text)
			if err := cnt.add(line); err != nil {
				return err
			}
			if err := emit(u); err != nil {
				return err
			}
		}
	}
}

func androidPlurals(x *xmlReader, name string, line int) (map[string]string, error) {
	forms := map[string]string{}
	for {
		tok, err := x.next()
		if err != nil {
			return nil, err
		}
		switch t := tok.(type) {
		case xml.EndElement:
			if name == "" || len(forms) == 0 {
				return nil, errAt(line, 0, "android xml: plurals %q needs a name and items", name)
			}
			return forms, nil
		case xml.StartElement:
			if t.Name.Local != "item" {
				if err := x.skip(); err != nil {
					return nil, err
				}
				continue
			}
			q, _ := attr(t, "quantity")
			if !IsCategory(q) {
				return nil, x.errorf("android xml: plurals %q: quantity %q is not a plural category", name, q)
			}
			inner, err := x.inner(true)
			if err != nil {
				return nil, err
			}
			forms[q] = androidText(inner)
		}
	}
}

// androidText drops the double quotes around a text and resolves
// Android's backslash escapes.
func androidText(s string) string {
	if len(s) >= 2 && s[0] == '"' && s[len(s)-1] == '"' {
		s = s[1 : len(s)-1]
	}
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' || i+1 == len(s) {
			b.WriteByte(s[i])
			continue
		}
		i++
		switch s[i] {
		case 'n':
			b.WriteByte('\n')
		case 't':
			b.WriteByte('\t')
		default: // \' \" \\ \@ \?
			b.WriteByte(s[i])
		}
	}
	return b.String()
}
