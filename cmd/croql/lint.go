package main

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/croql/croql"
	"github.com/croql/croql/diag"
	"github.com/croql/croql/schema"
)

// cmdLint implements `croql lint`: every diagnostic of a query in a context,
// as text (like the other commands) or as a JSON array for editors.
func cmdLint(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := newFlags("lint", "[--context C] [--edition E] [--format text|json] [QUERY|-]",
		"Checks the query against the schema of its context and prints every diagnostic.\n"+
			"Exit 0 when there is no error (warnings allowed), 1 on errors, 2 on bad usage.", stderr)
	context := fs.String("context", croql.Strings, "evaluation context: strings, translations, tm, glossary, concepts")
	edition := fs.String("edition", "standard", "platform edition: standard or enterprise")
	format := fs.String("format", "text", "output format: text, or json (an array of diagnostics)")
	if st := parseFlags(fs, args); st >= 0 {
		return st
	}
	ed, ok := parseEdition(*edition)
	if !ok {
		fmt.Fprintf(stderr, "croql lint: --edition must be standard or enterprise, not %q\n", *edition)
		return 2
	}
	if *format != "text" && *format != "json" {
		fmt.Fprintf(stderr, "croql lint: --format must be text or json, not %q\n", *format)
		return 2
	}
	src, err := readQuery(fs.Args(), stdin)
	if err != nil {
		fmt.Fprintf(stderr, "croql lint: %v\n", err)
		return 2
	}
	env, err := croql.NewEnv(*context, croql.WithEdition(ed))
	if err != nil {
		fmt.Fprintf(stderr, "croql lint: %v\n", err)
		return 2
	}
	diags := env.Check(src).Diags
	if *format == "json" {
		located := diag.NewSource(src).Locate(diags)
		if located == nil {
			located = []diag.Located{}
		}
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(located); err != nil {
			fmt.Fprintf(stderr, "croql lint: %v\n", err)
			return 2
		}
	} else {
		printDiags(stdout, src, diags)
	}
	if diags.HasErrors() {
		return 1
	}
	return 0
}

func parseEdition(s string) (schema.Edition, bool) {
	switch s {
	case "standard", "":
		return schema.Standard, true
	case "enterprise":
		return schema.Enterprise, true
	}
	return 0, false
}
