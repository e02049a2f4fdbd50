package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"
	_ "time/tzdata" // --tz works on machines without a zoneinfo database

	"github.com/spf13/cobra"

	"github.com/croql/croql"
	"github.com/croql/croql/demo"
	"github.com/croql/croql/diag"
	"github.com/croql/croql/parser"
	"github.com/croql/croql/schema"
)

// newQueryCmd returns `croql query`: it runs a query over a project file
// (or the built-in demo project) in memory or on a SQL engine and prints
// the matching objects as NDJSON, or their ids one per line.
func newQueryCmd(c *cli) *cobra.Command {
	var (
		ctxName, data, now, tz, edition, engineName, dsn, language string
		fields                                                     []string
		ids, fold, strict, skipBad, exitStatus                     bool
		limits                                                     parser.Limits
		maxCost                                                    float64
	)
	cmd := &cobra.Command{
		Use:   "query [--context C] [--data FILE] [--ids] [--now T] [--tz Z] [--language L] [--edition E] [--fold] [--engine memory|sqlite|postgres|mysql|vitess] [--dsn DSN] [--fields F,...] [--exit-status] [QUERY|-]",
		Short: "Run a query over a project file (or the demo project); print the matches as NDJSON or ids",
		Long: "Runs the query over the objects of a context and prints the matching ones as NDJSON\n" +
			"(with --language de, only the translations or glossary terms in German, as the\n" +
			"platform's per-language endpoint does)\n" +
			"(one JSON object per line), or their ids with --ids. Without --data it runs on the\n" +
			"built-in demo project (croql demo). @user and @language mentions resolve against the\n" +
			"data's users and languages. The in-memory evaluator prints matches in the data's order;\n" +
			"a SQL engine (the data loaded into a scratch database) in ascending id order.\n" +
			"With --dsn and no --data it queries the store `croql load` wrote there, where it is\n" +
			"(the engine follows from the DSN), and prints the matches read back from it.\n" +
			"--fields id,text prints only those members of each object (the JSON names of\n" +
			"docs/data-format.md, in the order given).\n" +
			"Exit 0 on success (no match included), 1 when the query has an error or the data\n" +
			"cannot be read or queried, 2 on bad usage. With --exit-status (-e, as jq -e), a\n" +
			"run that matches nothing exits 1 as well, printing nothing on stderr.",
		ValidArgsFunction: noFileCompletion,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkEngineFlags(engineName, dsn); err != nil {
				return err
			}
			if engineName == "memory" && dsn != "" && data != "" {
				return usageErrorf("--dsn with --data needs --engine %s (without --data, --dsn queries the store croql load wrote there)", engineNames)
			}
			ed, err := parseEdition(edition)
			if err != nil {
				return err
			}
			loc, err := time.LoadLocation(tz)
			if err != nil || tz == "" {
				return usageErrorf("--tz %q is not a time zone: give an IANA name such as UTC or Europe/Berlin", tz)
			}
			opts := []croql.Option{croql.WithEdition(ed), croql.WithLocation(loc), croql.WithFoldContains(fold)}
			if now != "" {
				t, err := schema.ParseTime(now, loc)
				if err != nil {
					return usageErrorf("--now: %w", err)
				}
				fixed := t.Std().In(loc)
				opts = append(opts, croql.WithClock(func() time.Time { return fixed }))
			}
			queryFromStdin := len(args) == 0 || (len(args) == 1 && args[0] == "-")
			if data == "-" && queryFromStdin {
				return usageErrorf("--data - reads the project from stdin, so give the query as an argument")
			}
			env, err := croql.NewEnv(ctxName) // a bad context is a usage error: check it before reading
			if err != nil {
				return usageErrorf("%w", err)
			}
			if language != "" && !languageContexts[env.Context().Name] {
				return usageErrorf("--language selects translations or glossary terms of one language; the %s context has none", env.Context().Name)
			}
			out := queryOutput{ids: ids}
			if cmd.Flags().Changed("fields") {
				if ids {
					return usageErrorf("--fields and --ids exclude each other: --ids prints only the ids")
				}
				p, err := newProjection(env.Context().Name, fields)
				if err != nil {
					return err
				}
				out.fields = p
			}
			if err := checkLimits(limits); err != nil {
				return err
			}
			opts = append(opts, croql.WithLimits(limits), croql.WithMaxCost(maxCost))
			src, name, err := c.readQuery(args)
			if err != nil {
				return err
			}
			ropts := schema.ReadOptions{Strict: strict, SkipBad: skipBad}
			ctx, stop := signalContext()
			defer stop()
			var matched bool
			switch {
			case dsn != "" && data == "":
				matched, err = c.queryStore(ctx, name, src, ctxName, language, engineName, dsn, out, opts)
			case engineName == "memory" && data != "":
				matched, err = c.streamQuery(ctx, name, src, data, ctxName, language, out, opts, ropts)
			default:
				matched, err = c.runQuery(ctx, name, src, data, ctxName, language, engineName, dsn, out, opts, ropts)
			}
			if err == nil && exitStatus && !matched {
				return errNoMatch
			}
			return err
		},
	}
	addContextFlag(cmd, &ctxName)
	cmd.Flags().StringVar(&data, "data", "", dataHelp+"; default: the built-in demo project")
	addLocFlags(cmd, &c.loc)
	cmd.Flags().BoolVar(&ids, "ids", false, "print the ids of the matching objects, one per line, instead of the objects")
	cmd.Flags().StringVar(&now, "now", "", "the current time 'today' is read from: 'YYYY-MM-DD HH:MM:SS', 'YYYY-MM-DD' or RFC 3339, in --tz (default: the clock)")
	cmd.Flags().StringVar(&tz, "tz", "UTC", "time zone of datetime literals without an offset and of 'today' (IANA name, e.g. Europe/Berlin)")
	addEditionFlag(cmd, &edition)
	cmd.Flags().BoolVar(&fold, "fold", false, "make contains case-insensitive (Unicode simple folding)")
	cmd.Flags().StringVar(&engineName, "engine", "memory", "where the query runs: memory (the evaluator), or "+engineNames+" (compiled to SQL)")
	completeFlag(cmd, "engine", "memory", "sqlite", "postgres", "mysql", "vitess")
	cmd.Flags().StringVar(&dsn, "dsn", "", "without --data: the store `croql load` wrote, queried where it is; with --data and --engine postgres, mysql or vitess: the server a scratch schema is created and dropped in (optional for sqlite)")
	cmd.Flags().BoolVar(&strict, "strict", false, "reject unknown members and member names repeated within an object in the data file")
	cmd.Flags().BoolVar(&skipBad, "skip-bad", false, "skip data lines that cannot be read or fail a check, reporting each on stderr, instead of stopping at the first")
	_ = cmd.MarkFlagFilename("data", dataExts...)
	cmd.Flags().StringVar(&language, "language", "", "only the translations (or glossary terms) of this language code, as the platform's per-language endpoint")
	cmd.Flags().StringSliceVar(&fields, "fields", nil, "print only these members of each matching object, comma-separated JSON names (id,identifier,text), in this order")
	cmd.Flags().BoolVarP(&exitStatus, "exit-status", "e", false, "exit 1 when nothing matches (as jq -e); 0 when something does")
	addLimitFlags(cmd, &limits)
	cmd.Flags().Float64Var(&maxCost, "max-cost", 0, "cost budget of the query, in steps per object (0: the safe default, 1e6; negative: unlimited); docs/language.md, Cost budget")
	return cmd
}

