// Command croql works with CroQL, the query language of the localization
// platform: it formats queries, shows how they group, and (through the
// subcommands other files of this package add) checks, runs and compiles
// them.
//
// Usage:
//
//	croql <command> [flags] [args]
//	croql help [command]
//
// Each subcommand lives in a file of its own (fmt.go, explain.go, ...) as a
// function of type runner, listed in commands below. Exit status: 0 on
// success, 1 when the query has a diagnostic, 2 on bad usage.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/croql/croql/diag"
)

// runner runs one subcommand with its arguments (the subcommand name
// excluded) and returns the exit status.
type runner func(args []string, stdin io.Reader, stdout, stderr io.Writer) int

type command struct {
	name    string
	summary string
	run     runner
}

// commands is the dispatch table: add a subcommand with one line here and a
// file of its own.
func commands() []command {
	return []command{
		{"fmt", "print the canonical form of a query", cmdFmt},
		{"explain", "show how a query groups: every operand parenthesised, and its tree", cmdExplain},
		{"demo", "write a generated demo project (JSON or NDJSON) to stdout", cmdDemo},
		{"lint", "check a query against its context; every diagnostic, as text or JSON", cmdLint},
		{"sql", "compile a query to a SQL WHERE clause and its arguments", cmdSQL},
		{"query", "run a query over a project file (or the demo project); print the matches as NDJSON or ids", cmdQuery},
	}
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// run dispatches args to a subcommand and returns the exit status.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		usage(stderr)
		return 2
	}
	name, rest := args[0], args[1:]
	switch name {
	case "help", "-h", "-help", "--help":
		if len(rest) == 0 {
			usage(stdout)
			return 0
		}
		for _, c := range commands() {
			if c.name == rest[0] {
				return c.run([]string{"-h"}, stdin, stdout, stdout)
			}
		}
		fmt.Fprintf(stderr, "croql help: unknown command %q\n", rest[0])
		return 2
	}
	for _, c := range commands() {
		if c.name == name {
			return c.run(rest, stdin, stdout, stderr)
		}
	}
	fmt.Fprintf(stderr, "croql: unknown command %q\n\n", name)
	usage(stderr)
	return 2
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "croql: tools for CroQL queries")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "usage: croql <command> [flags] [args]")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "commands:")
	for _, c := range commands() {
		fmt.Fprintf(w, "  %-10s %s\n", c.name, c.summary)
	}
	fmt.Fprintln(w, "  help       show this text, or `croql help <command>` for one command")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "A query is the argument (several arguments are joined with spaces), or stdin when it is - or absent.")
	fmt.Fprintln(w, "Exit status: 0 success, 1 the query has a diagnostic, 2 bad usage.")
}

// newFlags returns a flag set for subcommand name that prints its usage
// line and flags to stderr.
func newFlags(name, args, about string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: croql %s %s\n%s\n", name, args, about)
		fs.PrintDefaults()
	}
	return fs
}

// parseFlags parses args into fs. It returns -1 to go on, or the exit
// status to return: 0 for -h, 2 for a bad flag.
func parseFlags(fs *flag.FlagSet, args []string) int {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	return -1
}

// readQuery returns the query of a subcommand: its arguments joined with
// spaces, or stdin when there are none or the only one is "-".
func readQuery(args []string, stdin io.Reader) (string, error) {
	if len(args) > 0 && !(len(args) == 1 && args[0] == "-") {
		return strings.Join(args, " "), nil
	}
	if stdin == nil {
		return "", errors.New("no query: give it as an argument or on stdin")
	}
	b, err := io.ReadAll(stdin)
	if err != nil {
		return "", fmt.Errorf("reading stdin: %w", err)
	}
	return strings.TrimRight(string(b), "\r\n"), nil
}

// printDiags writes each diagnostic as "line:col: message [code/rule]",
// the source line and a caret line under the span.
func printDiags(w io.Writer, src string, l diag.List) {
	s := diag.NewSource(src)
	for _, d := range l {
		io.WriteString(w, s.Format(d))
	}
}
