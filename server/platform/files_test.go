package platform_test

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/croql/croql/internal/testdb"
	"github.com/croql/croql/server/platform"
)

// addStorage posts content as a storage and returns its id.
func addStorage(t *testing.T, base, name, content string) int64 {
	t.Helper()
	status, body := do(t, http.MethodPost, base+"/api/v2/storages", strings.NewReader(content), map[string]string{"Crowdin-API-FileName": name})
	require.Equal(t, http.StatusCreated, status, string(body))
	var r struct {
		Data struct {
			ID int64 `json:"id"`
		} `json:"data"`
	}
	require.NoError(t, json.Unmarshal(body, &r))
	return r.Data.ID
}

// postJSON sends a JSON body and returns the status and the body.
func postJSON(t *testing.T, method, url, body string) (int, map[string]any) {
	t.Helper()
	status, b := do(t, method, url, strings.NewReader(body), map[string]string{"Content-Type": "application/json"})
	var out map[string]any
	if len(b) > 0 {
		require.NoError(t, json.Unmarshal(b, &out), string(b))
	}
	return status, out
}

// validationKey is the key and the code of a validation error body.
func validationKey(t *testing.T, body map[string]any) (string, string) {
	t.Helper()
	b, _ := json.Marshal(body)
	var v struct {
		Errors []struct {
			Error struct {
				Key    string `json:"key"`
				Errors []struct {
					Code string `json:"code"`
				} `json:"errors"`
			} `json:"error"`
		} `json:"errors"`
	}
	require.NoError(t, json.Unmarshal(b, &v), string(b))
	require.Len(t, v.Errors, 1, string(b))
	require.Len(t, v.Errors[0].Error.Errors, 1, string(b))
	return v.Errors[0].Error.Key, v.Errors[0].Error.Errors[0].Code
}

// TestFilesAsThePlatformKeepsThem: createFile creates (title and context
// kept) and refuses a name in use; updateOrRestoreFile updates the same
// file id with an update option; what croql serve does not keep is a
// validation error naming the parameter; delete removes the file and its
// strings.
func TestFilesAsThePlatformKeepsThem(t *testing.T) {
	for _, engine := range testdb.Engines(t) {
		t.Run(engine, func(t *testing.T) {
			base, _ := startServeOn(t, engine, platform.Config{})
			files := base.URL + "/api/v2/projects/1/files"
			sid := addStorage(t, base.URL, "app.json", `{"hi":"Hello","bye":"Bye"}`)
			status, body := postJSON(t, http.MethodPost, files, `{"storageId":`+strconv.FormatInt(sid, 10)+`,"name":"app.json","title":"The app","context":"Main screen","type":"json"}`)
			require.Equal(t, http.StatusCreated, status, body)
			data := body["data"].(map[string]any)
			id := int64(data["id"].(float64))
			require.Equal(t, "The app", data["title"])
			require.Equal(t, "Main screen", data["context"])
			ids := listIDs(t, base.URL, "")
			require.Len(t, ids, 2)

			// A name in use is refused, and the file is as it was.
			sid = addStorage(t, base.URL, "app.json", `{"other":"Other"}`)
			status, body = postJSON(t, http.MethodPost, files, `{"storageId":`+strconv.FormatInt(sid, 10)+`,"name":"app.json"}`)
			require.Equal(t, http.StatusBadRequest, status, body)
			key, code := validationKey(t, body)
			require.Equal(t, "name", key)
			require.Equal(t, "notUnique", code)
			require.Equal(t, ids, listIDs(t, base.URL, ""))

			// Refusals of what croql serve does not keep, each naming its
			// parameter; nothing is stored.
			for param, req := range map[string]string{
				"branchId":                `"branchId":3`,
				"directoryId":             `"directoryId":4`,
				"excludedTargetLanguages": `"excludedTargetLanguages":["uk"]`,
				"attachLabelIds":          `"attachLabelIds":[1]`,
				"importOptions":           `"importOptions":{"contentSegmentation":false}`,
				"type":                    `"type":"android"`,
			} {
				status, body = postJSON(t, http.MethodPost, files, `{"storageId":`+strconv.FormatInt(sid, 10)+`,"name":"new.json",`+req+`}`)
				require.Equal(t, http.StatusBadRequest, status, body)
				key, _ = validationKey(t, body)
				require.Equal(t, param, key)
			}
			require.Equal(t, ids, listIDs(t, base.URL, ""))

			// The update keeps the file id and the ids of unchanged
			// strings; a removed key goes, a new one comes.
			fileURL := files + "/" + strconv.FormatInt(id, 10)
			sid = addStorage(t, base.URL, "app.json", `{"hi":"Hello","later":"Later"}`)
			status, body = postJSON(t, http.MethodPut, fileURL, `{"storageId":`+strconv.FormatInt(sid, 10)+`,"updateOption":"keep_translations"}`)
			require.Equal(t, http.StatusOK, status, body)
			require.Equal(t, float64(id), body["data"].(map[string]any)["id"])
			after := listIDs(t, base.URL, "")
			require.Equal(t, ids["hi"], after["hi"])
			require.NotContains(t, after, "bye")
			require.Contains(t, after, "later")

			// Update refusals.
			for param, req := range map[string]string{
				"updateOption":   `"storageId":` + strconv.FormatInt(sid+1, 10) + `,"updateOption":"keep_everything"`,
				"revisionId":     `"revisionId":1`,
				"storageId":      `"updateOption":"keep_translations"`,
				"name":           `"storageId":` + strconv.FormatInt(sid+1, 10) + `,"name":"renamed.json"`,
				"detachLabelIds": `"storageId":` + strconv.FormatInt(sid+1, 10) + `,"detachLabelIds":[2]`,
			} {
				status, body = postJSON(t, http.MethodPut, fileURL, `{`+req+`}`)
				require.Equal(t, http.StatusBadRequest, status, body)
				key, _ = validationKey(t, body)
				require.Equal(t, param, key)
			}
			status, _ = postJSON(t, http.MethodPut, files+"/999", `{"storageId":1}`)
			require.Equal(t, http.StatusNotFound, status)
			status, body = postJSON(t, http.MethodGet, fileURL+"/revisions", ``)
			require.Equal(t, http.StatusBadRequest, status, body)

			// Delete: the file and its strings go; the name is free again.
			status, _ = postJSON(t, http.MethodDelete, fileURL, ``)
			require.Equal(t, http.StatusNoContent, status)
			require.Empty(t, listIDs(t, base.URL, ""))
			status, _ = postJSON(t, http.MethodDelete, fileURL, ``)
			require.Equal(t, http.StatusNotFound, status)
			sid = addStorage(t, base.URL, "app.json", `{"again":"Again"}`)
			status, body = postJSON(t, http.MethodPost, files, `{"storageId":`+strconv.FormatInt(sid, 10)+`,"name":"app.json"}`)
			require.Equal(t, http.StatusCreated, status, body)
			require.Equal(t, []string{"again"}, keys(t, base.URL, ""))
		})
	}
}

