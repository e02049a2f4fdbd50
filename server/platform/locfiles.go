package platform

import (
	"bytes"
	"maps"
	"math"

	"github.com/croql/croql/locfile"
)

// FileParser reads one of the localization formats of package locfile
// (XLIFF 1.2 and 2.0, gettext PO, iOS .strings and .stringsdict, ARB,
// key-value JSON, Android XML) as an upload's Parser, as croql query
// --data reads it: each unit is a string with every plural form of its
// source text, its context and notes (Unit.JoinedContext), its hidden
// flag and its max length. A bilingual file (XLIFF, PO) gives its source
// texts to a source upload and its target texts to a translation upload.
type FileParser struct {
	P locfile.Parser
	// Limits bound the file (locfile's defaults when zero, but for
	// MaxUnits: zero is no bound of its own, as the per-file strings
	// quota bounds an upload).
	Limits locfile.Limits
}

// Type is the format's platform file type.
func (f FileParser) Type() string { return f.P.Type() }

// Match reports whether the format reads the file.
func (f FileParser) Match(name string, head []byte) bool { return f.P.Match(name, head) }

// Parse reads the units in file order.
func (f FileParser) Parse(data []byte) ([]Parsed, error) { return f.parseWithin(data, uploadQuota{}) }

// parseWithin reads the units in file order, counting each as it is
// read, before its string is built, and stopping at the quota q.
func (f FileParser) parseWithin(data []byte, q uploadQuota) ([]Parsed, error) {
	lim := f.Limits
	if lim.MaxUnits == 0 {
		lim.MaxUnits = math.MaxInt
	}
	var out []Parsed
	var keyBytes int64
	file := &locfile.File{}
	// A Buffer: the JSON formats read its bytes in place.
	err := f.P.Parse(bytes.NewBuffer(data), lim, file, func(u *locfile.Unit) error {
		if q.strings > 0 && len(out) >= q.strings {
			return errTooManyStrings
		}
		if keyBytes += int64(len(u.Key)); q.keyBytes > 0 && keyBytes > q.keyBytes {
			return &keyBytesError{n: keyBytes}
		}
		out = append(out, parsedUnit(u, file.Bilingual))
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// parsedUnit is the string of a unit (the parser's own: its forms are
// copied).
func parsedUnit(u *locfile.Unit, bilingual bool) Parsed {
	p := Parsed{Identifier: u.Key, Text: u.Source.Text, Plural: maps.Clone(u.Source.Plural),
		Context: u.JoinedContext(), Hidden: u.Hidden}
	if u.MaxLength != nil {
		n := int(*u.MaxLength)
		p.MaxLength = &n
	}
	if bilingual {
		p.bilingual = true
		if !u.Target.IsZero() {
			p.Target = &Parsed{Identifier: u.Key, Text: u.Target.Text, Plural: maps.Clone(u.Target.Plural)}
		}
	}
	return p
}
