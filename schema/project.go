package schema

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"reflect"
	"slices"
	"strings"
)

// LanguageInfo describes a project language, in the platform's language object
// shape (seed section 2.3).
type LanguageInfo struct {
	// ID is the language code ("de", "pt-BR").
	ID                  string   `json:"id"`
	Name                string   `json:"name"`
	EditorCode          string   `json:"editorCode"`
	TwoLettersCode      string   `json:"twoLettersCode"`
	ThreeLettersCode    string   `json:"threeLettersCode"`
	Locale              string   `json:"locale"`
	AndroidCode         string   `json:"androidCode"`
	OSXCode             string   `json:"osxCode"`
	OSXLocale           string   `json:"osxLocale"`
	PluralCategoryNames []string `json:"pluralCategoryNames"`
	PluralRules         string   `json:"pluralRules"`
}

// Project is a project's data: what the CLI queries. Its JSON form is the
// data file format documented in docs/data-format.md; [ReadProject] also
// reads the newline-delimited form that [Project.WriteNDJSON] writes.
type Project struct {
	Name string `json:"name"`
	// SourceLanguage is the code of the source language.
	SourceLanguage string `json:"sourceLanguageId"`
	// TargetLanguages are the codes of the target languages.
	TargetLanguages []string `json:"targetLanguageIds,omitempty"`
	// Users is the user directory: @user:"login" mentions resolve here.
	Users []UserRef `json:"users,omitempty"`
	// Languages describes the source and target languages.
	Languages []LanguageInfo `json:"languages,omitempty"`
	Files     []File         `json:"files,omitempty"`
	Branches  []Branch       `json:"branches,omitempty"`
	// Strings are the source strings, each with its translations.
	Strings          []SourceString    `json:"strings,omitempty"`
	TMSegments       []TMSegment       `json:"tmSegments,omitempty"`
	GlossaryTerms    []GlossaryTerm    `json:"glossaryTerms,omitempty"`
	GlossaryConcepts []GlossaryConcept `json:"glossaryConcepts,omitempty"`
}

// UserIDs returns the user directory as logins mapped to ids.
func (p *Project) UserIDs() map[string]int64 {
	m := make(map[string]int64, len(p.Users))
	for _, u := range p.Users {
		m[u.Login] = u.ID
	}
	return m
}

// LanguageCodes returns every language code the project knows, once each
// and in this order: its source language, its target languages, then its
// language objects.
func (p *Project) LanguageCodes() []string {
	var codes []string
	add := func(c string) {
		if c != "" && !slices.Contains(codes, c) {
			codes = append(codes, c)
		}
	}
	add(p.SourceLanguage)
	for _, c := range p.TargetLanguages {
		add(c)
	}
	for _, l := range p.Languages {
		add(l.ID)
	}
	return codes
}

// UserLogins returns the user directory as ids mapped to logins.
func (p *Project) UserLogins() map[int64]string {
	m := make(map[int64]string, len(p.Users))
	for _, u := range p.Users {
		m[u.ID] = u.Login
	}
	return m
}

// Translations returns every translation of every string, once each: the
// objects of the translations context. A translation that a duplicate
// shares with its master (StringID is the master's id) is listed under the
// master only. Each translation carries its Language and StringID.
func (p *Project) Translations() []Translation {
	n := 0
	for i := range p.Strings {
		n += len(p.Strings[i].Translations)
	}
	out := make([]Translation, 0, n)
	for i := range p.Strings {
		s := &p.Strings[i]
		for _, t := range s.Translations {
			if t.StringID == s.ID {
				out = append(out, t)
			}
		}
	}
	return out
}

// Objects returns the objects a query in ctx runs on, as pointers:
// *SourceString for strings, *Translation for translations (see
// [Project.Translations]), *TMSegment for tm, *GlossaryTerm for glossary
// and *GlossaryConcept for concepts. It returns nil for an unknown context.
func (p *Project) Objects(ctx *Context) []any {
	if ctx == nil {
		return nil
	}
	switch ctx.Name {
	case CtxStrings:
		return pointers(p.Strings)
	case CtxTranslations:
		return pointers(p.Translations())
	case CtxTM:
		return pointers(p.TMSegments)
	case CtxGlossary:
		return pointers(p.GlossaryTerms)
	case CtxConcepts:
		return pointers(p.GlossaryConcepts)
	}
	return nil
}