// TestUploadFormats: every format croql reads is an upload: a
// .stringsdict plural keeps every form, .strings and ARB (its ICU plural
// an icu string) are monolingual, and an XLIFF file gives its sources to
// a source upload and its targets to a translation upload.
func TestUploadFormats(t *testing.T) {
	for _, engine := range testdb.Engines(t) {
		t.Run(engine, func(t *testing.T) {
			base, _ := startServeOn(t, engine, platform.Config{})
			up := func(name, content string, fields map[string]string, path string) {
				t.Helper()
				status, body := uploadFile(t, base.URL, path, name, content, fields)
				require.Equal(t, http.StatusCreated, status, string(body))
			}
			files := "/api/v2/projects/1/files"
			up("Localizable.stringsdict", `<plist version="1.0"><dict>
<key>days</key><dict><key>NSStringLocalizedFormatKey</key><string>%#@d@</string>
<key>d</key><dict><key>NSStringFormatSpecTypeKey</key><string>NSStringPluralRuleType</string><key>one</key><string>%d day</string><key>other</key><string>%d days</string></dict>
</dict></dict></plist>`, nil, files)
			up("Localizable.strings", `"hi" = "Hi";`, nil, files)
			up("app_en.arb", `{"n": "{count, plural, one{# item} other{# items}}", "@n": {"description": "items"}}`, nil, files)
			up("m.xlf", `<?xml version="1.0"?>
<xliff version="1.2"><file source-language="en" target-language="uk"><body>
<trans-unit id="1" resname="save"><source>Save</source><target>Зберегти</target></trans-unit>
<trans-unit id="2" resname="open"><source>Open</source></trans-unit>
</body></file></xliff>`, nil, files)
			require.Equal(t, []string{`days={"one":"%d day","other":"%d days"}`, `hi="Hi"`, `n="{count, plural, one{# item} other{# items}}"`, `open="Open"`, `save="Save"`},
				listStrings(t, base.URL, ""))
			require.Equal(t, []string{"n"}, keys(t, base.URL, "type is icu"))
			require.Equal(t, []string{"days"}, keys(t, base.URL, "type is plural"))

			up("m.xlf", `<?xml version="1.0"?>
<xliff version="1.2"><file source-language="en" target-language="uk"><body>
<trans-unit id="1" resname="save"><source>Save</source><target>Зберегти</target></trans-unit>
<trans-unit id="2" resname="open"><source>Open</source></trans-unit>
</body></file></xliff>`, map[string]string{"languageId": "uk"}, "/api/v2/projects/1/translations")
			require.Equal(t, []string{"save"}, keys(t, base.URL, `count of translations where (text = "Зберегти") > 0`))
			require.Equal(t, 1, countTranslations(t, base.URL, "uk"))
		})
	}
}
