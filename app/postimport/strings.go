package postimport

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
)

// Translation statuses (seed 2.5).
const (
	StatusUntranslated = "untranslated"
	StatusTranslated   = "translated"
	StatusApproved     = "approved"
)

// cldrOrder is the order plural categories are written in when the app
// changed a plural text; untouched texts keep their wire order.
var cldrOrder = []string{"zero", "one", "two", "few", "many", "other"}

// Text is a string text: a plain string, or, for plural strings, an object
// keyed by plural category (seed 2.5). Plural != nil selects the plural
// shape.
type Text struct {
	Plain  string
	Plural map[string]string
}

// PlainText returns a plain text.
func PlainText(s string) Text { return Text{Plain: s} }

// PluralText returns a plural text keyed by category.
func PluralText(forms map[string]string) Text {
	if forms == nil {
		forms = map[string]string{}
	}
	return Text{Plural: forms}
}

// IsPlural reports whether t has the plural shape.
func (t Text) IsPlural() bool { return t.Plural != nil }

// MarshalJSON writes a string or an object.
func (t Text) MarshalJSON() ([]byte, error) { return marshalForms(t.Plain, t.Plural) }

// UnmarshalJSON reads a string or an object of strings; null leaves t as is.
func (t *Text) UnmarshalJSON(b []byte) error { return unmarshalForms(b, &t.Plain, &t.Plural, "text") }

func (t *Text) decodeCompact(b []byte) error { return unmarshalForms(b, &t.Plain, &t.Plural, "text") }

// unquoteOrNull decodes a JSON string or null (the empty string).
func unquoteOrNull(b []byte) (string, error) {
	if string(b) == "null" {
		return "", nil
	}
	if len(b) == 0 || b[0] != '"' {
		return "", fmt.Errorf("must be a string, got %s", snippet(b))
	}
	return unquote(b)
}

// Status is a translation status: one of StatusUntranslated,
// StatusTranslated, StatusApproved, or for plural strings an object keyed
// by plural category with one of those values each.
type Status struct {
	Plain  string
	Plural map[string]string
}

// PlainStatus returns a plain status.
func PlainStatus(s string) *Status { return &Status{Plain: s} }

// IsPlural reports whether s has the plural shape.
func (s Status) IsPlural() bool { return s.Plural != nil }

// MarshalJSON writes a string or an object.
func (s Status) MarshalJSON() ([]byte, error) { return marshalForms(s.Plain, s.Plural) }

// UnmarshalJSON reads a string or an object of strings; null leaves s as is.
func (s *Status) UnmarshalJSON(b []byte) error {
	return unmarshalForms(b, &s.Plain, &s.Plural, "status")
}

func marshalForms(plain string, plural map[string]string) ([]byte, error) {
	if plural == nil {
		return marshalPlain(plain)
	}
	keys := make([]string, 0, len(plural))
	for _, k := range cldrOrder {
		if _, ok := plural[k]; ok {
			keys = append(keys, k)
		}
	}
	for _, k := range slices.Sorted(maps.Keys(plural)) {
		if !slices.Contains(cldrOrder, k) {
			keys = append(keys, k)
		}
	}
	var buf bytes.Buffer
	buf.WriteByte('{')
	for i, k := range keys {
		if i > 0 {
			buf.WriteByte(',')
		}
		kb, err := marshalPlain(k)
		if err != nil {
			return nil, err
		}
		vb, err := marshalPlain(plural[k])
		if err != nil {
			return nil, err
		}
		buf.Write(kb)
		buf.WriteByte(':')
		buf.Write(vb)
	}
	buf.WriteByte('}')
	return buf.Bytes(), nil
}

func unmarshalForms(b []byte, plain *string, plural *map[string]string, what string) error {
	b = bytes.TrimSpace(b)
	switch {
	case bytes.Equal(b, []byte("null")):
		return nil
	case len(b) > 0 && b[0] == '"':
		s, err := unquote(b)
		if err != nil {
			return err
		}
		*plain, *plural = s, nil
		return nil
	case len(b) > 0 && b[0] == '{':
		src, err := decodeMembers(b)
		if err != nil {
			return err
		}
		m := make(map[string]string, len(src.members))
		for _, mem := range src.members {
			v := mem.value
			if len(v) == 0 || v[0] != '"' {
				return fmt.Errorf("%s for plural category %q must be a string, got %s", what, mem.key, snippet(v))
			}
			s, err := unquote(v)
			if err != nil {
				return err
			}
			m[mem.key] = s
		}
		*plain, *plural = "", m
		return nil
	default:
		return fmt.Errorf("%s must be a string or an object of strings, got %s", what, snippet(b))
	}
}

func snippet(b []byte) string {
	if len(b) > 40 {
		return string(b[:40]) + "..."
	}
	return string(b)
}

