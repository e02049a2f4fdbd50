// Package platform is the platform side of the app contract inside
// `croql serve` (docs/app-contract.md, "The platform side"): a local
// platform an app developer points an app at before publishing it.
//
//	GET  /api/v2/applications/{app}/subscription     the subscription check (seed 4.1)
//	PUT  /admin/applications/{app}/organizations/{org}/subscription
//	                                                 sets a row; paid → "subscription paid" event
//	POST /api/v2/projects/{projectId}/files          file import → post-import modules → stored strings
//	                                                 (an existing name is a file update, ?updateOption=)
//	POST /api/v2/projects/{projectId}/translations   translation upload, the same flow for one language
//	POST /api/v2/storages                            the two-step upload: the file, then
//	POST /api/v2/projects/{projectId}/files {storageId, name} or
//	POST /api/v2/projects/{projectId}/translations/{languageId} {storageId, fileId}
//	GET  /_platform/blobs/{id}                       contentUrl / stringsUrl of jobs in flight
//	POST /oauth/token                                the token endpoint of apps with client credentials
//	POST, DELETE /admin/applications/{app}/organizations/{org}/installation
//	                                                 the app's installed / uninstall event
//
// An app registered with its OAuth client credentials (Config.Credentials)
// gets the handshake of the platform's app SDK: the installed event before
// its first job in an organization, tokens from TokenPath, and an HS256
// JWT (ModuleClaims) on every module call.
//
// Apps are registered by their descriptor (the manifest the app serves);
// their post-import modules are chosen by signaturePatterns. The
// strings a job returns are validated with the app side's rules
// (app/postimport) and stored in one transaction of the project's
// database, so the CroQL endpoints of package server see them at once; a
// failed, oversized or timed-out job leaves the project as it was.
package platform

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/croql/croql/app/postimport"
	"github.com/croql/croql/server"
)

// Defaults of a Config: the seed's limits (section 8) and the sizes the
// platform's SDK works with.
const (
	// DefaultJobTimeout is how long the platform waits for a module's
	// answer (seed 8: 2 minutes).
	DefaultJobTimeout = postimport.PlatformWait
	// DefaultMaxAnswerBytes bounds a module's answer (seed 8: 5 MB, read
	// strictly as 5 000 000 bytes).
	DefaultMaxAnswerBytes = 5_000_000
	// DefaultMaxInlineJobBytes is the largest job sent with the file and
	// the strings inline; above it the file goes as contentUrl, then the
	// strings as stringsUrl (the app side's inline limit, 5 MB less 5 %).
	DefaultMaxInlineJobBytes = postimport.MaxInlineResponseBytes
	// DefaultMaxFileBytes bounds an uploaded file.
	DefaultMaxFileBytes = 32 << 20
	// DefaultMaxStringsURLBytes bounds the NDJSON a module answers at
	// data.stringsUrl.
	DefaultMaxStringsURLBytes = 32 << 20
	// DefaultNotifyTimeout bounds one "subscription paid" event.
	DefaultNotifyTimeout = 10 * time.Second
)

