package platform_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/golang-jwt/jwt/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/croql/croql/app/postimport"
	"github.com/croql/croql/server/platform"
)

const (
	clientID     = "client-1"
	clientSecret = "secret-1"
)

// sdkLikeApp does what the platform's SDK does with croql serve: its
// installed event fetches a token from the token endpoint, its module
// route verifies the JWT (HS256 with the client secret) and, with the
// token, asks croql serve for the organization's subscription.
type sdkLikeApp struct {
	*httptest.Server
	platformURL string
	mu          sync.Mutex
	installed   []map[string]any
	uninstalled []map[string]any
	tokens      map[string]string // organization → access token
	claims      []*platform.ModuleClaims
	jobTypes    []string
	subStatus   []int
	// answer, when set, replaces the pass-through answer.
	answer func(w http.ResponseWriter)
}

func startSDKLikeApp(t *testing.T, id string) *sdkLikeApp {
	t.Helper()
	a := &sdkLikeApp{tokens: map[string]string{}}
	mux := http.NewServeMux()
	a.Server = httptest.NewServer(mux)
	t.Cleanup(a.Close)
	mux.HandleFunc("GET /manifest.json", func(w http.ResponseWriter, r *http.Request) {
		_ = json.NewEncoder(w).Encode(map[string]any{"identifier": id, "baseUrl": a.URL,
			"authentication": map[string]string{"type": "crowdin_app", "clientId": clientID},
			"events":         map[string]string{"installed": "/installed", "uninstall": "/uninstall"},
			"modules":        postimport.Modules{FilePostImport: []postimport.Module{{Key: id + "-poi", URL: "/post-import"}}}})
	})
	mux.HandleFunc("POST /installed", func(w http.ResponseWriter, r *http.Request) {
		var ev map[string]any
		if err := json.NewDecoder(r.Body).Decode(&ev); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		body, _ := json.Marshal(map[string]any{"grant_type": "crowdin_app", "client_id": clientID, "client_secret": clientSecret,
			"app_id": id, "app_secret": ev["appSecret"], "domain": ev["domain"], "user_id": ev["userId"]})
		resp, err := http.Post(a.platformURL+platform.TokenPath, "application/json", bytes.NewReader(body))
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		defer resp.Body.Close()
		var tok struct {
			AccessToken string `json:"access_token"`
			ExpiresIn   int    `json:"expires_in"`
		}
		if resp.StatusCode != http.StatusOK || json.NewDecoder(resp.Body).Decode(&tok) != nil || tok.AccessToken == "" || tok.ExpiresIn <= 0 {
			http.Error(w, "no token", http.StatusBadGateway)
			return
		}
		org := orgOf(ev)
		a.mu.Lock()
		a.installed = append(a.installed, ev)
		a.tokens[org] = tok.AccessToken
		a.mu.Unlock()
		w.WriteHeader(http.StatusNoContent)
	})
	mux.HandleFunc("POST /uninstall", func(w http.ResponseWriter, r *http.Request) {
		var ev map[string]any
		_ = json.NewDecoder(r.Body).Decode(&ev)
		a.mu.Lock()
		a.uninstalled = append(a.uninstalled, ev)
		a.mu.Unlock()
		w.WriteHeader(http.StatusNoContent)
	})
	mux.HandleFunc("POST /post-import", func(w http.ResponseWriter, r *http.Request) {
		raw, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		c := &platform.ModuleClaims{}
		if _, err := jwt.ParseWithClaims(raw, c, func(*jwt.Token) (any, error) { return []byte(clientSecret), nil },
			jwt.WithValidMethods([]string{"HS256"}), jwt.WithAudience(clientID)); !ok || err != nil {
			w.WriteHeader(http.StatusForbidden)
			_, _ = io.WriteString(w, `{"error":"Access denied"}`)
			return
		}
		var job postimport.Job
		if err := json.NewDecoder(r.Body).Decode(&job); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		org := c.Domain
		if org == "" {
			org = jsonNumber(c.Context.OrganizationID)
		}
		a.mu.Lock()
		tok := a.tokens[org]
		a.mu.Unlock()
		req, _ := http.NewRequest(http.MethodGet, a.platformURL+"/api/v2/applications/"+id+"/subscription", nil)
		req.Header.Set("Authorization", "Bearer "+tok)
		resp, err := http.DefaultClient.Do(req)
		status := 0
		if err == nil {
			status = resp.StatusCode
			resp.Body.Close()
		}
		a.mu.Lock()
		a.claims = append(a.claims, c)
		a.jobTypes = append(a.jobTypes, job.JobType)
		a.subStatus = append(a.subStatus, status)
		answer := a.answer
		a.mu.Unlock()
		if answer != nil {
			answer(w)
			return
		}
		_ = json.NewEncoder(w).Encode(map[string]any{"data": map[string]any{"strings": job.Strings}})
	})
	return a
}

