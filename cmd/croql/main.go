// Command croql checks, formats, runs and compiles CroQL queries, the
// filters of the localization platform over source strings, translations,
// TM segments and glossary terms.
//
// Usage:
//
//	croql <command> [flags] [QUERY|-]
//
// The commands:
//
//	query       run a query over a project file (or the built-in demo project)
//	why         explain why a query matches one object or not, clause by clause
//	diff        show the objects only the old or only the new query matches
//	lint        check a query and print every diagnostic (text, JSON or SARIF)
//	sql         compile a query to a SQL WHERE clause and its bound arguments
//	fmt         print the canonical form of a query
//	explain     show how a query groups, and its syntax tree
//	fields      list the fields of a context, with types and meanings
//	demo        write a generated demo project
//	serve       serve the platform's CroQL list endpoints over HTTP
//	version     print the version of croql
//	lsp         run the language server on stdin and stdout
//	completion  print a shell completion script (bash, zsh, fish, powershell)
//	help        show the help of croql or of one command
//
// The query is the argument (several arguments are joined with spaces), or
// standard input when it is "-" or absent. Flags may come before or after
// the query: `croql lint 'is hidden' --context tm`. A query that starts with
// "-" goes after "--": `croql fmt -- '-max length < 0'`. Go-style flags with
// one dash (-context tm) are accepted too.
//
// Diagnostics are printed in the form editors and CI problem matchers read,
//
//	<arg>:1:1: error: `is hiden` is not a field of a source string; did you mean `is hidden`? [croqlInvalidLogic/unknown-field]
//
// followed by the source line and carets under the span. The file name is
// <arg> for a query given as arguments, <stdin> for one read from standard
// input, and the path for `croql lint --file FILE`. `croql lint --format
// sarif` writes a SARIF 2.1.0 log for CI code scanning. The parser's limits
// are the flags --max-source, --max-depth and --max-nodes.
//
// Exit status: 0 on success (warnings allowed), 1 when the query has an
// error or the data cannot be read, 2 on bad usage. `croql query
// --exit-status` (-e, as jq -e) also exits 1 when nothing matches. A
// misspelt command or flag gets a did-you-mean.
//
// Examples:
//
//	croql query --ids 'count of translations where (is pre translated) > 0'
//	croql query --data project.ndjson --context translations --language de 'provider = "deepl"'
//	croql lint --data project.json 'count of comments where (user = @user:"alice") > 0'
//	croql lint --format sarif --file queries/hidden.croql > croql.sarif
//	croql query --fields identifier,text -e 'is hidden and count of translations = 0'
//	croql sql --dialect sqlite 'id of file = 7 or id of file = 9'
//	croql fields --context tm
//
// Install from a clone of the repository: `go install ./cmd/croql` in the
// checkout; `croql version` prints the version it was built from. Shell
// completion: `source <(croql completion bash)`; see `croql help
// completion` for zsh and fish.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/mattn/go-isatty"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/croql/croql/diag"
	"github.com/croql/croql/typecheck"
)

// commands is the table of subcommands. Each lives in a file of its own
// (fmt.go, lint.go, ...) as a constructor that returns one *cobra.Command
// wired to the cli's streams; add a subcommand with one line here and a
// file of its own.
func commands() []func(*cli) *cobra.Command {
	return []func(*cli) *cobra.Command{
		newQueryCmd,
		newWhyCmd,
		newDiffCmd,
		newLintCmd,
		newSQLCmd,
		newLoadCmd,
		newFmtCmd,
		newExplainCmd,
		newFieldsCmd,
		newDemoCmd,
		newServeCmd,
		newPullCmd,
		newVersionCmd,
		newLSPCmd,
	}
}

// cli is what a subcommand runs with: its streams, and whether standard
// input and standard error are terminals.
type cli struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	// stdinTerminal reports whether stdin is a terminal (a user typing,
	// not a pipe): a command then does not wait silently for a query.
	stdinTerminal bool
	// stderrTerminal reports whether stderr is a terminal: long commands
	// then show their progress there.
	stderrTerminal bool
	// loc are the languages of localization files given as --data.
	loc locFlags
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// run runs croql with args (the program name excluded) and returns the
// exit status.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	c := &cli{stdin: stdin, stdout: stdout, stderr: stderr,
		stdinTerminal: isTerminal(stdin), stderrTerminal: isTerminal(stderr)}
	return c.run(args)
}

