package locfile

import (
	"encoding/xml"
	"io"
	"path"
	"regexp"
	"strings"
)

// StringsDict reads iOS and macOS .stringsdict files (XML property
// lists): each top-level key is a unit. A key whose
// NSStringLocalizedFormatKey names one variable (%#@items@) of
// NSStringPluralRuleType is a plural unit: each CLDR category the
// variable gives is a form, the format with the variable replaced by the
// category's text. With several variables the first makes the forms and
// the others stay as written; a key without a plural variable is a plain
// unit of its format text. The property list is read whole (encoding/xml).
type StringsDict struct{}

// Type is "stringsdict".
func (StringsDict) Type() string { return "stringsdict" }

// Match: a .stringsdict name.
func (StringsDict) Match(name string, _ []byte) bool {
	return strings.EqualFold(path.Ext(name), ".stringsdict")
}

// plistValue is a property list value: a dict (keys in order), a string,
// or something else (kept as nothing).
type plistValue struct {
	line   int
	isDict bool
	keys   []string
	vals   []*plistValue
	str    string
}

func (d *plistValue) get(k string) *plistValue {
	for i, key := range d.keys {
		if key == k {
			return d.vals[i]
		}
	}
	return nil
}

// readPlistValue reads the value whose start element s was read.
func readPlistValue(x *xmlReader, s xml.StartElement) (*plistValue, error) {
	line, _ := x.pos()
	v := &plistValue{line: line}
	switch s.Name.Local {
	case "dict":
		v.isDict = true
		var key *string
		for {
			tok, err := x.next()
			if err != nil {
				return nil, err
			}
			switch t := tok.(type) {
			case xml.EndElement:
				if key != nil {
					return nil, x.errorf("plist: <key>%s</key> without a value", *key)
				}
				return v, nil
			case xml.StartElement:
				if t.Name.Local == "key" {
					if key != nil {
						return nil, x.errorf("plist: <key>%s</key> without a value", *key)
					}
					k, err := x.inner(false)
					if err != nil {
						return nil, err
					}
					key = &k
					continue
				}
				if key == nil {
					return nil, x.errorf("plist: a <%s> in a <dict> without a <key>", t.Name.Local)
				}
				val, err := readPlistValue(x, t)
				if err != nil {
					return nil, err
				}
				v.keys, v.vals = append(v.keys, *key), append(v.vals, val)
				key = nil
			}
		}
	case "string":
		s, err := x.inner(false)
		if err != nil {
			return nil, err
		}
		v.str = s
		return v, nil
	}
	return v, x.skip()
}

var plistVar = regexp.MustCompile(`%#@([^@]+)@`)

// Parse reads a .stringsdict file.
func (StringsDict) Parse(r io.Reader, lim Limits, f *File, emit func(*Unit) error) error {
	lim = lim.withDefaults()
	x := newXMLReader(r, lim)
	var root *plistValue
	for {
		tok, err := x.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		s, ok := tok.(xml.StartElement)
		if !ok || s.Name.Local == "plist" {
			continue
		}
		if s.Name.Local != "dict" || root != nil {
			return x.errorf("plist: the top-level value must be one <dict>")
		}
		if root, err = readPlistValue(x, s); err != nil {
			return err
		}
	}
	if root == nil {
		return errAt(1, 0, "plist: no <dict>")
	}
	cnt := counter{max: lim.MaxUnits}
	for i, key := range root.keys {
		entry := root.vals[i]
		if err := cnt.add(entry.line); err != nil {
			return err
		}
		u := &Unit{Key: key, Line: entry.line}
		if !entry.isDict {
			u.Source.Text = entry.str
			if err := emit(u); err != nil {
				return err
			}
			continue
		}
		format := entry.get("NSStringLocalizedFormatKey")
		if format == nil || format.isDict {
			return errAt(entry.line, 0, "plist: key %q has no NSStringLocalizedFormatKey string", key)
		}
		u.Source.Text = format.str
		for _, m := range plistVar.FindAllStringSubmatchIndex(format.str, -1) {
			name := format.str[m[2]:m[3]]
			spec := entry.get(name)
			if spec == nil || !spec.isDict {
				return errAt(entry.line, 0, "plist: key %q: variable %q has no <dict>", key, name)
			}
			if t := spec.get("NSStringFormatSpecTypeKey"); t == nil || t.str != "NSStringPluralRuleType" {
				continue
			}
			forms := map[string]string{}
			for j, cat := range spec.keys {
				if IsCategory(cat) && !spec.vals[j].isDict {
					forms[cat] = format.str[:m[0]] + spec.vals[j].str + format.str[m[1]:]
				}
			}
			if len(forms) == 0 {
				return errAt(spec.line, 0, "plist: key %q: variable %q has no plural category", key, name)
			}
			u.Source.Plural = forms
			u.Source.Text = forms["other"]
			break
		}
		if err := emit(u); err != nil {
			return err
		}
	}
	return nil
}
