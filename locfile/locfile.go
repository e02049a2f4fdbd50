// Package locfile reads the localization files a team keeps in its
// repository (XLIFF 1.2 and 2.0, gettext PO, iOS .strings and
// .stringsdict, ARB, key-value JSON and Android XML resources) into one
// model, and builds a [schema.Project] from a set of them, so that CroQL
// queries run over a repository's translation files.
//
// Each format has a [Parser]: [Parser.Match] tells whether it reads a file
// (by its name and first bytes), [Parser.Parse] reads it and hands its
// units to a function one at a time, in file order. XLIFF, PO, UTF-8
// .strings and Android XML are read as they stream in, one unit held at a
// time; JSON and ARB files are held in memory while they are read (an ARB
// key's metadata may follow it), and so are .stringsdict files (a
// property list is one nested value) and UTF-16 .strings files. No parser panics on any input: a malformed file, or one
// over a [Limits] bound, is an [*Error] with the line and column it was
// found at.
//
// The XML formats are read with encoding/xml and the JSON formats with
// encoding/json, the standard library's parsers. PO and .strings are small
// line-oriented grammars read by this package's own scanners: the Go PO
// libraries are built to look translations up at run time and drop what a
// query needs (flags such as fuzzy, the comments, the line of an entry),
// and none reads .strings; the root module keeps its dependencies few.
//
// docs/formats.md says which field of each format becomes which CroQL
// field.
package locfile

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
)

// State is how far a unit's translation has come.
type State uint8

const (
	// StateNone: the file says nothing (a monolingual file, or a unit
	// without a target).
	StateNone State = iota
	// StateNew: the unit is to be translated (XLIFF new, initial and
	// needs-translation; a PO entry whose msgstr is empty).
	StateNew
	// StateNeedsReview: a translation that is to be checked (PO fuzzy,
	// XLIFF 1.2 needs-review-*, needs-adaptation, needs-l10n, XLIFF 2.0
	// initial with a target).
	StateNeedsReview
	// StateTranslated: translated, not reviewed.
	StateTranslated
	// StateApproved: reviewed or final (XLIFF 1.2 signed-off, final or
	// approved="yes"; XLIFF 2.0 reviewed, final).
	StateApproved
)

var stateNames = [...]string{"none", "new", "needs review", "translated", "approved"}

// String returns the state's name.
func (s State) String() string {
	if int(s) < len(stateNames) {
		return stateNames[s]
	}
	return fmt.Sprintf("State(%d)", s)
}

// Text is a text in one language: a single text, or plural forms.
type Text struct {
	// Text is the text; for a plural text, its "other" form (the form the
	// platform shows as the string's text).
	Text string
	// Plural maps each CLDR plural category the file gives (zero, one,
	// two, few, many, other) to its text; nil for a text without plural
	// forms.
	Plural map[string]string
}

// IsZero reports whether the text is empty and has no plural form.
func (t Text) IsZero() bool { return t.Text == "" && len(t.Plural) == 0 }

// Unit is one translatable entry of a file.
type Unit struct {
	// Key identifies the unit within its file: the JSON or ARB key, the
	// Android name, the .strings key, the XLIFF resname (or id, when
	// there is no resname), the PO msgid.
	Key string
	// Source is the text in the file's source language. A monolingual
	// file (JSON, ARB, Android, .strings, .stringsdict) holds one
	// language only, File.Language, and its text is here.
	Source Text
	// Target is the text in File.TargetLanguage (bilingual files).
	Target Text
	// ICU reports that the source text is an ICU message with a plural or
	// select argument ({n, plural, ...}); such a unit is an icu string.
	ICU bool
	// Context is the unit's context in the file's own sense: PO msgctxt,
	// XLIFF 1.2 <context> elements, ARB "context".
	Context string
	// Notes are comments for translators: PO #. and # comments, XLIFF
	// notes, ARB descriptions, Android and .strings comments before the
	// entry.
	Notes []string
	// MaxLength is the longest translation allowed (XLIFF 1.2 maxwidth in
	// characters, XLIFF 2.0 slr:sizeRestriction); nil when there is none.
	MaxLength *int64
	// State is the state of Target.
	State State
	// Origin is where the target came from when the file says: "tm" or
	// "mt" (XLIFF 1.2 state-qualifier), "" otherwise.
	Origin string
	// Hidden marks a unit not to be translated (XLIFF translate="no",
	// Android translatable="false").
	Hidden bool
	// Original is the part of a document the unit is in: the original
	// attribute of its XLIFF <file> element; "" for formats without parts.
	Original string
	// Line is the line the unit starts on (1-based).
	Line int
}

// Type returns the unit's CroQL string type: plural, icu or plain.
func (u *Unit) Type() string {
	switch {
	case u.Source.Plural != nil:
		return "plural"
	case u.ICU:
		return "icu"
	}
	return "plain"
}

// File is what a file says about itself, and its units.
type File struct {
	// Name is the file's path as given.
	Name string
	// Type is the platform's file type: xliff, xliff_two, gettext,
	// macosx (.strings), stringsdict, arb, json or android.
	Type string
	// Bilingual reports a format with source and target in one file
	// (XLIFF, PO).
	Bilingual bool
	// Language is the language of a monolingual file when the file says
	// (ARB @@locale), or the source language of a bilingual one (XLIFF
	// source-language, srcLang); "" when the file does not say.
	Language string
	// TargetLanguage is the target language of a bilingual file (XLIFF
	// target-language, trgLang; the PO Language header); "" when the file
	// does not say.
	TargetLanguage string
	// Template marks a file of source texts only (a PO template, .pot).
	Template bool
	Units    []Unit
}