func pointers[T any](s []T) []any {
	out := make([]any, len(s))
	for i := range s {
		out[i] = &s[i]
	}
	return out
}

// ObjectID returns the id of an object that [Project.Objects] returns.
func ObjectID(v any) (int64, bool) {
	switch o := v.(type) {
	case *SourceString:
		return o.ID, true
	case *Translation:
		return o.ID, true
	case *TMSegment:
		return o.ID, true
	case *GlossaryTerm:
		return o.ID, true
	case *GlossaryConcept:
		return o.ID, true
	}
	return 0, false
}

// The kinds of the lines of the newline-delimited format.
const (
	KindProject  = "project"
	KindUser     = "user"
	KindLanguage = "language"
	KindFile     = "file"
	KindBranch   = "branch"
	KindString   = "string"
	KindTM       = "tm"
	KindTerm     = "term"
	KindConcept  = "concept"
)

// MaxLine is the longest line the newline-delimited reader accepts.
const MaxLine = 64 << 20

// ReadProject reads a project in either data format: one JSON document
// (the [Project] object) or newline-delimited JSON, one object per line,
// each with a "kind" member (see docs/data-format.md). It tells them apart
// by the first line: a complete JSON object with a "kind" member starts the
// newline-delimited form. It checks what [Stream] checks; errors name the
// line they were found on. [ReadProjectWith] takes options.
func ReadProject(r io.Reader) (*Project, error) {
	return ReadProjectWith(r, ReadOptions{})
}

func isKindLine(line []byte) bool {
	line = bytes.TrimSpace(line)
	if len(line) == 0 || line[0] != '{' || !json.Valid(line) {
		return false
	}
	var k struct {
		Kind *string `json:"kind"`
	}
	return json.Unmarshal(line, &k) == nil && k.Kind != nil
}

// readLine reads one line of at most MaxLine bytes.
func readLine(br *bufio.Reader) ([]byte, error) {
	line, err := br.ReadSlice('\n')
	if err != bufio.ErrBufferFull {
		return line, err
	}
	buf := append([]byte(nil), line...)
	for err == bufio.ErrBufferFull {
		if len(buf) > MaxLine {
			return nil, fmt.Errorf("line longer than %d bytes", MaxLine)
		}
		line, err = br.ReadSlice('\n')
		buf = append(buf, line...)
	}
	return buf, err
}

// kindPrefix reads the kind of a line that starts the way the writer
// writes it, {"kind":"name", without decoding the line twice.
func kindPrefix(line []byte) (string, bool) {
	const prefix = `{"kind":"`
	if !bytes.HasPrefix(line, []byte(prefix)) {
		return "", false
	}
	rest := line[len(prefix):]
	end := bytes.IndexByte(rest, '"')
	if end < 0 || bytes.IndexByte(rest[:end], '\\') >= 0 {
		return "", false
	}
	switch k := string(rest[:end]); k {
	case KindProject, KindUser, KindLanguage, KindFile, KindBranch, KindString, KindTM, KindTerm, KindConcept:
		return k, true
	}
	return "", false
}

// WriteJSON writes p as one indented JSON document (two spaces, HTML
// characters not escaped), element by element so that large projects are
// not built in memory twice. The output is what a json.Encoder with
// SetIndent("", "  ") and SetEscapeHTML(false) writes for p.
func (p *Project) WriteJSON(w io.Writer) error {
	bw := bufio.NewWriterSize(w, 1<<16)
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	encode := func(v any, prefix string) ([]byte, error) {
		buf.Reset()
		enc.SetIndent(prefix, "  ")
		if err := enc.Encode(v); err != nil {
			return nil, err
		}
		return bytes.TrimSuffix(buf.Bytes(), []byte{'\n'}), nil
	}

	pv := reflect.ValueOf(p).Elem()
	pt := pv.Type()
	bw.WriteString("{")
	first := true
	for i := range pt.NumField() {
		name, opts, _ := strings.Cut(pt.Field(i).Tag.Get("json"), ",")
		fv := pv.Field(i)
		if opts == "omitempty" && fv.Len() == 0 {
			continue
		}
		if !first {
			bw.WriteString(",")
		}
		first = false
		fmt.Fprintf(bw, "\n  %q: ", name)
		if fv.Kind() != reflect.Slice || fv.Type().Elem().Kind() != reflect.Struct || fv.Len() == 0 {
			b, err := encode(fv.Interface(), "  ")
			if err != nil {
				return fmt.Errorf("writing project %s: %w", name, err)
			}
			bw.Write(b)
			continue
		}
		bw.WriteString("[")
		for j := range fv.Len() {
			if j > 0 {
				bw.WriteString(",")
			}
			bw.WriteString("\n    ")
			b, err := encode(fv.Index(j).Addr().Interface(), "    ")
			if err != nil {
				return fmt.Errorf("writing project %s[%d]: %w", name, j, err)
			}
			bw.Write(b)
		}
		bw.WriteString("\n  ]")
	}
	bw.WriteString("\n}\n")
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("writing project: %w", err)
	}
	return nil
}

