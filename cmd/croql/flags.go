package main

import (
	"github.com/spf13/cobra"

	"github.com/croql/croql"
	"github.com/croql/croql/parser"
	"github.com/croql/croql/schema"
)

// contextNames are the values of --context.
var contextNames = []string{croql.Strings, croql.Translations, croql.TM, croql.Glossary, croql.Concepts}

// addContextFlag defines --context on cmd, with shell completion.
func addContextFlag(cmd *cobra.Command, p *string) {
	cmd.Flags().StringVar(p, "context", croql.Strings, "evaluation context: strings, translations, tm, glossary, concepts")
	completeFlag(cmd, "context", contextNames...)
}

// addEditionFlag defines --edition on cmd, with shell completion.
func addEditionFlag(cmd *cobra.Command, p *string) {
	cmd.Flags().StringVar(p, "edition", "standard", "platform edition: standard or enterprise")
	completeFlag(cmd, "edition", "standard", "enterprise")
}

// completeFlag makes the shell complete flag name of cmd with values.
func completeFlag(cmd *cobra.Command, name string, values ...string) {
	_ = cmd.RegisterFlagCompletionFunc(name, cobra.FixedCompletions(values, cobra.ShellCompDirectiveNoFileComp))
}

// noFileCompletion: a query argument is not a file name.
func noFileCompletion(*cobra.Command, []string, string) ([]cobra.Completion, cobra.ShellCompDirective) {
	return nil, cobra.ShellCompDirectiveNoFileComp
}

func parseEdition(s string) (schema.Edition, error) {
	switch s {
	case "standard", "":
		return schema.Standard, nil
	case "enterprise":
		return schema.Enterprise, nil
	}
	return 0, usageErrorf("--edition must be standard or enterprise, not %q", s)
}

// checkFormat reports a usage error when format is not one of allowed.
func checkFormat(format string, allowed ...string) error {
	for _, a := range allowed {
		if format == a {
			return nil
		}
	}
	list := allowed[0]
	for i, a := range allowed[1:] {
		if i == len(allowed)-2 {
			list += " or " + a
		} else {
			list += ", " + a
		}
	}
	return usageErrorf("--format must be %s, not %q", list, format)
}

// addLimitFlags defines --max-source, --max-depth and --max-nodes on cmd:
// the parser's limits, which every diagnostic of a limit names.
func addLimitFlags(cmd *cobra.Command, l *parser.Limits) {
	cmd.Flags().IntVar(&l.MaxSource, "max-source", parser.DefaultMaxSource, "longest accepted query, in bytes")
	cmd.Flags().IntVar(&l.MaxDepth, "max-depth", parser.DefaultMaxDepth, "deepest accepted nesting of parentheses and if")
	cmd.Flags().IntVar(&l.MaxNodes, "max-nodes", parser.DefaultMaxNodes, "largest accepted number of syntax nodes")
}

// checkLimits reports a usage error for a limit that is not positive.
func checkLimits(l parser.Limits) error {
	for _, f := range []struct {
		name string
		v    int
	}{{"--max-source", l.MaxSource}, {"--max-depth", l.MaxDepth}, {"--max-nodes", l.MaxNodes}} {
		if f.v <= 0 {
			return usageErrorf("%s must be 1 or more, got %d", f.name, f.v)
		}
	}
	return nil
}
