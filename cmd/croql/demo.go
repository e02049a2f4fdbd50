package main

import (
	"github.com/spf13/cobra"

	"github.com/croql/croql/demo"
	"github.com/croql/croql/schema"
)

// newDemoCmd returns `croql demo [--strings N] [--seed S] [--format
// json|ndjson]`: it writes a generated demo project to stdout, in the data
// format that `croql query` and the other commands read
// (docs/data-format.md). With no flags it writes the built-in demo project,
// testdata/demo/project.json. When stderr is a terminal it shows its
// progress there.
func newDemoCmd(c *cli) *cobra.Command {
	def := demo.DefaultOptions()
	var (
		n      int
		seed   int64
		format string
	)
	cmd := &cobra.Command{
		Use:   "demo [--strings N] [--seed S] [--format json|ndjson]",
		Short: "Write a generated demo project (JSON or NDJSON) to stdout",
		Long: "Writes a generated, deterministic demo project to stdout, in the data format croql\n" +
			"query --data reads. With no flags: the built-in demo project. When stderr is a\n" +
			"terminal, the progress is shown there.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if n < 0 {
				return usageErrorf("--strings must be 0 or more, got %d", n)
			}
			if err := checkFormat(format, "json", "ndjson"); err != nil {
				return err
			}
			prog := newProgress(c.stderr, "croql demo: ", c.stderrTerminal)
			defer prog.done()
			opts := demo.Options{Strings: n, Seed: seed, Progress: func(done, total int) {
				prog.show("generating: %d of %d strings", done, total)
			}}
			var err error
			if format == "json" {
				p := demo.Generate(opts)
				prog.step("writing JSON")
				err = p.WriteJSON(c.stdout)
			} else {
				// Streamed: memory stays flat for any number of strings.
				err = demo.Stream(opts, schema.NewNDJSONWriter(c.stdout))
			}
			if err != nil {
				return failure(err)
			}
			return nil
		},
	}
	cmd.Flags().IntVar(&n, "strings", def.Strings, "number of source strings")
	cmd.Flags().Int64Var(&seed, "seed", def.Seed, "random seed; the same seed gives the same project")
	cmd.Flags().StringVar(&format, "format", "json", "output format: json (one indented document) or ndjson (one object per line)")
	completeFlag(cmd, "format", "json", "ndjson")
	return cmd
}