// errNoMatch ends `croql query --exit-status` when nothing matched: exit
// status 1, nothing printed.
var errNoMatch = &exitError{code: 1}

// languageContexts are the contexts whose objects have a language that
// --language selects.
var languageContexts = map[string]bool{croql.Translations: true, croql.Glossary: true}

// checkLanguage reports a usage error when --language names no language
// of the project.
func checkLanguage(p *schema.Project, language string) error {
	if language != "" && !slices.Contains(p.LanguageCodes(), language) {
		return usageErrorf("--language %q is not a language of the data (%s)", language, strings.Join(p.LanguageCodes(), ", "))
	}
	return nil
}

// ofLanguage reports whether o, a translation or glossary term, is in
// language code; every object is when code is empty.
func ofLanguage(o any, code string) bool {
	switch v := o.(type) {
	case *schema.Translation:
		return code == "" || v.Language == code
	case *schema.GlossaryTerm:
		return code == "" || v.Language == code
	}
	return code == ""
}

// runQuery reads the data and runs the query src over it (over the
// objects in language only, when it is set); it reports whether an object
// matched.
func (c *cli) runQuery(ctx context.Context, name, src, data, ctxName, language, engineName, dsn string, how queryOutput, opts []croql.Option, ropts schema.ReadOptions) (bool, error) {
	p, err := c.loadProject(data, ropts)
	if err != nil {
		return false, failure(err)
	}
	opts = append(opts, croql.WithUserIDs(p.UserIDs()))
	if langs := p.LanguageCodes(); len(langs) > 0 {
		opts = append(opts, croql.WithLanguages(langs...))
	}
	env, err := croql.NewEnv(ctxName, opts...)
	if err != nil {
		return false, usageErrorf("%w", err)
	}
	out := bufio.NewWriterSize(c.stdout, 64<<10)
	write := how.writer(out)
	if err := checkLanguage(p, language); err != nil {
		return false, err
	}
	all := p.Objects(env.Context())
	objs := all
	if language != "" {
		objs = slices.DeleteFunc(slices.Clone(all), func(o any) bool { return !ofLanguage(o, language) })
	}
	if engineName != "memory" {
		checked, diags := env.Check(src)
		printDiags(c.stderr, name, src, diags)
		if diags.HasErrors() {
			return false, errHasErrors
		}
		matched, err := runOnEngine(ctx, engineName, dsn, p, checked)
		if sp, ok := diag.SpanOf(err); ok {
			// The SQL generator refused one part of the query (a literal
			// the engine cannot hold): a diagnostic there, as `croql sql`
			// prints it.
			printDiags(c.stderr, name, src, diag.List{diag.Errorf(diag.ClassLogic, croql.RuleSQL, sp, "%v", err)})
			return false, errHasErrors
		}
		if err != nil {
			return false, failure(err)
		}
		n, err := writeByID(all, objs, matched, write)
		if err != nil {
			return false, failure(err)
		}
		return n > 0, flush(out)
	}

	q, diags := env.Compile(src)
	printDiags(c.stderr, name, src, diags)
	if diags.HasErrors() || q == nil {
		return false, errHasErrors
	}
	prog := newProgress(c.stderr, "croql query: ", c.stderrTerminal && len(objs) >= progressObjects)
	defer prog.done()
	matchedAny := false
	for i, o := range objs {
		if i&4095 == 0 {
			prog.show("matching: %d of %d objects", i, len(objs))
		}
		ok, err := q.MatchContext(ctx, o) // an interrupt stops even a costly evaluation
		if err != nil {
			return false, failure(err)
		}
		if ok {
			matchedAny = true
			if err := write(o); err != nil {
				return false, failure(fmt.Errorf("writing: %w", err))
			}
		}
	}
	prog.done()
	return matchedAny, flush(out)
}