func (c *cli) run(args []string) int {
	root := c.newRoot()
	root.SetArgs(normalizeArgs(root, args))
	cmd, err := root.ExecuteC()
	if err == nil {
		return 0
	}
	if cmd == nil {
		cmd = root
	}
	var ee *exitError
	if errors.As(err, &ee) {
		if ee.err != nil {
			fmt.Fprintf(c.stderr, "%s: %v\n", cmd.CommandPath(), ee.err)
		}
		if ee.code == 2 && ee.err != nil {
			fmt.Fprintf(c.stderr, "Run '%s --help' for usage.\n", cmd.CommandPath())
		}
		return ee.code
	}
	// An error of cobra or pflag: an unknown command or flag, a bad flag
	// value, a wrong number of arguments.
	fmt.Fprintf(c.stderr, "%s: %v\n", cmd.CommandPath(), err)
	fmt.Fprintf(c.stderr, "Run '%s --help' for usage.\n", cmd.CommandPath())
	return 2
}

// newRoot builds the croql command with every subcommand of commands.
func (c *cli) newRoot() *cobra.Command {
	root := &cobra.Command{
		Use:   "croql",
		Short: "Check, format, run and compile CroQL queries",
		Long: `croql checks, formats, runs and compiles CroQL queries, the filters of the
localization platform over source strings, translations, TM segments and
glossary terms.

The query is the argument (several arguments are joined with spaces), or
standard input when it is - or absent. Flags may come before or after the
query; a query that starts with - goes after --:

  croql lint 'is hidden' --context tm
  croql fmt -- '-max length < 0'

Exit status: 0 success (warnings allowed), 1 the query has an error,
2 bad usage; croql query --exit-status also exits 1 when nothing matches.`,
		Version:       version(),
		SilenceErrors: true,
		SilenceUsage:  true,
		// No command: the usage, on stderr, and exit status 2.
		RunE: func(cmd *cobra.Command, args []string) error {
			cmd.SetOut(c.stderr)
			_ = cmd.Usage()
			return &exitError{code: 2}
		},
	}
	root.SetIn(c.stdin)
	root.SetOut(c.stdout)
	root.SetErr(c.stderr)
	root.SetVersionTemplate("croql {{.Version}}\n")
	root.SetFlagErrorFunc(flagError)
	for _, newCmd := range commands() {
		sub := newCmd(c)
		sub.DisableFlagsInUseLine = true // each Use line lists its flags
		root.AddCommand(sub)
	}
	root.SetHelpCommand(newHelpCmd(root))
	root.CompletionOptions.HiddenDefaultCmd = false
	return root
}

// newHelpCmd returns `croql help [command]`: the help of croql, or of one
// command (help help included), on stdout; an unknown command is a usage
// error with suggestions.
func newHelpCmd(root *cobra.Command) *cobra.Command {
	return &cobra.Command{
		Use:   "help [command]",
		Short: "Show the help of croql or of one command",
		Long:  "Shows the help of croql, or of the command named (croql help lint).",
		ValidArgsFunction: func(cmd *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
			var names []cobra.Completion
			for _, sub := range root.Commands() {
				if sub.IsAvailableCommand() && strings.HasPrefix(sub.Name(), toComplete) {
					names = append(names, cobra.CompletionWithDesc(sub.Name(), sub.Short))
				}
			}
			return names, cobra.ShellCompDirectiveNoFileComp
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			target, rest, err := root.Find(args)
			if err != nil || target == nil || len(rest) > 0 {
				name := strings.Join(args, " ")
				msg := fmt.Sprintf("unknown command %q", name)
				if s := root.SuggestionsFor(args[0]); len(s) > 0 {
					msg += "; did you mean " + strings.Join(s, " or ") + "?"
				}
				return usageErrorf("%s", msg)
			}
			target.InitDefaultHelpFlag()
			return target.Help()
		},
	}
}

// exitError ends a command with an exit status; err, when not nil, is
// printed after the command's name.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string {
	if e.err == nil {
		return fmt.Sprintf("exit status %d", e.code)
	}
	return e.err.Error()
}

func (e *exitError) Unwrap() error { return e.err }

// usageErrorf is a usage error: exit status 2.
func usageErrorf(format string, a ...any) error {
	return &exitError{code: 2, err: fmt.Errorf(format, a...)}
}

// failure is a run-time error (data that cannot be read, a database that
// fails): exit status 1.
func failure(err error) error { return &exitError{code: 1, err: err} }

// errHasErrors ends a command whose query has an error diagnostic, already
// printed: exit status 1 and nothing more.
var errHasErrors = &exitError{code: 1}

