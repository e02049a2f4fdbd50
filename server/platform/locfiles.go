package platform

import (
	"bytes"
	"maps"

	"github.com/croql/croql/locfile"
)

// FileParser reads one of the localization formats of package locfile
// (XLIFF 1.2 and 2.0, gettext PO, iOS .strings and .stringsdict, ARB) as
// an upload's Parser: each unit is a string with every plural form of
// its source text and its context. A bilingual file (XLIFF, PO) gives its
// source texts to a source upload and its target texts to a translation
// upload.
type FileParser struct {
	P locfile.Parser
	// Limits bound the file (locfile's defaults when zero).
	Limits locfile.Limits
}

// Type is the format's platform file type.
func (f FileParser) Type() string { return f.P.Type() }

// Match reports whether the format reads the file.
func (f FileParser) Match(name string, head []byte) bool { return f.P.Match(name, head) }

// Parse reads the units in file order.
func (f FileParser) Parse(data []byte) ([]Parsed, error) {
	lim := f.Limits
	if lim.MaxBytes == 0 {
		lim.MaxBytes = 256 << 20
	}
	if lim.MaxUnits == 0 {
		lim.MaxUnits = 1_000_000
	}
	if lim.MaxText == 0 {
		lim.MaxText = 1 << 20
	}
	if lim.MaxDepth == 0 {
		lim.MaxDepth = 64
	}
	var out []Parsed
	file := &locfile.File{}
	err := f.P.Parse(bytes.NewReader(data), lim, file, func(u *locfile.Unit) error {
		// The unit is the parser's own: its forms are copied.
		p := Parsed{Identifier: u.Key, Text: u.Source.Text, Plural: maps.Clone(u.Source.Plural), Context: u.Context}
		if file.Bilingual {
			p.bilingual = true
			if !u.Target.IsZero() {
				p.Target = &Parsed{Identifier: u.Key, Text: u.Target.Text, Plural: maps.Clone(u.Target.Plural)}
			}
		}
		out = append(out, p)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// fileParsers are the locfile formats besides JSON and Android, which
// JSONParser and AndroidParser read.
func fileParsers() []Parser {
	var out []Parser
	for _, p := range locfile.Parsers() {
		switch p.Type() {
		case "json", "android":
			continue
		}
		out = append(out, FileParser{P: p})
	}
	return out
}