// NDJSONWriter writes the newline-delimited data format one object at a
// time, so that a generator can stream a project of any size.
type NDJSONWriter struct {
	bw  *bufio.Writer
	buf bytes.Buffer
	enc *json.Encoder
}

// NewNDJSONWriter returns a writer to w; call Flush at the end.
func NewNDJSONWriter(w io.Writer) *NDJSONWriter {
	nw := &NDJSONWriter{bw: bufio.NewWriterSize(w, 1<<16)}
	nw.enc = json.NewEncoder(&nw.buf)
	nw.enc.SetEscapeHTML(false)
	return nw
}

// Header writes the project line: name and languages of p.
func (nw *NDJSONWriter) Header(p *Project) error {
	return nw.write(KindProject, struct {
		Name            string   `json:"name"`
		SourceLanguage  string   `json:"sourceLanguageId"`
		TargetLanguages []string `json:"targetLanguageIds,omitempty"`
	}{p.Name, p.SourceLanguage, p.TargetLanguages})
}

// Write writes one object: a *UserRef, *LanguageInfo, *File, *Branch,
// *SourceString, *TMSegment, *GlossaryTerm or *GlossaryConcept (or the
// same types as values).
func (nw *NDJSONWriter) Write(v any) error {
	var kind string
	switch v.(type) {
	case UserRef, *UserRef:
		kind = KindUser
	case LanguageInfo, *LanguageInfo:
		kind = KindLanguage
	case File, *File:
		kind = KindFile
	case Branch, *Branch:
		kind = KindBranch
	case SourceString, *SourceString:
		kind = KindString
	case TMSegment, *TMSegment:
		kind = KindTM
	case GlossaryTerm, *GlossaryTerm:
		kind = KindTerm
	case GlossaryConcept, *GlossaryConcept:
		kind = KindConcept
	default:
		return fmt.Errorf("writing project: %T is not an object of the data format", v)
	}
	return nw.write(kind, v)
}

func (nw *NDJSONWriter) write(kind string, v any) error {
	nw.buf.Reset()
	if err := nw.enc.Encode(v); err != nil {
		return fmt.Errorf("writing project %s: %w", kind, err)
	}
	b := nw.buf.Bytes()
	nw.bw.WriteString(`{"kind":"`)
	nw.bw.WriteString(kind)
	nw.bw.WriteString(`"`)
	if body := bytes.TrimSpace(b[1:]); len(body) > 0 && body[0] != '}' {
		nw.bw.WriteString(",")
	}
	_, err := nw.bw.Write(b[1:])
	if err != nil {
		return fmt.Errorf("writing project: %w", err)
	}
	return nil
}

// Flush writes buffered lines out.
func (nw *NDJSONWriter) Flush() error {
	if err := nw.bw.Flush(); err != nil {
		return fmt.Errorf("writing project: %w", err)
	}
	return nil
}

// WriteNDJSON writes p in the newline-delimited format: the project line,
// then users, languages, files, branches, strings, TM segments, glossary
// concepts and terms, one per line.
func (p *Project) WriteNDJSON(w io.Writer) error {
	nw := NewNDJSONWriter(w)
	if err := nw.Header(p); err != nil {
		return err
	}
	if err := writeAll(nw, p.Users, p.Languages, p.Files, p.Branches); err != nil {
		return err
	}
	if err := writeAll(nw, p.Strings, p.TMSegments, p.GlossaryConcepts, p.GlossaryTerms); err != nil {
		return err
	}
	return nw.Flush()
}

func writeAll(nw *NDJSONWriter, lists ...any) error {
	for _, l := range lists {
		v := reflect.ValueOf(l)
		for i := range v.Len() {
			if err := nw.Write(v.Index(i).Addr().Interface()); err != nil {
				return err
			}
		}
	}
	return nil
}
