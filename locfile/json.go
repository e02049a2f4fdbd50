package locfile

import (
	"bytes"
	"encoding/json"
	"errors"

	"io"
	"path"
	"strings"
	"unicode/utf8"
)

// JSON reads key-value JSON (the platform's "json" type): an object whose
// string values are the texts; nested objects give dotted keys ("a.b");
// an object whose keys are all CLDR plural categories is one plural unit.
// Arrays, numbers, booleans and null are refused with their key. It reads
// with encoding/json's token decoder over the file held in memory (a
// *bytes.Buffer's bytes in place, without a copy).
type JSON struct{}

// Type is "json".
func (JSON) Type() string { return "json" }

// Match: a .json name.
func (JSON) Match(name string, _ []byte) bool {
	return strings.EqualFold(path.Ext(name), ".json")
}

// jsonDoc reads a JSON file held in memory and turns offsets into lines.
type jsonDoc struct {
	data []byte
	dec  *json.Decoder
	lim  Limits
	// off is the last offset pos was asked for, on line line, which
	// starts at lineStart: pos counts the lines from there, so that a
	// file's positions cost one pass over it.
	off, lineStart int64
	line           int
	// unit is the unit handed to emit, one for the file (emit copies
	// what it keeps).
	unit Unit
}

// readJSONDoc reads r whole; the bytes of a *bytes.Buffer are taken in
// place (the buffer is drained), not copied.
func readJSONDoc(r io.Reader, lim Limits) (*jsonDoc, error) {
	var data []byte
	if b, ok := r.(*bytes.Buffer); ok {
		data = b.Next(b.Len())
	} else {
		var err error
		if data, err = io.ReadAll(r); err != nil {
			return nil, &Error{Err: err}
		}
	}
	if !utf8.Valid(data) { // encoding/json would read U+FFFD in its place
		off, line, col, _ := firstNotUTF8(data)
		return nil, notUTF8(line, col, data[off], int64(off))
	}
	data = bytes.TrimPrefix(data, []byte("\ufeff"))
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	return &jsonDoc{data: data, dec: dec, lim: lim, line: 1}, nil
}

// pos returns the line and the column (in bytes) of a byte offset.
func (d *jsonDoc) pos(off int64) (int, int) {
	off = min(max(off, 0), int64(len(d.data)))
	if off < d.off {
		d.off, d.lineStart, d.line = 0, 0, 1
	}
	seg := d.data[d.off:off]
	if n := bytes.Count(seg, []byte("\n")); n > 0 {
		d.line += n
		d.lineStart = d.off + int64(bytes.LastIndexByte(seg, '\n')) + 1
	}
	d.off = off
	return d.line, int(off-d.lineStart) + 1
}

func (d *jsonDoc) errorf(format string, args ...any) *Error {
	l, c := d.pos(d.dec.InputOffset())
	return errAt(l, c, format, args...)
}

func (d *jsonDoc) wrap(err error) error {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		l, c := d.pos(se.Offset)
		return errAt(l, c, "json: %v", err)
	}
	if err == io.EOF || errors.Is(err, io.ErrUnexpectedEOF) {
		l, c := d.pos(int64(len(d.data)))
		return errAt(l, c, "json: the file ends early")
	}
	return d.errorf("json: %v", err)
}

// open reads the top-level '{'.
func (d *jsonDoc) open() error {
	tok, err := d.dec.Token()
	if err != nil {
		return d.wrap(err)
	}
	if t, ok := tok.(json.Delim); !ok || t != '{' {
		return d.errorf("json: the file must be an object of keys and texts, it starts with %v", tok)
	}
	return nil
}

// close reads the end of the document after the top-level object.
func (d *jsonDoc) close() error {
	if _, err := d.dec.Token(); err != io.EOF {
		return d.errorf("json: text after the top-level object")
	}
	return nil
}

// Parse reads a key-value JSON file.
func (JSON) Parse(r io.Reader, lim Limits, f *File, emit func(*Unit) error) error {
	lim = lim.withDefaults()
	d, err := readJSONDoc(r, lim)
	if err != nil {
		return err
	}
	if err := d.open(); err != nil {
		return err
	}
	cnt := counter{max: lim.MaxUnits}
	if err := d.object("", 1, &cnt, emit); err != nil {
		return err
	}
	return d.close()
}

// object reads the members of an object whose '{' was read, and its '}'.
func (d *jsonDoc) object(prefix string, depth int, cnt *counter, emit func(*Unit) error) error {
	if depth > d.lim.MaxDepth {
		l, c := d.pos(d.dec.InputOffset())
		return limitAt(l, c, "objects nested deeper than %d", d.lim.MaxDepth)
	}
	for d.dec.More() {
		tok, err := d.dec.Token()
		if err != nil {
			return d.wrap(err)
		}
		key, _ := tok.(string)
		line, col := d.pos(d.dec.InputOffset())
		if strings.TrimSpace(key) == "" {
			return d.errorf("json: an empty key under %q: every text needs a key", prefix)
		}
		if prefix != "" {
			key = prefix + "." + key
		}
		if len(key) > d.lim.MaxText {
			return limitAt(line, col, "a key longer than %d bytes", d.lim.MaxText)
		}
		tok, err = d.dec.Token()
		if err != nil {
			return d.wrap(err)
		}
		vline, vcol := d.pos(d.dec.InputOffset()) // the end of the value
		switch t := tok.(type) {
		case string:
			if err := cnt.add(line); err != nil {
				return err
			}
			if len(t) > d.lim.MaxText {
				return limitAt(vline, vcol, "key %q: a text longer than %d bytes", key, d.lim.MaxText)
			}
			d.unit = Unit{Key: key, Source: Text{Text: t}, ICU: isICU(t), Line: line}
			if err := emit(&d.unit); err != nil {
				return err
			}
		case json.Delim:
			if t != '{' {
				return errAt(vline, vcol, "json: key %q: a text must be a string or an object, got an array", key)
			}
			u, err := d.pluralOrNested(key, line, depth, cnt, emit)
			if err != nil {
				return err
			}
			if u != nil {
				if err := cnt.add(line); err != nil {
					return err
				}
				if err := emit(u); err != nil {
					return err
				}
			}
		case nil:
			return errAt(vline, vcol, "json: key %q: a text must be a string or an object, got null", key)
		default:
			return errAt(vline, vcol, "json: key %q: a text must be a string or an object, got %v", key, tok)
		}
	}
	if _, err := d.dec.Token(); err != nil { // '}'
		return d.wrap(err)
	}
	return nil
}

