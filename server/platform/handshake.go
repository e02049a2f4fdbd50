package platform

import (
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/croql/croql/server"
)

// Credentials are an app's OAuth client credentials, as the platform
// issues them when the app is registered. With them croql serve performs
// the handshake of the platform's app SDK: the "installed" event, the
// token endpoint, a JWT on every module call.
type Credentials struct {
	// ClientID is the app's OAuth client id; when empty, the descriptor's
	// authentication.clientId is used.
	ClientID string
	// ClientSecret signs the JWTs of module calls (HS256) and
	// authenticates the app at the token endpoint.
	ClientSecret string
}

// Defaults of the handshake.
const (
	// TokenPath is the token endpoint on croql serve: the app's
	// crowdinUrls.accountUrl is {croql serve}/oauth/token.
	TokenPath = "/oauth/token"
	// DefaultTokenLifetime is the expires_in of an issued access token.
	DefaultTokenLifetime = time.Hour
	// DefaultUserID is the user of the JWTs and events (croql serve has
	// no users).
	DefaultUserID = 1
	// DefaultMaxAppTokens is how many access tokens one app holds at
	// once (Config.MaxAppTokens): minting one more drops the app's oldest.
	DefaultMaxAppTokens = 1000
	// jwtLifetime is the exp of a module call's JWT after its iat.
	jwtLifetime = 5 * time.Minute
)

// installation is an app installed in an organization: the app secret
// sent in its "installed" event (the app presents it at the token
// endpoint).
type installation struct {
	app       string
	org       string
	appSecret string
}

// minted is an access token issued to an app for an organization, and
// when it expires.
type minted struct {
	token, org string
	expires    time.Time
}

// handshake holds the installations and the tokens issued for them.
type handshake struct {
	mu   sync.Mutex
	byID map[[2]string]*installation // app identifier, organization
	// minted are each app's access tokens, oldest first (at most
	// Config.MaxAppTokens); expired ones are dropped at the next mint
	// (pruneTokens).
	minted map[string][]minted
	// pruned is when the expired tokens were last dropped.
	pruned time.Time
	// installing serialises the installation of one app in one
	// organization (the event is an HTTP call; it is not made twice).
	installing sync.Map // [2]string → *sync.Mutex
}

func (h *handshake) lock(key [2]string) func() {
	m, _ := h.installing.LoadOrStore(key, &sync.Mutex{})
	mu := m.(*sync.Mutex)
	mu.Lock()
	return mu.Unlock
}

// orgClaims are the organization members of an event and a JWT: a
// numeric organization is organization_id; any other is the domain of
// an enterprise organization (organization_id 1).
func orgClaims(org string) (id int64, domain string) {
	if n, err := strconv.ParseInt(org, 10, 64); err == nil && n > 0 {
		return n, ""
	}
	return 1, org
}

// installEvent is the body of the "installed" and "uninstall" events, as
// the platform's SDK declares them (InstallEvent, UninstallEvent).
type installEvent struct {
	AppID          string `json:"appId"`
	AppSecret      string `json:"appSecret"`
	ClientID       string `json:"clientId"`
	UserID         int64  `json:"userId,omitempty"`
	OrganizationID int64  `json:"organizationId"`
	Domain         string `json:"domain,omitempty"`
	BaseURL        string `json:"baseUrl"`
}

// Installed reports whether app is installed in organization org.
func (p *Platform) Installed(app, org string) bool {
	p.hs.mu.Lock()
	defer p.hs.mu.Unlock()
	_, ok := p.hs.byID[[2]string{app, org}]
	return ok
}

// Install sends the "installed" event of a (with credentials) for
// organization org, unless it is installed there already. publicURL is
// the organization's baseUrl in the event (where the app reaches croql
// serve).
func (p *Platform) Install(ctx context.Context, a App, org, publicURL string) error {
	if a.ClientSecret == "" {
		return nil
	}
	key := [2]string{a.Identifier, org}
	defer p.hs.lock(key)()
	if p.Installed(a.Identifier, org) {
		return nil
	}
	in := &installation{app: a.Identifier, org: org, appSecret: randomID() + randomID()}
	id, domain := orgClaims(org)
	ev := installEvent{AppID: a.Identifier, AppSecret: in.appSecret, ClientID: a.ClientID,
		UserID: p.cfg.UserID, OrganizationID: id, Domain: domain, BaseURL: publicURL}
	// Registered before the event: the app's handler calls the token
	// endpoint while it handles the event.
	p.hs.mu.Lock()
	p.hs.byID[key] = in
	p.hs.mu.Unlock()
	if err := p.sendEvent(ctx, a.InstalledURL, ev); err != nil {
		p.forget(key)
		return fmt.Errorf("the installed event of the app %s: %w", a.Identifier, err)
	}
	return nil
}

