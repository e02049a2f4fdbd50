package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/croql/croql/ast"
	"github.com/croql/croql/parser"
)

// newFmtCmd returns `croql fmt [QUERY|-]`: the canonical form of the query
// (lower-case keywords, single spaces, the predicate of where/with in
// parentheses, other parentheses only where needed).
func newFmtCmd(c *cli) *cobra.Command {
	var limits parser.Limits
	cmd := &cobra.Command{
		Use:   "fmt [QUERY|-]",
		Short: "Print the canonical form of a query",
		Long: "Prints the canonical form of the query: lower-case keywords, single spaces, the\n" +
			"predicate of where/with in parentheses, other parentheses only where needed.\n" +
			"Exit 0 on success, 1 when the query does not parse, 2 on bad usage.",
		ValidArgsFunction: noFileCompletion,
		RunE: func(cmd *cobra.Command, args []string) error {
			src, name, err := c.readQuery(args)
			if err != nil {
				return err
			}
			if err := checkLimits(limits); err != nil {
				return err
			}
			e, diags := parser.New(limits).Parse(src)
			if diags.HasErrors() {
				printDiags(c.stderr, name, src, diags)
				return errHasErrors
			}
			fmt.Fprintln(c.stdout, ast.Print(e))
			return nil
		},
	}
	addLimitFlags(cmd, &limits)
	return cmd
}
