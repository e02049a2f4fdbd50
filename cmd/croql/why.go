package main

import (
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/croql/croql"
	"github.com/croql/croql/parser"
	"github.com/croql/croql/schema"
)

// evalFlags are the flags that make the environment a query is evaluated
// in, shared by why and diff: the context, the edition, the clock and
// time zone, case folding, the cost budget and the parser's limits.
type evalFlags struct {
	ctxName, edition, now, tz string
	fold                      bool
	maxCost                   float64
	limits                    parser.Limits
}

func (f *evalFlags) add(cmd *cobra.Command) {
	addContextFlag(cmd, &f.ctxName)
	addEditionFlag(cmd, &f.edition)
	cmd.Flags().StringVar(&f.now, "now", "", "the current time 'today' is read from: 'YYYY-MM-DD HH:MM:SS', 'YYYY-MM-DD' or RFC 3339, in --tz (default: the clock)")
	cmd.Flags().StringVar(&f.tz, "tz", "UTC", "time zone of datetime literals without an offset and of 'today' (IANA name, e.g. Europe/Berlin)")
	cmd.Flags().BoolVar(&f.fold, "fold", false, "make contains case-insensitive (Unicode simple folding)")
	cmd.Flags().Float64Var(&f.maxCost, "max-cost", 0, "cost budget of the query, in steps per object (0: the safe default, 1e6; negative: unlimited); docs/language.md, Cost budget")
	addLimitFlags(cmd, &f.limits)
}

// options checks the flags and returns the environment's options; a bad
// value is a usage error.
func (f *evalFlags) options() ([]croql.Option, error) {
	ed, err := parseEdition(f.edition)
	if err != nil {
		return nil, err
	}
	loc, err := time.LoadLocation(f.tz)
	if err != nil || f.tz == "" {
		return nil, usageErrorf("--tz %q is not a time zone: give an IANA name such as UTC or Europe/Berlin", f.tz)
	}
	if err := checkLimits(f.limits); err != nil {
		return nil, err
	}
	if _, err := croql.NewEnv(f.ctxName); err != nil {
		return nil, usageErrorf("%w", err)
	}
	opts := []croql.Option{croql.WithEdition(ed), croql.WithLocation(loc), croql.WithFoldContains(f.fold),
		croql.WithLimits(f.limits), croql.WithMaxCost(f.maxCost)}
	if f.now != "" {
		t, err := schema.ParseTime(f.now, loc)
		if err != nil {
			return nil, usageErrorf("--now: %w", err)
		}
		fixed := t.Std().In(loc)
		opts = append(opts, croql.WithClock(func() time.Time { return fixed }))
	}
	return opts, nil
}

// projectEnv is the environment of the flags' context over p: its users
// resolve @user mentions, its languages @language ones.
func (f *evalFlags) projectEnv(p *schema.Project, opts []croql.Option) (*croql.Env, error) {
	opts = append(opts, croql.WithUserIDs(p.UserIDs()))
	if langs := p.LanguageCodes(); len(langs) > 0 {
		opts = append(opts, croql.WithLanguages(langs...))
	}
	env, err := croql.NewEnv(f.ctxName, opts...)
	if err != nil {
		return nil, usageErrorf("%w", err)
	}
	return env, nil
}

