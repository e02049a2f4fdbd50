package main

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/croql/croql/ast"
	"github.com/croql/croql/parser"
)

// newExplainCmd returns `croql explain [--sexpr] [QUERY|-]`: how precedence
// grouped the query, first as CroQL with every operand that is not a leaf in
// parentheses, then as a tree with the byte span of each node. With
// --sexpr it prints the S-expression of the tree only (the form of the
// corpus's tree: keys).
func newExplainCmd(c *cli) *cobra.Command {
	var (
		sexpr  bool
		limits parser.Limits
	)
	cmd := &cobra.Command{
		Use:   "explain [--sexpr] [QUERY|-]",
		Short: "Show how a query groups: every operand parenthesised, and its tree",
		Long: "Shows how precedence grouped the query: first as CroQL with every operand that\n" +
			"is not a leaf in parentheses, then as a tree with the byte span of each node.",
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
			if sexpr {
				fmt.Fprintln(c.stdout, ast.SExpr(e))
				return nil
			}
			fmt.Fprintln(c.stdout, ast.Grouped(e))
			fmt.Fprintln(c.stdout)
			io.WriteString(c.stdout, ast.Dump(e))
			return nil
		},
	}
	cmd.Flags().BoolVar(&sexpr, "sexpr", false, "print the tree as one S-expression only")
	addLimitFlags(cmd, &limits)
	return cmd
}
