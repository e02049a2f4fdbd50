package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/croql/croql/app/postimport"
	"github.com/croql/croql/server"
	"github.com/croql/croql/server/platform"
)

// platformFlags are the flags of the platform side of the app contract in
// `croql serve` (package server/platform; docs/app-contract.md).
type platformFlags struct {
	apps          []string
	clientIDs     []string
	clientSecrets []string
	jobType       string
	subscriptions string
	publicURL     string
	adminToken    string
	adminFile     string
	jobTimeout    time.Duration
	// The upload quotas (platform.Config's fields of the same names).
	maxFileBytes, maxProjectBytes int64
	maxUploads, maxFileStrings    int
	// The caps of the two-step upload's storages and of the apps' tokens.
	maxOwnerStorages, maxAppTokens        int
	maxOwnerStorageBytes, maxStorageBytes int64
}

func (pf *platformFlags) addFlags(cmd *cobra.Command) {
	f := cmd.Flags()
	f.StringArrayVar(&pf.apps, "app", nil, "app descriptor URL (repeatable): its file-post-import modules process uploads to …/files and …/translations; its subscription_paid event is called when a subscription becomes active")
	f.StringArrayVar(&pf.clientIDs, "app-client-id", nil, "OAuth client id of an app (repeatable: the n-th belongs to the n-th --app; empty or absent: the descriptor's authentication.clientId)")
	f.StringArrayVar(&pf.clientSecrets, "app-client-secret", nil, "OAuth client secret of an app (repeatable: the n-th belongs to the n-th --app; empty or absent: the app is called without the SDK handshake). With it croql serve sends the installed event, issues tokens at /oauth/token and signs a JWT on every module call")
	f.StringVar(&pf.jobType, "job-type", postimport.JobTypeSDK, "jobType of post-import jobs: "+postimport.JobTypeSDK+" (what the platform's SDK acts on) or "+postimport.JobType+" (the documentation's spelling)")
	f.StringVar(&pf.subscriptions, "subscriptions", "", "JSON file of the subscriptions table and the organization of each token (docs/app-contract.md)")
	f.StringVar(&pf.publicURL, "public-url", "", "address apps reach this server at, for apiBaseUrl and contentUrl/stringsUrl of jobs (default: http://{the local address the upload arrived on}; never the request's Host header)")
	f.StringVar(&pf.adminToken, "admin-token", "", "bearer token of the admin routes (/admin/…), distinct from the read tokens (default $CROQL_ADMIN_TOKEN)")
	f.StringVar(&pf.adminFile, "admin-token-file", "", "file of admin tokens, one per line (# comments and blank lines skipped)")
	f.DurationVar(&pf.jobTimeout, "job-timeout", platform.DefaultJobTimeout, "how long a post-import module may take")
	f.Int64Var(&pf.maxFileBytes, "max-file-bytes", platform.DefaultMaxFileBytes, "per-file upload quota, in bytes: a larger file, or one whose strings (identifiers, contexts, texts, labels, translations) would store more, is answered 413")
	f.IntVar(&pf.maxFileStrings, "max-file-strings", platform.DefaultMaxFileStrings, "per-file upload quota, in strings: a file with more (or a module's answer with more) is answered 413 and not stored (negative: none)")
	f.Int64Var(&pf.maxProjectBytes, "max-project-bytes", platform.DefaultMaxProjectBytes, "per-project quota, in bytes of stored texts (identifiers, contexts, source texts, translations, labels, file names): an upload that would pass it is answered 413 and not stored (negative: none)")
	f.IntVar(&pf.maxUploads, "max-concurrent-uploads", platform.DefaultMaxConcurrentUploads, "uploads parsed and stored at once (after their bodies have arrived): one more waits up to 2 s, then is answered 429 with Retry-After")
	f.IntVar(&pf.maxOwnerStorages, "max-owner-storages", platform.DefaultMaxOwnerStorages, "storages of the two-step upload (POST /api/v2/storages) one owner keeps, the organization and projects of a token: one more drops the owner's oldest")
	f.Int64Var(&pf.maxOwnerStorageBytes, "max-owner-storage-bytes", platform.DefaultMaxOwnerStorageBytes, "bytes of the storages one owner keeps: one more drops the owner's oldest")
	f.Int64Var(&pf.maxStorageBytes, "max-storage-bytes", platform.DefaultMaxStorageBytes, "bytes of the storages of all owners together: past it the adder's oldest go, then the storage is answered 503 with Retry-After (storages also count against --max-body-memory)")
	f.IntVar(&pf.maxAppTokens, "max-app-tokens", platform.DefaultMaxAppTokens, "access tokens one app holds at once (POST /oauth/token): one more revokes the app's oldest; expired ones are freed")
	_ = cmd.MarkFlagFilename("subscriptions", "json")
}