func orgOf(ev map[string]any) string {
	if d, _ := ev["domain"].(string); d != "" {
		return d
	}
	n, _ := ev["organizationId"].(float64)
	return jsonNumber(int64(n))
}

func jsonNumber(n int64) string { b, _ := json.Marshal(n); return string(b) }

// TestSDKHandshake: with client credentials croql serve installs the app
// in the uploader's organization before its first job (once), issues a
// token croql serve's API accepts and that acts for that organization,
// signs a JWT with the project, organization, user and module, sends
// jobType post-import-file, and on uninstall revokes the token.
func TestSDKHandshake(t *testing.T) {
	app := startSDKLikeApp(t, "sdk-app")
	subs, err := platform.ReadSubscriptions(strings.NewReader(`{"organizations":{"` + token + `":"7"},
	  "subscriptions":[{"organization":"7","app":"sdk-app","status":"active","expires":"2099-01-01 00:00:00"}]}`))
	require.NoError(t, err)
	base, p := startServe(t, platform.Config{Apps: []string{app.URL}, Subscriptions: subs,
		Credentials: []platform.Credentials{{ClientSecret: clientSecret}}})
	app.platformURL = base.URL
	require.Equal(t, clientID, p.Apps()[0].ClientID, "the client id comes from the descriptor")

	for _, name := range []string{"a.json", "b.json"} {
		status, body := uploadFile(t, base.URL, "/api/v2/projects/1/files", name, `{"hello":"Hello"}`, nil)
		require.Equal(t, http.StatusCreated, status, string(body))
	}
	require.Equal(t, []string{"hello=\"Hello\"", "hello=\"Hello\""}, listStrings(t, base.URL, `identifier = "hello"`))

	app.mu.Lock()
	require.Len(t, app.installed, 1, "one installed event for one organization")
	ev := app.installed[0]
	assert.Equal(t, "sdk-app", ev["appId"])
	assert.Equal(t, clientID, ev["clientId"])
	assert.EqualValues(t, 7, ev["organizationId"])
	assert.EqualValues(t, 1, ev["userId"])
	assert.Equal(t, base.URL, ev["baseUrl"])
	require.Len(t, app.claims, 2)
	c := app.claims[0]
	assert.EqualValues(t, 1, c.Context.ProjectID)
	assert.EqualValues(t, 7, c.Context.OrganizationID)
	assert.EqualValues(t, 1, c.Context.UserID)
	assert.Equal(t, "sdk-app-poi", c.Module)
	assert.Equal(t, "1", c.Subject)
	assert.Equal(t, []string{postimport.JobTypeSDK, postimport.JobTypeSDK}, app.jobTypes)
	assert.Equal(t, []int{http.StatusOK, http.StatusOK}, app.subStatus, "the issued token acts for organization 7, whose subscription is active")
	tok := app.tokens["7"]
	app.mu.Unlock()

	// croql serve's API accepts the issued token.
	apiGet := func(tok string) int {
		req, _ := http.NewRequest(http.MethodGet, base.URL+"/api/v2/projects/1/strings?croql="+`identifier%20%3D%20%22hello%22`, nil)
		req.Header.Set("Authorization", "Bearer "+tok)
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		resp.Body.Close()
		return resp.StatusCode
	}
	require.Equal(t, http.StatusOK, apiGet(tok))
	require.True(t, p.Installed("sdk-app", "7"))

	// Uninstall: the event carries the installation's app secret; the
	// token is revoked.
	status, body := do(t, http.MethodDelete, base.URL+"/admin/applications/sdk-app/organizations/7/installation", nil, asAdmin)
	require.Equal(t, http.StatusOK, status, string(body))
	app.mu.Lock()
	require.Len(t, app.uninstalled, 1)
	assert.Equal(t, ev["appSecret"], app.uninstalled[0]["appSecret"])
	app.mu.Unlock()
	require.Equal(t, http.StatusUnauthorized, apiGet(tok))
	require.False(t, p.Installed("sdk-app", "7"))
	status, _ = do(t, http.MethodDelete, base.URL+"/admin/applications/sdk-app/organizations/7/installation", nil, asAdmin)
	require.Equal(t, http.StatusNotFound, status)

	// An explicit install sends the event again.
	status, body = do(t, http.MethodPost, base.URL+"/admin/applications/sdk-app/organizations/7/installation", nil, asAdmin)
	require.Equal(t, http.StatusOK, status, string(body))
	app.mu.Lock()
	require.Len(t, app.installed, 2)
	assert.NotEqual(t, ev["appSecret"], app.installed[1]["appSecret"], "a new installation has a new app secret")
	app.mu.Unlock()
}