// Config configures the platform side.
type Config struct {
	// Apps are the app descriptors (manifest URLs: a URL ending in .json
	// is the manifest itself, any other is the app's base address and
	// {URL}/manifest.json is read).
	Apps []string
	// Credentials are the OAuth client credentials of the apps: the i-th
	// belongs to the i-th of Apps (fewer than Apps: the others have
	// none). An app with a client secret gets the platform SDK's
	// handshake (the installed event, tokens from TokenPath, a JWT on
	// every module call); one without is called without it.
	Credentials []Credentials
	// JobType is the jobType of the jobs sent to post-import modules:
	// postimport.JobTypeSDK ("post-import-file", what the platform's SDK
	// acts on) when empty; postimport.JobType ("file-post-import", the
	// documentation's spelling) is the other choice.
	JobType string
	// UserID is the user id of the events and JWTs (DefaultUserID when 0).
	UserID int64
	// TokenLifetime is the expires_in of issued access tokens
	// (DefaultTokenLifetime when 0). A token is refused once it has
	// passed (or the app is uninstalled); the SDK asks for a new one when
	// expires_in has passed.
	TokenLifetime time.Duration
	// MaxAppTokens bounds the access tokens one app holds at once:
	// issuing one more revokes the app's oldest (DefaultMaxAppTokens
	// when 0).
	MaxAppTokens int
	// Subscriptions is the subscriptions table (empty when nil).
	Subscriptions *Subscriptions
	// JobTimeout bounds one post-import job (DefaultJobTimeout when 0).
	JobTimeout time.Duration
	// MaxAnswerBytes bounds a module's answer (DefaultMaxAnswerBytes).
	MaxAnswerBytes int64
	// MaxInlineJobBytes: larger jobs send contentUrl / stringsUrl.
	MaxInlineJobBytes int
	// MaxFileBytes is the per-file quota: an uploaded file larger than
	// this is answered 413 (DefaultMaxFileBytes).
	MaxFileBytes int64
	// MaxFileStrings is the per-file strings quota: an upload of a file
	// with more strings, or whose module answers more, is answered 413
	// and not stored (DefaultMaxFileStrings when 0, negative: none). The
	// JSON parser stops reading at the quota.
	MaxFileStrings int
	// MaxProjectBytes is the per-project quota: an upload after which
	// the project's texts (source strings and translations) would hold
	// more bytes is answered 413 and not stored (DefaultMaxProjectBytes
	// when 0, negative: none).
	MaxProjectBytes int64
	// MaxOwnerStorages and MaxOwnerStorageBytes bound the storages of
	// the two-step upload one owner keeps (the organization and projects
	// of a token); one more drops the owner's oldest
	// (DefaultMaxOwnerStorages, DefaultMaxOwnerStorageBytes when 0).
	// MaxStorageBytes bounds the storages of all owners together: past
	// it the adder's oldest go, then the storage is refused with 503
	// (DefaultMaxStorageBytes when 0).
	MaxOwnerStorages     int
	MaxOwnerStorageBytes int64
	MaxStorageBytes      int64
	// MaxConcurrentUploads bounds the uploads parsed, sent to apps and
	// stored at once, once their bodies have arrived; one more waits up
	// to 2 s for a slot, then is answered 429 with Retry-After
	// (DefaultMaxConcurrentUploads when 0).
	MaxConcurrentUploads int
	// MaxStringsURLBytes bounds data.stringsUrl downloads.
	MaxStringsURLBytes int64
	// NotifyTimeout bounds a "subscription paid" event.
	NotifyTimeout time.Duration
	// PublicURL is where apps reach croql serve (for apiBaseUrl,
	// contentUrl and stringsUrl); when empty, http://{the local address
	// the request arrived on}. The request's Host header is never used:
	// an uploader could otherwise send an app's credentials to a host of
	// its choosing.
	PublicURL string
	// AdminTokens are the bearer tokens of the admin routes (PUT
	// /admin/…/subscription, POST and DELETE /admin/…/installation).
	// They are distinct from the read tokens: a read token there gets
	// 403, no token 401. The subscription route exists only when
	// Subscriptions is set, the installation routes only when
	// AdminTokens has a token; otherwise they are 404.
	AdminTokens *server.Tokens
	// HTTPClient calls the apps (a client without redirects when nil).
	HTTPClient *http.Client
	// Parsers turn uploaded files into strings (DefaultParsers when nil).
	Parsers []Parser
	// Now is the clock of the added/updated dates (time.Now when nil).
	Now func() time.Time
	// Logger gets warnings (discarded when nil).
	Logger *slog.Logger
}