// String is a string object (seed 2.5), the same in the job request and in
// the answer.
//
// A String decoded from the platform remembers its wire form. When it is
// encoded again, members the app did not change are copied byte for byte
// (up to insignificant whitespace), members the contract does not describe
// are kept in Extra and pass through, and the members keep their order. A
// String the app creates from scratch is encoded from its fields.
type String struct {
	// UniqID is unique within the file ("hash::sequence").
	UniqID string
	// Identifier is the visible string key.
	Identifier string
	// Context is the optional context.
	Context string
	// MaxLength is the maximum translation length; nil means none (null).
	MaxLength *int
	// IsHidden; nil means not set (null).
	IsHidden *bool
	// HasPlurals selects the plural shape of Text and of the translations.
	HasPlurals bool
	// Labels are label names; nil means none.
	Labels []string
	// Text is the source text.
	Text Text
	// Translations is keyed by target language id.
	Translations map[string]Translation
	// Extra holds the members the contract does not describe, as raw JSON.
	Extra map[string]json.RawMessage

	// wire is the compacted object as decoded; never modified. The values
	// it was decoded with are decoded again from it when needed (see
	// snapshot), which keeps a decoded string at about the size of its
	// wire form plus its fields.
	wire json.RawMessage
}

// UnmarshalJSON decodes a string object and remembers its wire form.
func (s *String) UnmarshalJSON(b []byte) error {
	src, err := decodeMembers(b)
	if err != nil {
		return fmt.Errorf("string object: %w", err)
	}
	return s.fromSource(src)
}

func (s *String) fromSource(src *source) error {
	cur, err := decodeStringMembers(src)
	if err != nil {
		return err
	}
	cur.wire = src.raw
	*s = cur
	return nil
}

// snapshot returns the values s was decoded with and its members; ok is
// false for a string the app created.
func (s *String) snapshot() (snap String, src *source, ok bool) {
	if s.wire == nil {
		return String{}, nil, false
	}
	src, err := splitMembers(s.wire)
	if err != nil {
		return String{}, nil, false
	}
	snap, err = decodeStringMembers(src)
	if err != nil {
		return String{}, nil, false
	}
	return snap, src, true
}

func decodeStringMembers(src *source) (String, error) {
	var s String
	for _, m := range src.members {
		var err error
		switch m.key {
		case "uniqId":
			s.UniqID, err = unquoteOrNull(m.value)
		case "identifier":
			s.Identifier, err = unquoteOrNull(m.value)
		case "context":
			s.Context, err = unquoteOrNull(m.value)
		case "maxLength":
			err = json.Unmarshal(m.value, &s.MaxLength)
		case "isHidden":
			err = json.Unmarshal(m.value, &s.IsHidden)
		case "hasPlurals":
			err = json.Unmarshal(m.value, &s.HasPlurals)
		case "labels":
			err = json.Unmarshal(m.value, &s.Labels)
		case "text":
			err = s.Text.decodeCompact(m.value)
		case "translations":
			s.Translations, err = decodeTranslations(m.value)
		default:
			if s.Extra == nil {
				s.Extra = make(map[string]json.RawMessage)
			}
			s.Extra[m.key] = m.value
		}
		if err != nil {
			return String{}, fmt.Errorf("string object member %q: %w", m.key, err)
		}
	}
	return s, nil
}

// MarshalJSON encodes the string; see the type's documentation for what is
// kept from the wire form.
func (s String) MarshalJSON() ([]byte, error) {
	snap, src, _ := s.snapshot()
	if src != nil && s.untouchedSince(&snap) {
		return src.raw, nil
	}
	fields := []field{
		{key: "uniqId", changed: s.UniqID != snap.UniqID, required: true, encode: func() ([]byte, error) { return marshalPlain(s.UniqID) }},
		{key: "identifier", changed: s.Identifier != snap.Identifier, required: true, encode: func() ([]byte, error) { return marshalPlain(s.Identifier) }},
		{key: "context", changed: s.Context != snap.Context, encode: func() ([]byte, error) { return marshalPlain(s.Context) }},
		{key: "maxLength", changed: !ptrEqual(s.MaxLength, snap.MaxLength), absent: s.MaxLength == nil, encode: func() ([]byte, error) { return marshalPlain(*s.MaxLength) }},
		{key: "isHidden", changed: !ptrEqual(s.IsHidden, snap.IsHidden), absent: s.IsHidden == nil, encode: func() ([]byte, error) { return marshalPlain(*s.IsHidden) }},
		{key: "hasPlurals", changed: s.HasPlurals != snap.HasPlurals, encode: func() ([]byte, error) { return marshalPlain(s.HasPlurals) }},
		{key: "labels", changed: !labelsEqual(s.Labels, snap.Labels), absent: s.Labels == nil, encode: func() ([]byte, error) { return marshalPlain(s.Labels) }},
		{key: "text", changed: !textEqual(s.Text, snap.Text), required: true, encode: s.Text.MarshalJSON},
		{key: "translations", changed: !translationsEqual(s.Translations, snap.Translations), absent: s.Translations == nil, encode: func() ([]byte, error) {
			return encodeTranslations(s.Translations, src)
		}},
	}
	return encodeObject(src, fields, s.Extra, snap.Extra)
}