// adminTokens reads the admin tokens of --admin-token,
// $CROQL_ADMIN_TOKEN and --admin-token-file; none of them may be a read
// token.
func (pf *platformFlags) adminTokens(read *server.Tokens) (*server.Tokens, error) {
	var list []string
	tok := pf.adminToken
	if tok == "" {
		tok = os.Getenv("CROQL_ADMIN_TOKEN")
	}
	if tok != "" {
		list = append(list, tok)
	}
	if pf.adminFile != "" {
		b, err := os.ReadFile(pf.adminFile)
		if err != nil {
			return nil, fmt.Errorf("croql serve: --admin-token-file: %w", err)
		}
		for line := range strings.Lines(string(b)) {
			if line = strings.TrimSpace(line); line != "" && !strings.HasPrefix(line, "#") {
				list = append(list, line)
			}
		}
	}
	t := &server.Tokens{}
	for _, tok := range list {
		r := &http.Request{Header: http.Header{"Authorization": {"Bearer " + tok}}}
		if _, ok := read.Authenticate(r); ok {
			return nil, errors.New("croql serve: an admin token is also a read token (--token, --token-file): give the admin routes a token of their own")
		}
		if err := t.Add(tok); err != nil {
			return nil, fmt.Errorf("croql serve: admin token: %w", err)
		}
	}
	return t, nil
}

// setup reads the app descriptors and the subscriptions and adds the
// platform's routes to s.
func (pf *platformFlags) setup(ctx context.Context, s *server.Server, log io.Writer) error {
	cfg := platform.Config{Apps: pf.apps, PublicURL: pf.publicURL, JobTimeout: pf.jobTimeout, JobType: pf.jobType,
		MaxFileBytes: pf.maxFileBytes, MaxFileStrings: pf.maxFileStrings, MaxProjectBytes: pf.maxProjectBytes, MaxConcurrentUploads: pf.maxUploads,
		MaxOwnerStorages: pf.maxOwnerStorages, MaxOwnerStorageBytes: pf.maxOwnerStorageBytes, MaxStorageBytes: pf.maxStorageBytes, MaxAppTokens: pf.maxAppTokens,
		Logger: slog.New(slog.NewTextHandler(log, &slog.HandlerOptions{Level: slog.LevelWarn}))}
	if len(pf.clientIDs) > len(pf.apps) || len(pf.clientSecrets) > len(pf.apps) {
		return fmt.Errorf("croql serve: %d --app-client-id and %d --app-client-secret for %d --app (the n-th belongs to the n-th --app)",
			len(pf.clientIDs), len(pf.clientSecrets), len(pf.apps))
	}
	for i := range max(len(pf.clientIDs), len(pf.clientSecrets)) {
		var c platform.Credentials
		if i < len(pf.clientIDs) {
			c.ClientID = pf.clientIDs[i]
		}
		if i < len(pf.clientSecrets) {
			c.ClientSecret = pf.clientSecrets[i]
		}
		cfg.Credentials = append(cfg.Credentials, c)
	}
	if pf.subscriptions != "" {
		subs, err := platform.ReadSubscriptionsFile(pf.subscriptions)
		if err != nil {
			return err
		}
		cfg.Subscriptions = subs
	}
	admin, err := pf.adminTokens(s.Tokens())
	if err != nil {
		return err
	}
	cfg.AdminTokens = admin
	p, err := platform.New(ctx, cfg)
	if err != nil {
		return err
	}
	p.Register(s)
	return nil
}
