package platform_test

import (
	"net/http"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/croql/croql/internal/testdb"
	"github.com/croql/croql/server/platform"
)

// TestEditFile: editFile writes a file's title and context (replace, add,
// remove) and answers the File; any other path, another op, a value that
// is not a string or an empty patch is the platform's 400 and changes
// nothing; an unknown file is 404.
func TestEditFile(t *testing.T) {
	for _, engine := range testdb.Engines(t) {
		t.Run(engine, func(t *testing.T) {
			base, _ := startServeOn(t, engine, platform.Config{})
			files := base.URL + "/api/v2/projects/1/files"
			sid := addStorage(t, base.URL, "app.json", `{"hi":"Hello"}`)
			status, body := postJSON(t, http.MethodPost, files, `{"storageId":`+strconv.FormatInt(sid, 10)+`,"name":"app.json","title":"The app"}`)
			require.Equal(t, http.StatusCreated, status, body)
			file := files + "/" + strconv.FormatInt(int64(body["data"].(map[string]any)["id"].(float64)), 10)

			status, body = postJSON(t, http.MethodPatch, file, `[{"op":"replace","path":"/title","value":"Renamed"},{"op":"add","path":"/context","value":"Home"}]`)
			require.Equal(t, http.StatusOK, status, body)
			data := body["data"].(map[string]any)
			require.Equal(t, "Renamed", data["title"])
			require.Equal(t, "Home", data["context"])
			require.Equal(t, "app.json", data["name"])

			status, body = postJSON(t, http.MethodPatch, file, `[{"op":"remove","path":"/title"},{"op":"remove","path":"/context"}]`)
			require.Equal(t, http.StatusOK, status, body)
			data = body["data"].(map[string]any)
			require.Nil(t, data["title"])
			require.Equal(t, "", data["context"])

			for _, c := range []struct{ patch, key, code string }{
				{`[{"op":"replace","path":"/name","value":"x.json"}]`, "name", "notSupported"},
				{`[{"op":"replace","path":"/title","value":"T"},{"op":"replace","path":"/priority","value":"high"}]`, "priority", "notSupported"},
				{`[{"op":"move","path":"/title","value":"T"}]`, "title", "notInArray"},
				{`[{"op":"replace","path":"/title","value":7}]`, "title", "notString"},
				{`[]`, "body", "isEmpty"},
			} {
				status, body = postJSON(t, http.MethodPatch, file, c.patch)
				require.Equal(t, http.StatusBadRequest, status, c.patch)
				key, code := validationKey(t, body)
				require.Equal(t, [2]string{c.key, c.code}, [2]string{key, code}, c.patch)
			}
			status, body = postJSON(t, http.MethodGet, file, "")
			require.Equal(t, http.StatusOK, status)
			require.Nil(t, body["data"].(map[string]any)["title"], "a refused patch writes nothing")

			status, _ = postJSON(t, http.MethodPatch, files+"/999999", `[{"op":"replace","path":"/title","value":"T"}]`)
			require.Equal(t, http.StatusNotFound, status)
		})
	}
}
