package schema

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"runtime"
	"sync"

	json "github.com/goccy/go-json"
)

// ReadOptions tune [Stream] and [ReadProjectWith].
type ReadOptions struct {
	// Strict rejects members the format does not define (a misspelt
	// "isHiden") and a member name repeated within one object.
	Strict bool
	// SkipBad skips an object line that cannot be read or fails a check
	// (bad JSON, an unknown enum value, a duplicate id) instead of stopping
	// at it; Skipped, when set, is called with each skipped line's number
	// and error, in file order. Lines of the project's head (project, user,
	// language, file and branch lines) are never skipped.
	SkipBad bool
	Skipped func(line int, err error)
	// Workers is how many goroutines decode lines; 0 means GOMAXPROCS.
	Workers int
}

// Item is one object of a project file: a *SourceString, *TMSegment,
// *GlossaryTerm or *GlossaryConcept, with the line it was read from (for
// the JSON form, the line its element starts on).
type Item struct {
	Line  int
	Value any
	// Out is free for the work function of a [Handler]: the streaming
	// query writes there what it prints for the object.
	Out []byte
	err error
}

// Handler receives what [Stream] reads.
type Handler struct {
	// Head is called once, before any object, with the project's head:
	// its name, languages, users, files and branches, and no objects. It
	// returns the function to run on each object (nil for none); that
	// function runs on several goroutines at once, on distinct objects.
	Head func(p *Project) (work func(o *Item) error, err error)
	// Emit is called from one goroutine with consecutive objects in file
	// order, after their work has run. It may keep the values, not the
	// slice.
	Emit func(objs []*Item) error
}

// chunkLines and chunkBytes bound a chunk of lines handed to a worker.
const (
	chunkLines = 256
	chunkBytes = 1 << 20
)

// Stream reads a project file, JSON or NDJSON (docs/data-format.md), and
// hands its objects to h one at a time while it reads: memory stays flat
// whatever the size of an NDJSON file. In the NDJSON form the head
// (project, user, language, file and branch lines) comes before the
// objects; a head line after the first object is an error. Lines are
// decoded and checked on opts.Workers goroutines; h.Emit still sees them
// in file order. Every error names its line.
//
// The checks are those of [Project.Validate] that one object at a time
// allows: unique ids of strings, their own translations, TM segments,
// glossary terms and concepts; unique user ids and logins; files and
// branches a string names by id alone must be in the head; the shared
// translations of a duplicate must name a string read before; enum values;
// a string's `added` (a term's or concept's `createdAt`) must be given.
func Stream(ctx context.Context, r io.Reader, opts ReadOptions, h Handler) error {
	_, err := stream(ctx, r, opts, h)
	return err
}

// stream is Stream; it also reports whether the input was the JSON form.
func stream(ctx context.Context, r io.Reader, opts ReadOptions, h Handler) (jsonForm bool, err error) {
	br := bufio.NewReaderSize(r, 1<<20)
	first, err := readLine(br)
	if err != nil && err != io.EOF {
		return false, fmt.Errorf("reading project: line 1: %w", err)
	}
	first = bytes.Clone(first) // readLine's slice is the reader's buffer
	if !isKindLine(first) {
		js := &streamer{opts: opts, h: h}
		return true, js.runJSON(ctx, io.MultiReader(bytes.NewReader(first), br))
	}
	s := &streamer{opts: opts, h: h, br: br}
	if err := s.run(ctx, first, err == io.EOF); err != nil {
		return false, fmt.Errorf("reading project: %w", err)
	}
	return false, nil
}

// ReadProjectWith reads a whole project (as [ReadProject]) with options.
func ReadProjectWith(r io.Reader, opts ReadOptions) (*Project, error) {
	var p *Project
	lines := &lineIndex{}
	jsonForm, err := stream(context.Background(), r, opts, Handler{
		Head: func(head *Project) (func(*Item) error, error) {
			p = head
			return nil, nil
		},
		Emit: func(objs []*Item) error {
			for _, o := range objs {
				switch v := o.Value.(type) {
				case *SourceString:
					p.Strings = append(p.Strings, *v)
					lines.strings = append(lines.strings, o.Line)
				case *TMSegment:
					p.TMSegments = append(p.TMSegments, *v)
					lines.tm = append(lines.tm, o.Line)
				case *GlossaryTerm:
					p.GlossaryTerms = append(p.GlossaryTerms, *v)
					lines.terms = append(lines.terms, o.Line)
				case *GlossaryConcept:
					p.GlossaryConcepts = append(p.GlossaryConcepts, *v)
					lines.concepts = append(lines.concepts, o.Line)
				}
			}
			return nil
		},
	})
	if err != nil {
		return nil, err
	}
	// A JSON document read whole gets the checks that need all of it
	// (docs/data-format.md, "Checks"), as a project built in memory does.
	if jsonForm {
		if err := p.validate(lines, opts.Strict); err != nil {
			return nil, fmt.Errorf("reading project: %w", err)
		}
	}
	// The strings' files and branches point into the head's slices,
	// which do not move any more.
	return p, nil
}

