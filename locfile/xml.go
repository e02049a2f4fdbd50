package locfile

import (
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// xmlReader reads XML tokens with encoding/xml's RawToken (so that the
// prefixes of inline markup such as <xliff:g> are kept as written),
// matching start and end tags itself and bounding the depth.
type xmlReader struct {
	dec   *xml.Decoder
	stack []string
	lim   Limits
}

func newXMLReader(r io.Reader, lim Limits) *xmlReader {
	// A UTF-16 file (with a byte order mark) is converted to UTF-8 first;
	// an error of the conversion comes back from the first token.
	if u, err := decodeUTF16(r); err == nil {
		r = u
	} else {
		r = errReader{err}
	}
	dec := xml.NewDecoder(r)
	dec.CharsetReader = charsetReader
	return &xmlReader{dec: dec, lim: lim}
}

type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }

// charsetReader reads the encodings an XML declaration may name besides
// UTF-8: UTF-16 (already converted by newXMLReader), US-ASCII and
// ISO-8859-1.
func charsetReader(label string, input io.Reader) (io.Reader, error) {
	switch strings.ToLower(label) {
	case "utf-16", "utf-16le", "utf-16be", "us-ascii", "ascii":
		return input, nil
	case "iso-8859-1", "latin1", "latin-1", "l1":
		return &latin1Reader{r: input}, nil
	}
	return nil, fmt.Errorf("encoding %q is not read (UTF-8, UTF-16, ISO-8859-1)", label)
}

// latin1Reader turns ISO-8859-1 into UTF-8.
type latin1Reader struct {
	r       io.Reader
	pending []byte
}

func (l *latin1Reader) Read(p []byte) (int, error) {
	if len(l.pending) == 0 {
		buf := make([]byte, (len(p)+1)/2)
		n, err := l.r.Read(buf)
		for _, b := range buf[:n] {
			l.pending = utf8.AppendRune(l.pending, rune(b))
		}
		if n == 0 {
			return 0, err
		}
	}
	n := copy(p, l.pending)
	l.pending = l.pending[n:]
	return n, nil
}

func (x *xmlReader) pos() (int, int) { return x.dec.InputPos() }

func (x *xmlReader) errorf(format string, args ...any) *Error {
	l, c := x.pos()
	return errAt(l, c, format, args...)
}

// wrap gives an error of the decoder its position.
func (x *xmlReader) wrap(err error) error {
	var se *xml.SyntaxError
	if errors.As(err, &se) {
		return errAt(se.Line, 0, "xml: %s", se.Msg)
	}
	var le *Error
	if errors.As(err, &le) {
		return err
	}
	l, c := x.pos()
	return &Error{Line: l, Column: c, Err: fmt.Errorf("xml: %w", err)}
}

func qname(n xml.Name) string {
	if n.Space != "" {
		return n.Space + ":" + n.Local
	}
	return n.Local
}

// next returns the next token: an xml.StartElement, xml.EndElement,
// xml.CharData, xml.Comment, xml.ProcInst or xml.Directive (copied), or
// io.EOF at the end of a well-formed document.
func (x *xmlReader) next() (xml.Token, error) {
	tok, err := x.dec.RawToken()
	if err == io.EOF {
		if len(x.stack) > 0 {
			return nil, x.errorf("xml: the file ends inside <%s>", x.stack[len(x.stack)-1])
		}
		return nil, io.EOF
	}
	if err != nil {
		return nil, x.wrap(err)
	}
	switch t := tok.(type) {
	case xml.StartElement:
		if len(x.stack) >= x.lim.MaxDepth {
			l, c := x.pos()
			return nil, limitAt(l, c, "elements nested deeper than %d", x.lim.MaxDepth)
		}
		x.stack = append(x.stack, qname(t.Name))
	case xml.EndElement:
		n := qname(t.Name)
		if len(x.stack) == 0 {
			return nil, x.errorf("xml: </%s> closes no element", n)
		}
		if top := x.stack[len(x.stack)-1]; top != n {
			return nil, x.errorf("xml: <%s> closed by </%s>", top, n)
		}
		x.stack = x.stack[:len(x.stack)-1]
	case xml.CharData:
		if len(x.stack) == 0 && strings.TrimSpace(string(t)) != "" {
			return nil, x.errorf("xml: text outside the root element")
		}
	}
	return xml.CopyToken(tok), nil
}

func attr(s xml.StartElement, local string) (string, bool) {
	for _, a := range s.Attr {
		if a.Name.Local == local {
			return a.Value, true
		}
	}
	return "", false
}

// inner reads the content of the element just started, up to and
// including its end tag, as text: character data with entities resolved,
// and nested elements written back as markup (<b>, <xliff:g id="x">).
// markup says whether nested markup is kept; when false only the
// character data is.
func (x *xmlReader) inner(markup bool) (string, error) {
	var b strings.Builder
	depth := 0
	for {
		tok, err := x.next()
		if err == io.EOF {
			return "", x.errorf("xml: the file ends inside an element")
		}
		if err != nil {
			return "", err
		}
		switch t := tok.(type) {
		case xml.CharData:
			b.Write(t)
		case xml.StartElement:
			depth++
			if markup {
				b.WriteString("<" + qname(t.Name))
				for _, a := range t.Attr {
					b.WriteString(" " + qname(a.Name) + `="`)
					_ = xml.EscapeText(&b, []byte(a.Value))
					b.WriteString(`"`)
				}
				b.WriteString(">")
			}
		case xml.EndElement:
			if depth == 0 {
				return b.String(), nil
			}
			depth--
			if markup {
				b.WriteString("</" + qname(t.Name) + ">")
			}
		}
		if b.Len() > x.lim.MaxText {
			l, c := x.pos()
			return "", limitAt(l, c, "a text longer than %d bytes", x.lim.MaxText)
		}
	}
}

// skip reads up to and including the end of the element just started.
func (x *xmlReader) skip() error {
	depth := 0
	for {
		tok, err := x.next()
		if err == io.EOF {
			return x.errorf("xml: the file ends inside an element")
		}
		if err != nil {
			return err
		}
		switch tok.(type) {
		case xml.StartElement:
			depth++
		case xml.EndElement:
			if depth == 0 {
				return nil
			}
			depth--
		}
	}
}
