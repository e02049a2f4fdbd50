package platform_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/croql/croql/app/postimport"
	"github.com/croql/croql/internal/testdb"
	"github.com/croql/croql/schema"
	"github.com/croql/croql/server"
	"github.com/croql/croql/server/platform"
)

// Tokens of serveTenants: one reads project 1, the other projects 1
// and 2 (so both can import into project 1).
const (
	tokProject1  = "token-project-1"
	tokProject12 = "token-projects-1-2"
)

// serveTenants runs croql serve on engine with the tokens above.
func serveTenants(t *testing.T, engine string) *httptest.Server {
	t.Helper()
	ctx := context.Background()
	data := &schema.Project{Name: "demo", SourceLanguage: "en", TargetLanguages: []string{"uk"}}
	var st *server.Storage
	var err error
	if engine == "sqlite" {
		st, err = server.LoadSQLite(ctx, t.TempDir(), data)
	} else {
		st, err = server.LoadServer(ctx, engine, testdb.DSN(engine), data)
	}
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, st.Close()) })
	tokens := &server.Tokens{}
	require.NoError(t, tokens.Add(tokProject1, 1))
	require.NoError(t, tokens.Add(tokProject12, 1, 2))
	srv, err := server.New(server.Config{Storage: st, Tokens: tokens})
	require.NoError(t, err)
	p, err := platform.New(ctx, platform.Config{})
	require.NoError(t, err)
	p.Register(srv)
	hs := httptest.NewServer(srv)
	t.Cleanup(hs.Close)
	return hs
}

func addStorageAs(t *testing.T, base, tok, name, content string) int64 {
	t.Helper()
	status, body := doAs(t, tok, http.MethodPost, base+"/api/v2/storages", strings.NewReader(content),
		map[string]string{"Crowdin-API-FileName": name})
	require.Equal(t, http.StatusCreated, status, string(body))
	var out struct {
		Data struct {
			ID int64 `json:"id"`
		} `json:"data"`
	}
	require.NoError(t, json.Unmarshal(body, &out))
	return out.Data.ID
}

func listStorageIDs(t *testing.T, base, tok string) []int64 {
	t.Helper()
	status, body := doAs(t, tok, http.MethodGet, base+"/api/v2/storages?limit=500", nil, nil)
	require.Equal(t, http.StatusOK, status, string(body))
	var out struct {
		Data []struct {
			Data struct {
				ID int64 `json:"id"`
			} `json:"data"`
		} `json:"data"`
	}
	require.NoError(t, json.Unmarshal(body, &out))
	ids := []int64{}
	for _, d := range out.Data {
		ids = append(ids, d.Data.ID)
	}
	return ids
}

// TestStoragesBelongToTheirOwner: a token with other projects neither
// lists, reads, imports nor deletes another token's storage; its owner
// does.
func TestStoragesBelongToTheirOwner(t *testing.T) {
	for _, engine := range testdb.Engines(t) {
		t.Run(engine, func(t *testing.T) {
			base := serveTenants(t, engine).URL
			id := addStorageAs(t, base, tokProject1, "app.json", `{"hi":"Hello"}`)
			url := fmt.Sprintf("%s/api/v2/storages/%d", base, id)

			require.Empty(t, listStorageIDs(t, base, tokProject12), "another owner's storage is not listed")
			status, _ := doAs(t, tokProject12, http.MethodGet, url, nil, nil)
			require.Equal(t, http.StatusNotFound, status, "nor read")
			status, body := doAs(t, tokProject12, http.MethodPost, base+"/api/v2/projects/1/files",
				strings.NewReader(fmt.Sprintf(`{"storageId":%d,"name":"app.json"}`, id)), map[string]string{"Content-Type": "application/json"})
			require.Equal(t, http.StatusBadRequest, status, "nor imported: %s", body)
			require.Contains(t, string(body), "no storage")
			status, _ = doAs(t, tokProject12, http.MethodDelete, url, nil, nil)
			require.Equal(t, http.StatusNotFound, status, "nor deleted")

			require.Equal(t, []int64{id}, listStorageIDs(t, base, tokProject1))
			status, _ = doAs(t, tokProject1, http.MethodGet, url, nil, nil)
			require.Equal(t, http.StatusOK, status)
			status, body = doAs(t, tokProject1, http.MethodPost, base+"/api/v2/projects/1/files",
				strings.NewReader(fmt.Sprintf(`{"storageId":%d,"name":"app.json"}`, id)), map[string]string{"Content-Type": "application/json"})
			require.Equal(t, http.StatusCreated, status, string(body))

			id = addStorageAs(t, base, tokProject1, "b.json", `{}`)
			status, _ = doAs(t, tokProject1, http.MethodDelete, fmt.Sprintf("%s/api/v2/storages/%d", base, id), nil, nil)
			require.Equal(t, http.StatusNoContent, status)
		})
	}
}

// TestStorageFloodEvictsOnlyItsOwner: one owner's many small storages
// evict its own oldest, never another owner's.
func TestStorageFloodEvictsOnlyItsOwner(t *testing.T) {
	base := serveTenants(t, "sqlite").URL
	mine := addStorageAs(t, base, tokProject1, "mine.json", `{"hi":"Hello"}`)
	var flood []int64
	for i := range 100 {
		flood = append(flood, addStorageAs(t, base, tokProject12, fmt.Sprintf("f%d.json", i), `{}`))
	}
	status, _ := doAs(t, tokProject1, http.MethodGet, fmt.Sprintf("%s/api/v2/storages/%d", base, mine), nil, nil)
	require.Equal(t, http.StatusOK, status, "another owner's flood does not evict this storage")
	kept := listStorageIDs(t, base, tokProject12)
	require.Less(t, len(kept), len(flood), "the flooding owner keeps a bounded number")
	require.Equal(t, flood[len(flood)-len(kept):], kept, "its newest")
}

// TestTwoStepTranslationActsForTheTokensOrganization: the job of a
// two-step translation upload is the token's organization's, as a
// one-step upload's is (it used to be organization 1 whatever the token).
func TestTwoStepTranslationActsForTheTokensOrganization(t *testing.T) {
	var orgs []int64
	var mu sync.Mutex
	h, err := postimport.NewHandler(postimport.ProcessorFunc(func(ctx context.Context, job *postimport.Job) ([]postimport.String, error) {
		mu.Lock()
		orgs = append(orgs, job.Organization.ID)
		mu.Unlock()
		return job.Strings, nil
	}), postimport.Config{})
	require.NoError(t, err)
	t.Cleanup(func() { _ = h.Close() })
	app := startApp(t, "echo", nil, h)
	subs, err := platform.ReadSubscriptions(strings.NewReader(`{"organizations":{"` + token + `":"7"}}`))
	require.NoError(t, err)
	base, _ := startServe(t, platform.Config{Apps: []string{app.URL}, Subscriptions: subs})

	status, body := uploadFile(t, base.URL, "/api/v2/projects/1/files", "app.json", `{"hi":"Hello"}`, nil)
	require.Equal(t, http.StatusCreated, status, string(body))
	id := addStorageAs(t, base.URL, token, "uk.json", `{"hi":"Привіт"}`)
	status, body = do(t, http.MethodPost, base.URL+"/api/v2/projects/1/translations/uk",
		strings.NewReader(fmt.Sprintf(`{"storageId":%d,"fileId":1}`, id)), map[string]string{"Content-Type": "application/json"})
	require.Equal(t, http.StatusOK, status, string(body))
	mu.Lock()
	defer mu.Unlock()
	require.Equal(t, []int64{7, 7}, orgs, "both jobs act for the token's organization")
}