// Untouched reports whether s was decoded from the wire and the app left
// it as it came (so it is answered byte for byte).
func (s *String) Untouched() bool {
	snap, _, ok := s.snapshot()
	return ok && s.untouchedSince(&snap)
}

// untouchedSince reports whether s equals its snapshot o.
func (s *String) untouchedSince(o *String) bool {
	return s.UniqID == o.UniqID && s.Identifier == o.Identifier && s.Context == o.Context &&
		s.HasPlurals == o.HasPlurals && ptrEqual(s.MaxLength, o.MaxLength) && ptrEqual(s.IsHidden, o.IsHidden) &&
		labelsEqual(s.Labels, o.Labels) && textEqual(s.Text, o.Text) && translationsEqual(s.Translations, o.Translations) &&
		extraEqual(s.Extra, o.Extra)
}

func ptrEqual[T comparable](a, b *T) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}

// labelsEqual tells nil (no member) from empty ([]).
func labelsEqual(a, b []string) bool { return (a == nil) == (b == nil) && slices.Equal(a, b) }

func formsEqual(ap, bp string, a, b map[string]string) bool {
	return ap == bp && (a == nil) == (b == nil) && maps.Equal(a, b)
}

func textEqual(a, b Text) bool { return formsEqual(a.Plain, b.Plain, a.Plural, b.Plural) }

func statusEqual(a, b *Status) bool {
	if a == nil || b == nil {
		return a == b
	}
	return formsEqual(a.Plain, b.Plain, a.Plural, b.Plural)
}

func translationEqual(a, b Translation) bool {
	return textEqual(a.Text, b.Text) && statusEqual(a.Status, b.Status) && extraEqual(a.Extra, b.Extra)
}

func translationsEqual(a, b map[string]Translation) bool {
	if (a == nil) != (b == nil) || len(a) != len(b) {
		return false
	}
	for k, v := range a {
		w, ok := b[k]
		if !ok || !translationEqual(v, w) {
			return false
		}
	}
	return true
}

// encodeTranslations writes the languages in their wire order, then new
// ones sorted.
func encodeTranslations(ts map[string]Translation, src *source) ([]byte, error) {
	var order []string
	if src != nil {
		for _, m := range src.members {
			if m.key == "translations" {
				if inner, err := splitMembers(m.value); err == nil {
					for _, im := range inner.members {
						order = append(order, im.key)
					}
				}
			}
		}
	}
	for _, k := range slices.Sorted(maps.Keys(ts)) {
		if !slices.Contains(order, k) {
			order = append(order, k)
		}
	}
	var buf bytes.Buffer
	buf.WriteByte('{')
	n := 0
	for _, lang := range order {
		t, ok := ts[lang]
		if !ok {
			continue
		}
		if n > 0 {
			buf.WriteByte(',')
		}
		n++
		kb, err := marshalPlain(lang)
		if err != nil {
			return nil, err
		}
		vb, err := t.MarshalJSON()
		if err != nil {
			return nil, fmt.Errorf("language %q: %w", lang, err)
		}
		buf.Write(kb)
		buf.WriteByte(':')
		buf.Write(vb)
	}
	buf.WriteByte('}')
	return buf.Bytes(), nil
}

// Clone returns a deep copy that keeps the wire form, so that a string
// derived from s (e.g. one part of a split) passes the members it does not
// change through unchanged.
func (s String) Clone() String {
	c := s
	if s.MaxLength != nil {
		v := *s.MaxLength
		c.MaxLength = &v
	}
	if s.IsHidden != nil {
		v := *s.IsHidden
		c.IsHidden = &v
	}
	c.Labels = slices.Clone(s.Labels)
	c.Text = s.Text.clone()
	if s.Translations != nil {
		c.Translations = make(map[string]Translation, len(s.Translations))
		for k, t := range s.Translations {
			c.Translations[k] = t.Clone()
		}
	}
	c.Extra = cloneExtra(s.Extra)
	return c
}

