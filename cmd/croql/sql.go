package main

import (
	"errors"
	"fmt"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/croql/croql"
	"github.com/croql/croql/compile"
	"github.com/croql/croql/diag"
	"github.com/croql/croql/mapping"
	"github.com/croql/croql/parser"
)

// newSQLCmd returns `croql sql`: the WHERE clause a query compiles to in
// one dialect, with its arguments.
func newSQLCmd(c *cli) *cobra.Command {
	var (
		dialect, ctxName, edition, format string
		usersFile                         string
		fold, page                        bool
		limits                            parser.Limits
	)
	cmd := &cobra.Command{
		Use:   "sql [--dialect postgres|sqlite|mysql|vitess] [--context C] [--edition E] [--fold] [--page] [--users FILE] [--format text|json] [QUERY|-]",
		Short: "Compile a query to a SQL WHERE clause and its arguments",
		Long: "Compiles the query into a SQL WHERE clause over the reference tables (docs/sql.md) and prints it\n" +
			"with its arguments: every value is a bound parameter. @user mentions are bound to the ids of --users\n" +
			"FILE; without it they are looked up by login in the users table (a subselect, which a planner may run\n" +
			"once per row: a warning says so). Exit 0 on success, 1 when the query has an error, 2 on bad usage.",
		ValidArgsFunction: noFileCompletion,
		RunE: func(cmd *cobra.Command, args []string) error {
			d, err := compile.DialectByName(dialect)
			if err != nil {
				return usageErrorf("%w", err)
			}
			ed, err := parseEdition(edition)
			if err != nil {
				return err
			}
			if err := checkFormat(format, "text", "json"); err != nil {
				return err
			}
			if err := checkLimits(limits); err != nil {
				return err
			}
			opts := []croql.Option{croql.WithEdition(ed), croql.WithFoldContains(fold), croql.WithLimits(limits)}
			if usersFile != "" {
				users, err := readUsers(usersFile)
				if err != nil {
					return err
				}
				opts = append(opts, croql.WithUserIDs(users))
			}
			env, err := croql.NewEnv(ctxName, opts...)
			if err != nil {
				return usageErrorf("%w", err)
			}
			src, name, err := c.readQuery(args)
			if err != nil {
				return err
			}
			purpose := compile.WholeSet
			if page {
				purpose = compile.Page
			}
			s, diags := env.SQLFor(src, d, mapping.Default(env.Catalog()), purpose)
			// Notes on a sharded dialect, after the diagnostics.
			var notes []string
			if _, sharded := d.(compile.Sharding); sharded {
				if page && s != nil {
					notes = append(notes, fmt.Sprintf("note: on %s a page is compiled in the whole-set forms: vtgate sends a page's query to every shard, and refuses or misanswers the page forms (docs/serve.md, \"Vitess\")", d.Name()))
				}
				if s == nil && errors.Is(diags.Err(), compile.ErrSharded) {
					notes = append(notes, fmt.Sprintf("note: croql query --engine %s and croql serve answer this query through croql's coordinator (docs/serve.md, \"Vitess\")", d.Name()))
				}
			}
			defer func() {
				for _, n := range notes {
					fmt.Fprintln(c.stderr, n)
				}
			}()
			if usersFile == "" && s != nil && !diags.HasErrors() {
				if n := userMentions(src); n > 0 {
					fmt.Fprintf(c.stderr, "warning: %d @user mention(s) compiled to a subselect on the users table, which a planner may run once per row; bind them to ids with --users FILE\n", n)
				}
			}
			if format == "json" {
				// One JSON document on stdout, the diagnostics in it
				// (as lint --format json prints them), errors or not.
				out := sqlJSON{Dialect: d.Name(), Diagnostics: diag.NewNamedSource(name, src).Locate(diags)}
				if out.Diagnostics == nil {
					out.Diagnostics = []diag.Located{}
				}
				if !diags.HasErrors() && s != nil {
					out.From, out.Key, out.Where, out.Select, out.Args = s.From, s.Key, s.Where, s.Select(), sqlArgs(s.Args)
				}
				if err := writeJSON(c, out); err != nil {
					return err
				}
				if diags.HasErrors() || s == nil {
					return errHasErrors
				}
				return nil
			}
			printDiags(c.stderr, name, src, diags)
			if diags.HasErrors() || s == nil {
				return errHasErrors
			}
			fmt.Fprintln(c.stdout, s.Where)
			for i, a := range sqlArgs(s.Args) {
				fmt.Fprintf(c.stdout, "-- arg %d (%s): %s\n", i+1, a.Type, a.text())
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&dialect, "dialect", "postgres", "SQL dialect: postgres, sqlite, mysql (MariaDB) or vitess (a sharded keyspace)")
	completeFlag(cmd, "dialect", "postgres", "sqlite", "mysql", "vitess")
	addContextFlag(cmd, &ctxName)
	addEditionFlag(cmd, &edition)
	cmd.Flags().BoolVar(&fold, "fold", false, "make contains case-insensitive (Unicode simple folding)")
	cmd.Flags().StringVar(&usersFile, "users", "", `user directory binding @user mentions to ids: JSON ({"login": id}, [{"id","login"}] or a project file) or "login id" lines`)
	cmd.Flags().BoolVar(&page, "page", false, "compile for a page (ORDER BY key LIMIT n): forms the engine can stop early on, instead of the whole-set forms (docs/sql.md, \"Pages and whole sets\")")
	cmd.Flags().StringVar(&format, "format", "text", "output format: text, or json (dialect, from, key, where, select, args, diagnostics; errors too)")
	completeFlag(cmd, "format", "text", "json")
	addLimitFlags(cmd, &limits)
	return cmd
}

// sqlJSON is what `croql sql --format json` prints: the compiled query
// and its arguments, or only the diagnostics when the query has an error.
type sqlJSON struct {
	Dialect     string         `json:"dialect"`
	From        string         `json:"from,omitempty"`
	Key         string         `json:"key,omitempty"`
	Where       string         `json:"where,omitempty"`
	Select      string         `json:"select,omitempty"`
	Args        []sqlArg       `json:"args,omitempty"`
	Diagnostics []diag.Located `json:"diagnostics"`
}

// sqlArg is an argument as the CLI prints it.
type sqlArg struct {
	Type  string `json:"type"`
	Value any    `json:"value"`
}

func (a sqlArg) text() string {
	if s, ok := a.Value.(string); ok {
		return strconv.Quote(s)
	}
	return fmt.Sprint(a.Value)
}

func sqlArgs(args []any) []sqlArg {
	out := make([]sqlArg, len(args))
	for i, v := range args {
		t := "?"
		switch v.(type) {
		case int64:
			t = "int"
		case float64:
			t = "float"
		case string:
			t = "string"
		}
		out[i] = sqlArg{Type: t, Value: v}
	}
	return out
}
