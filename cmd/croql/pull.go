package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/croql/croql/cmd/croql/internal/pull"
)

// tokenEnv is where the platform's own CLI reads its token.
const tokenEnv = "CROWDIN_PERSONAL_TOKEN"

// newPullCmd returns `croql pull --url BASE --project ID`: a project read
// through the platform's API into the NDJSON data format (docs/pull.md).
func newPullCmd(c *cli) *cobra.Command {
	var (
		base, tokenFile, out string
		project              int64
		concurrency, retries int
	)
	cmd := &cobra.Command{
		Use:   "pull --url BASE --project ID [--token-file FILE] [-o FILE] [--concurrency N] [--retries N]",
		Short: "Read a project through the platform's API into croql's NDJSON data format",
		Long: "Reads project ID through the platform's REST API (v2) at BASE (https://api.crowdin.com,\n" +
			"https://ORG.api.crowdin.com, or a croql serve) with the token in $" + tokenEnv + " or\n" +
			"--token-file, and writes it as NDJSON (docs/data-format.md) on standard output or to -o FILE,\n" +
			"each object as it arrives: the project, users, languages, files, branches, strings with their\n" +
			"translations, approvals, votes, comments and labels, TM segments, glossary concepts and terms.\n" +
			"A 429 or 503 answer is waited out (Retry-After) and retried. -o FILE is written as FILE.partial\n" +
			"and renamed when complete: an interrupted pull leaves FILE as it was, and running it again\n" +
			"starts over. See docs/pull.md.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if base == "" {
				return usageErrorf("--url is required (for example https://api.crowdin.com)")
			}
			if project <= 0 {
				return usageErrorf("--project is required: the project's id, a positive number")
			}
			token, err := readToken(tokenFile)
			if err != nil {
				return err
			}
			ctx, stop := signalContext()
			defer stop()
			prog := newProgress(c.stderr, "croql pull: ", c.stderrTerminal)
			defer prog.done()
			o := pull.Options{URL: base, Token: token, Project: project, Concurrency: concurrency, Retries: retries,
				Progress: prog.show}
			st, err := pullTo(ctx, o, out, c.stdout)
			prog.done()
			if err != nil {
				return failure(err)
			}
			fmt.Fprintf(c.stderr, "croql pull: %d strings, %d translations (%d approvals, %d votes), %d comments, %d files, %d branches, %d users, %d TM segments, %d concepts, %d terms; %d requests (%d for one string's translations); %d answers 429/503 waited out\n",
				st.Strings, st.Translations, st.Approvals, st.Votes, st.Comments, st.Files, st.Branches, st.Users,
				st.Segments, st.Concepts, st.Terms, st.Requests, st.StringRequests, st.Retried)
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&base, "url", "", "the API's base address: https://api.crowdin.com, https://ORG.api.crowdin.com, or a croql serve's http://HOST:PORT")
	f.Int64Var(&project, "project", 0, "the project's id")
	f.StringVar(&tokenFile, "token-file", "", "file holding the personal access token (default $"+tokenEnv+")")
	f.StringVarP(&out, "output", "o", "", "write to FILE (through FILE.partial, renamed when complete) instead of standard output")
	f.IntVar(&concurrency, "concurrency", pull.DefaultConcurrency, "translation requests in flight at once")
	f.IntVar(&retries, "retries", pull.DefaultRetries, "retries of one request answered 429 or 503 (negative: none)")
	return cmd
}

// readToken reads the token from file, else from $CROWDIN_PERSONAL_TOKEN.
func readToken(file string) (string, error) {
	if file == "" {
		if t := strings.TrimSpace(os.Getenv(tokenEnv)); t != "" {
			return t, nil
		}
		return "", usageErrorf("croql pull needs a token: $%s or --token-file FILE", tokenEnv)
	}
	b, err := os.ReadFile(file)
	if err != nil {
		return "", usageErrorf("--token-file: %w", err)
	}
	t := strings.TrimSpace(string(b))
	if t == "" {
		return "", usageErrorf("--token-file %s is empty", file)
	}
	return t, nil
}

// pullTo runs the pull into out (through out.partial, renamed when the
// pull completes; removed when it fails), else into stdout.
func pullTo(ctx context.Context, o pull.Options, out string, stdout io.Writer) (pull.Stats, error) {
	if out == "" || out == "-" {
		return pull.Run(ctx, o, stdout)
	}
	partial := out + ".partial"
	f, err := os.Create(partial)
	if err != nil {
		return pull.Stats{}, fmt.Errorf("pull: %w", err)
	}
	st, err := pull.Run(ctx, o, f)
	if cerr := f.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("pull: %w", cerr)
	}
	if err == nil {
		if err = os.Rename(partial, out); err != nil {
			err = fmt.Errorf("pull: %w", err)
		}
	}
	if err != nil {
		_ = os.Remove(partial)
		return st, err
	}
	return st, nil
}
