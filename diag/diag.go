// Package diag holds the diagnostic type shared by every stage of croql:
// the parser reports syntax diagnostics, the type checker logic
// diagnostics and warnings, and the CLI and the editor lint print them.
//
// Positions are byte offsets into the source; [Source] turns them into
// 1-based lines and columns (in runes and in UTF-16 code units, the unit
// LSP clients count in) only when a diagnostic is shown.
package diag

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/mattn/go-runewidth"
)

// Span is a half-open byte range [Start, End) of the source text.
type Span struct {
	Start int `json:"start"`
	End   int `json:"end"`
}

// Len is the number of bytes the span covers.
func (s Span) Len() int { return s.End - s.Start }

// Join returns the smallest span covering both s and t.
func (s Span) Join(t Span) Span {
	return Span{Start: min(s.Start, t.Start), End: max(s.End, t.End)}
}

// Severity orders diagnostics by how much they matter.
type Severity int

// The severities, most severe first.
const (
	Error Severity = iota
	Warning
	Info
)

func (s Severity) String() string {
	switch s {
	case Error:
		return "error"
	case Warning:
		return "warning"
	default:
		return "info"
	}
}

// MarshalText writes the severity as "error", "warning" or "info".
func (s Severity) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// The platform's two error classes, and the class of every warning.
const (
	// ClassSyntax is the platform's code for text that does not parse.
	ClassSyntax = "croqlInvalidSyntax"
	// ClassLogic is the platform's code for text that parses but names an
	// unknown field, has the wrong type, context or edition.
	ClassLogic = "croqlInvalidLogic"
	// ClassWarning marks a diagnostic that does not stop the query.
	ClassWarning = "croqlWarning"
)

// Fix is one suggested edit: replace the source bytes of Span by Text.
type Fix struct {
	Span Span   `json:"span"`
	Text string `json:"text"`
	// Sugar marks the fix of a sugar form (docs/language.md, "Sugar"): a
	// spelling croql reads but the platform rejects, rewritten into the
	// platform's CroQL with the same meaning. croql.Env.Lower applies
	// these fixes and no others; a did-you-mean guess is not sugar.
	Sugar bool `json:"sugar,omitempty"`
}

// Diagnostic is one finding about a query.
//
// Code is the platform class (ClassSyntax, ClassLogic) for errors and
// ClassWarning for warnings; Rule is the stable, specific identifier of the
// finding (for example "double-equals" or "unknown-field"), which tests and
// tools match on.
type Diagnostic struct {
	Severity Severity `json:"severity"`
	Code     string   `json:"code"`
	Rule     string   `json:"rule"`
	Span     Span     `json:"span"`
	Message  string   `json:"message"`
	// Hint says what to write instead, when that is not already in Message.
	Hint string `json:"hint,omitempty"`
	// Fixes are edits an editor may offer ("did you mean").
	Fixes []Fix `json:"fixes,omitempty"`
	// Cause is the error the diagnostic reports, when a back end's error
	// became the diagnostic (the SQL generator's, the evaluator's
	// compiler's); it is not serialised. errors.Is and errors.As reach it
	// through the Diagnostic and through List.Err.
	Cause error `json:"-"`
}

// Errorf builds an error diagnostic of the given class and rule.
func Errorf(class, rule string, span Span, format string, args ...any) Diagnostic {
	return Diagnostic{Severity: Error, Code: class, Rule: rule, Span: span, Message: fmt.Sprintf(format, args...)}
}

// Warnf builds a warning diagnostic.
func Warnf(rule string, span Span, format string, args ...any) Diagnostic {
	return Diagnostic{Severity: Warning, Code: ClassWarning, Rule: rule, Span: span, Message: fmt.Sprintf(format, args...)}
}

// WithHint returns d with its hint set.
func (d Diagnostic) WithHint(format string, args ...any) Diagnostic {
	d.Hint = fmt.Sprintf(format, args...)
	return d
}

// WithFix returns d with one more suggested replacement.
func (d Diagnostic) WithFix(span Span, text string) Diagnostic {
	d.Fixes = append(slices.Clip(d.Fixes), Fix{Span: span, Text: text})
	return d
}