// newWhyCmd returns `croql why`: the value of each clause of a query on
// one object of a project, and which clauses decided the result.
func newWhyCmd(c *cli) *cobra.Command {
	var (
		f                 evalFlags
		data, format, dsn string
		id                int64
		strict, skipBad   bool
	)
	cmd := &cobra.Command{
		Use:   "why --id N [--data FILE] [--context C] [--format text|json] [--now T] [--tz Z] [--edition E] [--fold] [QUERY|-]",
		Short: "Explain why a query matches one object or not: the value of each clause on it",
		Long: "Evaluates the query on the object with id N of the context (in the project file, or the\n" +
			"built-in demo project) and prints each clause of the query with its value on that object,\n" +
			"in the query's own words, marking the clauses that decided the result:\n\n" +
			"  `count of translations where (user = @user:\"frank\")` = 0 (0 of 5 `translations`); `> 0` is false\n\n" +
			"An absent value is printed as `is absent` (docs/language.md, Absent values). The values\n" +
			"are those of the reference interpreter; the result is the evaluator's, as croql query\n" +
			"computes it. --format json prints the same as one JSON object.\n" +
			"Exit 0 whether or not the object matches, 1 when the query has an error, the data cannot\n" +
			"be read or has no object with that id, 2 on bad usage.",
		ValidArgsFunction: noFileCompletion,
		RunE: func(cmd *cobra.Command, args []string) error {
			if !cmd.Flags().Changed("id") {
				return usageErrorf("--id is required: the id of the object to explain")
			}
			if err := checkFormat(format, "text", "json"); err != nil {
				return err
			}
			opts, err := f.options()
			if err != nil {
				return err
			}
			queryFromStdin := len(args) == 0 || (len(args) == 1 && args[0] == "-")
			if data == "-" && queryFromStdin {
				return usageErrorf("--data - reads the project from stdin, so give the query as an argument")
			}
			src, name, err := c.readQuery(args)
			if err != nil {
				return err
			}
			if dsn != "" && data == "" {
				ctx, stop := signalContext()
				defer stop()
				return c.whyStore(ctx, f.ctxName, dsn, name, src, format, id, opts)
			}
			p, err := c.loadProject(data, schema.ReadOptions{Strict: strict, SkipBad: skipBad})
			if err != nil {
				return failure(err)
			}
			env, err := f.projectEnv(p, opts)
			if err != nil {
				return err
			}
			q, diags := env.Compile(src)
			printDiags(c.stderr, name, src, diags)
			if diags.HasErrors() || q == nil {
				return errHasErrors
			}
			obj := findObject(p.Objects(env.Context()), id)
			if obj == nil {
				return failure(fmt.Errorf("the %s context of the data has no object with id %d", env.Context().Name, id))
			}
			e, err := q.Why(obj)
			if err != nil {
				return failure(err)
			}
			return writeWhy(c.stdout, format, e)
		},
	}
	f.add(cmd)
	cmd.Flags().StringVar(&data, "data", "", dataHelp+"; default: the built-in demo project")
	addLocFlags(cmd, &c.loc)
	_ = cmd.MarkFlagFilename("data", dataExts...)
	cmd.Flags().StringVar(&dsn, "dsn", "", "without --data: explain the object of the store `croql load` wrote there, read back from it")
	cmd.Flags().Int64Var(&id, "id", 0, "the id of the object to explain (a string's, translation's, TM segment's, term's or concept's, by --context)")
	cmd.Flags().StringVar(&format, "format", "text", "output: text or json")
	completeFlag(cmd, "format", "text", "json")
	cmd.Flags().BoolVar(&strict, "strict", false, "reject unknown members and member names repeated within an object in the data file")
	cmd.Flags().BoolVar(&skipBad, "skip-bad", false, "skip data lines that cannot be read or fail a check, reporting each on stderr")
	return cmd
}

// findObject is the object of objs with id, or nil.
func findObject(objs []any, id int64) any {
	for _, o := range objs {
		if oid, ok := schema.ObjectID(o); ok && oid == id {
			return o
		}
	}
	return nil
}

// writeWhy writes e as text or as indented JSON.
func writeWhy(w io.Writer, format string, e *croql.Explanation) error {
	if format == "json" {
		enc := json.NewEncoder(w)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		if err := enc.Encode(whyJSON{e, jsonClauseOf(e.Clause)}); err != nil {
			return failure(fmt.Errorf("writing: %w", err))
		}
		return nil
	}
	if _, err := io.WriteString(w, e.String()); err != nil {
		return failure(fmt.Errorf("writing: %w", err))
	}
	return nil
}

// whyJSON is the JSON of an explanation: croql.Explanation's, with every
// clause that counts the elements of a collection (`of` set) carrying
// `matched` and `total` even when they are 0.
type whyJSON struct {
	*croql.Explanation
	Clause *jsonClause `json:"clause"`
}

// jsonClause is a croql.Clause whose `matched` and `total` are written
// whenever `of` is.
type jsonClause struct {
	*croql.Clause
	Matched *int          `json:"matched,omitempty"`
	Total   *int          `json:"total,omitempty"`
	Clauses []*jsonClause `json:"clauses,omitempty"`
}

func jsonClauseOf(c *croql.Clause) *jsonClause {
	if c == nil {
		return nil
	}
	j := &jsonClause{Clause: c}
	if c.Of != "" {
		j.Matched, j.Total = &c.Matched, &c.Total
	}
	for _, p := range c.Clauses {
		j.Clauses = append(j.Clauses, jsonClauseOf(p))
	}
	return j
}
