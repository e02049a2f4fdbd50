package postimport

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
)

// member is one member of a JSON object, its value kept as compact raw JSON.
type member struct {
	key   string
	value json.RawMessage
}

// source is what a decoded object looked like on the wire. It is never
// modified after decoding, so clones share it.
type source struct {
	raw     json.RawMessage // the whole object, compacted
	members []member        // in wire order; a repeated key keeps its first place and its last value
}

var errNotObject = errors.New("not a JSON object")

// decodeMembers splits a JSON object into its members, in order.
func decodeMembers(data []byte) (*source, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, errNotObject
	}
	src := &source{}
	index := make(map[string]int)
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key, ok := tok.(string)
		if !ok {
			return nil, fmt.Errorf("unexpected token %v", tok)
		}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, fmt.Errorf("member %q: %w", key, err)
		}
		raw, err = compact(raw)
		if err != nil {
			return nil, fmt.Errorf("member %q: %w", key, err)
		}
		if i, dup := index[key]; dup {
			src.members[i].value = raw
			continue
		}
		index[key] = len(src.members)
		src.members = append(src.members, member{key: key, value: raw})
	}
	if _, err := dec.Token(); err != nil {
		return nil, err
	}
	src.raw, err = compact(data)
	if err != nil {
		return nil, err
	}
	return src, nil
}

// compact removes insignificant whitespace; string contents (escapes
// included) are kept byte for byte.
func compact(b []byte) (json.RawMessage, error) {
	var buf bytes.Buffer
	buf.Grow(len(b))
	if err := json.Compact(&buf, b); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// marshalPlain encodes v without HTML escaping, so that "<b>" stays "<b>".
func marshalPlain(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// field is one known member of an object being encoded.
type field struct {
	key string
	// changed reports that the value differs from the decoded snapshot (for
	// an object created by the app: that it differs from the zero value).
	changed bool
	// absent reports that the current value means "no member" (a nil
	// pointer, slice or map).
	absent bool
	// required members of objects created by the app are written even when
	// zero.
	required bool
	encode   func() ([]byte, error)
}

// encodeObject writes an object. When the object was decoded (src != nil)
// and neither a known field nor Extra changed, the original bytes are
// returned. Otherwise members keep their wire order: unchanged ones are
// copied raw, changed ones re-encoded, deleted ones dropped; new members
// follow, known ones first in fields order, then Extra keys sorted.
func encodeObject(src *source, fields []field, extra, origExtra map[string]json.RawMessage) ([]byte, error) {
	extraSame := src != nil && extraEqual(extra, origExtra)
	if src != nil && extraSame && !slices.ContainsFunc(fields, func(f field) bool { return f.changed }) {
		return src.raw, nil
	}
	known := make(map[string]int, len(fields))
	for i, f := range fields {
		known[f.key] = i
	}
	var buf bytes.Buffer
	buf.WriteByte('{')
	n := 0
	put := func(key string, value []byte) error {
		if n > 0 {
			buf.WriteByte(',')
		}
		n++
		k, err := marshalPlain(key)
		if err != nil {
			return err
		}
		buf.Write(k)
		buf.WriteByte(':')
		buf.Write(value)
		return nil
	}
	putExtra := func(key string, value json.RawMessage) error {
		v, err := compact(value)
		if err != nil {
			return fmt.Errorf("extra member %q: %w", key, err)
		}
		return put(key, v)
	}
	seen := make(map[string]bool)
	if src != nil {
		for _, m := range src.members {
			seen[m.key] = true
			if i, ok := known[m.key]; ok {
				f := fields[i]
				switch {
				case !f.changed:
					if err := put(m.key, m.value); err != nil {
						return nil, err
					}
				case !f.absent:
					v, err := f.encode()
					if err != nil {
						return nil, fmt.Errorf("member %q: %w", f.key, err)
					}
					if err := put(m.key, v); err != nil {
						return nil, err
					}
				}
				continue
			}
			if v, ok := extra[m.key]; ok {
				if err := putExtra(m.key, v); err != nil {
					return nil, err
				}
			}
		}
	}
	for _, f := range fields {
		if seen[f.key] || f.absent || !(f.changed || (src == nil && f.required)) {
			continue
		}
		v, err := f.encode()
		if err != nil {
			return nil, fmt.Errorf("member %q: %w", f.key, err)
		}
		if err := put(f.key, v); err != nil {
			return nil, err
		}
	}
	for _, k := range slices.Sorted(maps.Keys(extra)) {
		if _, isKnown := known[k]; isKnown || seen[k] {
			continue
		}
		if err := putExtra(k, extra[k]); err != nil {
			return nil, err
		}
	}
	buf.WriteByte('}')
	return buf.Bytes(), nil
}

func extraEqual(a, b map[string]json.RawMessage) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		w, ok := b[k]
		if !ok || !bytes.Equal(v, w) {
			return false
		}
	}
	return true
}

func cloneExtra(m map[string]json.RawMessage) map[string]json.RawMessage {
	if m == nil {
		return nil
	}
	out := make(map[string]json.RawMessage, len(m))
	for k, v := range m {
		out[k] = slices.Clone(v)
	}
	return out
}
