package platform_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/golang-jwt/jwt/v5"

	"github.com/croql/croql/schema"
	"github.com/croql/croql/server"
	"github.com/croql/croql/server/platform"
)

// An app registered with its client credentials gets the platform SDK's
// handshake: its installed event comes with an app secret it trades for
// a token at the token endpoint, and every module call carries a JWT
// signed with the client secret.
func ExampleConfig_credentials() {
	const secret = "client-secret"
	var croqlURL string
	mux := http.NewServeMux()
	app := httptest.NewServer(mux)
	defer app.Close()
	mux.HandleFunc("GET /manifest.json", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, `{"identifier":"my-app","baseUrl":%q,"authentication":{"clientId":"my-client"},
		  "modules":{"file-post-import":[{"key":"split","url":"/post-import"}]}}`, app.URL)
	})
	mux.HandleFunc("POST /installed", func(w http.ResponseWriter, r *http.Request) {
		var ev struct{ AppSecret string }
		_ = json.NewDecoder(r.Body).Decode(&ev)
		body, _ := json.Marshal(map[string]string{"grant_type": "crowdin_app", "client_id": "my-client",
			"client_secret": secret, "app_id": "my-app", "app_secret": ev.AppSecret})
		resp, err := http.Post(croqlURL+platform.TokenPath, "application/json", bytes.NewReader(body))
		if err == nil {
			fmt.Println("installed; token endpoint:", resp.StatusCode)
			resp.Body.Close()
		}
		w.WriteHeader(http.StatusNoContent)
	})
	mux.HandleFunc("POST /post-import", func(w http.ResponseWriter, r *http.Request) {
		c := &platform.ModuleClaims{}
		_, err := jwt.ParseWithClaims(strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer "), c,
			func(*jwt.Token) (any, error) { return []byte(secret), nil }, jwt.WithValidMethods([]string{"HS256"}))
		fmt.Println("JWT valid:", err == nil, "module:", c.Module, "project:", c.Context.ProjectID, "organization:", c.Context.OrganizationID)
		var job struct {
			JobType string          `json:"jobType"`
			Strings json.RawMessage `json:"strings"`
		}
		_ = json.NewDecoder(r.Body).Decode(&job)
		fmt.Println("jobType:", job.JobType)
		fmt.Fprintf(w, `{"data":{"strings":%s}}`, job.Strings)
	})

	ctx := context.Background()
	st, _ := server.LoadSQLite(ctx, "", &schema.Project{Name: "demo", SourceLanguage: "en", TargetLanguages: []string{"de"}})
	defer st.Close()
	tokens := &server.Tokens{}
	_ = tokens.Add("dev-token")
	srv, _ := server.New(server.Config{Storage: st, Tokens: tokens})
	p, err := platform.New(ctx, platform.Config{Apps: []string{app.URL}, Credentials: []platform.Credentials{{ClientSecret: secret}}})
	if err != nil {
		fmt.Println(err)
		return
	}
	p.Register(srv)
	croql := httptest.NewServer(srv)
	defer croql.Close()
	croqlURL = croql.URL

	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	fw, _ := mw.CreateFormFile("file", "app.json")
	_, _ = fw.Write([]byte(`{"hello":"Hello"}`))
	_ = mw.Close()
	req, _ := http.NewRequest(http.MethodPost, croql.URL+"/api/v2/projects/1/files", &body)
	req.Header.Set("Authorization", "Bearer dev-token")
	req.Header.Set("Content-Type", mw.FormDataContentType())
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		fmt.Println(err)
		return
	}
	resp.Body.Close()
	fmt.Println("upload:", resp.StatusCode)
	// Output:
	// installed; token endpoint: 200
	// JWT valid: true module: split project: 1 organization: 1
	// jobType: post-import-file
	// upload: 201
}