// WithSugarFix returns d with one more suggested replacement that lowers a
// sugar form (Fix.Sugar).
func (d Diagnostic) WithSugarFix(span Span, text string) Diagnostic {
	d.Fixes = append(slices.Clip(d.Fixes), Fix{Span: span, Text: text, Sugar: true})
	return d
}

// Error makes a diagnostic usable as an error value.
func (d Diagnostic) Error() string {
	return fmt.Sprintf("%d-%d: %s [%s/%s]", d.Span.Start, d.Span.End, d.Message, d.Code, d.Rule)
}

// Unwrap returns the Cause, if any.
func (d Diagnostic) Unwrap() error { return d.Cause }

// List is the diagnostics of one query.
type List []Diagnostic

// HasErrors reports whether any diagnostic is an error.
func (l List) HasErrors() bool {
	return slices.ContainsFunc(l, func(d Diagnostic) bool { return d.Severity == Error })
}

// Errors returns only the error diagnostics.
func (l List) Errors() List {
	var out List
	for _, d := range l {
		if d.Severity == Error {
			out = append(out, d)
		}
	}
	return out
}

// Sort orders the list by position, then severity, then rule, in place.
func (l List) Sort() {
	slices.SortStableFunc(l, func(a, b Diagnostic) int {
		return cmp.Or(cmp.Compare(a.Span.Start, b.Span.Start), cmp.Compare(a.Span.End, b.Span.End),
			cmp.Compare(a.Severity, b.Severity), cmp.Compare(a.Rule, b.Rule))
	})
}

// Err returns the list as an error when it holds an error diagnostic, else nil.
func (l List) Err() error {
	if !l.HasErrors() {
		return nil
	}
	return ListError(l.Errors())
}

// ListError is a list of error diagnostics used as one error.
type ListError List

// Unwrap returns the diagnostics, so that errors.Is and errors.As look at
// each one's Cause.
func (e ListError) Unwrap() []error {
	errs := make([]error, len(e))
	for i, d := range e {
		errs[i] = d
	}
	return errs
}

func (e ListError) Error() string {
	parts := make([]string, len(e))
	for i, d := range e {
		parts[i] = d.Error()
	}
	return strings.Join(parts, "; ")
}

// Position is a place in the source, for display.
type Position struct {
	Offset int `json:"offset"` // byte offset
	Line   int `json:"line"`   // 1-based
	Column int `json:"column"` // 1-based, in runes
	// UTF16 is the 0-based column in UTF-16 code units, as LSP counts.
	UTF16 int `json:"utf16"`
}

// Source maps byte offsets of one text to lines and columns.
type Source struct {
	name  string
	text  string
	lines []int // byte offset of the start of each line
}

// NewSource indexes text for position lookups. Diagnostics formatted from
// it carry no file name.
func NewSource(text string) *Source { return NewNamedSource("", text) }

// NewNamedSource indexes text, read from the file called name, for
// position lookups: Format starts each diagnostic with "name:". The CLI
// names a query given as arguments "<arg>" and one read from standard
// input "<stdin>".
func NewNamedSource(name, text string) *Source {
	lines := []int{0}
	for i := 0; i < len(text); i++ {
		if text[i] == '\n' {
			lines = append(lines, i+1)
		}
	}
	return &Source{name: name, text: text, lines: lines}
}

// Text returns the indexed source.
func (s *Source) Text() string { return s.text }

// Name returns the file name of the source, "" when it has none.
func (s *Source) Name() string { return s.name }

// Position converts a byte offset (clamped into the text) to a Position.
func (s *Source) Position(offset int) Position {
	offset = max(0, min(offset, len(s.text)))
	line, _ := slices.BinarySearch(s.lines, offset+1)
	start := s.lines[line-1]
	prefix := s.text[start:offset]
	col, u16 := 1, 0
	for _, r := range prefix {
		col++
		if r >= 0x10000 {
			u16 += 2
		} else {
			u16++
		}
	}
	return Position{Offset: offset, Line: line, Column: col, UTF16: u16}
}

