package schema

import (
	"bytes"
	"context"
	stdjson "encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

// The JSON form is read as a stream too: the top-level object is walked
// member by member, the head's members (name, languages, users, files,
// branches) are read into the head, and each element of the object arrays
// (strings, tmSegments, glossaryTerms, glossaryConcepts) goes through the
// same chunks, workers and checks as an NDJSON line, so memory stays flat
// whatever the document's size. The head's members come before the object
// arrays, as WriteJSON writes them (the head is needed to check and query
// the objects).

// jsonObjectMembers maps the object arrays' member names (lower case, as
// the decoder matches them) to their kinds.
var jsonObjectMembers = map[string]string{
	"strings": KindString, "tmsegments": KindTM, "glossaryterms": KindTerm, "glossaryconcepts": KindConcept,
}

// jsonDoc walks one JSON document, knowing the line of each offset.
type jsonDoc struct {
	dec   *stdjson.Decoder
	lines *lineReader
}

// runJSON reads the JSON form.
func (s *streamer) runJSON(ctx context.Context, r io.Reader) error {
	if err := s.walkJSON(ctx, r); err != nil {
		return fmt.Errorf("reading project: %w", err)
	}
	return nil
}

// walkJSON reads the JSON form; its errors name their lines.
func (s *streamer) walkJSON(ctx context.Context, r io.Reader) error {
	lr := &lineReader{r: r, line: 1}
	d := &jsonDoc{dec: stdjson.NewDecoder(lr), lines: lr}
	s.start()
	tok, err := d.dec.Token()
	if err == io.EOF {
		return errors.New("the input is empty")
	}
	if err != nil {
		return d.fail(err)
	}
	if delim, ok := tok.(stdjson.Delim); !ok || delim != '{' {
		return d.fail(errors.New("a project file is a JSON object (or NDJSON lines with a \"kind\" member)"))
	}
	seen := map[string]bool{}
	key, err := s.jsonHead(d, seen)
	if err != nil {
		return err
	}
	work, err := s.headDone()
	if err != nil {
		return err
	}
	if key == "" {
		return d.end()
	}
	return s.pipeline(ctx, func(ctx context.Context, k *chunker) error {
		return s.jsonObjects(ctx, d, k, key, seen)
	}, work)
}

// jsonHead reads the members of the head, up to the first object array;
// it returns that array's member name ("" at the end of the object).
func (s *streamer) jsonHead(d *jsonDoc, seen map[string]bool) (string, error) {
	for d.dec.More() {
		key, err := d.member(seen)
		if err != nil {
			return "", err
		}
		if _, ok := jsonObjectMembers[strings.ToLower(key)]; ok {
			return key, nil
		}
		if err := s.jsonHeadMember(d, key); err != nil {
			var le lineError
			if errors.As(err, &le) {
				return "", err
			}
			return "", d.fail(err)
		}
	}
	return "", nil
}

// jsonHeadMember reads the value of one member of the head.
func (s *streamer) jsonHeadMember(d *jsonDoc, key string) error {
	p, strict := s.head, s.opts.Strict
	switch strings.ToLower(key) {
	case "name":
		return d.value(&p.Name, strict)
	case "sourcelanguageid":
		return d.value(&p.SourceLanguage, strict)
	case "targetlanguageids":
		return d.value(&p.TargetLanguages, strict)
	case "users":
		return jsonArray(d, strict, func(u *UserRef, no int) error { return s.addUser(*u, no) })
	case "languages":
		return jsonArray(d, strict, func(l *LanguageInfo, no int) error { return s.addLanguage(*l, no) })
	case "files":
		return jsonArray(d, strict, func(f *File, no int) error { return s.addFile(*f, no) })
	case "branches":
		return jsonArray(d, strict, func(b *Branch, no int) error { return s.addBranch(*b, no) })
	}
	if strict {
		return fmt.Errorf("unknown member %q of the project", key)
	}
	var skip stdjson.RawMessage
	return d.dec.Decode(&skip)
}

// jsonObjects hands the elements of the object arrays to the chunker,
// starting with the array of member key.
func (s *streamer) jsonObjects(ctx context.Context, d *jsonDoc, k *chunker, key string, seen map[string]bool) error {
	for {
		lk := strings.ToLower(key)
		if kind, ok := jsonObjectMembers[lk]; ok {
			if err := d.objects(ctx, k, kind); err != nil {
				return err
			}
		} else if _, head := map[string]bool{"name": true, "sourcelanguageid": true, "targetlanguageids": true,
			"users": true, "languages": true, "files": true, "branches": true}[lk]; head {
			return d.fail(fmt.Errorf("member %q comes after the project's objects: in the JSON form the head (name, languages, users, files, branches) comes before strings, tmSegments, glossaryTerms and glossaryConcepts, as croql writes it (docs/data-format.md)", key))
		} else if s.opts.Strict {
			return d.fail(fmt.Errorf("unknown member %q of the project", key))
		} else {
			var skip stdjson.RawMessage
			if err := d.dec.Decode(&skip); err != nil {
				return d.fail(err)
			}
		}
		if !d.dec.More() {
			return d.end()
		}
		var err error
		if key, err = d.member(seen); err != nil {
			return err
		}
	}
}

// objects hands each element of one array (or null) of kind to k.
func (d *jsonDoc) objects(ctx context.Context, k *chunker, kind string) error {
	tok, err := d.dec.Token()
	if err != nil {
		return d.fail(err)
	}
	if tok == nil {
		return nil
	}
	if delim, ok := tok.(stdjson.Delim); !ok || delim != '[' {
		return d.fail(fmt.Errorf("an array was expected, not %v", tok))
	}
	for d.dec.More() {
		var raw stdjson.RawMessage
		if err := d.dec.Decode(&raw); err != nil {
			return d.fail(err)
		}
		no := d.start(raw)
		if len(raw) > MaxLine {
			return lineError{no, fmt.Errorf("an element longer than %d bytes", MaxLine)}
		}
		if !k.add(ctx, raw, no, kind) {
			return ctx.Err()
		}
	}
	if _, err := d.dec.Token(); err != nil {
		return d.fail(err)
	}
	return nil
}

// member reads the name of the next member of the project object.
func (d *jsonDoc) member(seen map[string]bool) (string, error) {
	tok, err := d.dec.Token()
	if err != nil {
		return "", d.fail(err)
	}
	key, _ := tok.(string)
	lk := strings.ToLower(key)
	if seen[lk] {
		return "", d.fail(fmt.Errorf("member %q is given twice: the decoder would keep only the last one", key))
	}
	seen[lk] = true
	return key, nil
}

// value decodes the next value into v.
func (d *jsonDoc) value(v any, strict bool) error {
	var raw stdjson.RawMessage
	if err := d.dec.Decode(&raw); err != nil {
		return err
	}
	return decodeLine(raw, v, strict)
}

// start returns the line the value just decoded, raw, starts on: the
// decoder's offset is just past its end.
func (d *jsonDoc) start(raw []byte) int {
	return d.lines.at(d.dec.InputOffset() - int64(len(raw)))
}

// end reads the end of the project object and checks nothing follows.
func (d *jsonDoc) end() error {
	if _, err := d.dec.Token(); err != nil {
		return d.fail(err)
	}
	if _, err := d.dec.Token(); err != io.EOF {
		if err == nil {
			err = errors.New("text after the project object")
		}
		return d.fail(err)
	}
	return nil
}

// fail names the line of an error of the document.
func (d *jsonDoc) fail(err error) error {
	off := d.dec.InputOffset()
	var se *stdjson.SyntaxError
	var te *stdjson.UnmarshalTypeError
	switch {
	case errors.As(err, &se) && se.Offset > off:
		off = se.Offset
	case errors.As(err, &te) && te.Offset > off:
		off = te.Offset
	}
	return lineError{d.lines.at(off), err}
}

// jsonArray decodes an array (or null) of T element by element and adds
// each with the line it starts on.
func jsonArray[T any](d *jsonDoc, strict bool, add func(*T, int) error) error {
	tok, err := d.dec.Token()
	if err != nil {
		return err
	}
	if tok == nil {
		return nil
	}
	if delim, ok := tok.(stdjson.Delim); !ok || delim != '[' {
		return fmt.Errorf("an array was expected, not %v", tok)
	}
	for d.dec.More() {
		var raw stdjson.RawMessage
		if err := d.dec.Decode(&raw); err != nil {
			return err
		}
		no := d.start(raw)
		var v T
		if err := decodeLine(raw, &v, strict); err != nil {
			return lineError{no, err}
		}
		if err := add(&v, no); err != nil {
			return lineError{no, err}
		}
	}
	_, err = d.dec.Token()
	return err
}

// lineReader reads r and turns increasing offsets of what it read into
// line numbers. It keeps the offsets of the newlines read but not yet
// passed, so its memory is bounded by what the decoder reads ahead.
type lineReader struct {
	r    io.Reader
	off  int64   // bytes read
	nl   []int64 // offsets of newlines at or after pos
	pos  int64
	line int // the line of pos
}

func (l *lineReader) Read(p []byte) (int, error) {
	n, err := l.r.Read(p)
	for i := 0; i < n; {
		j := bytes.IndexByte(p[i:n], '\n')
		if j < 0 {
			break
		}
		l.nl = append(l.nl, l.off+int64(i+j))
		i += j + 1
	}
	l.off += int64(n)
	return n, err
}

// at returns the line of offset off (of pos, if off is before it).
func (l *lineReader) at(off int64) int {
	if off <= l.pos {
		return l.line
	}
	k := 0
	for k < len(l.nl) && l.nl[k] < off {
		k++
	}
	l.line += k
	l.nl = l.nl[:copy(l.nl, l.nl[k:])]
	l.pos = off
	return l.line
}
