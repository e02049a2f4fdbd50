package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/croql/croql"
	"github.com/croql/croql/diag"
	"github.com/croql/croql/schema"
)

// newDiffCmd returns `croql diff OLD NEW`: what changing a filter from OLD
// to NEW does to a project's objects.
func newDiffCmd(c *cli) *cobra.Command {
	var (
		f                        evalFlags
		data, format, engineName string
		dsn, language            string
		strict, skipBad          bool
	)
	cmd := &cobra.Command{
		Use:   "diff [--data FILE] [--context C] [--language L] [--format text|json] [--engine memory|sqlite|postgres|mysql|vitess] [--dsn DSN] OLD NEW",
		Short: "Show what changing a filter does: the objects only OLD matches and only NEW matches",
		Long: "Runs the queries OLD and NEW over the objects of a context (of the project file, or the\n" +
			"built-in demo project) and prints, like a unified diff, the objects only OLD matches\n" +
			"(lines starting with -: the change removes them) and only NEW matches (+: the change\n" +
			"adds them), each as its id, a tab and its text, in the data's order, then the counts. The two queries are the two\n" +
			"arguments (quote each). --format json prints {\"old\", \"new\", \"onlyOld\", \"onlyNew\",\n" +
			"\"both\"} with the ids. --engine runs both queries on a SQL engine, as croql query does.\n" +
			"Exit 0 whether or not the queries differ, 1 when a query has an error or the data cannot\n" +
			"be read or queried, 2 on bad usage.",
		ValidArgsFunction: noFileCompletion,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) != 2 {
				return usageErrorf("diff takes two queries, OLD and NEW, each one argument (quote them): got %d arguments", len(args))
			}
			if err := checkFormat(format, "text", "json"); err != nil {
				return err
			}
			if err := checkEngineFlags(engineName, dsn); err != nil {
				return err
			}
			if engineName == "memory" && dsn != "" && data != "" {
				return usageErrorf("--dsn with --data needs --engine %s (without --data, --dsn queries the store croql load wrote there)", engineNames)
			}
			opts, err := f.options()
			if err != nil {
				return err
			}
			if language != "" && !languageContexts[f.ctxName] {
				return usageErrorf("--language selects translations or glossary terms of one language; the %s context has none", f.ctxName)
			}
			if dsn != "" && data == "" {
				ctx, stop := signalContext()
				defer stop()
				return c.diffStore(ctx, f.ctxName, language, engineName, dsn, format, [2]string{args[0], args[1]}, opts)
			}
			p, err := c.loadProject(data, schema.ReadOptions{Strict: strict, SkipBad: skipBad})
			if err != nil {
				return failure(err)
			}
			if err := checkLanguage(p, language); err != nil {
				return err
			}
			env, err := f.projectEnv(p, opts)
			if err != nil {
				return err
			}
			// Both queries are checked, and every diagnostic printed,
			// before either runs.
			names := [2]string{"<old>", "<new>"}
			var qs [2]*croql.Query
			bad := false
			for i, src := range args {
				q, diags := env.Compile(src)
				printDiags(c.stderr, names[i], src, diags)
				if diags.HasErrors() || q == nil {
					bad = true
				}
				qs[i] = q
			}
			if bad {
				return errHasErrors
			}
			objs := p.Objects(env.Context())
			if language != "" {
				objs = slices.DeleteFunc(slices.Clone(objs), func(o any) bool { return !ofLanguage(o, language) })
			}
			ctx, stop := signalContext()
			defer stop()
			var d *croql.Difference
			if engineName == "memory" {
				d, err = croql.Diff(ctx, qs[0], qs[1], objs)
				if err != nil {
					return failure(err)
				}
			} else {
				ids, err := runAllOnEngine(ctx, engineName, dsn, p, qs[0].Checked(), qs[1].Checked())
				if sp, ok := diag.SpanOf(err); ok {
					return failure(fmt.Errorf("the SQL of a query cannot run on %s: %w (at bytes %d-%d)", engineName, err, sp.Start, sp.End))
				}
				if err != nil {
					return failure(err)
				}
				d = diffByIDs(objs, ids[0], ids[1])
			}
			return writeDiff(c.stdout, format, args[0], args[1], d)
		},
	}
	f.add(cmd)
	cmd.Flags().StringVar(&data, "data", "", dataHelp+"; default: the built-in demo project")
	addLocFlags(cmd, &c.loc)
	_ = cmd.MarkFlagFilename("data", dataExts...)
	cmd.Flags().StringVar(&format, "format", "text", "output: text (a unified diff of ids) or json")
	completeFlag(cmd, "format", "text", "json")
	cmd.Flags().StringVar(&engineName, "engine", "memory", "where the queries run: memory (the evaluator), or "+engineNames+" (compiled to SQL)")
	completeFlag(cmd, "engine", "memory", "sqlite", "postgres", "mysql", "vitess")
	cmd.Flags().StringVar(&dsn, "dsn", "", "without --data: the store `croql load` wrote, queried where it is; with --data and --engine postgres or mysql: the server a scratch schema is created and dropped in (optional for sqlite)")
	cmd.Flags().StringVar(&language, "language", "", "only the translations (or glossary terms) of this language code, as the platform's per-language endpoint")
	cmd.Flags().BoolVar(&strict, "strict", false, "reject unknown members and member names repeated within an object in the data file")
	cmd.Flags().BoolVar(&skipBad, "skip-bad", false, "skip data lines that cannot be read or fail a check, reporting each on stderr")
	return cmd
}