func lineOf(lines []int, i int) int {
	if i < len(lines) {
		return lines[i]
	}
	return 0
}

// streamer reads the NDJSON form.
type streamer struct {
	opts ReadOptions
	h    Handler
	br   *bufio.Reader
	head *Project
	r    *resolver
	// checks of the head
	logins, langs            map[string]int
	userIDs, files, branches map[int64]int
	sawProject               bool
	// checks of the objects, in file order
	strings, translations, tm, terms, concepts *idSet
}

// lineRef is one line of a chunk.
type lineRef struct {
	start, end int
	no         int
	// kind is the object's kind when the reader knows it (an element of
	// a JSON document's array); "" for an NDJSON line, which names it.
	kind string
}

// chunk is a run of consecutive object lines.
type chunk struct {
	buf   []byte
	lines []lineRef
	objs  []Item
	done  chan struct{}
}

var chunkPool = sync.Pool{New: func() any { return &chunk{buf: make([]byte, 0, chunkBytes+4096)} }}

// start prepares the head's checks.
func (s *streamer) start() {
	s.head = &Project{}
	s.r = newResolver(s.head)
	s.logins, s.langs = map[string]int{}, map[string]int{}
	s.userIDs, s.files, s.branches = map[int64]int{}, map[int64]int{}, map[int64]int{}
}

// headDone is called once the head is read: it hands it to the handler
// and returns the work to run on each object.
func (s *streamer) headDone() (func(*Item) error, error) {
	// Files and branches are interned now; the resolver's maps are only
	// read from here on, by the workers.
	s.r = newResolver(s.head)
	s.r.strict = s.opts.Strict
	s.strings, s.translations, s.tm, s.terms, s.concepts = newIDSet(), newIDSet(), newIDSet(), newIDSet(), newIDSet()
	if s.h.Head == nil {
		return nil, nil
	}
	return s.h.Head(s.head)
}

func (s *streamer) run(ctx context.Context, line []byte, eof bool) error {
	s.start()
	lineNo := 1
	// The head: everything up to the first object line.
	for {
		kind, err := lineKind(line)
		if err != nil {
			return fmt.Errorf("line %d: %w", lineNo, err)
		}
		if isObjectKind(kind) {
			break
		}
		if kind != "" {
			if err := s.headLine(line, kind, lineNo); err != nil {
				return fmt.Errorf("line %d: %w", lineNo, err)
			}
		}
		if eof {
			line = nil
			break
		}
		line, err = readLine(s.br)
		lineNo++
		if err == io.EOF {
			eof = true
			if len(bytes.TrimSpace(line)) == 0 {
				line = nil
				break
			}
		} else if err != nil {
			return fmt.Errorf("line %d: %w", lineNo, err)
		}
	}
	work, err := s.headDone()
	if err != nil || line == nil {
		return err
	}
	return s.pipeline(ctx, func(ctx context.Context, k *chunker) error {
		return s.read(ctx, k, line, lineNo, eof)
	}, work)
}