// App is a registered app: its identifier, the address of its
// "subscription paid" event and its post-import modules.
type App struct {
	Identifier string
	BaseURL    string
	PaidURL    string
	Modules    []postimport.Module
	// ClientID and ClientSecret are the app's OAuth client credentials
	// (Config.Credentials); the handshake runs when ClientSecret is set.
	ClientID, ClientSecret string
	// InstalledURL and UninstallURL are the app's installed and uninstall
	// events (the descriptor's events, default /installed and /uninstall).
	InstalledURL, UninstallURL string
}

// Platform is the platform side. Register adds its routes to a server.
type Platform struct {
	cfg   Config
	subs  *Subscriptions
	apps  []App
	log   *slog.Logger
	blobs blobs
	hs    handshake
	// tokens are croql serve's accepted tokens (Register sets them): the
	// token endpoint adds to them.
	tokens *server.Tokens
	// storages are the files of the two-step upload (storages.go).
	storages storages
	// uploads holds a token per upload in progress (quota.go).
	uploads chan struct{}
	// bodies is the server's body memory budget (bodymem.go; Register
	// sets it).
	bodies *server.BodyMemory
}

// New reads the descriptors of cfg.Apps (ctx bounds the requests) and
// returns the platform side.
func New(ctx context.Context, cfg Config) (*Platform, error) {
	for _, set := range []func(){
		server.OrDefault(&cfg.JobTimeout, DefaultJobTimeout, false),
		server.OrDefault(&cfg.MaxAnswerBytes, DefaultMaxAnswerBytes, false),
		server.OrDefault(&cfg.MaxInlineJobBytes, DefaultMaxInlineJobBytes, false),
		server.OrDefault(&cfg.MaxFileBytes, DefaultMaxFileBytes, false),
		server.OrDefault(&cfg.MaxStringsURLBytes, DefaultMaxStringsURLBytes, false),
		server.OrDefault(&cfg.MaxFileStrings, DefaultMaxFileStrings, true),
		server.OrDefault(&cfg.MaxProjectBytes, DefaultMaxProjectBytes, true),
		server.OrDefault(&cfg.MaxConcurrentUploads, DefaultMaxConcurrentUploads, false),
		server.OrDefault(&cfg.NotifyTimeout, DefaultNotifyTimeout, false),
		server.OrDefault(&cfg.UserID, DefaultUserID, false),
		server.OrDefault(&cfg.TokenLifetime, DefaultTokenLifetime, false),
		server.OrDefault(&cfg.MaxAppTokens, DefaultMaxAppTokens, false),
		server.OrDefault(&cfg.MaxOwnerStorages, DefaultMaxOwnerStorages, false),
		server.OrDefault(&cfg.MaxOwnerStorageBytes, DefaultMaxOwnerStorageBytes, false),
		server.OrDefault(&cfg.MaxStorageBytes, DefaultMaxStorageBytes, false),
	} {
		set()
	}
	if cfg.HTTPClient == nil {
		cfg.HTTPClient = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	}
	if cfg.Parsers == nil {
		cfg.Parsers = DefaultParsers()
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	switch cfg.JobType {
	case "":
		cfg.JobType = postimport.JobTypeSDK
	case postimport.JobType, postimport.JobTypeSDK:
	default:
		return nil, fmt.Errorf("platform: jobType %q is neither %q nor %q", cfg.JobType, postimport.JobTypeSDK, postimport.JobType)
	}
	if len(cfg.Credentials) > len(cfg.Apps) {
		return nil, fmt.Errorf("platform: %d app credentials for %d apps", len(cfg.Credentials), len(cfg.Apps))
	}
	p := &Platform{cfg: cfg, uploads: make(chan struct{}, cfg.MaxConcurrentUploads), subs: cfg.Subscriptions, log: cfg.Logger, blobs: blobs{m: map[string][]byte{}},
		hs: handshake{byID: map[[2]string]*installation{}, minted: map[string][]minted{}}}
	p.storages.maxOwner, p.storages.maxOwnerBytes, p.storages.max = cfg.MaxOwnerStorages, cfg.MaxOwnerStorageBytes, cfg.MaxStorageBytes
	if p.subs == nil {
		p.subs = NewSubscriptions()
	}
	if p.log == nil {
		p.log = slog.New(slog.DiscardHandler)
	}
	for i, u := range cfg.Apps {
		var c Credentials
		if i < len(cfg.Credentials) {
			c = cfg.Credentials[i]
		}
		a, err := p.readDescriptor(ctx, u, c)
		if err != nil {
			return nil, err
		}
		p.apps = append(p.apps, a)
	}
	return p, nil
}

// Apps lists the registered apps in the order modules are tried.
func (p *Platform) Apps() []App { return append([]App(nil), p.apps...) }

// Subscriptions is the platform's subscriptions table.
func (p *Platform) Subscriptions() *Subscriptions { return p.subs }

// descriptor is the part of an app descriptor the platform reads.
type descriptor struct {
	Identifier string             `json:"identifier"`
	BaseURL    string             `json:"baseUrl"`
	Modules    postimport.Modules `json:"modules"`
	Events     map[string]string  `json:"events"`
	// Authentication is the SDK's authentication member: its type and
	// the app's OAuth client id.
	Authentication struct {
		Type     string `json:"type"`
		ClientID string `json:"clientId"`
	} `json:"authentication"`
}

func (p *Platform) readDescriptor(ctx context.Context, raw string, cred Credentials) (App, error) {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return App{}, fmt.Errorf("platform: app %q: want an absolute http(s) URL", raw)
	}
	manifest := raw
	base := strings.TrimSuffix(raw, "/")
	if strings.HasSuffix(u.Path, ".json") {
		base = strings.TrimSuffix(u.Scheme+"://"+u.Host+u.Path[:strings.LastIndex(u.Path, "/")+1], "/")
	} else {
		manifest = base + "/manifest.json"
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, manifest, nil)
	if err != nil {
		return App{}, fmt.Errorf("platform: app %q: %w", raw, err)
	}
	resp, err := p.cfg.HTTPClient.Do(req)
	if err != nil {
		return App{}, fmt.Errorf("platform: reading the descriptor of app %q: %w", raw, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return App{}, fmt.Errorf("platform: reading the descriptor %s: HTTP %d", manifest, resp.StatusCode)
	}
	var d descriptor
	if err := json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&d); err != nil {
		return App{}, fmt.Errorf("platform: the descriptor %s: %w", manifest, err)
	}
	if d.Identifier == "" {
		return App{}, fmt.Errorf("platform: the descriptor %s has no identifier", manifest)
	}
	if d.BaseURL != "" {
		base = strings.TrimSuffix(d.BaseURL, "/")
	}
	for _, m := range d.Modules.FilePostImport {
		if err := m.Validate(); err != nil {
			return App{}, fmt.Errorf("platform: the descriptor %s: %w", manifest, err)
		}
	}
	paid := "/subscription-paid"
	if e := d.Events["subscription_paid"]; e != "" {
		paid = e
	}
	a := App{Identifier: d.Identifier, BaseURL: base, PaidURL: joinURL(base, paid), Modules: d.Modules.FilePostImport,
		ClientID: cred.ClientID, ClientSecret: cred.ClientSecret,
		InstalledURL: joinURL(base, "/installed"), UninstallURL: joinURL(base, "/uninstall")}
	if e := d.Events["installed"]; e != "" {
		a.InstalledURL = joinURL(base, e)
	}
	if e := d.Events["uninstall"]; e != "" {
		a.UninstallURL = joinURL(base, e)
	}
	switch {
	case cred.ClientID == "" && cred.ClientSecret != "":
		if d.Authentication.ClientID == "" {
			return App{}, fmt.Errorf("platform: the app %s has a client secret but no client id (give --app-client-id; its descriptor %s has no authentication.clientId)", d.Identifier, manifest)
		}
		a.ClientID = d.Authentication.ClientID
	case cred.ClientID != "" && d.Authentication.ClientID != "" && cred.ClientID != d.Authentication.ClientID:
		return App{}, fmt.Errorf("platform: the app %s: client id %q, but its descriptor %s says authentication.clientId %q", d.Identifier, cred.ClientID, manifest, d.Authentication.ClientID)
	case cred.ClientID != "" && cred.ClientSecret == "":
		return App{}, fmt.Errorf("platform: the app %s has a client id but no client secret (give --app-client-secret)", d.Identifier)
	}
	return a, nil
}

