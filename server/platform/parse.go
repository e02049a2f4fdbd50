package platform

import (
	"errors"
	"fmt"
	"io"

	"github.com/croql/croql/locfile"
)

// Parsed is one string read from a file: its key, its text (Plural set
// for plural strings, keyed by CLDR category), an optional context, and
// whether it is hidden and how long its translations may be.
type Parsed struct {
	Identifier string
	Text       string
	Plural     map[string]string
	Context    string
	// MaxLength is the longest translation allowed (XLIFF maxwidth,
	// slr:sizeRestriction); nil when the file gives none.
	MaxLength *int
	// Target is the translation of a bilingual file (XLIFF, PO): what a
	// translation upload stores instead of Text and Plural; nil for other
	// formats and for a unit without one.
	Target *Parsed
	// Hidden marks a string not to be translated (Android
	// translatable="false", XLIFF translate="no"): it is stored hidden.
	Hidden bool
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

// DefaultParsers read every format of package locfile, as croql query
// --data does and in the same order (XLIFF 1.2 and 2.0, gettext PO, iOS
// .strings and .stringsdict, ARB, key-value JSON, Android XML), each
// through a FileParser.
func DefaultParsers() []Parser {
	ps := locfile.Parsers()
	out := make([]Parser, len(ps))
	for i, p := range ps {
		out[i] = FileParser{P: p}
	}
	return out
}

// ErrNoParser reports a file no parser reads (locfile.ErrNoParser).
var ErrNoParser = locfile.ErrNoParser

// parserFor is the first of ps that reads the file, chosen as croql query
// --data chooses (locfile.Find: by the name and the first 4 KiB, those of
// a UTF-16 file converted to UTF-8 first).
func parserFor(ps []Parser, name string, data []byte) (Parser, error) {
	ms := make([]locfile.Parser, len(ps))
	for i, p := range ps {
		ms[i] = matcher{p}
	}
	m, err := locfile.Find(ms, name, data)
	if err != nil {
		return nil, err
	}
	return m.(matcher).p, nil
}

// matcher is an upload's Parser as locfile.Find sees it: its type and
// its Match.
type matcher struct{ p Parser }

func (m matcher) Type() string                        { return m.p.Type() }
func (m matcher) Match(name string, head []byte) bool { return m.p.Match(name, head) }
func (m matcher) Parse(io.Reader, locfile.Limits, *locfile.File, func(*locfile.Unit) error) error {
	return errors.New("platform: a matcher does not parse")
}

// uploadQuota bounds what reading one uploaded file builds; 0 or less:
// no bound.
type uploadQuota struct {
	// strings is the most strings (--max-file-strings).
	strings int
	// keyBytes is the most bytes of identifiers (--max-file-bytes):
	// nested JSON keys repeat their parents' keys, so a file's
	// identifiers can be far larger than the file.
	keyBytes int64
}

// errTooManyStrings stops a parse at the per-file strings quota.
var errTooManyStrings = errors.New("the file holds more strings than the per-file quota")

// keyBytesError stops a parse once the identifiers read hold more bytes
// than the quota: n, when it stopped.
type keyBytesError struct{ n int64 }

func (e *keyBytesError) Error() string {
	return fmt.Sprintf("the file's identifiers hold %d bytes or more, over the per-file quota", e.n)
}

// quotaParser is a Parser that counts the strings and the bytes of
// their identifiers as it reads them, and stops at the quota with
// errTooManyStrings or a *keyBytesError: the strings of a file over it
// are never all held in memory.
type quotaParser interface {
	parseWithin(data []byte, q uploadQuota) ([]Parsed, error)
}

// parseFile reads data with p within q: errTooManyStrings when it holds
// more than q.strings strings, a *keyBytesError when their identifiers
// hold more than q.keyBytes bytes (a Parser that is not a quotaParser is
// held to the strings quota once it has read the file).
// A file that is not valid UTF-8 is refused, saying where (a UTF-16 file
// with a byte order mark, or an XML file that declares another encoding,
// is left to its parser).
func parseFile(p Parser, data []byte, q uploadQuota) ([]Parsed, error) {
	if err := locfile.CheckUTF8(data); err != nil {
		return nil, err
	}
	var out []Parsed
	var err error
	if qp, ok := p.(quotaParser); ok {
		out, err = qp.parseWithin(data, q)
	} else {
		out, err = p.Parse(data)
	}
	if err == nil && q.strings > 0 && len(out) > q.strings {
		return nil, errTooManyStrings
	}
	return out, err
}
