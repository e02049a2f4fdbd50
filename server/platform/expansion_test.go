package platform_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/croql/croql/internal/testdb"
	"github.com/croql/croql/server/platform"
)

// nestedKeys is a JSON file whose one long key holds n short keys: each
// of its n strings' identifiers repeats the long key, so the strings
// store about n times the file's bytes.
func nestedKeys(keyBytes, n int) string {
	var b strings.Builder
	b.WriteString(`{"` + strings.Repeat("k", keyBytes) + `":{`)
	for i := range n {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString(`"` + string(rune('a'+i%26)) + strings.Repeat("z", i/26) + `":"x"`)
	}
	b.WriteString("}}")
	return b.String()
}

// TestUploadExpansionQuota: the identifiers, contexts and texts an
// upload stores count against the per-file quota, whatever the file's own
// size: nested JSON keys that expand far beyond the file are refused with
// a 413 naming the quota, and nothing is stored.
func TestUploadExpansionQuota(t *testing.T) {
	for _, engine := range testdb.Engines(t) {
		t.Run(engine, func(t *testing.T) {
			base, _ := startServeOn(t, engine, platform.Config{MaxFileBytes: 4096})
			file := nestedKeys(1000, 100) // about 1.7 KB, 100 identifiers of 1 KB
			require.Less(t, len(file), 4096)
			status, body := uploadFile(t, base.URL, "/api/v2/projects/1/files", "nested.json", file, nil)
			assert.Equal(t, http.StatusRequestEntityTooLarge, status, string(body))
			assert.Contains(t, string(body), "over the per-file quota of 4096 bytes (--max-file-bytes)")
			assert.Len(t, listStrings(t, base.URL, ""), 0, "nothing of a refused upload is stored")

			// A file whose strings fit is stored.
			status, body = uploadFile(t, base.URL, "/api/v2/projects/1/files", "nested.json", nestedKeys(100, 10), nil)
			require.Equal(t, http.StatusCreated, status, string(body))
			assert.Len(t, listStrings(t, base.URL, ""), 10)
		})
	}
}

// TestProjectQuotaCountsIdentifiers: identifiers and contexts count
// against the per-project quota, not only the texts.
func TestProjectQuotaCountsIdentifiers(t *testing.T) {
	for _, engine := range testdb.Engines(t) {
		t.Run(engine, func(t *testing.T) {
			base, _ := startServeOn(t, engine, platform.Config{MaxProjectBytes: 100})
			key := func(c string) string { return strings.Repeat(c, 60) }
			status, body := uploadFile(t, base.URL, "/api/v2/projects/1/files", "one.json", `{"`+key("a")+`":"x"}`, nil)
			require.Equal(t, http.StatusCreated, status, string(body))
			status, body = uploadFile(t, base.URL, "/api/v2/projects/1/files", "two.json", `{"`+key("b")+`":"y"}`, nil)
			assert.Equal(t, http.StatusRequestEntityTooLarge, status, string(body))
			assert.Contains(t, string(body), "over the per-project quota of 100 bytes (--max-project-bytes)")
			assert.Len(t, listStrings(t, base.URL, ""), 1, "nothing of a refused upload is stored")
		})
	}
}