// Register adds the routes to s: the subscription check, the import
// endpoints and the admin endpoint behind the token check, the blobs of
// jobs in flight without (their 128-bit ids are the credential).
func (p *Platform) Register(s *server.Server) {
	p.bodies = s.BodyMemory()
	p.storages.release = p.bodies.Release
	s.Handle("GET /api/v2/applications/{app}/subscription", http.HandlerFunc(p.serveSubscription))
	if p.cfg.Subscriptions != nil {
		p.handleAdmin(s, "PUT /admin/applications/{app}/organizations/{org}/subscription", http.HandlerFunc(p.serveSetSubscription))
	}
	s.Handle("POST /api/v2/projects/{projectId}/files", p.holdBodies(p.filesHandler(s)))
	s.Handle("PUT /api/v2/projects/{projectId}/files/{fileId}", p.updateFile(s))
	s.Handle("PATCH /api/v2/projects/{projectId}/files/{fileId}", p.editFile(s))
	s.Handle("DELETE /api/v2/projects/{projectId}/files/{fileId}", p.deleteFile(s))
	s.Handle("GET /api/v2/projects/{projectId}/files/{fileId}/revisions", p.fileRevisions(s))
	s.Handle("POST /api/v2/projects/{projectId}/translations", p.holdBodies(p.importHandler(s, true)))
	s.Handle("POST /api/v2/projects/{projectId}/translations/{languageId}", p.uploadTranslation(s))
	s.Handle("POST /api/v2/storages", p.holdBodies(http.HandlerFunc(p.addStorage)))
	s.Handle("GET /api/v2/storages", http.HandlerFunc(p.listStorages))
	s.Handle("GET /api/v2/storages/{storageId}", http.HandlerFunc(p.getStorage))
	s.Handle("DELETE /api/v2/storages/{storageId}", http.HandlerFunc(p.deleteStorage))
	s.HandlePublic("GET /_platform/blobs/{id}", http.HandlerFunc(p.blobs.serve))
	p.registerHandshake(s)
}

