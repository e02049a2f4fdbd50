package main

import (
	"fmt"
	"io"

	"github.com/croql/croql/ast"
	"github.com/croql/croql/parser"
)

// cmdFmt implements `croql fmt [QUERY|-]`: it prints the canonical form of
// the query (lower-case keywords, single spaces, the predicate of
// where/with in parentheses, other parentheses only where needed).
func cmdFmt(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := newFlags("fmt", "[QUERY|-]", "Prints the canonical form of the query (from stdin when QUERY is - or absent).", stderr)
	if st := parseFlags(fs, args); st >= 0 {
		return st
	}
	src, err := readQuery(fs.Args(), stdin)
	if err != nil {
		fmt.Fprintf(stderr, "croql fmt: %v\n", err)
		return 2
	}
	e, diags := parser.Parse(src)
	if diags.HasErrors() {
		printDiags(stderr, src, diags)
		return 1
	}
	fmt.Fprintln(stdout, ast.Print(e))
	return 0
}
