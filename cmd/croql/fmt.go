package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/croql/croql"
	"github.com/croql/croql/parser"
)

// newFmtCmd returns `croql fmt [--context C] [QUERY|-]`: the canonical form
// of the query (lower-case keywords, single spaces, every field of the
// context in its documented spelling, the predicate of where/with in
// parentheses, other parentheses only where needed).
func newFmtCmd(c *cli) *cobra.Command {
	var (
		ctxName string
		limits  parser.Limits
	)
	cmd := &cobra.Command{
		Use:   "fmt [--context C] [QUERY|-]",
		Short: "Print the canonical form of a query",
		Long: "Prints the canonical form of the query: lower-case keywords, single spaces, every\n" +
			"field of the context (--context, default strings) in its documented spelling\n" +
			"(IS HIDDEN is `is hidden`, usagecount is `usageCount`), the predicate of where/with in\n" +
			"parentheses, other parentheses only where needed. A name that is no field of the\n" +
			"context is kept as written: fmt formats, lint checks.\n" +
			"Exit 0 on success, 1 when the query does not parse, 2 on bad usage.",
		ValidArgsFunction: noFileCompletion,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkLimits(limits); err != nil {
				return err
			}
			env, err := croql.NewEnv(ctxName, croql.WithLimits(limits))
			if err != nil {
				return usageErrorf("%w", err)
			}
			src, name, err := c.readQuery(args)
			if err != nil {
				return err
			}
			text, diags := env.Format(src)
			if text == "" && diags.HasErrors() { // it does not parse
				printDiags(c.stderr, name, src, diags)
				return errHasErrors
			}
			fmt.Fprintln(c.stdout, text)
			return nil
		},
	}
	addContextFlag(cmd, &ctxName)
	addLimitFlags(cmd, &limits)
	return cmd
}
