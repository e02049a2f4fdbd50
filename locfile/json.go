package locfile

import (
	"bytes"
	"encoding/json"
	"errors"

	"io"
	"path"
	"strings"
)

// JSON reads key-value JSON (the platform's "json" type): an object whose
// string values are the texts; nested objects give dotted keys ("a.b");
// an object whose keys are all CLDR plural categories is one plural unit.
// Arrays, numbers, booleans and null are refused with their key. It reads
// with encoding/json's token decoder over the file held in memory.
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
}

func readJSONDoc(r io.Reader, lim Limits) (*jsonDoc, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, &Error{Err: err}
	}
	data = bytes.TrimPrefix(data, []byte("\ufeff"))
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	return &jsonDoc{data: data, dec: dec, lim: lim}, nil
}

// pos returns the line and column of a byte offset.
func (d *jsonDoc) pos(off int64) (int, int) {
	if off > int64(len(d.data)) {
		off = int64(len(d.data))
	}
	before := d.data[:off]
	line := bytes.Count(before, []byte("\n")) + 1
	col := int(off) - bytes.LastIndexByte(before, '\n')
	return line, col
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
		line, _ := d.pos(d.dec.InputOffset())
		if strings.TrimSpace(key) == "" {
			return d.errorf("json: an empty key under %q: every text needs a key", prefix)
		}
		if prefix != "" {
			key = prefix + "." + key
		}
		if len(key) > d.lim.MaxText {
			return limitAt(line, 0, "a key longer than %d bytes", d.lim.MaxText)
		}
		tok, err = d.dec.Token()
		if err != nil {
			return d.wrap(err)
		}
		switch t := tok.(type) {
		case string:
			if err := cnt.add(line); err != nil {
				return err
			}
			if len(t) > d.lim.MaxText {
				return limitAt(line, 0, "key %q: a text longer than %d bytes", key, d.lim.MaxText)
			}
			if err := emit(&Unit{Key: key, Source: Text{Text: t}, ICU: isICU(t), Line: line}); err != nil {
				return err
			}
		case json.Delim:
			if t != '{' {
				return errAt(line, 0, "json: key %q: a text must be a string or an object, got an array", key)
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
		default:
			return errAt(line, 0, "json: key %q: a text must be a string or an object, got %v", key, tok)
		}
	}
	if _, err := d.dec.Token(); err != nil { // '}'
		return d.wrap(err)
	}
	return nil
}

// pluralOrNested reads an object value: a plural unit when its keys are
// all plural categories with string values (returned), else nested keys
// (emitted, nil returned). The object's first member decides: a plural
// category with a string value reads on as a plural.
func (d *jsonDoc) pluralOrNested(key string, line, depth int, cnt *counter, emit func(*Unit) error) (*Unit, error) {
	start := d.dec.InputOffset()
	// Look ahead: decode the object into a map of raw values.
	var raw map[string]json.RawMessage
	sub := json.NewDecoder(bytes.NewReader(d.data[start-1:]))
	if err := sub.Decode(&raw); err != nil {
		return nil, d.wrap(err)
	}
	forms := map[string]string{}
	plural := len(raw) > 0
	for k, v := range raw {
		var s string
		if !IsCategory(k) || json.Unmarshal(v, &s) != nil {
			plural = false
			break
		}
		forms[k] = s
	}
	if !plural {
		return nil, d.object(key, depth+1, cnt, emit)
	}
	// skip the object in the main decoder
	for n := 1; n > 0; {
		tok, err := d.dec.Token()
		if err != nil {
			return nil, d.wrap(err)
		}
		if t, ok := tok.(json.Delim); ok {
			switch t {
			case '{', '[':
				n++
			default:
				n--
			}
		}
	}
	return &Unit{Key: key, Source: Text{Text: forms["other"], Plural: forms}, Line: line}, nil
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
