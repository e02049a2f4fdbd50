package platform_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/croql/croql/schema"
	"github.com/croql/croql/server"
	"github.com/croql/croql/server/platform"
)

// fakeClock is a clock a test moves by hand.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// serveWithClock is serveStorage (SQLite) whose accepted tokens expire
// by clock.
func serveWithClock(t *testing.T, clock *fakeClock, cfg platform.Config) *httptest.Server {
	t.Helper()
	ctx := context.Background()
	st, err := server.LoadSQLite(ctx, t.TempDir(), &schema.Project{Name: "demo", SourceLanguage: "en", TargetLanguages: []string{"uk"}})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, st.Close()) })
	tokens := &server.Tokens{}
	tokens.SetClock(clock.Now)
	require.NoError(t, tokens.Add(token))
	srv, err := server.New(server.Config{Storage: st, Tokens: tokens})
	require.NoError(t, err)
	cfg.AdminTokens = &server.Tokens{}
	require.NoError(t, cfg.AdminTokens.Add(adminToken))
	p, err := platform.New(ctx, cfg)
	require.NoError(t, err)
	p.Register(srv)
	hs := httptest.NewServer(srv)
	t.Cleanup(hs.Close)
	return hs
}

// installSDKApp installs an SDK-like app in organization 1 and returns
// its app secret and the token its installed event fetched.
func installSDKApp(t *testing.T, base string, app *sdkLikeApp) (secret, tok string) {
	t.Helper()
	app.platformURL = base
	status, body := do(t, http.MethodPost, base+"/admin/applications/sdk-app/organizations/1/installation", nil, asAdmin)
	require.Equal(t, http.StatusOK, status, string(body))
	app.mu.Lock()
	defer app.mu.Unlock()
	return app.installed[0]["appSecret"].(string), app.tokens["1"]
}

// mint asks the token endpoint for a token of the installation whose
// app secret is secret.
func mint(t *testing.T, base, secret string) string {
	t.Helper()
	b, _ := json.Marshal(map[string]any{"grant_type": "crowdin_app", "client_id": clientID, "client_secret": clientSecret,
		"app_id": "sdk-app", "app_secret": secret})
	resp, err := http.Post(base+platform.TokenPath, "application/json", bytes.NewReader(b))
	require.NoError(t, err)
	defer resp.Body.Close()
	var out struct {
		AccessToken string `json:"access_token"`
	}
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&out))
	return out.AccessToken
}

func projectsStatus(t *testing.T, base, tok string) int {
	t.Helper()
	status, _ := doAs(t, tok, http.MethodGet, base+"/api/v2/projects", nil, nil)
	return status
}

// TestAppTokensExpire: an issued token is accepted for its expires_in
// (an hour) and refused from then on.
func TestAppTokensExpire(t *testing.T) {
	clock := &fakeClock{now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	app := startSDKLikeApp(t, "sdk-app")
	base := serveWithClock(t, clock, platform.Config{Apps: []string{app.URL},
		Credentials: []platform.Credentials{{ClientID: clientID, ClientSecret: clientSecret}}})
	_, tok := installSDKApp(t, base.URL, app)
	require.NotEmpty(t, tok)
	require.Equal(t, http.StatusOK, projectsStatus(t, base.URL, tok))
	clock.add(platform.DefaultTokenLifetime - time.Second)
	require.Equal(t, http.StatusOK, projectsStatus(t, base.URL, tok), "a second before its expiry")
	clock.add(time.Second)
	require.Equal(t, http.StatusUnauthorized, projectsStatus(t, base.URL, tok), "an expired token is refused")
	require.Equal(t, http.StatusOK, projectsStatus(t, base.URL, token), "the configured tokens do not expire")
}

// TestAppTokensCappedPerApp: an app holds at most MaxAppTokens tokens;
// minting one more revokes its oldest.
func TestAppTokensCappedPerApp(t *testing.T) {
	app := startSDKLikeApp(t, "sdk-app")
	base, _ := startServe(t, platform.Config{Apps: []string{app.URL}, MaxAppTokens: 3,
		Credentials: []platform.Credentials{{ClientID: clientID, ClientSecret: clientSecret}}})
	secret, first := installSDKApp(t, base.URL, app)
	toks := []string{first}
	for range 3 {
		toks = append(toks, mint(t, base.URL, secret))
	}
	require.Equal(t, http.StatusUnauthorized, projectsStatus(t, base.URL, toks[0]), "the oldest token is dropped past the cap")
	for i, tok := range toks[1:] {
		require.Equal(t, http.StatusOK, projectsStatus(t, base.URL, tok), "token %d", i+1)
	}
}
