package main

import (
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/croql/croql"
	"github.com/croql/croql/parser"
	"github.com/croql/croql/schema"
	"github.com/croql/croql/typecheck"
)

// newFmtCmd returns `croql fmt [--context C] [QUERY|-]`: the canonical form
// of the query (lower-case keywords, single spaces, every field of the
// context in its documented spelling, the predicate of where/with in
// parentheses, other parentheses only where needed).
func newFmtCmd(c *cli) *cobra.Command {
	var (
		ctxName string
		limits  parser.Limits
		lower   bool
		now, tz string
	)
	cmd := &cobra.Command{
		Use:   "fmt [--context C] [QUERY|-]",
		Short: "Print the canonical form of a query",
		Long: "Prints the canonical form of the query: lower-case keywords, single spaces, every\n" +
			"field of the context (--context, default strings) in its documented spelling\n" +
			"(IS HIDDEN is `is hidden`, usagecount is `usageCount`), the predicate of where/with in\n" +
			"parentheses, other parentheses only where needed. A name that is no field of the\n" +
			"context is kept as written: fmt formats, lint checks.\n" +
			"With --lower, the sugar the platform rejects (in-lists, is null/empty/absent, relative\n" +
			"dates, bare text, API names; docs/language.md, \"Sugar\") is rewritten into the platform's\n" +
			"CroQL first: stdout has the canonical form of the rewritten query, stderr one line per\n" +
			"rewrite (the sugar, then what it became); a relative date is computed from --now.\n" +
			"Exit 0 on success, 1 when the query does not parse (with --lower: when the rewritten\n" +
			"query has an error), 2 on bad usage.",
		ValidArgsFunction: noFileCompletion,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkLimits(limits); err != nil {
				return err
			}
			opts := []croql.Option{croql.WithLimits(limits)}
			if lower {
				clock, err := fmtClock(now, tz)
				if err != nil {
					return err
				}
				opts = append(opts, clock...)
			}
			env, err := croql.NewEnv(ctxName, opts...)
			if err != nil {
				return usageErrorf("%w", err)
			}
			src, name, err := c.readQuery(args)
			if err != nil {
				return err
			}
			if lower {
				return c.lower(env, name, src)
			}
			text, diags := env.Format(src)
			if text == "" && diags.HasErrors() { // it does not parse
				printDiags(c.stderr, name, src, diags)
				return errHasErrors
			}
			fmt.Fprintln(c.stdout, text)
			return nil
		},
	}
	addContextFlag(cmd, &ctxName)
	addLimitFlags(cmd, &limits)
	cmd.Flags().BoolVar(&lower, "lower", false, "rewrite sugar (in-lists, null tests, relative dates, bare text, API names) into the platform's CroQL")
	cmd.Flags().StringVar(&now, "now", "", "with --lower, the current time relative dates count from: 'YYYY-MM-DD HH:MM:SS', 'YYYY-MM-DD' or RFC 3339, in --tz (default: the clock)")
	cmd.Flags().StringVar(&tz, "tz", "UTC", "with --lower, the time zone of 'today' and of the dates written (IANA name, e.g. Europe/Berlin)")
	return cmd
}

// fmtClock is the clock and location options of --now and --tz.
func fmtClock(now, tz string) ([]croql.Option, error) {
	loc, err := time.LoadLocation(tz)
	if err != nil || tz == "" {
		return nil, usageErrorf("--tz %q is not a time zone: give an IANA name such as UTC or Europe/Berlin", tz)
	}
	opts := []croql.Option{croql.WithLocation(loc)}
	if now != "" {
		t, err := schema.ParseTime(now, loc)
		if err != nil {
			return nil, usageErrorf("--now: %w", err)
		}
		fixed := t.Std().In(loc)
		opts = append(opts, croql.WithClock(func() time.Time { return fixed }))
	}
	return opts, nil
}

// lower prints the canonical form of src with its sugar rewritten, and on
// stderr each rewrite.
func (c *cli) lower(env *croql.Env, name, src string) error {
	out, steps, diags := env.Lower(src)
	for _, s := range steps {
		fmt.Fprintf(c.stderr, "%s: lowered `%s` to `%s` [%s]\n", name, s.From, s.To, s.Rule)
		if s.Rule == typecheck.RuleBadDatetime {
			fmt.Fprintf(c.stderr, "  %s\n", s.Message)
		}
	}
	if diags.HasErrors() {
		if len(steps) > 0 {
			name += " (lowered)"
		}
		printDiags(c.stderr, name, out, diags)
		return errHasErrors
	}
	text, _ := env.Format(out)
	fmt.Fprintln(c.stdout, text)
	return nil
}
