package platform_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/croql/croql/internal/testdb"
	"github.com/croql/croql/server/platform"
)

// TestInvalidUTF8Refused: an upload that is not UTF-8 is answered 400
// saying where, in the one-step and the two-step form, and nothing of it
// is stored (it used to be stored with U+FFFD in place of the bytes).
func TestInvalidUTF8Refused(t *testing.T) {
	for _, engine := range testdb.Engines(t) {
		t.Run(engine, func(t *testing.T) {
			base, _ := startServeOn(t, engine, platform.Config{})
			bad := "{\n  \"hi\": \"H\xffllo\"\n}"
			status, body := uploadFile(t, base.URL, "/api/v2/projects/1/files", "app.json", bad, nil)
			require.Equal(t, http.StatusBadRequest, status, string(body))
			require.Contains(t, string(body), "line 2, column 11: the file is not valid UTF-8: byte 0xFF (byte offset 12); save it as UTF-8")

			status, body = do(t, http.MethodPost, base.URL+"/api/v2/storages", strings.NewReader(bad),
				map[string]string{"Crowdin-API-FileName": "app.json"})
			require.Equal(t, http.StatusCreated, status, string(body))
			status, body = do(t, http.MethodPost, base.URL+"/api/v2/projects/1/files", strings.NewReader(`{"storageId":1,"name":"app.json"}`),
				map[string]string{"Content-Type": "application/json"})
			require.Equal(t, http.StatusBadRequest, status, string(body))
			require.Contains(t, string(body), "line 2, column 11")
			require.Empty(t, listStrings(t, base.URL, ""), "nothing is stored")

			// A valid file still goes in, and its translation with an
			// invalid byte is refused.
			status, body = uploadFile(t, base.URL, "/api/v2/projects/1/files", "app.json", `{"hi":"Hello"}`, nil)
			require.Equal(t, http.StatusCreated, status, string(body))
			status, body = uploadFile(t, base.URL, "/api/v2/projects/1/translations", "app.json", "{\"hi\":\"\xc3(\"}", map[string]string{"languageId": "uk"})
			require.Equal(t, http.StatusBadRequest, status, string(body))
			require.Contains(t, string(body), "line 1, column 8: the file is not valid UTF-8: byte 0xC3 (byte offset 7)")
			require.Equal(t, 0, countTranslations(t, base.URL, "uk"))
		})
	}
}