// pluralOrNested reads an object value: a plural unit when its keys are
// all plural categories with string values (returned), else nested keys
// (emitted, nil returned).
func (d *jsonDoc) pluralOrNested(key string, line, depth int, cnt *counter, emit func(*Unit) error) (*Unit, error) {
	forms, members := d.pluralForms()
	if forms == nil {
		return nil, d.object(key, depth+1, cnt, emit)
	}
	// skip the object's members and its '}' in the main decoder
	for range 2*members + 1 {
		if _, err := d.dec.Token(); err != nil {
			return nil, d.wrap(err)
		}
	}
	return &Unit{Key: key, Source: Text{Text: forms["other"], Plural: forms}, Line: line}, nil
}

// pluralForms looks ahead at the object whose '{' the main decoder just
// read, with a decoder of its own over the same bytes: its forms (a
// category given twice keeps its last text) and its number of members
// when every member is a plural category with a string value; nil at the
// first member that is not, or at a syntax error, which the main decoder
// then reports where it is. Nothing of a nested object is built before
// its keys are counted.
func (d *jsonDoc) pluralForms() (map[string]string, int) {
	sub := json.NewDecoder(bytes.NewReader(d.data[d.dec.InputOffset()-1:]))
	if _, err := sub.Token(); err != nil { // '{'
		return nil, 0
	}
	forms := map[string]string{}
	members := 0
	for sub.More() {
		tok, err := sub.Token()
		k, _ := tok.(string)
		if err != nil || !IsCategory(k) {
			return nil, 0
		}
		tok, err = sub.Token()
		v, ok := tok.(string)
		if err != nil || !ok {
			return nil, 0
		}
		forms[k] = v
		members++
	}
	if members == 0 {
		return nil, 0
	}
	return forms, members
}

// ARB reads Application Resource Bundle files (Flutter's l10n): each key
// is an ICU message; "@key" gives its description (a note), context and
// placeholders; "@@locale" is the file's language. The file is read whole
// (a key's metadata may come after it).
type ARB struct{}

// Type is "arb".
func (ARB) Type() string { return "arb" }

// Match: an .arb name.
func (ARB) Match(name string, _ []byte) bool {
	return strings.EqualFold(path.Ext(name), ".arb")
}

type arbMeta struct {
	Description string `json:"description"`
	Context     string `json:"context"`
}

// Parse reads an ARB file.
func (ARB) Parse(r io.Reader, lim Limits, f *File, emit func(*Unit) error) error {
	lim = lim.withDefaults()
	d, err := readJSONDoc(r, lim)
	if err != nil {
		return err
	}
	if err := d.open(); err != nil {
		return err
	}
	cnt := counter{max: lim.MaxUnits}
	var units []*Unit
	metas := map[string]arbMeta{}
	for d.dec.More() {
		tok, err := d.dec.Token()
		if err != nil {
			return d.wrap(err)
		}
		key, _ := tok.(string)
		line, _ := d.pos(d.dec.InputOffset())
		var raw json.RawMessage
		if err := d.dec.Decode(&raw); err != nil {
			return d.wrap(err)
		}
		switch {
		case key == "@@locale":
			var s string
			if json.Unmarshal(raw, &s) != nil {
				return errAt(line, 0, "arb: @@locale must be a string")
			}
			f.Language = s
		case strings.HasPrefix(key, "@@"):
		case strings.HasPrefix(key, "@"):
			var m arbMeta
			if err := json.Unmarshal(raw, &m); err != nil {
				return errAt(line, 0, "arb: %s: %v", key, err)
			}
			metas[key[1:]] = m
		default:
			var s string
			if err := json.Unmarshal(raw, &s); err != nil {
				return errAt(line, 0, "arb: key %q: a message must be a string", key)
			}
			if key == "" {
				return errAt(line, 0, "arb: an empty key")
			}
			if len(s) > lim.MaxText || len(key) > lim.MaxText {
				return limitAt(line, 0, "key %q: a text longer than %d bytes", key, lim.MaxText)
			}
			if err := cnt.add(line); err != nil {
				return err
			}
			units = append(units, &Unit{Key: key, Source: Text{Text: s}, ICU: isICU(s), Line: line})
		}
	}
	if _, err := d.dec.Token(); err != nil {
		return d.wrap(err)
	}
	if err := d.close(); err != nil {
		return err
	}
	for _, u := range units {
		if m, ok := metas[u.Key]; ok {
			u.Context = m.Context
			if m.Description != "" {
				u.Notes = []string{m.Description}
			}
		}
		if err := emit(u); err != nil {
			return err
		}
	}
	return nil
}