// TestTokenEndpointRefusals: the token endpoint wants the app's client
// credentials, its identifier and the app secret of an installation.
func TestTokenEndpointRefusals(t *testing.T) {
	app := startSDKLikeApp(t, "sdk-app")
	base, _ := startServe(t, platform.Config{Apps: []string{app.URL}, Credentials: []platform.Credentials{{ClientID: clientID, ClientSecret: clientSecret}}})
	app.platformURL = base.URL
	status, body := do(t, http.MethodPost, base.URL+"/admin/applications/sdk-app/organizations/1/installation", nil, asAdmin)
	require.Equal(t, http.StatusOK, status, string(body))
	app.mu.Lock()
	secret := app.installed[0]["appSecret"].(string)
	app.mu.Unlock()
	post := func(m map[string]any) (int, map[string]any) {
		b, _ := json.Marshal(m)
		resp, err := http.Post(base.URL+platform.TokenPath, "application/json", bytes.NewReader(b))
		require.NoError(t, err)
		defer resp.Body.Close()
		var out map[string]any
		require.NoError(t, json.NewDecoder(resp.Body).Decode(&out))
		return resp.StatusCode, out
	}
	good := map[string]any{"grant_type": "crowdin_app", "client_id": clientID, "client_secret": clientSecret, "app_id": "sdk-app", "app_secret": secret}
	status, out := post(good)
	require.Equal(t, http.StatusOK, status, out)
	require.Equal(t, "bearer", out["token_type"])
	require.EqualValues(t, 3600, out["expires_in"])
	for _, tc := range []struct {
		key, value string
		status     int
		code       string
	}{
		{"client_secret", "wrong", http.StatusUnauthorized, "invalid_client"},
		{"client_id", "other", http.StatusUnauthorized, "invalid_client"},
		{"app_id", "other-app", http.StatusBadRequest, "invalid_grant"},
		{"app_secret", "not-installed", http.StatusBadRequest, "invalid_grant"},
		{"grant_type", "authorization_code", http.StatusBadRequest, "unsupported_grant_type"},
	} {
		m := map[string]any{}
		for k, v := range good {
			m[k] = v
		}
		m[tc.key] = tc.value
		status, out := post(m)
		assert.Equal(t, tc.status, status, tc.key)
		assert.Equal(t, tc.code, out["error"], tc.key)
		assert.NotContains(t, out, "access_token", tc.key)
	}
}

