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
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		*plain, *plural = s, nil
		return nil
	case len(b) > 0 && b[0] == '{':
		var raw map[string]json.RawMessage
		if err := json.Unmarshal(b, &raw); err != nil {
			return err
		}
		m := make(map[string]string, len(raw))
		for k, v := range raw {
			var s string
			if len(v) == 0 || v[0] != '"' {
				return fmt.Errorf("%s for plural category %q must be a string, got %s", what, k, snippet(v))
			}
			if err := json.Unmarshal(v, &s); err != nil {
				return err
			}
			m[k] = s
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

	wire *stringWire
}

type stringWire struct {
	src  *source
	snap String // as decoded; never handed out
}

// UnmarshalJSON decodes a string object and remembers its wire form.
func (s *String) UnmarshalJSON(b []byte) error {
	src, err := decodeMembers(b)
	if err != nil {
		return fmt.Errorf("string object: %w", err)
	}
	cur, err := decodeStringMembers(src)
	if err != nil {
		return err
	}
	// The snapshot is a deep copy, so the app's edits of cur never reach
	// it; nested translations share their (immutable) wire form.
	cur.wire = &stringWire{src: src, snap: cur.Clone()}
	*s = cur
	return nil
}

func decodeStringMembers(src *source) (String, error) {
	var s String
	for _, m := range src.members {
		var err error
		switch m.key {
		case "uniqId":
			err = json.Unmarshal(m.value, &s.UniqID)
		case "identifier":
			err = json.Unmarshal(m.value, &s.Identifier)
		case "context":
			err = json.Unmarshal(m.value, &s.Context)
		case "maxLength":
			err = json.Unmarshal(m.value, &s.MaxLength)
		case "isHidden":
			err = json.Unmarshal(m.value, &s.IsHidden)
		case "hasPlurals":
			err = json.Unmarshal(m.value, &s.HasPlurals)
		case "labels":
			err = json.Unmarshal(m.value, &s.Labels)
		case "text":
			err = json.Unmarshal(m.value, &s.Text)
		case "translations":
			err = json.Unmarshal(m.value, &s.Translations)
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
	if s.wire != nil && s.untouched() {
		return s.wire.src.raw, nil
	}
	var snap String
	var src *source
	if s.wire != nil {
		snap, src = s.wire.snap, s.wire.src
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

// untouched reports whether a decoded string still equals its snapshot.
func (s *String) untouched() bool {
	o := &s.wire.snap
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
				if inner, err := decodeMembers(m.value); err == nil {
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

// Original reports whether s was decoded from the wire (as opposed to
// created by the app) and, if so, returns the values it was decoded with.
func (s String) Original() (String, bool) {
	if s.wire == nil {
		return String{}, false
	}
	return s.wire.snap.Clone(), true
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

	wire *translationWire
}

type translationWire struct {
	src  *source
	snap Translation
}

// UnmarshalJSON decodes a translation entry and remembers its wire form.
func (t *Translation) UnmarshalJSON(b []byte) error {
	src, err := decodeMembers(b)
	if err != nil {
		return fmt.Errorf("translation: %w", err)
	}
	cur, err := decodeTranslationMembers(src)
	if err != nil {
		return err
	}
	cur.wire = &translationWire{src: src, snap: cur.Clone()}
	*t = cur
	return nil
}

func decodeTranslationMembers(src *source) (Translation, error) {
	var t Translation
	for _, m := range src.members {
		var err error
		switch m.key {
		case "text":
			err = json.Unmarshal(m.value, &t.Text)
		case "status":
			err = json.Unmarshal(m.value, &t.Status)
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
	if w := t.wire; w != nil && translationEqual(t, w.snap) {
		return w.src.raw, nil
	}
	var snap Translation
	var src *source
	if t.wire != nil {
		snap, src = t.wire.snap, t.wire.src
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
