package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"slices"
	"strconv"

	"github.com/croql/croql"
	"github.com/croql/croql/diag"
	"github.com/croql/croql/schema"
)

// streamQuery runs a query over a project file with the in-memory
// evaluator while it reads it (schema.Stream): each object is decoded,
// matched and printed on the workers, then written in file order, so memory
// stays flat whatever the file's size. The environment is built from the
// file's head (its users and languages), so the query is compiled only
// then; its diagnostics go to stderr. It reports whether an object
// matched.
func (c *cli) streamQuery(ctx context.Context, qname, src, name, ctxName, language string, how queryOutput, opts []croql.Option, ropts schema.ReadOptions) (bool, error) {
	r, size, closeFn, err := c.openData(name)
	if err != nil {
		return false, failure(err)
	}
	defer closeFn()
	defer streamingGC()()
	prog := newProgress(c.stderr, "croql query: ", c.stderrTerminal && size >= progressBytes)
	pr := &progressReader{r: r, size: size, name: name, prog: prog}
	out := bufio.NewWriterSize(c.stdout, 64<<10)
	var (
		diags   diag.List
		matched bool
	)
	if ropts.SkipBad {
		ropts.Skipped = skipReporter(c.stderr, prog, "croql query")
	}
	err = schema.Stream(ctx, pr, ropts, schema.Handler{
		Head: func(head *schema.Project) (func(*schema.Item) error, error) {
			if err := checkLanguage(head, language); err != nil {
				return nil, err
			}
			hopts := append(slices.Clip(opts), croql.WithUserIDs(head.UserIDs()))
			if langs := head.LanguageCodes(); len(langs) > 0 {
				hopts = append(hopts, croql.WithLanguages(langs...))
			}
			env, err := croql.NewEnv(ctxName, hopts...)
			if err != nil {
				return nil, err
			}
			q, d := env.Compile(src)
			diags = d
			if d.HasErrors() || q == nil {
				return nil, errQueryDiags
			}
			return matcher(ctx, q, ctxName, language, how), nil
		},
		Emit: func(items []*schema.Item) error {
			for _, it := range items {
				if len(it.Out) > 0 {
					matched = true
					if _, err := out.Write(it.Out); err != nil {
						return fmt.Errorf("writing: %w", err)
					}
				}
			}
			return nil
		},
	})
	prog.done()
	printDiags(c.stderr, qname, src, diags)
	if errors.Is(err, errQueryDiags) {
		return false, errHasErrors
	}
	var ee *exitError
	if errors.As(err, &ee) { // a usage error found in the file's head (--language)
		return false, ee
	}
	if err != nil {
		_ = out.Flush()
		return false, failure(fmt.Errorf("%s: %w", name, err))
	}
	return matched, flush(out)
}

// errQueryDiags stops the reader when the query has errors.
var errQueryDiags = errors.New("the query has errors")

// matcher returns the work function of a streaming query: it matches the
// objects of the query's context within an item and appends what is
// printed for each match to the item's Out.
//
// Objects are matched under ctx (Query.MatchContext), so an interrupt stops
// even a costly evaluation of one object.
func matcher(ctx context.Context, q *croql.Query, ctxName, language string, how queryOutput) func(*schema.Item) error {
	emit := func(it *schema.Item, o any) error {
		if how.fields != nil {
			var err error
			it.Out, err = how.fields.appendJSON(it.Out, o)
			return err
		}
		if how.ids {
			id, _ := schema.ObjectID(o)
			it.Out = strconv.AppendInt(it.Out, id, 10)
			it.Out = append(it.Out, '\n')
			return nil
		}
		buf := bytes.NewBuffer(it.Out)
		enc := json.NewEncoder(buf)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(o); err != nil {
			return fmt.Errorf("writing: %w", err)
		}
		it.Out = buf.Bytes()
		return nil
	}
	// match reports whether q holds for o; it stores the context's error
	// in *stop when the evaluation was stopped.
	match := func(o any, stop *error) bool {
		ok, err := q.MatchContext(ctx, o)
		if err != nil {
			*stop = err
		}
		return ok
	}
	return func(it *schema.Item) (err error) {
		switch v := it.Value.(type) {
		case *schema.SourceString:
			switch ctxName {
			case croql.Strings:
				if match(v, &err) {
					return emit(it, v)
				}
			case croql.Translations:
				for i := range v.Translations {
					t := &v.Translations[i]
					if t.StringID == v.ID && (language == "" || t.Language == language) && match(t, &err) {
						if err := emit(it, t); err != nil {
							return err
						}
					}
					if err != nil {
						return err
					}
				}
			}
		case *schema.TMSegment:
			if ctxName == croql.TM && match(v, &err) {
				return emit(it, v)
			}
		case *schema.GlossaryTerm:
			if ctxName == croql.Glossary && (language == "" || v.Language == language) && match(v, &err) {
				return emit(it, v)
			}
		case *schema.GlossaryConcept:
			if ctxName == croql.Concepts && match(v, &err) {
				return emit(it, v)
			}
		}
		return err
	}
}

// skipReporter returns the ReadOptions.Skipped of --skip-bad: one line on
// stderr per skipped line.
func skipReporter(stderr io.Writer, prog *progress, cmd string) func(int, error) {
	return func(line int, err error) {
		prog.done()
		fmt.Fprintf(stderr, "%s: skipped line %d: %v\n", cmd, line, err)
	}
}

// openData opens a data file ("-" for stdin) and returns its size (-1 when
// unknown) and how to close it.
func (c *cli) openData(name string) (io.Reader, int64, func(), error) {
	if isLocData(name) {
		return c.openLocData(name)
	}
	if err := c.checkLocFlags(); err != nil {
		return nil, -1, nil, err
	}
	if name == "-" {
		stdin := c.stdin
		if stdin == nil {
			return nil, -1, nil, fmt.Errorf("--data -: no stdin")
		}
		return stdin, -1, func() {}, nil
	}
	f, err := os.Open(name)
	if err != nil {
		return nil, -1, nil, fmt.Errorf("reading the data: %w", err)
	}
	var size int64 = -1
	if st, err := f.Stat(); err == nil {
		size = st.Size()
	}
	return f, size, func() { f.Close() }, nil
}

// streamingGC lets the heap grow to five times the live data between
// collections (GOGC=400) while a file streams, unless GOGC is set: the
// live heap of a stream is small and flat (tens of MB), and collecting
// less often saves about a seventh of the CPU time. It returns the undo.
func streamingGC() func() {
	if os.Getenv("GOGC") != "" {
		return func() {}
	}
	old := debug.SetGCPercent(400)
	return func() { debug.SetGCPercent(old) }
}
