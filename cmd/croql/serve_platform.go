package main

import (
	"context"
	"io"
	"log/slog"
	"time"

	"github.com/spf13/cobra"

	"github.com/croql/croql/server"
	"github.com/croql/croql/server/platform"
)

// platformFlags are the flags of the platform side of the app contract in
// `croql serve` (package server/platform; docs/app-contract.md).
type platformFlags struct {
	apps          []string
	subscriptions string
	publicURL     string
	jobTimeout    time.Duration
}

func (pf *platformFlags) addFlags(cmd *cobra.Command) {
	f := cmd.Flags()
	f.StringArrayVar(&pf.apps, "app", nil, "app descriptor URL (repeatable): its file-post-import modules process uploads to …/files and …/translations; its subscription_paid event is called when a subscription becomes active")
	f.StringVar(&pf.subscriptions, "subscriptions", "", "JSON file of the subscriptions table and the organization of each token (docs/app-contract.md)")
	f.StringVar(&pf.publicURL, "public-url", "", "address apps reach this server at, for contentUrl/stringsUrl of large jobs (default: http://{Host of the upload})")
	f.DurationVar(&pf.jobTimeout, "job-timeout", platform.DefaultJobTimeout, "how long a post-import module may take")
	_ = cmd.MarkFlagFilename("subscriptions", "json")
}

// setup reads the app descriptors and the subscriptions and adds the
// platform's routes to s.
func (pf *platformFlags) setup(ctx context.Context, s *server.Server, log io.Writer) error {
	cfg := platform.Config{Apps: pf.apps, PublicURL: pf.publicURL, JobTimeout: pf.jobTimeout,
		Logger: slog.New(slog.NewTextHandler(log, &slog.HandlerOptions{Level: slog.LevelWarn}))}
	if pf.subscriptions != "" {
		subs, err := platform.ReadSubscriptionsFile(pf.subscriptions)
		if err != nil {
			return err
		}
		cfg.Subscriptions = subs
	}
	p, err := platform.New(ctx, cfg)
	if err != nil {
		return err
	}
	p.Register(s)
	return nil
}