// flagError adds a hint to an unknown flag: the flags of the command
// spelt nearest to it (did you mean --context?), or, when none is near,
// that a query starting with "-" goes after "--".
func flagError(cmd *cobra.Command, err error) error {
	var ne *pflag.NotExistError
	if !errors.As(err, &ne) {
		return err
	}
	arg := "--" + ne.GetSpecifiedName()
	if sh := ne.GetSpecifiedShortnames(); sh != "" {
		arg = "-" + sh
	}
	if s := flagSuggestions(cmd, arg); len(s) > 0 {
		return fmt.Errorf("%w; did you mean %s?", err, strings.Join(s, " or "))
	}
	return fmt.Errorf("%w\nA query that starts with '-' goes after '--': %s -- %s", err, cmd.CommandPath(), shellQuote(arg))
}

// flagSuggestions returns the long flags of cmd (its own and inherited)
// spelt nearest to arg, an unknown "--name" or Go-style "-name", written
// "--flag"; none when arg does not look like a flag name.
func flagSuggestions(cmd *cobra.Command, arg string) []string {
	name, _, _ := strings.Cut(strings.TrimLeft(arg, "-"), "=")
	if len(name) < 2 || strings.IndexFunc(name, func(r rune) bool {
		return !(r == '-' || 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9')
	}) >= 0 {
		return nil
	}
	var names []string
	add := func(f *pflag.Flag) {
		if !f.Hidden {
			names = append(names, f.Name)
		}
	}
	cmd.Flags().VisitAll(add)
	cmd.InheritedFlags().VisitAll(add)
	out := typecheck.NewNames(names).Closest(name, 3)
	if len(out) == 0 && len(name) >= 3 {
		for _, n := range names { // an abbreviation: --exit for --exit-status
			if strings.HasPrefix(n, name) {
				out = append(out, n)
			}
		}
	}
	for i, n := range out {
		out[i] = "--" + n
	}
	return out
}

// shellQuote quotes s for a POSIX shell when it needs it.
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r == '-' || r == '_' || r == '.' || r == '/' || r == '=' || r == ':' ||
			'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9')
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// normalizeArgs rewrites Go-style one-dash long flags (-context tm,
// -sexpr) of the command args name into the two-dash form pflag parses, so
// the command lines of earlier versions keep working. Only names of flags
// the command defines are rewritten, and nothing after "--".
func normalizeArgs(root *cobra.Command, args []string) []string {
	cmd, _, err := root.Find(args)
	if err != nil || cmd == nil {
		return args
	}
	out := make([]string, len(args))
	copy(out, args)
	for i, a := range out {
		if a == "--" {
			break
		}
		if len(a) < 3 || a[0] != '-' || a[1] == '-' {
			continue
		}
		name, _, _ := strings.Cut(a[1:], "=")
		if len(name) > 1 && (cmd.Flags().Lookup(name) != nil || cmd.InheritedFlags().Lookup(name) != nil || name == "help") {
			out[i] = "-" + a
		}
	}
	return out
}

// readQuery returns the query of a command and the name its diagnostics
// carry: the arguments joined with spaces ("<arg>"), or standard input
// when there are none or the only one is "-" ("<stdin>"). When standard
// input is a terminal, no query argument is a usage error (rather than a
// silent wait for input) and "-" prints how to end the input.
func (c *cli) readQuery(args []string) (src, name string, err error) {
	if len(args) > 0 && !(len(args) == 1 && args[0] == "-") {
		return strings.Join(args, " "), argName, nil
	}
	if c.stdin == nil {
		return "", "", usageErrorf("no query: give it as an argument or on standard input")
	}
	if c.stdinTerminal {
		if len(args) == 0 {
			return "", "", usageErrorf("no query: give it as an argument (croql lint 'is hidden'), pipe it on standard input, or give - to type it")
		}
		fmt.Fprintln(c.stderr, "Reading the query from the terminal; end it with Ctrl-D.")
	}
	b, err := io.ReadAll(c.stdin)
	if err != nil {
		return "", "", failure(fmt.Errorf("reading standard input: %w", err))
	}
	return strings.TrimRight(string(b), "\r\n"), stdinName, nil
}

// The names diagnostics carry for a query given as arguments and for one
// read from standard input.
const (
	argName   = "<arg>"
	stdinName = "<stdin>"
)

// printDiags writes each diagnostic of the query src, called name, as
// "name:line:col: severity: message [code/rule]", the source line and a
// caret line under the span.
func printDiags(w io.Writer, name, src string, l diag.List) {
	s := diag.NewNamedSource(name, src)
	for _, d := range l {
		io.WriteString(w, s.Format(d))
	}
}

// isTerminal reports whether v is an *os.File open on a terminal.
func isTerminal(v any) bool {
	f, ok := v.(*os.File)
	if !ok || f == nil {
		return false
	}
	return isatty.IsTerminal(f.Fd())
}
