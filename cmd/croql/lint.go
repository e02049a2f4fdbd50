package main

import (
	"encoding/json"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/croql/croql"
	"github.com/croql/croql/diag"
)

// newLintCmd returns `croql lint`: every diagnostic of a query in a
// context, as text (like the other commands) or as a JSON array for
// editors.
func newLintCmd(c *cli) *cobra.Command {
	var ctxName, edition, format string
	cmd := &cobra.Command{
		Use:   "lint [--context C] [--edition E] [--format text|json] [QUERY|-]",
		Short: "Check a query against its context; every diagnostic, as text or JSON",
		Long: "Checks the query against the schema of its context and prints every diagnostic.\n" +
			"Exit 0 when there is no error (warnings allowed), 1 on errors, 2 on bad usage.",
		ValidArgsFunction: noFileCompletion,
		RunE: func(cmd *cobra.Command, args []string) error {
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
			env, err := croql.NewEnv(ctxName, croql.WithEdition(ed))
			if err != nil {
				return usageErrorf("%w", err)
			}
			diags := env.Check(src).Diags
			if format == "json" {
				located := diag.NewSource(src).Locate(diags)
				if located == nil {
					located = []diag.Located{}
				}
				enc := json.NewEncoder(c.stdout)
				enc.SetIndent("", "  ")
				if err := enc.Encode(located); err != nil {
					return failure(fmt.Errorf("writing: %w", err))
				}
			} else {
				printDiags(c.stdout, src, diags)
			}
			if diags.HasErrors() {
				return errHasErrors
			}
			return nil
		},
	}
	addContextFlag(cmd, &ctxName)
	addEditionFlag(cmd, &edition)
	cmd.Flags().StringVar(&format, "format", "text", "output format: text, or json (an array of diagnostics)")
	completeFlag(cmd, "format", "text", "json")
	return cmd
}
