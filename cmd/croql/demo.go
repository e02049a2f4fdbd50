package main

import (
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/croql/croql/demo"
	"github.com/croql/croql/schema"
)

// cmdDemo implements `croql demo [--strings N] [--seed S] [--format json|ndjson]`:
// it writes a generated demo project to stdout, in the data format that
// `croql query` and the other commands read (docs/data-format.md). With no
// flags it writes the built-in demo project, testdata/demo/project.json.
func cmdDemo(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	_ = stdin
	def := demo.DefaultOptions()
	fs := flag.NewFlagSet("demo", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: croql demo [--strings N] [--seed S] [--format json|ndjson]")
		fmt.Fprintln(stderr, "Writes a generated, deterministic demo project to stdout.")
		fs.PrintDefaults()
	}
	n := fs.Int("strings", def.Strings, "number of source strings")
	seed := fs.Int64("seed", def.Seed, "random seed; the same seed gives the same project")
	format := fs.String("format", "json", "output format: json (one indented document) or ndjson (one object per line)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "croql demo: unexpected argument %q\n", fs.Arg(0))
		fs.Usage()
		return 2
	}
	if *n < 0 {
		fmt.Fprintf(stderr, "croql demo: --strings must be 0 or more, got %d\n", *n)
		return 2
	}
	opts := demo.Options{Strings: *n, Seed: *seed}
	var err error
	switch *format {
	case "json":
		err = demo.Generate(opts).WriteJSON(stdout)
	case "ndjson":
		// Streamed: memory stays flat for any number of strings.
		err = demo.Stream(opts, schema.NewNDJSONWriter(stdout))
	default:
		fmt.Fprintf(stderr, "croql demo: --format must be json or ndjson, got %q\n", *format)
		return 2
	}
	if err != nil {
		fmt.Fprintf(stderr, "croql demo: %v\n", err)
		return 1
	}
	return 0
}
