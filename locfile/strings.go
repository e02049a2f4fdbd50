package locfile

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"path"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// Strings reads iOS and macOS .strings files ("key" = "value"; with /* */
// and // comments, in UTF-8 or UTF-16 with a byte order mark): each entry
// is a unit of the file's language, and the comment just before it is its
// note. It reads a UTF-8 file as it goes; a UTF-16 one is converted
// whole first.
type Strings struct{}

// Type is "macosx", the platform's type of .strings files.
func (Strings) Type() string { return "macosx" }

// Match: a .strings name.
func (Strings) Match(name string, _ []byte) bool {
	return strings.EqualFold(path.Ext(name), ".strings")
}

type stringsScanner struct {
	r         *bufio.Reader
	line, col int
	lim       Limits
}

func (s *stringsScanner) read() (rune, error) {
	c, size, err := s.r.ReadRune()
	if err != nil {
		return 0, err
	}
	if c == utf8.RuneError && size == 1 {
		_ = s.r.UnreadRune()
		b, _ := s.r.ReadByte()
		return 0, notUTF8(s.line, s.col+1, b, -1)
	}
	if c == '\n' {
		s.line++
		s.col = 0
	} else {
		s.col++
	}
	return c, nil
}

// endedAt is the error of a read that failed where the file may not
// end: eof at the end of the file, else the read's own error (a byte
// that is not UTF-8).
func endedAt(err error, eof *Error) error {
	if err == io.EOF {
		return eof
	}
	return err
}

func (s *stringsScanner) unread(c rune) {
	_ = s.r.UnreadRune()
	if c == '\n' {
		s.line--
	} else {
		s.col--
	}
}

func (s *stringsScanner) errorf(format string, args ...any) *Error {
	return errAt(s.line, s.col, "strings: "+format, args...)
}

// token kinds
const (
	tEOF = iota
	tString
	tEquals
	tSemicolon
	tComment
)

