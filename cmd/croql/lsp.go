package main

import (
	"io"

	"github.com/spf13/cobra"

	"github.com/croql/croql/lsp"
)

// newLSPCmd returns `croql lsp`: the language server over stdio (package
// lsp). --stdio is accepted for clients that pass it.
func newLSPCmd(c *cli) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "lsp [--stdio]",
		Short: "Run the CroQL language server on stdin and stdout",
		Long: "Runs the Language Server Protocol server on stdin/stdout: diagnostics, did-you-mean\n" +
			"code actions, completion, hover, formatting and semantic tokens for CroQL documents.\n" +
			"Settings come from the client's initializationOptions or a croql.json in the\n" +
			"workspace root; a first line `# croql: context=translations` overrides the context.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := lsp.Serve(cmd.Context(), stdio{c.stdin, c.stdout}); err != nil {
				return &exitError{code: 1, err: err}
			}
			return nil
		},
	}
	cmd.Flags().Bool("stdio", true, "talk over stdin and stdout (the only transport)")
	return cmd
}

// stdio joins the command's streams into the connection the server reads
// and writes.
type stdio struct {
	io.Reader
	io.Writer
}

// Close closes the streams that can be closed.
func (s stdio) Close() error {
	if c, ok := s.Reader.(io.Closer); ok {
		_ = c.Close()
	}
	if c, ok := s.Writer.(io.Closer); ok {
		return c.Close()
	}
	return nil
}