// Limits bound what a parser accepts; a zero field takes its default.
type Limits struct {
	// MaxBytes is the largest file, in bytes (default 256 MiB).
	MaxBytes int64
	// MaxUnits is the most units in one file (default 1,000,000).
	MaxUnits int
	// MaxText is the longest text, key, note or context, in bytes
	// (default 1 MiB).
	MaxText int
	// MaxDepth is the deepest nesting of XML elements or JSON values
	// (default 64).
	MaxDepth int
}

// Default limits.
const (
	DefaultMaxBytes = 256 << 20
	DefaultMaxUnits = 1_000_000
	DefaultMaxText  = 1 << 20
	DefaultMaxDepth = 64
)

func (l Limits) withDefaults() Limits {
	if l.MaxBytes <= 0 {
		l.MaxBytes = DefaultMaxBytes
	}
	if l.MaxUnits <= 0 {
		l.MaxUnits = DefaultMaxUnits
	}
	if l.MaxText <= 0 {
		l.MaxText = DefaultMaxText
	}
	if l.MaxDepth <= 0 {
		l.MaxDepth = DefaultMaxDepth
	}
	return l
}

// Error is a problem found in a file, at a position.
type Error struct {
	// Line and Column are 1-based; 0 when unknown.
	Line, Column int
	Err          error
}

func (e *Error) Error() string {
	switch {
	case e.Line > 0 && e.Column > 0:
		return fmt.Sprintf("line %d, column %d: %v", e.Line, e.Column, e.Err)
	case e.Line > 0:
		return fmt.Sprintf("line %d: %v", e.Line, e.Err)
	}
	return e.Err.Error()
}

func (e *Error) Unwrap() error { return e.Err }

// ErrLimit is wrapped by every error of a bound of [Limits].
var ErrLimit = errors.New("limit exceeded")

// ErrNoParser reports a file no parser reads.
var ErrNoParser = errors.New("no parser reads this file")

func errAt(line, col int, format string, args ...any) *Error {
	return &Error{Line: line, Column: col, Err: fmt.Errorf(format, args...)}
}

func limitAt(line, col int, format string, args ...any) *Error {
	return &Error{Line: line, Column: col, Err: fmt.Errorf("%w: "+format, append([]any{ErrLimit}, args...)...)}
}

// Parser reads one file format.
type Parser interface {
	// Type is the platform's file type of the format.
	Type() string
	// Match reports whether the parser reads a file of this name whose
	// first bytes (up to 4 KiB) are head.
	Match(name string, head []byte) bool
	// Parse reads r. It fills f's languages as soon as the file gives
	// them (before the first unit), and calls emit with each unit in file
	// order; an error of emit stops the parse and is returned as is. The
	// unit is the parser's own: emit copies what it keeps. f.Name, when
	// set, is the file's path (the PO parser takes a target language from
	// it when the header names none). Any other error is an [*Error].
	Parse(r io.Reader, lim Limits, f *File, emit func(*Unit) error) error
}

// Parsers returns a parser of each format, in the order [Find] tries
// them.
func Parsers() []Parser {
	return []Parser{XLIFF12{}, XLIFF2{}, PO{}, Strings{}, StringsDict{}, ARB{}, JSON{}, Android{}}
}

// headSize is how many bytes Match sees.
const headSize = 4096

// Find returns the first of ps that matches the file.
func Find(ps []Parser, name string, head []byte) (Parser, error) {
	if len(head) > headSize {
		head = head[:headSize]
	}
	head = utf8Head(head)
	types := make([]string, 0, len(ps))
	for _, p := range ps {
		if p.Match(name, head) {
			return p, nil
		}
		types = append(types, p.Type())
	}
	return nil, fmt.Errorf("%w: %q (formats read: %s)", ErrNoParser, name, strings.Join(types, ", "))
}

// Read reads the file name from r with the first parser of ps that
// matches it ([Parsers] when ps is nil), keeping its units. Errors name
// the file.
func Read(name string, r io.Reader, ps []Parser, lim Limits) (*File, error) {
	if ps == nil {
		ps = Parsers()
	}
	lim = lim.withDefaults()
	br := bufio.NewReaderSize(r, headSize)
	head, err := br.Peek(headSize)
	if err != nil && err != io.EOF && !errors.Is(err, bufio.ErrBufferFull) {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	p, err := Find(ps, name, head)
	if err != nil {
		return nil, err
	}
	f := &File{Name: name, Type: p.Type()}
	err = p.Parse(&limitReader{r: br, left: lim.MaxBytes}, lim, f, func(u *Unit) error {
		f.Units = append(f.Units, *u)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return f, nil
}

// ReadBytes reads a file held in memory, as [Read].
func ReadBytes(name string, data []byte, ps []Parser, lim Limits) (*File, error) {
	return Read(name, bytes.NewReader(data), ps, lim)
}

// limitReader fails once more than left bytes were read.
type limitReader struct {
	r    io.Reader
	left int64
}

var errTooBig = fmt.Errorf("%w: the file is larger than the limit of its size", ErrLimit)

func (l *limitReader) Read(p []byte) (int, error) {
	if l.left < 0 {
		return 0, errTooBig
	}
	if int64(len(p)) > l.left+1 {
		p = p[:l.left+1]
	}
	n, err := l.r.Read(p)
	l.left -= int64(n)
	if l.left < 0 {
		return n, errTooBig
	}
	return n, err
}

// counter counts units against the limit.
type counter struct {
	n   int
	max int
}

func (c *counter) add(line int) error {
	c.n++
	if c.n > c.max {
		return limitAt(line, 0, "more than %d units in the file", c.max)
	}
	return nil
}