// headLine reads one line of the head.
func (s *streamer) headLine(line []byte, kind string, no int) error {
	switch kind {
	case KindProject:
		var h struct {
			Kind            string   `json:"kind"`
			Name            string   `json:"name"`
			SourceLanguage  string   `json:"sourceLanguageId"`
			TargetLanguages []string `json:"targetLanguageIds"`
		}
		if err := decodeLine(line, &h, s.opts.Strict); err != nil {
			return fmt.Errorf("project: %w", err)
		}
		if s.sawProject {
			return errors.New("a second project line")
		}
		s.sawProject = true
		s.head.Name, s.head.SourceLanguage, s.head.TargetLanguages = h.Name, h.SourceLanguage, h.TargetLanguages
	case KindUser:
		u := struct {
			Kind string `json:"kind"`
			*UserRef
		}{UserRef: &UserRef{}}
		if err := decodeLine(line, &u, s.opts.Strict); err != nil {
			return fmt.Errorf("user: %w", err)
		}
		return s.addUser(*u.UserRef, no)
	case KindLanguage:
		l := struct {
			Kind string `json:"kind"`
			*LanguageInfo
		}{LanguageInfo: &LanguageInfo{}}
		if err := decodeLine(line, &l, s.opts.Strict); err != nil {
			return fmt.Errorf("language: %w", err)
		}
		return s.addLanguage(*l.LanguageInfo, no)
	case KindFile:
		f := struct {
			Kind string `json:"kind"`
			*File
		}{File: &File{}}
		if err := decodeLine(line, &f, s.opts.Strict); err != nil {
			return fmt.Errorf("file: %w", err)
		}
		return s.addFile(*f.File, no)
	case KindBranch:
		b := struct {
			Kind string `json:"kind"`
			*Branch
		}{Branch: &Branch{}}
		if err := decodeLine(line, &b, s.opts.Strict); err != nil {
			return fmt.Errorf("branch: %w", err)
		}
		return s.addBranch(*b.Branch, no)
	}
	return nil
}

// addUser adds a user of the head, read from line no.
func (s *streamer) addUser(u UserRef, no int) error {
	if prev, ok := s.userIDs[u.ID]; ok {
		return fmt.Errorf("user %d: the id is taken by the user of line %d", u.ID, prev)
	}
	if prev, ok := s.logins[u.Login]; ok {
		return fmt.Errorf("user %d: login %q is taken by the user of line %d", u.ID, u.Login, prev)
	}
	s.userIDs[u.ID], s.logins[u.Login] = no, no
	s.head.Users = append(s.head.Users, u)
	return nil
}

// addLanguage adds a language of the head, read from line no.
func (s *streamer) addLanguage(l LanguageInfo, no int) error {
	if prev, ok := s.langs[l.ID]; ok {
		return fmt.Errorf("language %q: given twice (line %d)", l.ID, prev)
	}
	s.langs[l.ID] = no
	s.head.Languages = append(s.head.Languages, l)
	return nil
}

// addFile adds a file of the head, read from line no.
func (s *streamer) addFile(f File, no int) error {
	if prev, ok := s.files[f.ID]; ok {
		return fmt.Errorf("file %d: the id is taken by the file of line %d", f.ID, prev)
	}
	s.files[f.ID] = no
	s.head.Files = append(s.head.Files, f)
	return nil
}

// addBranch adds a branch of the head, read from line no.
func (s *streamer) addBranch(b Branch, no int) error {
	if prev, ok := s.branches[b.ID]; ok {
		return fmt.Errorf("branch %d: the id is taken by the branch of line %d", b.ID, prev)
	}
	s.branches[b.ID] = no
	s.head.Branches = append(s.head.Branches, b)
	return nil
}

// pipeline reads the object lines in chunks, decodes them on workers and
// checks and emits them in order.
func (s *streamer) pipeline(parent context.Context, produce func(context.Context, *chunker) error, work func(*Item) error) error {
	ctx, cancel := context.WithCancel(parent)
	defer cancel()
	workers := s.opts.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	jobs := make(chan *chunk, workers)
	order := make(chan *chunk, 2*workers)
	var readErr error
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer close(jobs)
		defer close(order)
		k := &chunker{c: newChunk(), jobs: jobs, order: order}
		readErr = produce(ctx, k)
		if !k.send(ctx) && readErr == nil {
			readErr = ctx.Err()
		}
	}()
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for c := range jobs {
				if ctx.Err() == nil {
					s.decodeChunk(c, work)
				}
				close(c.done)
			}
		}()
	}
	err := s.emit(ctx, order)
	cancel()
	for c := range order { // let the reader finish
		<-c.done
	}
	wg.Wait()
	if err != nil {
		return err
	}
	if readErr != nil && !errors.Is(readErr, context.Canceled) {
		return readErr
	}
	return parent.Err()
}

// chunker hands chunks of objects to the workers (jobs) and, in the
// same order, to the emitter (order).
type chunker struct {
	c           *chunk
	jobs, order chan<- *chunk
}