// TestModuleRefusalsAreReadAsWritten: a 402 from the SDK carries the
// subscribe link as its message and the upload's 402 shows it; a 403
// with a JSON body whose error is a string says what the app said; a
// JSON body without any error says so (not "without a JSON body").
func TestModuleRefusalsAreReadAsWritten(t *testing.T) {
	app := startSDKLikeApp(t, "sdk-app")
	base, _ := startServe(t, platform.Config{Apps: []string{app.URL}, Credentials: []platform.Credentials{{ClientSecret: clientSecret}}})
	app.platformURL = base.URL
	set := func(status int, body string) {
		app.mu.Lock()
		app.answer = func(w http.ResponseWriter) { w.WriteHeader(status); _, _ = io.WriteString(w, body) }
		app.mu.Unlock()
	}
	errorOf := func(body []byte) map[string]any {
		var out struct {
			Error map[string]any `json:"error"`
		}
		require.NoError(t, json.Unmarshal(body, &out), string(body))
		return out.Error
	}

	set(http.StatusPaymentRequired, `{"message":"https://pay.example/checkout","code":402}`)
	status, body := uploadFile(t, base.URL, "/api/v2/projects/1/files", "a.json", `{"k":"v"}`, nil)
	require.Equal(t, http.StatusPaymentRequired, status, string(body))
	e := errorOf(body)
	assert.Equal(t, "https://pay.example/checkout", e["subscribeLink"])
	assert.Contains(t, e["message"], "subscribe at https://pay.example/checkout")

	set(http.StatusForbidden, `{"error":"Access denied"}`)
	status, body = uploadFile(t, base.URL, "/api/v2/projects/1/files", "a.json", `{"k":"v"}`, nil)
	require.Equal(t, http.StatusUnprocessableEntity, status, string(body))
	assert.Equal(t, "Access denied", errorOf(body)["message"])

	set(http.StatusForbidden, `{"code":403}`)
	status, body = uploadFile(t, base.URL, "/api/v2/projects/1/files", "a.json", `{"k":"v"}`, nil)
	require.Equal(t, http.StatusBadGateway, status, string(body))
	msg := errorOf(body)["message"].(string)
	assert.Contains(t, msg, "answered HTTP 403 with a JSON body without error.message")
	assert.NotContains(t, msg, "without a JSON body")

	set(http.StatusForbidden, `{"message":"Module key doesn't match","code":403}`)
	status, body = uploadFile(t, base.URL, "/api/v2/projects/1/files", "a.json", `{"k":"v"}`, nil)
	require.Equal(t, http.StatusBadGateway, status, string(body))
	assert.Contains(t, errorOf(body)["message"], "answered HTTP 403: Module key doesn't match")

	set(http.StatusForbidden, `Forbidden`)
	status, body = uploadFile(t, base.URL, "/api/v2/projects/1/files", "a.json", `{"k":"v"}`, nil)
	require.Equal(t, http.StatusBadGateway, status, string(body))
	assert.Contains(t, errorOf(body)["message"], "answered HTTP 403 without a JSON body")
	require.Empty(t, listStrings(t, base.URL, `identifier = "k"`), "nothing was imported")
}

// TestJobTypeOption: the documentation's spelling on request; anything
// else refused; client credentials checked against the descriptor.
func TestJobTypeOption(t *testing.T) {
	app := startSDKLikeApp(t, "sdk-app")
	base, _ := startServe(t, platform.Config{Apps: []string{app.URL}, JobType: postimport.JobType,
		Credentials: []platform.Credentials{{ClientSecret: clientSecret}}})
	app.platformURL = base.URL
	status, body := uploadFile(t, base.URL, "/api/v2/projects/1/files", "a.json", `{"k":"v"}`, nil)
	require.Equal(t, http.StatusCreated, status, string(body))
	app.mu.Lock()
	assert.Equal(t, []string{postimport.JobType}, app.jobTypes)
	app.mu.Unlock()

	ctx := context.Background()
	_, err := platform.New(ctx, platform.Config{JobType: "post-import"})
	require.ErrorContains(t, err, `jobType "post-import"`)
	_, err = platform.New(ctx, platform.Config{Apps: []string{app.URL}, Credentials: []platform.Credentials{{ClientID: "other", ClientSecret: "s"}}})
	require.ErrorContains(t, err, `authentication.clientId "client-1"`)
	_, err = platform.New(ctx, platform.Config{Apps: []string{app.URL}, Credentials: []platform.Credentials{{ClientID: clientID}}})
	require.ErrorContains(t, err, "no client secret")
	_, err = platform.New(ctx, platform.Config{Apps: []string{app.URL}, Credentials: []platform.Credentials{{}, {}}})
	require.ErrorContains(t, err, "2 app credentials for 1 apps")
}
