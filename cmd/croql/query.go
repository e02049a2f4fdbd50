package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"sync"
	"time"
	_ "time/tzdata" // --tz works on machines without a zoneinfo database

	"github.com/croql/croql"
	"github.com/croql/croql/demo"
	"github.com/croql/croql/schema"
)

// cmdQuery implements `croql query`: it runs a query over a project file
// (or the built-in demo project) in memory and prints the matching objects
// as NDJSON, or their ids one per line.
func cmdQuery(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := newFlags("query", "[--context C] [--data FILE] [--ids] [--now DATETIME] [--tz ZONE] [--edition E] [--fold] [--engine memory|sqlite|postgres|mysql] [--dsn DSN] [QUERY|-]",
		"Runs the query over the objects of a context and prints the matching ones as NDJSON\n"+
			"(one JSON object per line), or their ids with --ids. Without --data it runs on the\n"+
			"built-in demo project (croql demo). @user and @language mentions resolve against the\n"+
			"data's users and languages. The in-memory evaluator prints matches in the data's order;\n"+
			"a SQL engine (the data loaded into a scratch database) in ascending id order.\n"+
			"Exit 0 on success (no match included), 1 when the query has an error or the data\n"+
			"cannot be read or queried, 2 on bad usage.", stderr)
	ctxName := fs.String("context", croql.Strings, "evaluation context: strings, translations, tm, glossary, concepts")
	data := fs.String("data", "", "project file, JSON or NDJSON (docs/data-format.md); - reads stdin; default: the built-in demo project")
	ids := fs.Bool("ids", false, "print the ids of the matching objects, one per line, instead of the objects")
	now := fs.String("now", "", "the current time 'today' is read from: 'YYYY-MM-DD HH:MM:SS', 'YYYY-MM-DD' or RFC 3339, in --tz (default: the clock)")
	tz := fs.String("tz", "UTC", "time zone of datetime literals without an offset and of 'today' (IANA name, e.g. Europe/Berlin)")
	edition := fs.String("edition", "standard", "platform edition: standard or enterprise")
	fold := fs.Bool("fold", false, "make contains case-insensitive (Unicode simple folding)")
	engineName := fs.String("engine", "memory", "where the query runs: memory (the evaluator), or "+engineNames+" (compiled to SQL)")
	dsn := fs.String("dsn", "", "data source of --engine postgres or mysql (a scratch schema is created and dropped); optional for sqlite")
	strict := fs.Bool("strict", false, "reject unknown members and member names repeated within an object in the data file")
	skipBad := fs.Bool("skip-bad", false, "skip data lines that cannot be read or fail a check, reporting each on stderr, instead of stopping at the first")
	if st := parseFlags(fs, args); st >= 0 {
		return st
	}
	usageErr := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "croql query: "+format+"\n", a...)
		return 2
	}
	switch *engineName {
	case "memory":
		if *dsn != "" {
			return usageErr("--dsn needs --engine %s", engineNames)
		}
	case "sqlite":
	case "postgres", "mysql":
		if *dsn == "" {
			return usageErr("--engine %s needs --dsn (for example %s)", *engineName, exampleDSN(*engineName))
		}
	default:
		return usageErr("--engine must be memory, %s, not %q", engineNames, *engineName)
	}
	ed, ok := parseEdition(*edition)
	if !ok {
		return usageErr("--edition must be standard or enterprise, not %q", *edition)
	}
	loc, err := time.LoadLocation(*tz)
	if err != nil || *tz == "" {
		return usageErr("--tz %q is not a time zone: give an IANA name such as UTC or Europe/Berlin", *tz)
	}
	opts := []croql.Option{croql.WithEdition(ed), croql.WithLocation(loc), croql.WithFoldContains(*fold)}
	if *now != "" {
		t, err := schema.ParseTime(*now, loc)
		if err != nil {
			return usageErr("--now: %v", err)
		}
		fixed := t.Std().In(loc)
		opts = append(opts, croql.WithClock(func() time.Time { return fixed }))
	}
	queryArgs := fs.Args()
	queryFromStdin := len(queryArgs) == 0 || (len(queryArgs) == 1 && queryArgs[0] == "-")
	if *data == "-" && queryFromStdin {
		return usageErr("--data - reads the project from stdin, so give the query as an argument")
	}
	src, err := readQuery(queryArgs, stdin)
	if err != nil {
		return usageErr("%v", err)
	}
	if _, err := croql.NewEnv(*ctxName); err != nil { // a bad context is a usage error: check it before reading data
		return usageErr("%v", err)
	}

	ropts := schema.ReadOptions{Strict: *strict, SkipBad: *skipBad}
	if *engineName == "memory" && *data != "" {
		ctx, stop := signalContext()
		defer stop()
		return streamQuery(ctx, *data, stdin, stdout, stderr, src, *ctxName, opts, *ids, ropts)
	}
	p, err := loadProject(*data, stdin, stderr, ropts)
	if err != nil {
		fmt.Fprintf(stderr, "croql query: %v\n", err)
		return 1
	}
	opts = append(opts, croql.WithUsers(p.UserIDs()))
	if langs := projectLanguages(p); len(langs) > 0 {
		opts = append(opts, croql.WithLanguages(langs...))
	}
	env, err := croql.NewEnv(*ctxName, opts...)
	if err != nil {
		return usageErr("%v", err)
	}
	out := bufio.NewWriterSize(stdout, 64<<10)
	write := writeObject(out)
	if *ids {
		write = writeID(out)
	}
	objs := p.Objects(env.Context())
	if *engineName != "memory" {
		checked := env.Check(src)
		printDiags(stderr, src, checked.Diags)
		if checked.Diags.HasErrors() {
			return 1
		}
		ctx, stop := signalContext()
		defer stop()
		matched, err := runOnEngine(ctx, *engineName, *dsn, p, checked)
		if err != nil {
			fmt.Fprintf(stderr, "croql query: %v\n", err)
			return 1
		}
		if err := writeByID(objs, matched, write); err != nil {
			fmt.Fprintf(stderr, "croql query: %v\n", err)
			return 1
		}
		return flush(out, stderr)
	}

	q, diags := env.Compile(src)
	printDiags(stderr, src, diags)
	if diags.HasErrors() || q == nil {
		return 1
	}
	prog := newProgress(stderr, len(objs) >= progressObjects)
	for i, o := range objs {
		if i&4095 == 0 {
			prog.show("matching: %d of %d objects", i, len(objs))
		}
		if q.Match(o) {
			if err := write(o); err != nil {
				prog.done()
				fmt.Fprintf(stderr, "croql query: writing: %v\n", err)
				return 1
			}
		}
	}
	prog.done()
	return flush(out, stderr)
}