// add appends one object's text, read from line no, and sends the chunk
// when it is full. It reports false when ctx is done.
func (k *chunker) add(ctx context.Context, b []byte, no int, kind string) bool {
	start := len(k.c.buf)
	k.c.buf = append(k.c.buf, b...)
	k.c.lines = append(k.c.lines, lineRef{start: start, end: len(k.c.buf), no: no, kind: kind})
	if len(k.c.lines) == chunkLines || len(k.c.buf) >= chunkBytes {
		return k.send(ctx)
	}
	return true
}

// send hands the chunk on, if it holds anything, and starts another
// (also when ctx is done and it reports false: the chunk is given up).
func (k *chunker) send(ctx context.Context) bool {
	c := k.c
	if len(c.lines) == 0 {
		return true
	}
	k.c = newChunk()
	c.objs = c.objs[:0]
	for range c.lines {
		c.objs = append(c.objs, Item{})
	}
	select {
	case k.order <- c:
	case <-ctx.Done():
		return false
	}
	select {
	case k.jobs <- c:
	case <-ctx.Done():
		close(c.done)
		return false
	}
	return true
}

// read cuts the NDJSON input into chunks.
func (s *streamer) read(ctx context.Context, k *chunker, line []byte, no int, eof bool) error {
	for {
		if len(bytes.TrimSpace(line)) > 0 && !k.add(ctx, line, no, "") {
			return ctx.Err()
		}
		if eof {
			return nil
		}
		var err error
		line, err = readLine(s.br)
		no++
		if err == io.EOF {
			eof = true
		} else if err != nil {
			return fmt.Errorf("line %d: %w", no, err)
		}
	}
}

func newChunk() *chunk {
	c := chunkPool.Get().(*chunk)
	c.buf, c.lines, c.done = c.buf[:0], c.lines[:0], make(chan struct{})
	return c
}

// decodeChunk decodes and checks each line of c, and runs work on it.
func (s *streamer) decodeChunk(c *chunk, work func(*Item) error) {
	for i, l := range c.lines {
		o := &c.objs[i]
		o.Line = l.no
		o.Out = o.Out[:0]
		o.Value, o.err = s.decodeObject(c.buf[l.start:l.end], l.kind)
		if o.err == nil && work != nil {
			if err := work(o); err != nil {
				o.err = err
			}
		}
	}
}

// missing marks a required datetime the line did not give.
const missing Time = math.MinInt64

type (
	stringLine struct {
		Kind string `json:"kind"`
		*SourceString
	}
	tmLine struct {
		Kind string `json:"kind"`
		*TMSegment
	}
	termLine struct {
		Kind string `json:"kind"`
		*GlossaryTerm
	}
	conceptLine struct {
		Kind string `json:"kind"`
		*GlossaryConcept
	}
)

// decodeObject decodes one object line and checks what it can alone.
func (s *streamer) decodeObject(line []byte, kind string) (any, error) {
	if kind == "" {
		var err error
		if kind, err = lineKind(line); err != nil {
			return nil, err
		}
	}
	strict := s.opts.Strict
	switch kind {
	case KindString:
		v := &SourceString{Added: missing}
		if err := decodeLine(line, &stringLine{SourceString: v}, strict); err != nil {
			return nil, fmt.Errorf("string: %w", err)
		}
		if v.Added == missing {
			return nil, fmt.Errorf("string %d: `added` is missing", v.ID)
		}
		if err := s.r.string(v, false); err != nil {
			return nil, err
		}
		return v, nil
	case KindTM:
		v := &TMSegment{}
		if err := decodeLine(line, &tmLine{TMSegment: v}, strict); err != nil {
			return nil, fmt.Errorf("tm: %w", err)
		}
		return v, nil
	case KindTerm:
		v := &GlossaryTerm{CreatedAt: missing}
		if err := decodeLine(line, &termLine{GlossaryTerm: v}, strict); err != nil {
			return nil, fmt.Errorf("term: %w", err)
		}
		if v.CreatedAt == missing {
			return nil, fmt.Errorf("term %d: `createdAt` is missing", v.ID)
		}
		if strict {
			return v, checkTerm(v)
		}
		return v, nil
	case KindConcept:
		v := &GlossaryConcept{CreatedAt: missing}
		if err := decodeLine(line, &conceptLine{GlossaryConcept: v}, strict); err != nil {
			return nil, fmt.Errorf("concept: %w", err)
		}
		if v.CreatedAt == missing {
			return nil, fmt.Errorf("concept %d: `createdAt` is missing", v.ID)
		}
		return v, nil
	case "":
		return nil, errors.New(`the line has no "kind"`)
	}
	if isHeadKind(kind) {
		return nil, fmt.Errorf("a %s line after the first object line: the project, users, languages, files and branches come before the strings, TM segments and glossary (docs/data-format.md)", kind)
	}
	return nil, unknownKind(kind)
}

