package platform

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"path"
	"strings"
	"unicode/utf8"
)

// Parsed is one string read from a file: its key, its text (Plural set
// for plural strings, keyed by CLDR category) and an optional context.
type Parsed struct {
	Identifier string
	Text       string
	Plural     map[string]string
	Context    string
	// Target is the translation of a bilingual file (XLIFF, PO): what a
	// translation upload stores instead of Text and Plural; nil for other
	// formats and for a unit without one.
	Target *Parsed
	// bilingual marks a unit of a bilingual file: a translation upload
	// takes its Target, never its source text.
	bilingual bool
}

// translation is the text a translation upload stores for p: p itself,
// or the target of a bilingual file's unit (nil when it has none).
func (p *Parsed) translation() *Parsed {
	if p.bilingual {
		return p.Target
	}
	return p
}

// Parser reads the strings of one file format.
type Parser interface {
	// Type is the platform's file type (json, android, ...).
	Type() string
	// Match reports whether the parser reads the file.
	Match(name string, head []byte) bool
	// Parse reads the strings in file order.
	Parse(data []byte) ([]Parsed, error)
}

// DefaultParsers are JSON key-value files and Android XML resources,
// then the other formats croql reads (FileParser: XLIFF 1.2 and 2.0,
// gettext PO, iOS .strings and .stringsdict, ARB).
func DefaultParsers() []Parser {
	return append([]Parser{JSONParser{}, AndroidParser{}}, fileParsers()...)
}

// ErrNoParser reports a file no parser reads.
var ErrNoParser = errors.New("no parser reads this file")

func parserFor(ps []Parser, name string, data []byte) (Parser, error) {
	head := data
	if len(head) > 4096 {
		head = head[:4096]
	}
	var types []string
	for _, p := range ps {
		if p.Match(name, head) {
			return p, nil
		}
		types = append(types, p.Type())
	}
	return nil, fmt.Errorf("%w: %q (formats read: %s)", ErrNoParser, name, strings.Join(types, ", "))
}

// JSONParser reads key-value JSON: an object whose string values are the
// texts; nested objects give dotted keys ("a.b"); an object whose keys
// are all CLDR plural categories is one plural string. Arrays, numbers,
// booleans and null are refused with their key.
type JSONParser struct{}

// Type is "json".
func (JSONParser) Type() string { return "json" }

// Match: a .json name.
func (JSONParser) Match(name string, _ []byte) bool {
	return strings.EqualFold(path.Ext(name), ".json")
}

// Parse reads the file.
func (JSONParser) Parse(data []byte) ([]Parsed, error) { return JSONParser{}.parseAtMost(data, 0) }

// errTooManyStrings stops a parse at the per-file strings quota.
var errTooManyStrings = errors.New("the file holds more strings than the per-file quota")

// limitedParser is a Parser that stops reading a file once it has read
// more than max strings (max > 0), with errTooManyStrings: the strings
// of a file over the quota are never all held in memory.
type limitedParser interface {
	parseAtMost(data []byte, max int) ([]Parsed, error)
}

// parseFile reads data with p, failing with errTooManyStrings when it
// holds more than max strings (no bound when max <= 0).
// A file that is not valid UTF-8 is refused, saying where (a UTF-16 file
// with a byte order mark is left to its parser).
func parseFile(p Parser, data []byte, max int) ([]Parsed, error) {
	if err := checkUTF8(data); err != nil {
		return nil, err
	}
	var out []Parsed
	var err error
	if lp, ok := p.(limitedParser); ok {
		out, err = lp.parseAtMost(data, max)
	} else {
		out, err = p.Parse(data)
	}
	if err == nil && max > 0 && len(out) > max {
		return nil, errTooManyStrings
	}
	return out, err
}

// checkUTF8 fails, naming the line, the column (in characters) and the
// byte offset of the first invalid byte, when data is not UTF-8 and does
// not start with a UTF-16 byte order mark.
func checkUTF8(data []byte) error {
	if len(data) >= 2 && (data[0] == 0xFF && data[1] == 0xFE || data[0] == 0xFE && data[1] == 0xFF) {
		return nil
	}
	if utf8.Valid(data) {
		return nil
	}
	line, col := 1, 1
	for i := 0; i < len(data); {
		r, size := utf8.DecodeRune(data[i:])
		if r == utf8.RuneError && size <= 1 {
			return fmt.Errorf("the file is not valid UTF-8: byte 0x%02X at line %d, column %d (byte offset %d); save it as UTF-8", data[i], line, col, i)
		}
		if r == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
		i += size
	}
	return nil
}

func (JSONParser) parseAtMost(data []byte, max int) ([]Parsed, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil {
		return nil, fmt.Errorf("json: %w", err)
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, fmt.Errorf("json: the file must be an object of keys and texts, it starts with %v", tok)
	}
	var out []Parsed
	if err := parseJSONObject(dec, "", &out, max); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("json: text after the top-level object")
	}
	return out, nil
}

var pluralCategories = map[string]bool{"zero": true, "one": true, "two": true, "few": true, "many": true, "other": true}

