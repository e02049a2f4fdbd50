package platform_test

import (
	"context"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/croql/croql/app/postimport"
	"github.com/croql/croql/internal/testdb"
	"github.com/croql/croql/server/platform"
)

// TestUploadQuotas: an upload over the per-file or the per-project quota
// is refused with a 413 that names the quota, and nothing of it is
// stored.
func TestUploadQuotas(t *testing.T) {
	for _, engine := range testdb.Engines(t) {
		t.Run(engine, func(t *testing.T) {
			base, _ := startServeOn(t, engine, platform.Config{MaxFileBytes: 100, MaxProjectBytes: 80})
			big := `{"k":"` + strings.Repeat("x", 120) + `"}`
			status, body := uploadFile(t, base.URL, "/api/v2/projects/1/files", "big.json", big, nil)
			assert.Equal(t, http.StatusRequestEntityTooLarge, status, string(body))
			assert.Contains(t, string(body), "per-file quota of 100 bytes (--max-file-bytes)")
			status, body = do(t, http.MethodPost, base.URL+"/api/v2/storages", strings.NewReader(big), map[string]string{"Crowdin-API-FileName": "big.json"})
			assert.Equal(t, http.StatusRequestEntityTooLarge, status, string(body))
			assert.Contains(t, string(body), "per-file quota")

			// 40 bytes of text (49 with the identifier and the file name) fit
			// the project's 80; 40 more do not, in
			// a new file, an update or translations.
			forty := strings.Repeat("a", 40)
			status, body = uploadFile(t, base.URL, "/api/v2/projects/1/files", "one.json", `{"a":"`+forty+`"}`, nil)
			require.Equal(t, http.StatusCreated, status, string(body))
			for _, up := range []struct{ path, name, content string }{
				{"/api/v2/projects/1/files", "two.json", `{"b":"` + forty + `"}`},
				{"/api/v2/projects/1/files", "one.json", `{"a":"` + forty + `","c":"` + forty + `"}`},
				{"/api/v2/projects/1/translations", "one.json", `{"a":"` + forty + `"}`},
			} {
				var fields map[string]string
				if strings.HasSuffix(up.path, "translations") {
					fields = map[string]string{"languageId": "uk"}
				}
				status, body = uploadFile(t, base.URL, up.path, up.name, up.content, fields)
				assert.Equal(t, http.StatusRequestEntityTooLarge, status, string(body))
				assert.Contains(t, string(body), "over the per-project quota of 80 bytes (--max-project-bytes)")
			}
			assert.Equal(t, []string{`a="` + forty + `"`}, listStrings(t, base.URL, ""), "nothing of a refused upload is stored")
			assert.Equal(t, 0, countTranslations(t, base.URL, "uk"))
			// Within the quota again.
			status, body = uploadFile(t, base.URL, "/api/v2/projects/1/files", "two.json", `{"b":"small"}`, nil)
			require.Equal(t, http.StatusCreated, status, string(body))
		})
	}
}

// TestConcurrentUploadsQuota: while MaxConcurrentUploads uploads are in
// progress (held in an app's module), one more waits, then is answered 429 with
// Retry-After, naming the quota; once one ends, uploads are taken again.
func TestConcurrentUploadsQuota(t *testing.T) {
	release := make(chan struct{})
	entered := make(chan struct{}, 4)
	h, err := postimport.NewHandler(postimport.ProcessorFunc(func(ctx context.Context, job *postimport.Job) ([]postimport.String, error) {
		entered <- struct{}{}
		select {
		case <-release:
		case <-ctx.Done():
		}
		return job.Strings, nil
	}), postimport.Config{})
	require.NoError(t, err)
	t.Cleanup(func() { _ = h.Close() })
	app := startApp(t, "slow", &postimport.SignaturePatterns{FileContent: `"slow"`}, h)
	base, _ := startServe(t, platform.Config{Apps: []string{app.URL}, MaxConcurrentUploads: 2})

	var wg sync.WaitGroup
	statuses := make([]int, 2)
	for i := range 2 {
		wg.Go(func() {
			statuses[i], _ = uploadFile(t, base.URL, "/api/v2/projects/1/files", "s"+strconv.Itoa(i)+".json", `{"slow":"x"}`, nil)
		})
	}
	for range 2 {
		select {
		case <-entered:
		case <-time.After(10 * time.Second):
			t.Fatal("the held uploads did not reach the module")
		}
	}
	// A raw one-step upload, to see the header.
	req, err := http.NewRequest(http.MethodPost, base.URL+"/api/v2/projects/1/files", strings.NewReader(`{"fast":"x"}`))
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Crowdin-API-FileName", "third.json")
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	b, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	require.NoError(t, err)
	assert.Equal(t, http.StatusTooManyRequests, resp.StatusCode, string(b))
	assert.Equal(t, "1", resp.Header.Get("Retry-After"))
	assert.Contains(t, string(b), "concurrent uploads quota (2 uploads at once, --max-concurrent-uploads)")
	close(release)
	wg.Wait()
	assert.Equal(t, []int{http.StatusCreated, http.StatusCreated}, statuses)
	status, body := uploadFile(t, base.URL, "/api/v2/projects/1/files", "third.json", `{"fast":"x"}`, nil)
	assert.Equal(t, http.StatusCreated, status, string(body))
}