func flush(out *bufio.Writer, stderr io.Writer) int {
	if err := out.Flush(); err != nil {
		fmt.Fprintf(stderr, "croql query: writing: %v\n", err)
		return 1
	}
	return 0
}

// writeByID writes the objects of objs whose ids a SQL engine returned,
// in the order of ids.
func writeByID(objs []any, ids []int64, write func(any) error) error {
	byID := make(map[int64]any, len(objs))
	for _, o := range objs {
		if id, ok := schema.ObjectID(o); ok {
			byID[id] = o
		}
	}
	for _, id := range ids {
		o, ok := byID[id]
		if !ok {
			return fmt.Errorf("the engine returned id %d, which is not an object of the data", id)
		}
		if err := write(o); err != nil {
			return fmt.Errorf("writing: %w", err)
		}
	}
	return nil
}

// writeObject writes each object as one line of JSON.
func writeObject(w io.Writer) func(any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return func(o any) error { return enc.Encode(o) }
}

// writeID writes each object's id on a line of its own.
func writeID(w *bufio.Writer) func(any) error {
	var buf []byte
	return func(o any) error {
		id, ok := schema.ObjectID(o)
		if !ok {
			return fmt.Errorf("an object of type %T has no id", o)
		}
		buf = strconv.AppendInt(buf[:0], id, 10)
		buf = append(buf, '\n')
		_, err := w.Write(buf)
		return err
	}
}

// projectLanguages returns every language code the project knows: its
// source and target languages and its language objects.
func projectLanguages(p *schema.Project) []string {
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

// Progress is shown on stderr, when it is a terminal, for data files of
// at least progressBytes and for at least progressObjects objects.
const (
	progressBytes   = 8 << 20
	progressObjects = 200_000
)

// loadProject reads the project file name ("-" for stdin), or returns the
// built-in demo project when name is empty.
func loadProject(name string, stdin io.Reader, stderr io.Writer, ropts schema.ReadOptions) (*schema.Project, error) {
	if name == "" {
		return demo.Default(), nil
	}
	var (
		r    io.Reader
		size int64 = -1
	)
	if name == "-" {
		if stdin == nil {
			return nil, errors.New("--data -: no stdin")
		}
		r = stdin
	} else {
		f, err := os.Open(name)
		if err != nil {
			return nil, fmt.Errorf("reading the data: %w", err)
		}
		defer f.Close()
		if st, err := f.Stat(); err == nil {
			size = st.Size()
		}
		r = f
	}
	pr := &progressReader{r: r, size: size, name: name, prog: newProgress(stderr, size >= progressBytes)}
	if ropts.SkipBad {
		ropts.Skipped = skipReporter(stderr, pr.prog, "croql query")
	}
	p, err := schema.ReadProjectWith(pr, ropts)
	pr.prog.done()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return p, nil
}

// progressReader reports how much of a file has been read.
type progressReader struct {
	r    io.Reader
	name string
	size int64
	n    int64
	prog *progress
}

func (p *progressReader) Read(b []byte) (int, error) {
	n, err := p.r.Read(b)
	p.n += int64(n)
	if p.size > 0 {
		p.prog.show("reading %s: %d%% (%d of %d MiB)", p.name, p.n*100/p.size, p.n>>20, p.size>>20)
	}
	return n, err
}

// progress writes a self-overwriting status line to a terminal, at most
// every progressEvery; it does nothing when disabled.
type progress struct {
	mu    sync.Mutex
	w     io.Writer
	on    bool
	shown bool
	last  time.Time
}

const progressEvery = 200 * time.Millisecond

// newProgress returns a progress line on w, enabled when want is true and
// w is a terminal.
func newProgress(w io.Writer, want bool) *progress {
	return &progress{w: w, on: want && isTerminal(w)}
}

func (p *progress) show(format string, a ...any) {
	if !p.on {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if now := time.Now(); now.Sub(p.last) >= progressEvery {
		p.last = now
		p.shown = true
		fmt.Fprintf(p.w, "\r\x1b[Kcroql query: "+format, a...)
	}
}

// done clears the status line.
func (p *progress) done() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.shown {
		fmt.Fprint(p.w, "\r\x1b[K")
		p.shown = false
	}
}

// isTerminal reports whether w is a character device (a terminal).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