// diffByIDs is the difference of the objects of objs whose ids are in
// oldIDs and newIDs, in the order of objs.
func diffByIDs(objs []any, oldIDs, newIDs []int64) *croql.Difference {
	set := func(ids []int64) map[int64]bool {
		m := make(map[int64]bool, len(ids))
		for _, id := range ids {
			m[id] = true
		}
		return m
	}
	inOld, inNew := set(oldIDs), set(newIDs)
	d := &croql.Difference{}
	for _, o := range objs {
		id, _ := schema.ObjectID(o)
		a, b := inOld[id], inNew[id]
		switch {
		case a && b:
			d.Both++
		case a:
			d.OnlyOld = append(d.OnlyOld, o)
		case b:
			d.OnlyNew = append(d.OnlyNew, o)
		}
	}
	return d
}

// diffJSON is the JSON form of a difference.
type diffJSON struct {
	Old     string  `json:"old"`
	New     string  `json:"new"`
	OnlyOld []int64 `json:"onlyOld"`
	OnlyNew []int64 `json:"onlyNew"`
	Both    int     `json:"both"`
}

// writeDiff writes d as text (a unified diff of ids) or JSON.
func writeDiff(w io.Writer, format, old, new string, d *croql.Difference) error {
	out := bufio.NewWriter(w)
	j := diffJSON{Old: old, New: new, OnlyOld: idsOf(d.OnlyOld), OnlyNew: idsOf(d.OnlyNew), Both: d.Both}
	if format == "json" {
		enc := json.NewEncoder(out)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		if err := enc.Encode(j); err != nil {
			return failure(fmt.Errorf("writing: %w", err))
		}
		return flush(out)
	}
	fmt.Fprintf(out, "--- OLD: %s (%d matches)\n", old, len(j.OnlyOld)+j.Both)
	fmt.Fprintf(out, "+++ NEW: %s (%d matches)\n", new, len(j.OnlyNew)+j.Both)
	for _, o := range d.OnlyOld {
		writeDiffLine(out, '-', o)
	}
	for _, o := range d.OnlyNew {
		writeDiffLine(out, '+', o)
	}
	fmt.Fprintf(out, "only OLD: %d, only NEW: %d, both: %d\n", len(j.OnlyOld), len(j.OnlyNew), j.Both)
	return flush(out)
}

// writeDiffLine writes sign, the object's id, a tab and its text (a
// string's text, a translation's, a TM segment's first record's, a term's,
// a concept's subject), cut at maxLabel characters and kept on one line.
func writeDiffLine(w io.Writer, sign byte, o any) {
	id, _ := schema.ObjectID(o)
	var label string
	switch v := o.(type) {
	case *schema.SourceString:
		label = v.Text
	case *schema.Translation:
		label = v.Text
	case *schema.TMSegment:
		if len(v.Records) > 0 {
			label = v.Records[0].Text
		}
	case *schema.GlossaryTerm:
		label = v.Text
	case *schema.GlossaryConcept:
		label = v.Subject
	}
	label = strings.Join(strings.Fields(label), " ")
	if r := []rune(label); len(r) > maxLabel {
		label = string(r[:maxLabel-1]) + "…"
	}
	fmt.Fprintf(w, "%c%d\t%s\n", sign, id, label)
}

// maxLabel is the length, in characters, past which croql diff cuts an
// object's text.
const maxLabel = 60

// idsOf is the ids of objs (never nil, so JSON has [] for none).
func idsOf(objs []any) []int64 {
	ids := make([]int64, 0, len(objs))
	for _, o := range objs {
		if id, ok := schema.ObjectID(o); ok {
			ids = append(ids, id)
		}
	}
	return ids
}