// Uninstall sends the "uninstall" event of app for organization org,
// forgets the installation and stops accepting its access tokens. It
// reports whether the app was installed there.
func (p *Platform) Uninstall(ctx context.Context, app, org, publicURL string) (bool, error) {
	key := [2]string{app, org}
	defer p.hs.lock(key)()
	p.hs.mu.Lock()
	in, ok := p.hs.byID[key]
	p.hs.mu.Unlock()
	if !ok {
		return false, nil
	}
	var err error
	for _, a := range p.apps {
		if a.Identifier != app || a.ClientSecret == "" {
			continue
		}
		id, domain := orgClaims(org)
		ev := installEvent{AppID: a.Identifier, AppSecret: in.appSecret, ClientID: a.ClientID,
			OrganizationID: id, Domain: domain, BaseURL: publicURL}
		if e := p.sendEvent(ctx, a.UninstallURL, ev); e != nil {
			err = errors.Join(err, fmt.Errorf("the uninstall event of the app %s: %w", a.Identifier, e))
		}
	}
	p.forget(key)
	return true, err
}

func (p *Platform) forget(key [2]string) {
	p.hs.mu.Lock()
	delete(p.hs.byID, key)
	var gone []minted
	p.hs.minted[key[0]] = slices.DeleteFunc(p.hs.minted[key[0]], func(m minted) bool {
		if m.org == key[1] {
			gone = append(gone, m)
			return true
		}
		return false
	})
	p.hs.mu.Unlock()
	p.revoke(gone)
}

// pruneTokens forgets the access tokens that have expired: they are
// refused already, and are freed here (at each mint, and at most once a
// minute from the upload routes).
func (p *Platform) pruneTokens() {
	now := p.cfg.Now()
	p.hs.mu.Lock()
	if now.Sub(p.hs.pruned) < time.Minute {
		p.hs.mu.Unlock()
		return
	}
	gone := p.expiredTokens(now)
	p.hs.mu.Unlock()
	p.revoke(gone)
}

// expiredTokens removes the expired tokens from the apps' lists and
// returns them for revoke. Every token lives Config.TokenLifetime, so
// the expired ones are each list's oldest. p.hs.mu is held.
func (p *Platform) expiredTokens(now time.Time) []minted {
	p.hs.pruned = now
	var gone []minted
	for app, list := range p.hs.minted {
		n := 0
		for n < len(list) && !now.Before(list[n].expires) {
			n++
		}
		if n > 0 {
			gone = append(gone, list[:n]...)
			p.hs.minted[app] = slices.Delete(list, 0, n)
		}
	}
	return gone
}

// revoke stops accepting tokens.
func (p *Platform) revoke(tokens []minted) {
	for _, m := range tokens {
		if p.tokens != nil {
			p.tokens.Remove(m.token)
		}
		p.subs.UnmapToken(m.token)
	}
}

func (p *Platform) sendEvent(ctx context.Context, target string, ev installEvent) error {
	body, err := json.Marshal(ev)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, p.cfg.NotifyTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, target, strings.NewReader(string(body)))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := p.cfg.HTTPClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	msg, _ := io.ReadAll(io.LimitReader(resp.Body, 4<<10))
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("%s answered HTTP %d: %s", target, resp.StatusCode, strings.TrimSpace(string(msg)))
	}
	return nil
}

// tokenRequest is a request to the token endpoint: the members the
// platform's SDK sends (fetchAppToken: grant_type crowdin_app).
type tokenRequest struct {
	GrantType    string `json:"grant_type"`
	ClientID     string `json:"client_id"`
	ClientSecret string `json:"client_secret"`
	AppID        string `json:"app_id"`
	AppSecret    string `json:"app_secret"`
	Domain       string `json:"domain"`
	UserID       any    `json:"user_id"`
}