// Line returns the text of the 1-based line n, without its newline.
func (s *Source) Line(n int) string {
	if n < 1 || n > len(s.lines) {
		return ""
	}
	start := s.lines[n-1]
	end := len(s.text)
	if n < len(s.lines) {
		end = s.lines[n] - 1
	}
	return strings.TrimSuffix(s.text[start:end], "\r")
}

// Located is a diagnostic with its start and end positions resolved, the
// shape printed by `croql lint --format json`.
type Located struct {
	Diagnostic
	Start Position `json:"start"`
	End   Position `json:"end"`
}

// Locate resolves the positions of every diagnostic of l.
func (s *Source) Locate(l List) []Located {
	out := make([]Located, len(l))
	for i, d := range l {
		out[i] = Located{Diagnostic: d, Start: s.Position(d.Span.Start), End: s.Position(d.Span.End)}
	}
	return out
}

// Format writes d the way the CLI prints it, in the form of compilers
// that editors' and CI's problem matchers read:
//
//	name:line:col: severity: message [code/rule]
//
// ("name:" only when the source has a name; col counts runes from 1),
// then the source line and a caret line under the span. Carets are placed
// by display width, so they stand under the span with tabs (expanded to
// stops of 8), wide East Asian characters and emoji (two columns each) and
// combining marks (none). A long line is shown as a window around the
// start of the span. A hint and the suggested fixes follow.
func (s *Source) Format(d Diagnostic) string {
	p := s.Position(d.Span.Start)
	var b strings.Builder
	if s.name != "" {
		b.WriteString(s.name)
		b.WriteByte(':')
	}
	fmt.Fprintf(&b, "%d:%d: %s: %s [%s/%s]\n", p.Line, p.Column, d.Severity, d.Message, d.Code, d.Rule)
	line := []rune(s.Line(p.Line))
	start := min(p.Column-1, len(line)) // rune index of the span in the line
	end := start + 1
	if e := s.Position(d.Span.End); e.Line == p.Line && e.Column > p.Column {
		end = e.Column - 1
	} else if e.Line != p.Line {
		end = max(start+1, len(line))
	}
	// Long lines are shown as a window around the start of the span.
	const before, after = 40, 80
	from, to, pre, post := 0, len(line), "", ""
	if start > before {
		from, pre = start-before, "…"
	}
	if to-start > after {
		to, post = start+after, "…"
	}
	end = min(end, to)
	shown := pre + expandTabs(string(line[from:to])) + post
	// Tab expansion is the same for a prefix of the text as for the
	// whole, so the widths of the prefixes up to the span's start and end
	// are where the carets go.
	pad := displayWidth(pre + expandTabs(string(line[from:start])))
	carets := displayWidth(pre+expandTabs(string(line[from:end]))) - pad
	b.WriteString("  ")
	b.WriteString(shown)
	b.WriteString("\n  ")
	b.WriteString(strings.Repeat(" ", pad))
	b.WriteString(strings.Repeat("^", max(1, carets)))
	b.WriteString("\n")
	if d.Hint != "" {
		fmt.Fprintf(&b, "  hint: %s\n", d.Hint)
	}
	for _, f := range d.Fixes {
		fmt.Fprintf(&b, "  did you mean: %s\n", f.Text)
	}
	return b.String()
}

// tabStop is the display width between two tab stops.
const tabStop = 8

// width measures display columns the same on every machine: East Asian
// ambiguous characters are narrow, whatever the locale says.
var width = &runewidth.Condition{EastAsianWidth: false, StrictEmojiNeutral: true}

// displayWidth is the number of terminal columns s takes: grapheme
// clusters measured by Unicode's East Asian Width (two for wide and
// emoji, none for combining marks and controls).
func displayWidth(s string) int { return width.StringWidth(s) }

// expandTabs replaces each tab of s by the spaces up to the next tab
// stop, counted from the start of s.
func expandTabs(s string) string {
	if !strings.Contains(s, "\t") {
		return s
	}
	var b strings.Builder
	col := 0
	for {
		i := strings.IndexByte(s, '\t')
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		b.WriteString(s[:i])
		col += displayWidth(s[:i])
		n := tabStop - col%tabStop
		b.WriteString(strings.Repeat(" ", n))
		col += n
		s = s[i+1:]
	}
}
