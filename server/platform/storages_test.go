package platform_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/croql/croql/internal/testdb"
	"github.com/croql/croql/server/platform"
)

// TestTwoStepUpload: a storage, then a source file and its translations
// by storageId, answering the platform's Storage, File and
// UploadTranslation objects; the strings and translations land.
func TestTwoStepUpload(t *testing.T) {
	for _, engine := range testdb.Engines(t) {
		t.Run(engine, func(t *testing.T) {
			base, _ := startServeOn(t, engine, platform.Config{})
			status, body := do(t, http.MethodPost, base.URL+"/api/v2/storages", strings.NewReader(`{"hi":"Hello","bye":"Bye"}`),
				map[string]string{"Crowdin-API-FileName": "app%20main.json", "Content-Type": "application/octet-stream"})
			require.Equal(t, http.StatusCreated, status, string(body))
			require.JSONEq(t, `{"data":{"id":1,"fileName":"app main.json"}}`, string(body))
			status, body = do(t, http.MethodGet, base.URL+"/api/v2/storages/1", nil, nil)
			require.Equal(t, http.StatusOK, status, string(body))

			status, body = do(t, http.MethodPost, base.URL+"/api/v2/projects/1/files", strings.NewReader(`{"storageId":1,"name":"app.json"}`),
				map[string]string{"Content-Type": "application/json"})
			require.Equal(t, http.StatusCreated, status, string(body))
			var file struct {
				Data map[string]any `json:"data"`
			}
			require.NoError(t, json.Unmarshal(body, &file))
			require.Equal(t, float64(1), file.Data["id"])
			require.Equal(t, float64(1), file.Data["projectId"])
			require.Equal(t, "app.json", file.Data["name"])
			require.Equal(t, "json", file.Data["type"])
			require.Equal(t, "/app.json", file.Data["path"])
			for _, k := range []string{"branchId", "directoryId", "title", "context", "status", "revisionId", "priority", "importOptions",
				"exportOptions", "excludedTargetLanguages", "parserVersion", "createdAt", "updatedAt", "fields"} {
				require.Contains(t, file.Data, k)
			}
			require.Equal(t, []string{`bye="Bye"`, `hi="Hello"`}, listStrings(t, base.URL, ""))
			// A storage is used once.
			status, _ = do(t, http.MethodGet, base.URL+"/api/v2/storages/1", nil, nil)
			require.Equal(t, http.StatusNotFound, status)

			status, body = do(t, http.MethodPost, base.URL+"/api/v2/storages", strings.NewReader(`{"hi":"Привіт"}`),
				map[string]string{"Crowdin-API-FileName": "uk.json"})
			require.Equal(t, http.StatusCreated, status, string(body))
			status, body = do(t, http.MethodPost, base.URL+"/api/v2/projects/1/translations/uk", strings.NewReader(`{"storageId":2,"fileId":1}`),
				map[string]string{"Content-Type": "application/json"})
			require.Equal(t, http.StatusOK, status, string(body))
			require.JSONEq(t, `{"data":{"projectId":1,"storageId":2,"languageId":"uk","fileId":1}}`, string(body))
			require.Equal(t, 1, countTranslations(t, base.URL, "uk"))
			require.Equal(t, 0, countTranslations(t, base.URL, "de"))

			// Refusals: an unknown storage, file or language.
			status, body = do(t, http.MethodPost, base.URL+"/api/v2/projects/1/files", strings.NewReader(`{"storageId":99,"name":"x.json"}`),
				map[string]string{"Content-Type": "application/json"})
			require.Equal(t, http.StatusBadRequest, status, string(body))
			require.Contains(t, string(body), "storageId")
			status, body = do(t, http.MethodPost, base.URL+"/api/v2/storages", strings.NewReader(`{}`), map[string]string{"Crowdin-API-FileName": "x.json"})
			require.Equal(t, http.StatusCreated, status, string(body))
			status, body = do(t, http.MethodPost, base.URL+"/api/v2/projects/1/translations/uk", strings.NewReader(`{"storageId":3,"fileId":42}`),
				map[string]string{"Content-Type": "application/json"})
			require.Equal(t, http.StatusBadRequest, status, string(body))
			require.Contains(t, string(body), "fileId")
			status, _ = do(t, http.MethodPost, base.URL+"/api/v2/projects/1/translations/fr", strings.NewReader(`{"storageId":3,"fileId":1}`),
				map[string]string{"Content-Type": "application/json"})
			require.Equal(t, http.StatusBadRequest, status)
			status, _ = do(t, http.MethodPost, base.URL+"/api/v2/storages", strings.NewReader(`{}`), nil)
			require.Equal(t, http.StatusBadRequest, status, "a storage needs a name")

			// A JSON file sent raw with its name in the header is still the
			// one-step upload.
			status, body = do(t, http.MethodPost, base.URL+"/api/v2/projects/1/files", strings.NewReader(`{"raw":"Raw"}`),
				map[string]string{"Content-Type": "application/json", "Crowdin-API-FileName": "raw.json"})
			require.Equal(t, http.StatusCreated, status, string(body))
			require.Contains(t, string(body), `"name":"raw.json"`)
			require.Contains(t, listStrings(t, base.URL, ""), `raw="Raw"`)
		})
	}
}
