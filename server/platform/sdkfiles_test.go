package platform_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/croql/croql/internal/testdb"
	"github.com/croql/croql/server/platform"
)

// sdkUpdateOrCreate runs the SDK's updateOrCreateFile helper (its
// util/app-functions, as an app calls it with the SDK's API client)
// against croql serve: a create, then an update of the file the files
// list finds by name. It prints both ids and the strings of the file.
const sdkUpdateOrCreate = `
const path = require('path');
const dir = process.env.SDK_APP_DIR;
const crowdin = require(path.join(dir, 'node_modules/@crowdin/crowdin-api-client'));
const fns = require(path.join(dir, 'node_modules/@crowdin/app-project-module/out/util/app-functions/crowdin.js'));
const [, , base, token] = process.argv;
const client = new crowdin.default({ token, baseUrl: base + '/api/v2' });
(async () => {
  const created = await fns.updateOrCreateFile({ client, projectId: 1, name: 'sdk.json', title: 'SDK file',
    data: JSON.stringify({ 'sdk.a': 'A', 'sdk.b': 'B' }) });
  const files = (await client.sourceFilesApi.listProjectFiles(1, { limit: 500 })).data.map((d) => d.data);
  const file = files.find((f) => f.name === 'sdk.json');
  const updated = await fns.updateOrCreateFile({ client, projectId: 1, name: 'sdk.json', title: 'SDK file', file,
    data: JSON.stringify({ 'sdk.a': 'A', 'sdk.c': 'C' }) });
  const strings = (await client.sourceStringsApi.listProjectStrings(1, { fileId: updated, limit: 500 })).data.map((d) => d.data.identifier);
  process.stdout.write(JSON.stringify({ created, updated, title: file.title, strings: strings.sort() }) + '\n');
})().catch((e) => { console.error(e.message || e); process.exit(1); });
`

// TestSDKUpdateOrCreateFile: the SDK's updateOrCreateFile creates a file,
// then updates the same file id (the platform's updateOrRestoreFile).
func TestSDKUpdateOrCreateFile(t *testing.T) {
	node := needSDKApp(t)
	dir, err := filepath.Abs(sdkAppDir)
	require.NoError(t, err)
	script := filepath.Join(t.TempDir(), "update_or_create.js")
	require.NoError(t, os.WriteFile(script, []byte(sdkUpdateOrCreate), 0o600))
	for _, engine := range testdb.Engines(t) {
		t.Run(engine, func(t *testing.T) {
			base, _ := startServeOn(t, engine, platform.Config{})
			cmd := exec.Command(node, script, base.URL, token)
			cmd.Env = append(os.Environ(), "SDK_APP_DIR="+dir)
			out, err := cmd.Output()
			var stderr []byte
			if ee, ok := err.(*exec.ExitError); ok {
				stderr = ee.Stderr
			}
			require.NoError(t, err, string(stderr))
			var res struct {
				Created, Updated int64
				Title            string
				Strings          []string
			}
			require.NoError(t, json.Unmarshal(out, &res), string(out))
			require.NotZero(t, res.Created)
			require.Equal(t, res.Created, res.Updated, "the update keeps the file id")
			require.Equal(t, "SDK file", res.Title)
			require.Equal(t, []string{"sdk.a", "sdk.c"}, res.Strings)
		})
	}
}