// emit checks ids in file order and hands the objects on.
func (s *streamer) emit(ctx context.Context, order <-chan *chunk) error {
	batch := make([]*Item, 0, chunkLines)
	for c := range order {
		select {
		case <-c.done:
		case <-ctx.Done():
			return ctx.Err()
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		batch = batch[:0]
		for i := range c.objs {
			o := &c.objs[i]
			if o.err == nil {
				o.err = s.checkIDs(o.Value)
			}
			if o.err != nil {
				if !s.opts.SkipBad {
					return fmt.Errorf("line %d: %w", o.Line, o.err)
				}
				if s.opts.Skipped != nil {
					s.opts.Skipped(o.Line, o.err)
				}
				continue
			}
			batch = append(batch, o)
		}
		if len(batch) > 0 && s.h.Emit != nil {
			if err := s.h.Emit(batch); err != nil {
				return err
			}
		}
		for i := range c.objs {
			c.objs[i].Value = nil
		}
		chunkPool.Put(c)
	}
	return nil
}

// checkIDs checks an object's ids against those read before, and records
// them when they are new.
func (s *streamer) checkIDs(v any) error {
	switch o := v.(type) {
	case *SourceString:
		if s.strings.has(o.ID) {
			return fmt.Errorf("string %d: the id is taken by an earlier string", o.ID)
		}
		for i := range o.Translations {
			t := &o.Translations[i]
			if t.StringID != o.ID {
				if !s.strings.has(t.StringID) {
					return fmt.Errorf("string %d: translation %d is shared from string %d, which has not been read: a master string comes before its duplicates", o.ID, t.ID, t.StringID)
				}
				continue
			}
			if s.translations.has(t.ID) {
				return fmt.Errorf("string %d: translation %d: the id is taken by an earlier translation", o.ID, t.ID)
			}
		}
		// Record only once the whole string passed.
		s.strings.add(o.ID)
		for i := range o.Translations {
			if t := &o.Translations[i]; t.StringID == o.ID && !s.translations.add(t.ID) {
				return fmt.Errorf("string %d: lists translation %d twice", o.ID, t.ID)
			}
		}
	case *TMSegment:
		if !s.tm.add(o.ID) {
			return fmt.Errorf("tm segment %d: the id is taken by an earlier segment", o.ID)
		}
	case *GlossaryTerm:
		if !s.terms.add(o.ID) {
			return fmt.Errorf("term %d: the id is taken by an earlier term", o.ID)
		}
	case *GlossaryConcept:
		if !s.concepts.add(o.ID) {
			return fmt.Errorf("concept %d: the id is taken by an earlier concept", o.ID)
		}
	}
	return nil
}

// lineKind returns the kind of a line ("" for a blank one).
func lineKind(line []byte) (string, error) {
	line = bytes.TrimSpace(line)
	if len(line) == 0 {
		return "", nil
	}
	if k, ok := kindPrefix(line); ok {
		return k, nil
	}
	var head struct {
		Kind *string `json:"kind"`
	}
	if err := json.Unmarshal(line, &head); err != nil {
		return "", fmt.Errorf("not a JSON object: %w", err)
	}
	if head.Kind == nil || *head.Kind == "" {
		return "", errors.New(`the line has no "kind"`)
	}
	k := *head.Kind
	if !isHeadKind(k) && !isObjectKind(k) {
		return "", unknownKind(k)
	}
	return k, nil
}

func unknownKind(k string) error {
	return fmt.Errorf("unknown kind %q: use one of project, user, language, file, branch, string, tm, term, concept", k)
}

func isHeadKind(k string) bool {
	switch k {
	case KindProject, KindUser, KindLanguage, KindFile, KindBranch:
		return true
	}
	return false
}

func isObjectKind(k string) bool {
	switch k {
	case KindString, KindTM, KindTerm, KindConcept:
		return true
	}
	return false
}

// decodeLine decodes one JSON value into v; strict rejects unknown
// members and repeated names.
func decodeLine(b []byte, v any, strict bool) error {
	if !strict {
		return json.Unmarshal(b, v)
	}
	if err := repeatedKey(b); err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if dec.More() {
		return errors.New("text after the JSON value")
	}
	return nil
}