func isWordRune(c rune) bool {
	return c == '_' || c == '.' || c == '$' || c == ':' || c == '/' || c == '-' ||
		c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// next returns the next token and its text (a string's value, a
// comment's content).
func (s *stringsScanner) next() (int, string, error) {
	for {
		c, err := s.read()
		if err == io.EOF {
			return tEOF, "", nil
		}
		if err != nil {
			return 0, "", err
		}
		switch {
		case c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\ufeff':
			continue
		case c == '=':
			return tEquals, "", nil
		case c == ';':
			return tSemicolon, "", nil
		case c == '"':
			v, err := s.quoted()
			return tString, v, err
		case c == '/':
			d, err := s.read()
			if err != nil {
				return 0, "", endedAt(err, s.errorf("a lone /"))
			}
			switch d {
			case '/':
				var b strings.Builder
				for {
					e, err := s.read()
					if err == io.EOF || e == '\n' {
						break
					}
					if err != nil {
						return 0, "", err
					}
					b.WriteRune(e)
					if b.Len() > s.lim.MaxText {
						return 0, "", limitAt(s.line, s.col, "a comment longer than %d bytes", s.lim.MaxText)
					}
				}
				return tComment, strings.TrimSpace(b.String()), nil
			case '*':
				var b strings.Builder
				prev := rune(0)
				for {
					e, err := s.read()
					if err != nil {
						return 0, "", endedAt(err, s.errorf("the file ends inside a /* comment"))
					}
					if prev == '*' && e == '/' {
						t := b.String()
						return tComment, strings.TrimSpace(t[:len(t)-1]), nil
					}
					b.WriteRune(e)
					if b.Len() > s.lim.MaxText {
						return 0, "", limitAt(s.line, s.col, "a comment longer than %d bytes", s.lim.MaxText)
					}
					prev = e
				}
			}
			s.unread(d)
			return 0, "", s.errorf("a lone /")
		case isWordRune(c):
			var b strings.Builder
			b.WriteRune(c)
			for {
				d, err := s.read()
				if err == io.EOF {
					break
				}
				if err != nil {
					return 0, "", err
				}
				if !isWordRune(d) {
					s.unread(d)
					break
				}
				b.WriteRune(d)
				if b.Len() > s.lim.MaxText {
					return 0, "", limitAt(s.line, s.col, "a key longer than %d bytes", s.lim.MaxText)
				}
			}
			return tString, b.String(), nil
		default:
			return 0, "", s.errorf("unexpected %q", c)
		}
	}
}

// quoted reads a string whose opening quote was read.
func (s *stringsScanner) quoted() (string, error) {
	var b strings.Builder
	for {
		c, err := s.read()
		if err == io.EOF {
			return "", s.errorf("the file ends inside a string")
		}
		if err != nil {
			return "", err
		}
		if b.Len() > s.lim.MaxText {
			return "", limitAt(s.line, s.col, "a text longer than %d bytes", s.lim.MaxText)
		}
		switch c {
		case '"':
			return b.String(), nil
		case '\\':
			d, err := s.read()
			if err != nil {
				return "", endedAt(err, s.errorf("the file ends inside a string"))
			}
			switch d {
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			case 'r':
				b.WriteByte('\r')
			case '0':
				b.WriteByte(0)
			case 'U', 'u':
				var h [4]rune
				for i := range h {
					if h[i], err = s.read(); err != nil {
						return "", endedAt(err, s.errorf("the file ends inside a \\U escape"))
					}
				}
				v, err := strconv.ParseUint(string(h[:]), 16, 32)
				if err != nil {
					return "", s.errorf("\\U needs four hex digits")
				}
				r := rune(v)
				if utf16.IsSurrogate(r) {
					// a pair: \UD83D\UDE00
					var lo [6]rune
					for i := range lo {
						if lo[i], err = s.read(); err != nil {
							return "", endedAt(err, s.errorf("a \\U surrogate without its pair"))
						}
					}
					w, perr := strconv.ParseUint(string(lo[2:]), 16, 32)
					if lo[0] != '\\' || (lo[1] != 'U' && lo[1] != 'u') || perr != nil {
						return "", s.errorf("a \\U surrogate without its pair")
					}
					r = utf16.DecodeRune(r, rune(w))
				}
				b.WriteRune(r)
			default: // \" \\ \' and any other character as itself
				b.WriteRune(d)
			}
		default:
			b.WriteRune(c)
		}
	}
}

// decodeUTF16 turns a UTF-16 file with a byte order mark into UTF-8 and
// drops a UTF-8 byte order mark; other input is returned unchanged.
func decodeUTF16(r io.Reader) (io.Reader, error) {
	br := bufio.NewReader(r)
	if head, _ := br.Peek(3); len(head) == 3 && head[0] == 0xEF && head[1] == 0xBB && head[2] == 0xBF {
		_, _ = br.Discard(3) // a UTF-8 byte order mark
		return br, nil
	}
	head, err := br.Peek(2)
	if err != nil || len(head) < 2 {
		return br, nil //nolint:nilerr // a file shorter than two bytes is read as it is
	}
	var be bool
	switch {
	case head[0] == 0xFF && head[1] == 0xFE:
	case head[0] == 0xFE && head[1] == 0xFF:
		be = true
	default:
		return br, nil
	}
	data, err := io.ReadAll(br)
	if err != nil {
		return nil, err
	}
	data = data[2:]
	if len(data)%2 != 0 {
		return nil, errors.New("strings: a UTF-16 file of an odd number of bytes")
	}
	u := make([]uint16, len(data)/2)
	for i := range u {
		if be {
			u[i] = uint16(data[2*i])<<8 | uint16(data[2*i+1])
		} else {
			u[i] = uint16(data[2*i+1])<<8 | uint16(data[2*i])
		}
	}
	out := make([]byte, 0, len(u)*3/2)
	for _, r := range utf16.Decode(u) {
		out = utf8.AppendRune(out, r)
	}
	return bytes.NewReader(out), nil
}

// Parse reads a .strings file.
func (Strings) Parse(r io.Reader, lim Limits, f *File, emit func(*Unit) error) error {
	lim = lim.withDefaults()
	r, err := decodeUTF16(r)
	if err != nil {
		return &Error{Err: err}
	}
	s := &stringsScanner{r: bufio.NewReader(r), line: 1, lim: lim}
	cnt := counter{max: lim.MaxUnits}
	var note string
	for {
		tok, text, err := s.next()
		if err != nil {
			return wrapPos(err, s.line, s.col)
		}
		switch tok {
		case tEOF:
			return nil
		case tComment:
			note = text
			continue
		case tString:
		default:
			return s.errorf("expected a key")
		}
		line := s.line
		u := &Unit{Key: text, Line: line}
		tok, _, err = s.next()
		var val string
		if err != nil {
			return wrapPos(err, s.line, s.col)
		}
		switch tok {
		case tSemicolon:
			val = text
		case tEquals:
			if tok, val, err = s.next(); err != nil {
				return wrapPos(err, s.line, s.col)
			}
			if tok != tString {
				return s.errorf("key %q: expected a string after =", text)
			}
			if tok, _, err = s.next(); err != nil {
				return wrapPos(err, s.line, s.col)
			}
			if tok != tSemicolon {
				return s.errorf("key %q: expected ; after the value", text)
			}
		default:
			return s.errorf("key %q: expected = or ;", text)
		}
		if err := cnt.add(line); err != nil {
			return err
		}
		u.Source.Text = val
		u.ICU = isICU(val)
		if note != "" && !isGeneratedNote(note) {
			u.Notes = []string{note}
		}
		note = ""
		if err := emit(u); err != nil {
			return err
		}
	}
}

// isGeneratedNote reports the comment Xcode writes for a key without one.
func isGeneratedNote(n string) bool { return n == "No comment provided by engineer." }

// wrapPos gives an error without a position one.
func wrapPos(err error, line, col int) error {
	var le *Error
	if errors.As(err, &le) {
		return err
	}
	return &Error{Line: line, Column: col, Err: err}
}

// utf8Head converts the head of a UTF-16 file with a byte order mark to
// UTF-8, for Match; other heads are returned as they are.
func utf8Head(head []byte) []byte {
	if len(head) < 2 || !(head[0] == 0xFF && head[1] == 0xFE || head[0] == 0xFE && head[1] == 0xFF) {
		return head
	}
	r, err := decodeUTF16(bytes.NewReader(head[:len(head)&^1]))
	if err != nil {
		return head
	}
	b, _ := io.ReadAll(r)
	return b
}
