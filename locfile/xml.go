package locfile

import (
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strings"
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
	dec := xml.NewDecoder(r)
	return &xmlReader{dec: dec, lim: lim}
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
