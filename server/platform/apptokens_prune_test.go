package platform_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/croql/croql/schema"
	"github.com/croql/croql/server"
	"github.com/croql/croql/server/platform"
)

// TestExpiredAppTokensFreed: an expired app token is not only refused
// but forgotten: the next mint drops it from the accepted tokens and
// from the organizations' map, so tokens no app uses stop taking memory.
func TestExpiredAppTokensFreed(t *testing.T) {
	clock := &fakeClock{now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	app := startSDKLikeApp(t, "sdk-app")
	ctx := context.Background()
	st, err := server.LoadSQLite(ctx, t.TempDir(), &schema.Project{Name: "demo", SourceLanguage: "en", TargetLanguages: []string{"uk"}})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, st.Close()) })
	tokens := &server.Tokens{}
	tokens.SetClock(clock.Now)
	require.NoError(t, tokens.Add(token))
	srv, err := server.New(server.Config{Storage: st, Tokens: tokens})
	require.NoError(t, err)
	admin := &server.Tokens{}
	require.NoError(t, admin.Add(adminToken))
	p, err := platform.New(ctx, platform.Config{Apps: []string{app.URL}, Now: clock.Now, AdminTokens: admin,
		Credentials: []platform.Credentials{{ClientID: clientID, ClientSecret: clientSecret}}})
	require.NoError(t, err)
	p.Register(srv)
	hs := httptest.NewServer(srv)
	t.Cleanup(hs.Close)

	// Installed in organization 7, so its tokens map to it.
	app.platformURL = hs.URL
	status, body := do(t, http.MethodPost, hs.URL+"/admin/applications/sdk-app/organizations/7/installation", nil, asAdmin)
	require.Equal(t, http.StatusOK, status, string(body))
	app.mu.Lock()
	secret, first := app.installed[0]["appSecret"].(string), app.tokens["7"]
	app.mu.Unlock()
	old := []string{first}
	for range 4 {
		old = append(old, mint(t, hs.URL, secret))
	}
	require.Equal(t, 1+len(old), tokens.Len())
	require.Equal(t, "7", p.Subscriptions().Organization(old[0]))

	clock.add(platform.DefaultTokenLifetime)
	fresh := mint(t, hs.URL, secret)
	require.Equal(t, 2, tokens.Len(), "the configured token and the new one; the expired are freed")
	require.Equal(t, http.StatusOK, projectsStatus(t, hs.URL, fresh))
	for _, tok := range old {
		require.Equal(t, http.StatusUnauthorized, projectsStatus(t, hs.URL, tok))
		require.Equal(t, platform.DefaultOrganization, p.Subscriptions().Organization(tok))
	}
}
