package postimport

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"unicode/utf8"
)

// member is one member of a JSON object, its value kept as compact raw JSON
// (a sub-slice of the object's raw bytes).
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

// decodeMembers compacts a JSON object (which also validates it) and splits
// it into its members, in order, without copying their values.
func decodeMembers(data []byte) (*source, error) {
	raw, err := compact(data)
	if err != nil {
		return nil, err
	}
	return splitMembers(raw)
}

// splitMembers splits compact, valid JSON into the members of its top-level
// object. Values are capacity-limited sub-slices of raw.
func splitMembers(raw json.RawMessage) (*source, error) {
	if len(raw) < 2 || raw[0] != '{' {
		return nil, errNotObject
	}
	src := &source{raw: raw}
	i := 1
	for i < len(raw) && raw[i] != '}' {
		if raw[i] != '"' {
			return nil, fmt.Errorf("unexpected byte %q at offset %d", raw[i], i)
		}
		kend := skipString(raw, i)
		key, err := unquote(raw[i:kend])
		if err != nil {
			return nil, err
		}
		if kend >= len(raw) || raw[kend] != ':' {
			return nil, fmt.Errorf("member %q: missing colon", key)
		}
		vstart := kend + 1
		vend := skipValue(raw, vstart)
		value := raw[vstart:vend:vend]
		if j := slices.IndexFunc(src.members, func(m member) bool { return m.key == key }); j >= 0 {
			src.members[j].value = value
		} else {
			src.members = append(src.members, member{key: key, value: value})
		}
		i = vend
		if i < len(raw) && raw[i] == ',' {
			i++
		}
	}
	return src, nil
}

// skipString returns the index after the string that starts at raw[i] ('"').
func skipString(raw []byte, i int) int {
	for i++; i < len(raw); i++ {
		switch raw[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return len(raw)
}

// skipValue returns the index after the compact JSON value at raw[i].
func skipValue(raw []byte, i int) int {
	if i >= len(raw) {
		return i
	}
	switch raw[i] {
	case '"':
		return skipString(raw, i)
	case '{', '[':
		depth := 0
		for i < len(raw) {
			switch raw[i] {
			case '"':
				i = skipString(raw, i)
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1
				}
			}
			i++
		}
		return i
	default:
		for i < len(raw) && raw[i] != ',' && raw[i] != '}' && raw[i] != ']' {
			i++
		}
		return i
	}
}

// unquote decodes a JSON string; one without escapes is copied directly.
func unquote(q []byte) (string, error) {
	if len(q) >= 2 && q[0] == '"' && q[len(q)-1] == '"' && bytes.IndexByte(q, '\\') < 0 && utf8.Valid(q) {
		return string(q[1 : len(q)-1]), nil
	}
	var s string
	if err := json.Unmarshal(q, &s); err != nil {
		return "", err
	}
	return s, nil
}

// compact removes insignificant whitespace; string contents (escapes
// included) are kept byte for byte. Already compact input is validated and
// copied once.
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