func oauthError(w http.ResponseWriter, status int, code, desc string) {
	server.WriteJSON(w, status, map[string]string{"error": code, "error_description": desc})
}

// serveToken is POST /oauth/token: grant_type crowdin_app with the app's
// client credentials and the app secret of one of its installations. The
// access token it issues is accepted by croql serve's API for every
// project for Config.TokenLifetime (its expires_in), and acts for the
// installation's organization (the subscription check). An app holds at
// most Config.MaxAppTokens tokens: one more revokes its oldest.
func (p *Platform) serveToken(w http.ResponseWriter, r *http.Request) {
	var tr tokenRequest
	mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	r.Body = http.MaxBytesReader(w, r.Body, 64<<10)
	if mt == "application/x-www-form-urlencoded" {
		if err := r.ParseForm(); err != nil {
			oauthError(w, http.StatusBadRequest, "invalid_request", err.Error())
			return
		}
		tr = tokenRequest{GrantType: r.PostForm.Get("grant_type"), ClientID: r.PostForm.Get("client_id"),
			ClientSecret: r.PostForm.Get("client_secret"), AppID: r.PostForm.Get("app_id"),
			AppSecret: r.PostForm.Get("app_secret"), Domain: r.PostForm.Get("domain")}
	} else if err := json.NewDecoder(r.Body).Decode(&tr); err != nil {
		oauthError(w, http.StatusBadRequest, "invalid_request", "The body must be a JSON object: "+err.Error())
		return
	}
	if tr.GrantType != "crowdin_app" {
		oauthError(w, http.StatusBadRequest, "unsupported_grant_type",
			fmt.Sprintf("grant_type %q: croql serve issues tokens for grant_type crowdin_app only (the SDK's default authentication)", tr.GrantType))
		return
	}
	var app *App
	for i := range p.apps {
		a := &p.apps[i]
		if a.ClientSecret != "" && a.ClientID == tr.ClientID &&
			subtle.ConstantTimeCompare([]byte(a.ClientSecret), []byte(tr.ClientSecret)) == 1 {
			app = a
			break
		}
	}
	if app == nil {
		oauthError(w, http.StatusUnauthorized, "invalid_client", "Unknown client_id or wrong client_secret")
		return
	}
	if tr.AppID != app.Identifier {
		oauthError(w, http.StatusBadRequest, "invalid_grant", fmt.Sprintf("app_id %q is not the identifier of this client's app", tr.AppID))
		return
	}
	var in *installation
	p.hs.mu.Lock()
	for _, c := range p.hs.byID {
		if c.app == app.Identifier && subtle.ConstantTimeCompare([]byte(c.appSecret), []byte(tr.AppSecret)) == 1 {
			in = c
			break
		}
	}
	p.hs.mu.Unlock()
	if in == nil {
		oauthError(w, http.StatusBadRequest, "invalid_grant", "app_secret is not the secret of an installation of this app (it comes with the installed event)")
		return
	}
	tok := randomID() + randomID()
	if p.tokens == nil {
		oauthError(w, http.StatusInternalServerError, "server_error", "This server accepts no tokens")
		return
	}
	if err := p.tokens.AddFor(tok, p.cfg.TokenLifetime); err != nil {
		oauthError(w, http.StatusInternalServerError, "server_error", err.Error())
		return
	}
	p.subs.MapToken(tok, in.org)
	now := p.cfg.Now()
	p.hs.mu.Lock()
	dropped := p.expiredTokens(now)
	all := append(p.hs.minted[app.Identifier], minted{token: tok, org: in.org, expires: now.Add(p.cfg.TokenLifetime)})
	if n := len(all) - p.cfg.MaxAppTokens; n > 0 {
		dropped = append(dropped, all[:n]...)
		all = slices.Delete(all, 0, n)
	}
	p.hs.minted[app.Identifier] = all
	p.hs.mu.Unlock()
	p.revoke(dropped)
	server.WriteJSON(w, http.StatusOK, map[string]any{
		"access_token": tok,
		"token_type":   "bearer",
		"expires_in":   int64(p.cfg.TokenLifetime / time.Second),
	})
}

