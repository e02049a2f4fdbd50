package main

import (
	"fmt"
	"io"

	"github.com/croql/croql/ast"
	"github.com/croql/croql/parser"
)

// cmdExplain implements `croql explain [-sexpr] [QUERY|-]`: it shows how
// precedence grouped the query, first as CroQL with every operand that is
// not a leaf in parentheses, then as a tree with the byte span of each
// node. With -sexpr it prints the S-expression of the tree only (the form
// of the corpus's tree: keys).
func cmdExplain(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := newFlags("explain", "[-sexpr] [QUERY|-]",
		"Shows how the query groups: every operand parenthesised, then the tree with byte spans.", stderr)
	sexpr := fs.Bool("sexpr", false, "print the tree as one S-expression only")
	if st := parseFlags(fs, args); st >= 0 {
		return st
	}
	src, err := readQuery(fs.Args(), stdin)
	if err != nil {
		fmt.Fprintf(stderr, "croql explain: %v\n", err)
		return 2
	}
	e, diags := parser.Parse(src)
	if diags.HasErrors() {
		printDiags(stderr, src, diags)
		return 1
	}
	if *sexpr {
		fmt.Fprintln(stdout, ast.SExpr(e))
		return 0
	}
	fmt.Fprintln(stdout, ast.Grouped(e))
	fmt.Fprintln(stdout)
	io.WriteString(stdout, ast.Dump(e))
	return 0
}