// Detached returns s without its wire form: it encodes from its fields and
// never counts as untouched (see Untouched), as a string the app made. Its
// values are s's own, not copies (Clone copies). The platform side of the
// contract detaches the strings an app answered so that Validate checks
// every one of them.
func (s String) Detached() String {
	s.wire = nil
	if s.Translations != nil {
		ts := make(map[string]Translation, len(s.Translations))
		for k, t := range s.Translations {
			t.wire = nil
			ts[k] = t
		}
		s.Translations = ts
	}
	return s
}

// Original reports whether s was decoded from the wire (as opposed to
// created by the app) and, if so, returns the values it was decoded with.
func (s String) Original() (String, bool) {
	snap, _, ok := s.snapshot()
	if !ok {
		return String{}, false
	}
	snap.wire = s.wire
	return snap, true
}

func (t Text) clone() Text {
	return Text{Plain: t.Plain, Plural: maps.Clone(t.Plural)}
}

// Translation is the value under a language id in String.Translations.
type Translation struct {
	// Text is the translation text (plural shape for plural strings).
	Text Text
	// Status is nil when absent (the platform's default is "translated").
	Status *Status
	// Extra holds the members the contract does not describe, as raw JSON.
	Extra map[string]json.RawMessage

	wire json.RawMessage // as for String
}

// UnmarshalJSON decodes a translation entry and remembers its wire form.
func (t *Translation) UnmarshalJSON(b []byte) error {
	src, err := decodeMembers(b)
	if err != nil {
		return fmt.Errorf("translation: %w", err)
	}
	return t.fromSource(src)
}

func (t *Translation) fromSource(src *source) error {
	cur, err := decodeTranslationMembers(src)
	if err != nil {
		return err
	}
	cur.wire = src.raw
	*t = cur
	return nil
}

func (t *Translation) snapshot() (snap Translation, src *source, ok bool) {
	if t.wire == nil {
		return Translation{}, nil, false
	}
	src, err := splitMembers(t.wire)
	if err != nil {
		return Translation{}, nil, false
	}
	snap, err = decodeTranslationMembers(src)
	if err != nil {
		return Translation{}, nil, false
	}
	return snap, src, true
}

// decodeTranslations decodes the translations object from compact JSON,
// keeping sub-slices of it as the entries' wire forms.
func decodeTranslations(raw json.RawMessage) (map[string]Translation, error) {
	if string(raw) == "null" {
		return nil, nil
	}
	src, err := splitMembers(raw)
	if err != nil {
		return nil, fmt.Errorf("translations: %w", err)
	}
	out := make(map[string]Translation, len(src.members))
	for _, m := range src.members {
		if string(m.value) == "null" {
			out[m.key] = Translation{}
			continue
		}
		inner, err := splitMembers(m.value)
		if err != nil {
			return nil, fmt.Errorf("translation %q: %w", m.key, err)
		}
		var t Translation
		if err := t.fromSource(inner); err != nil {
			return nil, fmt.Errorf("translation %q: %w", m.key, err)
		}
		out[m.key] = t
	}
	return out, nil
}

func decodeTranslationMembers(src *source) (Translation, error) {
	var t Translation
	for _, m := range src.members {
		var err error
		switch m.key {
		case "text":
			err = t.Text.decodeCompact(m.value)
		case "status":
			if string(m.value) != "null" {
				var st Status
				if err = unmarshalForms(m.value, &st.Plain, &st.Plural, "status"); err == nil {
					t.Status = &st
				}
			}
		default:
			if t.Extra == nil {
				t.Extra = make(map[string]json.RawMessage)
			}
			t.Extra[m.key] = m.value
		}
		if err != nil {
			return Translation{}, fmt.Errorf("translation member %q: %w", m.key, err)
		}
	}
	return t, nil
}

// MarshalJSON encodes the entry, keeping unchanged members byte for byte.
func (t Translation) MarshalJSON() ([]byte, error) {
	snap, src, _ := t.snapshot()
	if src != nil && translationEqual(t, snap) {
		return src.raw, nil
	}
	fields := []field{
		{key: "text", changed: !textEqual(t.Text, snap.Text), required: true, encode: t.Text.MarshalJSON},
		{key: "status", changed: !statusEqual(t.Status, snap.Status), absent: t.Status == nil, encode: func() ([]byte, error) { return t.Status.MarshalJSON() }},
	}
	return encodeObject(src, fields, t.Extra, snap.Extra)
}

// Clone returns a deep copy that keeps the wire form.
func (t Translation) Clone() Translation {
	c := t
	c.Text = t.Text.clone()
	if t.Status != nil {
		st := Status{Plain: t.Status.Plain, Plural: maps.Clone(t.Status.Plural)}
		c.Status = &st
	}
	c.Extra = cloneExtra(t.Extra)
	return c
}

// errNilStrings is returned when the app returns a nil slice without error.
var errNilStrings = errors.New("the app returned no strings (nil); return job.Strings to keep them, an empty slice to remove them all, or ErrNotModified")
