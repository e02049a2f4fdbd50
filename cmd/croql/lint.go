package main

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/croql/croql"
	"github.com/croql/croql/diag"
	"github.com/croql/croql/diag/sarif"
	"github.com/croql/croql/parser"
	"github.com/croql/croql/schema"
)

// newLintCmd returns `croql lint`: every diagnostic of a query in a
// context, as text (like the other commands), as a JSON array for editors,
// or as a SARIF 2.1.0 log for CI code scanning.
func newLintCmd(c *cli) *cobra.Command {
	var (
		ctxName, edition, format, file, data string
		limits                               parser.Limits
	)
	cmd := &cobra.Command{
		Use:   "lint [--context C] [--edition E] [--data FILE] [--format text|json|sarif] [--file FILE | QUERY|-]",
		Short: "Check a query against its context; every diagnostic, as text, JSON or SARIF",
		Long: "Checks the query against the schema of its context and prints every diagnostic:\n" +
			"as text (FILE:LINE:COL: SEVERITY: MESSAGE [CODE/RULE], the line and carets), as a\n" +
			"JSON array, or as a SARIF 2.1.0 log for CI code scanning. The file name is FILE with\n" +
			"--file, <arg> for a query given as arguments and <stdin> for one read from stdin.\n" +
			"With --data, @user and @language mentions are checked against the project's users and\n" +
			"languages (as croql query does); without it any login and code is accepted.\n" +
			"Exit 0 when there is no error (warnings allowed), 1 on errors, 2 on bad usage.",
		ValidArgsFunction: noFileCompletion,
		RunE: func(cmd *cobra.Command, args []string) error {
			ed, err := parseEdition(edition)
			if err != nil {
				return err
			}
			if err := checkFormat(format, "text", "json", "sarif"); err != nil {
				return err
			}
			if err := checkLimits(limits); err != nil {
				return err
			}
			opts := []croql.Option{croql.WithEdition(ed), croql.WithLimits(limits)}
			if _, err := croql.NewEnv(ctxName, opts...); err != nil {
				return usageErrorf("%w", err)
			}
			if data != "" {
				if data == "-" && file == "" && (len(args) == 0 || len(args) == 1 && args[0] == "-") {
					return usageErrorf("--data - reads the project from stdin, so give the query as an argument or --file")
				}
				p, err := c.loadProject(data, schema.ReadOptions{})
				if err != nil {
					return failure(err)
				}
				opts = append(opts, croql.WithUserIDs(p.UserIDs()), croql.WithLanguages(p.LanguageCodes()...))
			}
			env, err := croql.NewEnv(ctxName, opts...)
			if err != nil {
				return usageErrorf("%w", err)
			}
			var src, name string
			if file != "" {
				if len(args) > 0 {
					return usageErrorf("give the query as --file or as arguments, not both")
				}
				b, err := os.ReadFile(file)
				if err != nil {
					return failure(err)
				}
				src, name = string(b), file
			} else if src, name, err = c.readQuery(args); err != nil {
				return err
			}
			_, diags := env.Check(src)
			switch format {
			case "json":
				located := diag.NewNamedSource(name, src).Locate(diags)
				if located == nil {
					located = []diag.Located{}
				}
				if err := writeJSON(c, located); err != nil {
					return err
				}
			case "sarif":
				tool := sarif.Tool{Name: "croql", Version: version(), InformationURI: "https://github.com/croql/croql"}
				if err := sarif.Write(c.stdout, tool, sarif.Input{Name: name, Text: src, Diags: diags}); err != nil {
					return failure(fmt.Errorf("writing: %w", err))
				}
			default:
				printDiags(c.stdout, name, src, diags)
			}
			if diags.HasErrors() {
				return errHasErrors
			}
			return nil
		},
	}
	addContextFlag(cmd, &ctxName)
	addEditionFlag(cmd, &edition)
	cmd.Flags().StringVar(&format, "format", "text", "output format: text, json (an array of diagnostics) or sarif (a SARIF 2.1.0 log)")
	completeFlag(cmd, "format", "text", "json", "sarif")
	cmd.Flags().StringVar(&file, "file", "", "read the query from FILE; diagnostics carry its name")
	cmd.Flags().StringVar(&data, "data", "", "project file (JSON or NDJSON, - for stdin) or localization files (docs/formats.md) whose users and languages @user and @language mentions must name, as croql query checks them")
	addLocFlags(cmd, &c.loc)
	_ = cmd.MarkFlagFilename("data", dataExts...)
	_ = cmd.MarkFlagFilename("file")
	addLimitFlags(cmd, &limits)
	return cmd
}

// writeJSON writes v as indented JSON to stdout.
func writeJSON(c *cli, v any) error {
	enc := json.NewEncoder(c.stdout)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return failure(fmt.Errorf("writing: %w", err))
	}
	return nil
}
