package main

import (
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/croql/croql"
	"github.com/croql/croql/compile"
)

// newSQLCmd returns `croql sql`: the WHERE clause a query compiles to in
// one dialect, with its arguments.
func newSQLCmd(c *cli) *cobra.Command {
	var dialect, ctxName, edition, format string
	var fold bool
	cmd := &cobra.Command{
		Use:   "sql [--dialect postgres|sqlite|mysql] [--context C] [--edition E] [--fold] [--format text|json] [QUERY|-]",
		Short: "Compile a query to a SQL WHERE clause and its arguments",
		Long: "Compiles the query into a SQL WHERE clause over the reference tables (docs/sql.md) and prints it\n" +
			"with its arguments: every value is a bound parameter. @user mentions are looked up by login in the\n" +
			"users table. Exit 0 on success, 1 when the query has an error, 2 on bad usage.",
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
			src, _, err := c.readQuery(args)
			if err != nil {
				return err
			}
			env, err := croql.NewEnv(ctxName, croql.WithEdition(ed), croql.WithFoldContains(fold))
			if err != nil {
				return usageErrorf("%w", err)
			}
			s, diags := env.SQL(src, d)
			printDiags(c.stderr, src, diags)
			if diags.HasErrors() || s == nil {
				return errHasErrors
			}
			if format == "json" {
				out := struct {
					Dialect string   `json:"dialect"`
					From    string   `json:"from"`
					Key     string   `json:"key"`
					Where   string   `json:"where"`
					Select  string   `json:"select"`
					Args    []sqlArg `json:"args"`
				}{d.Name(), s.From, s.Key, s.Where, s.Select(), sqlArgs(s.Args)}
				enc := json.NewEncoder(c.stdout)
				enc.SetIndent("", "  ")
				enc.SetEscapeHTML(false)
				if err := enc.Encode(out); err != nil {
					return failure(fmt.Errorf("writing: %w", err))
				}
				return nil
			}
			fmt.Fprintln(c.stdout, s.Where)
			for i, a := range sqlArgs(s.Args) {
				fmt.Fprintf(c.stdout, "-- arg %d (%s): %s\n", i+1, a.Type, a.text())
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&dialect, "dialect", "postgres", "SQL dialect: postgres, sqlite or mysql (MariaDB)")
	completeFlag(cmd, "dialect", "postgres", "sqlite", "mysql")
	addContextFlag(cmd, &ctxName)
	addEditionFlag(cmd, &edition)
	cmd.Flags().BoolVar(&fold, "fold", false, "make contains case-insensitive (Unicode simple folding)")
	cmd.Flags().StringVar(&format, "format", "text", "output format: text, or json (dialect, from, key, where, select, args)")
	completeFlag(cmd, "format", "text", "json")
	return cmd
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