// jwtContext is the context claim of a module call's JWT.
type jwtContext struct {
	ProjectID          int64  `json:"project_id"`
	ProjectIdentifier  string `json:"project_identifier,omitempty"`
	OrganizationID     int64  `json:"organization_id"`
	OrganizationDomain string `json:"organization_domain,omitempty"`
	UserID             int64  `json:"user_id"`
}

// ModuleClaims are the claims of the JWT croql serve sends with a module
// call, as the platform's SDK reads them (JwtPayload).
type ModuleClaims struct {
	Domain  string     `json:"domain,omitempty"`
	Module  string     `json:"module,omitempty"`
	Context jwtContext `json:"context"`
	jwt.RegisteredClaims
}

// moduleJWT signs the JWT of a call of module key of app a for project
// proj in organization org.
func (p *Platform) moduleJWT(a App, key string, projectID int64, projectIdentifier, org string) (string, error) {
	now := p.cfg.Now()
	id, domain := orgClaims(org)
	c := ModuleClaims{
		Domain: domain,
		Module: key,
		Context: jwtContext{ProjectID: projectID, ProjectIdentifier: projectIdentifier,
			OrganizationID: id, OrganizationDomain: domain, UserID: p.cfg.UserID},
		RegisteredClaims: jwt.RegisteredClaims{
			Audience:  jwt.ClaimStrings{a.ClientID},
			Subject:   strconv.FormatInt(p.cfg.UserID, 10),
			IssuedAt:  jwt.NewNumericDate(now),
			ExpiresAt: jwt.NewNumericDate(now.Add(jwtLifetime)),
		},
	}
	return jwt.NewWithClaims(jwt.SigningMethodHS256, c).SignedString([]byte(a.ClientSecret))
}

// serveInstall is POST /admin/applications/{app}/organizations/{org}/installation:
// it sends the installed event (when the app is not installed there yet).
func (p *Platform) serveInstall(w http.ResponseWriter, r *http.Request) {
	app, org := r.PathValue("app"), r.PathValue("org")
	found := false
	for _, a := range p.apps {
		if a.Identifier != app {
			continue
		}
		found = true
		if a.ClientSecret == "" {
			server.WriteError(w, http.StatusBadRequest, "The app "+app+" has no client secret (--app-client-secret): croql serve calls it without the handshake")
			return
		}
		if err := p.Install(r.Context(), a, org, p.publicURL(r)); err != nil {
			server.WriteError(w, http.StatusBadGateway, err.Error())
			return
		}
	}
	if !found {
		server.WriteError(w, http.StatusNotFound, "No registered app has the identifier "+app)
		return
	}
	server.WriteJSON(w, http.StatusOK, map[string]any{"data": map[string]any{"app": app, "organization": org, "installed": true}})
}

// serveUninstall is DELETE /admin/applications/{app}/organizations/{org}/installation.
func (p *Platform) serveUninstall(w http.ResponseWriter, r *http.Request) {
	app, org := r.PathValue("app"), r.PathValue("org")
	was, err := p.Uninstall(r.Context(), app, org, p.publicURL(r))
	if err != nil {
		server.WriteError(w, http.StatusBadGateway, err.Error()+" (the installation is forgotten and its tokens revoked)")
		return
	}
	if !was {
		server.WriteError(w, http.StatusNotFound, "The app "+app+" is not installed in the organization "+org)
		return
	}
	server.WriteJSON(w, http.StatusOK, map[string]any{"data": map[string]any{"app": app, "organization": org, "installed": false}})
}

// joinURL resolves an event path of a descriptor against the app's base
// address (an absolute URL is kept).
func joinURL(base, path string) string {
	if u, err := url.Parse(path); err == nil && u.IsAbs() {
		return path
	}
	return base + path
}

// registerHandshake adds the handshake's routes.
func (p *Platform) registerHandshake(s *server.Server) {
	p.tokens = s.Tokens()
	s.HandlePublic("POST "+TokenPath, http.HandlerFunc(p.serveToken))
	if p.cfg.AdminTokens.Len() > 0 {
		p.handleAdmin(s, "POST /admin/applications/{app}/organizations/{org}/installation", http.HandlerFunc(p.serveInstall))
		p.handleAdmin(s, "DELETE /admin/applications/{app}/organizations/{org}/installation", http.HandlerFunc(p.serveUninstall))
	}
}