// parseJSONObject reads the members of an object whose '{' was read;
// with errTooManyStrings once out holds more than max strings (max > 0).
func parseJSONObject(dec *json.Decoder, prefix string, out *[]Parsed, max int) error {
	for dec.More() {
		if max > 0 && len(*out) > max {
			return errTooManyStrings
		}
		tok, err := dec.Token()
		if err != nil {
			return fmt.Errorf("json: %w", err)
		}
		key, _ := tok.(string)
		if strings.TrimSpace(key) == "" {
			return fmt.Errorf("json: an empty key under %q: every text needs a key", prefix)
		}
		if prefix != "" {
			key = prefix + "." + key
		}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return fmt.Errorf("json: key %q: %w", key, err)
		}
		raw = bytes.TrimSpace(raw)
		switch {
		case len(raw) > 0 && raw[0] == '"':
			var s string
			if err := json.Unmarshal(raw, &s); err != nil {
				return fmt.Errorf("json: key %q: %w", key, err)
			}
			*out = append(*out, Parsed{Identifier: key, Text: s})
		case len(raw) > 0 && raw[0] == '{':
			var forms map[string]string
			if json.Unmarshal(raw, &forms) == nil && len(forms) > 0 && allPlural(forms) {
				*out = append(*out, Parsed{Identifier: key, Plural: forms, Text: forms["other"]})
				continue
			}
			sub := json.NewDecoder(bytes.NewReader(raw))
			sub.UseNumber()
			if _, err := sub.Token(); err != nil {
				return fmt.Errorf("json: key %q: %w", key, err)
			}
			if err := parseJSONObject(sub, key, out, max); err != nil {
				return err
			}
		default:
			return fmt.Errorf("json: key %q: a text must be a string or an object, got %.20s", key, raw)
		}
	}
	_, err := dec.Token() // '}'
	if err != nil {
		return fmt.Errorf("json: %w", err)
	}
	return nil
}

func allPlural(forms map[string]string) bool {
	for k := range forms {
		if !pluralCategories[k] {
			return false
		}
	}
	return true
}

// AndroidParser reads Android XML resources: <string name="…"> and
// <plurals name="…"> with <item quantity="…">; translatable="false"
// strings are skipped; the text is the element's character data with
// Android's escapes (\' \" \n \t \\ \@ \?) resolved.
type AndroidParser struct{}

// Type is "android".
func (AndroidParser) Type() string { return "android" }

// Match: an .xml name whose content has a <resources> element.
func (AndroidParser) Match(name string, head []byte) bool {
	return strings.EqualFold(path.Ext(name), ".xml") && bytes.Contains(head, []byte("<resources"))
}

type androidResources struct {
	Strings []struct {
		Name         string `xml:"name,attr"`
		Translatable string `xml:"translatable,attr"`
		Inner        string `xml:",innerxml"`
	} `xml:"string"`
	Plurals []struct {
		Name  string `xml:"name,attr"`
		Items []struct {
			Quantity string `xml:"quantity,attr"`
			Inner    string `xml:",innerxml"`
		} `xml:"item"`
	} `xml:"plurals"`
}

// Parse reads the file (strings first, then plurals, each in file order).
func (AndroidParser) Parse(data []byte) ([]Parsed, error) {
	return AndroidParser{}.parseAtMost(data, 0)
}

// parseAtMost stops once the document is read when it holds more than
// max elements (max > 0), before their texts are resolved.
func (AndroidParser) parseAtMost(data []byte, max int) ([]Parsed, error) {
	var res androidResources
	dec := xml.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&res); err != nil {
		return nil, fmt.Errorf("android xml: %w", err)
	}
	if max > 0 && len(res.Strings)+len(res.Plurals) > max {
		return nil, errTooManyStrings
	}
	var out []Parsed
	for _, s := range res.Strings {
		if s.Name == "" {
			return nil, errors.New("android xml: a <string> without a name")
		}
		if s.Translatable == "false" {
			continue
		}
		text, err := androidText(s.Inner)
		if err != nil {
			return nil, fmt.Errorf("android xml: string %q: %w", s.Name, err)
		}
		out = append(out, Parsed{Identifier: s.Name, Text: text})
	}
	for _, p := range res.Plurals {
		forms := map[string]string{}
		for _, it := range p.Items {
			if !pluralCategories[it.Quantity] {
				return nil, fmt.Errorf("android xml: plurals %q: quantity %q is not a plural category", p.Name, it.Quantity)
			}
			text, err := androidText(it.Inner)
			if err != nil {
				return nil, fmt.Errorf("android xml: plurals %q: %w", p.Name, err)
			}
			forms[it.Quantity] = text
		}
		if p.Name == "" || len(forms) == 0 {
			return nil, fmt.Errorf("android xml: plurals %q needs a name and items", p.Name)
		}
		out = append(out, Parsed{Identifier: p.Name, Plural: forms, Text: forms["other"]})
	}
	return out, nil
}

// androidText resolves the entities of inner XML (markup such as <b> is
// kept as written) and Android's backslash escapes.
func androidText(inner string) (string, error) {
	var b strings.Builder
	dec := xml.NewDecoder(strings.NewReader("<x>" + inner + "</x>"))
	depth := 0
	for {
		tok, err := dec.RawToken()
		if err == io.EOF {
			break
		}
		if err != nil {
			return "", err
		}
		switch t := tok.(type) {
		case xml.CharData:
			if depth >= 1 {
				b.Write(t)
			}
		case xml.StartElement:
			if depth >= 1 {
				b.WriteString("<" + t.Name.Local)
				attrs := t.Attr
				for _, a := range attrs {
					b.WriteString(" " + a.Name.Local + `="` + a.Value + `"`)
				}
				b.WriteString(">")
			}
			depth++
		case xml.EndElement:
			depth--
			if depth >= 1 {
				b.WriteString("</" + t.Name.Local + ">")
			}
		}
	}
	s := b.String()
	if len(s) >= 2 && s[0] == '"' && s[len(s)-1] == '"' {
		return unescapeAndroid(s[1 : len(s)-1]), nil
	}
	return unescapeAndroid(s), nil
}

func unescapeAndroid(s string) string {
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
