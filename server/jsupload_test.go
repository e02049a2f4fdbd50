package server_test

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/croql/croql/locfile"
	"github.com/croql/croql/server"
	"github.com/croql/croql/server/platform"
)

// TestJSClientUploadsEveryFormat: a source file of each localization
// format croql reads (testdata/locfiles), uploaded through the platform's
// JavaScript client as an API user adds one (uploadStorage, createFile),
// stores the strings package locfile reads from it: the same identifiers
// in file order, texts (every plural form) and contexts, read back
// through the same client (listProjectStrings). Contexts are the units'
// contexts and notes (Android and .strings comments, PO comments, XLIFF
// notes, ARB descriptions), as --data has them; Android's
// translatable="false" strings are uploaded hidden.
func TestJSClientUploadsEveryFormat(t *testing.T) {
	node, dir := jsClient(t)
	files := map[string]string{
		"up_en.json": "json/en.json", "up_app_en.arb": "arb/app_en.arb", "up_strings.xml": "android/values/strings.xml",
		"up_Localizable.strings": "ios/en.lproj/Localizable.strings", "up_Localizable.stringsdict": "ios/en.lproj/Localizable.stringsdict",
		"up_de.po": "po/de.po", "up_messages.de.xlf": "xliff12/messages.de.xlf", "up_messages.fr.xlf": "xliff2/messages.fr.xlf",
	}
	ctx := context.Background()
	st, err := server.LoadSQLite(ctx, t.TempDir(), demo(t))
	require.NoError(t, err)
	hs := platformServer(t, st)

	args := []string{"upload.js", hs.URL, token, "1"}
	for name, rel := range files {
		path, err := filepath.Abs(filepath.Join("..", "testdata", "locfiles", rel))
		require.NoError(t, err)
		args = append(args, name+"="+path)
	}
	cctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(cctx, node, args...)
	cmd.Dir = dir
	var stderr strings.Builder
	cmd.Stderr = &stderr
	b, err := cmd.Output()
	require.NoError(t, err, "node upload.js: %s", stderr.String())
	type str struct {
		Identifier string `json:"identifier"`
		Text       any    `json:"text"`
		Context    string `json:"context"`
	}
	var out map[string]struct {
		Error   string `json:"error"`
		Type    string `json:"type"`
		Strings []str  `json:"strings"`
	}
	require.NoError(t, json.Unmarshal(b, &out), "%s", b)
	for name, rel := range files {
		data, err := os.ReadFile(filepath.Join("..", "testdata", "locfiles", rel))
		require.NoError(t, err)
		f, err := locfile.ReadBytes(name, data, nil, locfile.Limits{})
		require.NoError(t, err, name)
		var want []str
		for _, u := range f.Units {
			var text any = u.Source.Text
			if len(u.Source.Plural) > 0 {
				forms := map[string]any{}
				for k, v := range u.Source.Plural {
					forms[k] = v
				}
				text = forms
			}
			want = append(want, str{u.Key, text, u.JoinedContext()})
		}
		got := out[name]
		require.Empty(t, got.Error, name)
		assert.Equal(t, f.Type, got.Type, name)
		require.NotEmpty(t, want, name)
		assert.Equal(t, want, got.Strings, name)
	}
}

// jsClient returns node and the directory of the JavaScript client's
// scripts (server/apiclients/js), or skips the test when they are missing,
// unless CROQL_REQUIRE_NODE=1 (CI).
func jsClient(t *testing.T) (node, dir string) {
	t.Helper()
	node, err := exec.LookPath("node")
	dir, _ = filepath.Abs(filepath.Join("apiclients", "js"))
	if err == nil {
		_, err = os.Stat(filepath.Join(dir, "node_modules", "@crowdin", "crowdin-api-client"))
	}
	if err != nil {
		if os.Getenv("CROQL_REQUIRE_NODE") == "1" {
			t.Fatalf("node or the npm packages are missing (run `npm ci` in server/apiclients/js): %v (CROQL_REQUIRE_NODE=1)", err)
		}
		t.Skipf("node or the npm packages are missing (run `npm ci` in server/apiclients/js): %v; set CROQL_REQUIRE_NODE=1 to make this a failure", err)
	}
	return node, dir
}

// platformServer serves st with the platform's routes over loopback to
// the test token, and closes st when the test ends.
func platformServer(t *testing.T, st *server.Storage) *httptest.Server {
	t.Helper()
	t.Cleanup(func() { require.NoError(t, st.Close()) })
	toks := &server.Tokens{}
	require.NoError(t, toks.Add(token))
	srv, err := server.New(server.Config{Storage: st, Tokens: toks, Now: clock})
	require.NoError(t, err)
	pf, err := platform.New(context.Background(), platform.Config{})
	require.NoError(t, err)
	pf.Register(srv)
	return httptestServer(t, srv)
}