// handleAdmin adds an admin route: it runs only for an admin token; a
// read token gets 403, any other request 401.
func (p *Platform) handleAdmin(s *server.Server, pattern string, h http.Handler) {
	s.HandlePublic(pattern, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, ok := p.cfg.AdminTokens.Authenticate(r); ok {
			h.ServeHTTP(w, r)
			return
		}
		if _, ok := s.Tokens().Authenticate(r); ok {
			server.WriteError(w, http.StatusForbidden, "The admin routes need an admin token (croql serve --admin-token-file); a read token is not one")
			return
		}
		server.WriteError(w, http.StatusUnauthorized, "Unauthorized")
	}))
}

// blobs are the files and NDJSON strings of jobs in flight.
type blobs struct {
	mu sync.Mutex
	m  map[string][]byte
}

func (b *blobs) put(data []byte) (string, func()) {
	id := randomID()
	b.mu.Lock()
	b.m[id] = data
	b.mu.Unlock()
	return id, func() {
		b.mu.Lock()
		delete(b.m, id)
		b.mu.Unlock()
	}
}

func (b *blobs) serve(w http.ResponseWriter, r *http.Request) {
	b.mu.Lock()
	data, ok := b.m[r.PathValue("id")]
	b.mu.Unlock()
	if !ok {
		server.WriteError(w, http.StatusNotFound, "Not found (the job it belonged to is over)")
		return
	}
	w.Header().Set("Content-Type", "application/octet-stream")
	_, _ = w.Write(data)
}