func flush(out *bufio.Writer) error {
	if err := out.Flush(); err != nil {
		return failure(fmt.Errorf("writing: %w", err))
	}
	return nil
}

// writeByID writes the objects of objs whose ids a SQL engine returned,
// in the order of ids, and returns how many it wrote; all are the objects
// of the context, objs those of them that are selected (by --language).
func writeByID(all, objs []any, ids []int64, write func(any) error) (int, error) {
	index := func(l []any) map[int64]any {
		byID := make(map[int64]any, len(l))
		for _, o := range l {
			if id, ok := schema.ObjectID(o); ok {
				byID[id] = o
			}
		}
		return byID
	}
	known, selected := index(all), index(objs)
	n := 0
	for _, id := range ids {
		if _, ok := known[id]; !ok {
			return n, fmt.Errorf("the engine returned id %d, which is not an object of the data", id)
		}
		o, ok := selected[id]
		if !ok {
			continue
		}
		if err := write(o); err != nil {
			return n, fmt.Errorf("writing: %w", err)
		}
		n++
	}
	return n, nil
}

// writer returns how the matching objects are written to w.
func (how queryOutput) writer(w *bufio.Writer) func(any) error {
	switch {
	case how.ids:
		return writeID(w)
	case how.fields != nil:
		var buf []byte
		return func(o any) error {
			var err error
			if buf, err = how.fields.appendJSON(buf[:0], o); err != nil {
				return err
			}
			_, err = w.Write(buf)
			return err
		}
	}
	return writeObject(w)
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

// Progress is shown on stderr, when it is a terminal, for data files of
// at least progressBytes and for at least progressObjects objects.
const (
	progressBytes   = 8 << 20
	progressObjects = 200_000
)

// loadProject reads the project file name ("-" for stdin), or returns the
// built-in demo project when name is empty.
func (c *cli) loadProject(name string, ropts schema.ReadOptions) (*schema.Project, error) {
	if isLocData(name) {
		return c.readLocProject(name)
	}
	if err := c.checkLocFlags(); err != nil {
		return nil, err
	}
	if name == "" {
		return demo.Default(), nil
	}
	var (
		r    io.Reader
		size int64 = -1
	)
	if name == "-" {
		if c.stdin == nil {
			return nil, errors.New("--data -: no stdin")
		}
		r = c.stdin
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
	pr := &progressReader{r: r, size: size, name: name, prog: newProgress(c.stderr, "croql query: ", c.stderrTerminal && size >= progressBytes)}
	if ropts.SkipBad {
		ropts.Skipped = skipReporter(c.stderr, pr.prog, "croql query")
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

// checkEngineFlags checks --engine and --dsn of query and diff: a DSN
// without data is a loaded store (any engine, memory meaning "as the DSN
// says"), and a server engine needs one.
func checkEngineFlags(engineName, dsn string) error {
	switch engineName {
	case "memory":
	case "sqlite":
	case "postgres", "mysql", "vitess":
		if dsn == "" {
			return usageErrorf("--engine %s needs --dsn (for example %s)", engineName, exampleDSN(engineName))
		}
	default:
		return usageErrorf("--engine must be memory, %s, not %q", engineNames, engineName)
	}
	return nil
}