// TestFileStringsQuota: a file with more strings than the per-file
// strings quota (JSON, nested keys included, or Android XML), as a source
// or a translation upload, or a module's answer with more, is refused
// with a 413 that names the quota, and nothing of it is stored.
func TestFileStringsQuota(t *testing.T) {
	h, err := postimport.NewHandler(postimport.ProcessorFunc(func(_ context.Context, job *postimport.Job) ([]postimport.String, error) {
		out := slices.Clone(job.Strings)
		for i := range 3 {
			out = append(out, postimport.String{UniqID: "added::" + strconv.Itoa(i), Identifier: "added." + strconv.Itoa(i), Text: postimport.PlainText("added")})
		}
		return out, nil
	}), postimport.Config{})
	require.NoError(t, err)
	t.Cleanup(func() { _ = h.Close() })
	app := startApp(t, "grow", &postimport.SignaturePatterns{FileName: `^grow\.json$`}, h)
	for _, engine := range testdb.Engines(t) {
		t.Run(engine, func(t *testing.T) {
			base, _ := startServeOn(t, engine, platform.Config{MaxFileStrings: 3, Apps: []string{app.URL}})
			const quota = "over the per-file quota of 3 strings (--max-file-strings); nothing was stored"
			status, body := uploadFile(t, base.URL, "/api/v2/projects/1/files", "one.json", `{"a":"1","b":"2","c":"3"}`, nil)
			require.Equal(t, http.StatusCreated, status, string(body))
			for _, up := range []struct{ path, name, content string }{
				{"/api/v2/projects/1/files", "four.json", `{"a":"1","b":"2","c":"3","d":"4"}`},
				// The parser stops at the quota: what follows is not read.
				{"/api/v2/projects/1/files", "stops.json", `{"a":"1","b":"2","c":"3","d":"4","e":not JSON`},
				{"/api/v2/projects/1/files", "nested.json", `{"a":"1","n":{"b":"2","m":{"c":"3","d":"4"}}}`},
				{"/api/v2/projects/1/files", "one.json", `{"a":"1","b":"2","c":"3","d":"4"}`},
				{"/api/v2/projects/1/files", "four.xml", `<resources><string name="a">1</string><string name="b">2</string>` +
					`<plurals name="c"><item quantity="other">3</item></plurals><string name="d">4</string></resources>`},
				{"/api/v2/projects/1/translations", "one.json", `{"a":"1","b":"2","c":"3","d":"4"}`},
				{"/api/v2/projects/1/files", "grow.json", `{"a":"1"}`}, // the module answers 4
			} {
				var fields map[string]string
				if strings.HasSuffix(up.path, "translations") {
					fields = map[string]string{"languageId": "uk"}
				}
				status, body = uploadFile(t, base.URL, up.path, up.name, up.content, fields)
				assert.Equal(t, http.StatusRequestEntityTooLarge, status, "%s: %s", up.name, body)
				assert.Contains(t, string(body), "The file holds more than 3 strings, "+quota, up.name)
			}
			assert.Equal(t, []string{`a="1"`, `b="2"`, `c="3"`}, listStrings(t, base.URL, ""), "nothing of a refused upload is stored")
			assert.Equal(t, 0, countTranslations(t, base.URL, "uk"))
		})
	}
}
