package platform_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/croql/croql/internal/testdb"
	"github.com/croql/croql/schema"
	"github.com/croql/croql/server"
	"github.com/croql/croql/server/platform"
)

// sdkAppDir is the app built on the platform's SDK (npm
// @crowdin/app-project-module 3.2.2, package-lock.json).
const sdkAppDir = "../../examples/sdk-app"

// needSDKApp returns node's path, or skips the test (fails it when
// CROQL_REQUIRE_SDK=1, as CI sets it after npm ci).
func needSDKApp(t *testing.T) string {
	t.Helper()
	required := os.Getenv("CROQL_REQUIRE_SDK") == "1"
	node, err := exec.LookPath("node")
	if err == nil {
		_, err = os.Stat(filepath.Join(sdkAppDir, "node_modules", "@crowdin", "app-project-module", "package.json"))
	}
	if err != nil {
		msg := fmt.Sprintf("the SDK app needs node and `npm ci` in examples/sdk-app: %v", err)
		if required {
			t.Fatal(msg + " (CROQL_REQUIRE_SDK=1)")
		}
		t.Skip(msg)
	}
	return node
}

// scratchDatabase creates a PostgreSQL database of its own for the app's
// storage and drops it after the test.
func scratchDatabase(t *testing.T, dsn string) string {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dsn)
	require.NoError(t, err)
	name := fmt.Sprintf("croql_sdkapp_%d_%d", os.Getpid(), time.Now().UnixNano()%1e9)
	_, err = conn.Exec(ctx, "CREATE DATABASE "+pgx.Identifier{name}.Sanitize())
	require.NoError(t, err)
	t.Cleanup(func() {
		_, err := conn.Exec(ctx, "DROP DATABASE IF EXISTS "+pgx.Identifier{name}.Sanitize()+" WITH (FORCE)")
		assert.NoError(t, err)
		conn.Close(ctx)
	})
	u, err := url.Parse(dsn)
	require.NoError(t, err)
	u.Path = "/" + name
	return u.String()
}

// startSDKApp runs examples/sdk-app/app.js against croqlURL and returns
// its address.
func startSDKApp(t *testing.T, node, croqlURL, pgURL string) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, node, "app.js")
	cmd.Dir = sdkAppDir
	cmd.Env = append(os.Environ(), "CROQL_URL="+croqlURL, "APP_CLIENT_ID="+clientID, "APP_CLIENT_SECRET="+clientSecret,
		"APP_PG_URL="+pgURL, "PORT=0")
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	logFile, err := os.Create(filepath.Join(t.TempDir(), "app.log"))
	require.NoError(t, err)
	cmd.Stderr = logFile
	require.NoError(t, cmd.Start())
	t.Cleanup(func() {
		cancel()
		_ = cmd.Wait()
		if t.Failed() {
			b, _ := os.ReadFile(logFile.Name())
			t.Logf("app.js stderr:\n%s", b)
		}
	})
	addr := make(chan string, 1)
	go func() {
		defer close(addr)
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if u, ok := strings.CutPrefix(sc.Text(), "listening "); ok {
				addr <- u
			}
		}
	}()
	select {
	case u, ok := <-addr:
		if !ok {
			t.Fatal("app.js stopped before it listened")
		}
		return u
	case <-time.After(60 * time.Second):
		t.Fatal("app.js did not print its address within 60 s")
	}
	return ""
}

// uploadAs posts a file with another bearer token (another organization)
// and decodes the JSON answer.
func uploadAs(t *testing.T, tok, base, path, name, content string, fields map[string]string) (int, map[string]any) {
	t.Helper()
	status, body := uploadFileAs(t, tok, base, path, name, content, fields)
	var out map[string]any
	require.NoError(t, json.Unmarshal(body, &out), string(body))
	return status, out
}

// TestSDKAppAgainstServe runs an unmodified app on the platform's SDK
// 3.2.2 (examples/sdk-app) against croql serve on SQLite and PostgreSQL:
// its jobs arrive (source upload, file update, translation upload), its
// results are stored, and the subscription outcomes behave as seed 3
// says: active and a trial by initializedAt run, an expired trial is a
// 402 whose answer carries the subscribe link; the app's own check sees
// the three answers.
func TestSDKAppAgainstServe(t *testing.T) {
	node := needSDKApp(t)
	pgDSN := testdb.Need(t, "postgres") // the app's storage
	for _, engine := range []string{"sqlite", "postgres"} {
		t.Run(engine, func(t *testing.T) { testSDKApp(t, node, engine, pgDSN) })
	}
}

func testSDKApp(t *testing.T, node, engine, pgDSN string) {
	ctx := context.Background()
	data := &schema.Project{Name: "demo", SourceLanguage: "en", TargetLanguages: []string{"uk", "de"}}
	st := platform.LoadTestStorage(t, engine, pgDSN, data)

	// Four organizations, each with an upload token: 11 active, 12 a
	// trial started two days ago, 13 a trial over (30 days ago), 14 no
	// subscription.
	now := time.Now().UTC()
	tokens := &server.Tokens{}
	orgs := map[string]string{"tok-11": "11", "tok-12": "12", "tok-13": "13", "tok-14": "14"}
	for tok := range orgs {
		require.NoError(t, tokens.Add(tok))
	}
	require.NoError(t, tokens.Add(token)) // the reads of listStrings
	const app = "croql-sdk-splitter"
	const link = "https://pay.example/croql-sdk-splitter"
	subs := platform.NewSubscriptions()
	for tok, org := range orgs {
		subs.MapToken(tok, org)
	}
	for _, row := range []platform.Subscription{
		{Organization: "11", App: app, Status: platform.Active, Expires: now.AddDate(0, 1, 0).Format("2006-01-02 15:04:05")},
		{Organization: "12", App: app, Status: platform.Unpaid, SubscribeLink: link, InitializedAt: now.AddDate(0, 0, -2).Format("2006-01-02 15:04:05")},
		{Organization: "13", App: app, Status: platform.Unpaid, SubscribeLink: link, InitializedAt: now.AddDate(0, 0, -30).Format("2006-01-02 15:04:05")},
	} {
		_, err := subs.Set(row)
		require.NoError(t, err)
	}

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	base := "http://" + ln.Addr().String()
	appURL := startSDKApp(t, node, base, scratchDatabase(t, pgDSN))

	srv, err := server.New(server.Config{Storage: st, Tokens: tokens})
	require.NoError(t, err)
	p, err := platform.New(ctx, platform.Config{Apps: []string{appURL}, Subscriptions: subs,
		Credentials: []platform.Credentials{{ClientID: clientID, ClientSecret: clientSecret}}})
	require.NoError(t, err)
	require.Equal(t, app, p.Apps()[0].Identifier)
	p.Register(srv)
	hs := &http.Server{Handler: srv, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = hs.Serve(ln) }()
	t.Cleanup(func() { _ = hs.Close() })

	const source = `{"intro":"First paragraph.\n\nSecond paragraph.","title":"Title"}`
	for _, org := range []string{"11", "12", "13", "14"} {
		tok := "tok-" + org
		name := "org" + org + ".json"
		status, out := uploadAs(t, tok, base, "/api/v2/projects/1/files", name, source, nil)
		if org == "13" {
			// The trial is over: the SDK refuses the job with 402, and the
			// upload's answer carries the subscribe link.
			require.Equal(t, http.StatusPaymentRequired, status, out)
			e := out["error"].(map[string]any)
			assert.Equal(t, link, e["subscribeLink"])
			assert.Contains(t, e["message"], "subscribe at "+link)
			continue
		}
		require.Equal(t, http.StatusCreated, status, out)
		fileID := fileIDOf(t, out)
		inFile := fmt.Sprintf(`id of file = %d`, fileID)
		require.Equal(t, []string{`intro.1="First paragraph."`, `intro.2="Second paragraph."`, `title="Title"`},
			listStrings(t, base, inFile), "organization %s: the app split the string", org)

		// A file update goes through the module too.
		status, out = uploadAs(t, tok, base, "/api/v2/projects/1/files", name, `{"intro":"First paragraph.\n\nA new second.","title":"Title"}`, nil)
		require.Equal(t, http.StatusCreated, status, out)
		require.Equal(t, []string{`intro.1="First paragraph."`, `intro.2="A new second."`, `title="Title"`}, listStrings(t, base, inFile))

		// A translation upload: the app approves what it receives.
		status, out = uploadAs(t, tok, base, "/api/v2/projects/1/translations", name,
			`{"intro.1":"Erster Absatz.","intro.2":"Ein neuer zweiter.","title":"Titel"}`, map[string]string{"languageId": "de"})
		require.Equal(t, http.StatusCreated, status, out)
		approved := listStrings(t, base, inFile+` and count of languages summary where (language = @language:"de" and is approved) > 0`)
		require.Len(t, approved, 3, "organization %s: the app's approvals are stored", org)
	}
	// Organization 13's file was not created; every stored intro was split.
	require.Len(t, listStrings(t, base, `identifier = "title"`), 3)
	require.Empty(t, listStrings(t, base, `identifier = "intro"`))

	// The app's own subscription check, with the token the installed
	// event fetched from croql serve.
	check := func(org string) map[string]map[string]any {
		resp, err := http.Get(appURL + "/check?organization=" + org)
		require.NoError(t, err)
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		require.Equal(t, http.StatusOK, resp.StatusCode, string(b))
		var out map[string]map[string]any
		require.NoError(t, json.Unmarshal(b, &out), string(b))
		return out
	}
	c := check("11")
	assert.Equal(t, "active", c["platform"]["state"])
	assert.Equal(t, false, c["sdk"]["expired"])
	assert.Equal(t, "subscription", c["sdk"]["type"])
	c = check("12")
	assert.Equal(t, "unpaid", c["platform"]["state"])
	assert.Equal(t, link, c["platform"]["subscribeLink"])
	assert.NotEmpty(t, c["platform"]["initializedAt"])
	assert.Equal(t, false, c["sdk"]["expired"], "a trial by initializedAt")
	assert.Equal(t, "trial", c["sdk"]["type"])
	assert.EqualValues(t, 12, c["sdk"]["daysLeft"])
	c = check("13")
	assert.Equal(t, "unpaid", c["platform"]["state"])
	assert.Equal(t, true, c["sdk"]["expired"], "the trial is over")
	assert.Equal(t, link, c["sdk"]["subscribeLink"])
	c = check("14")
	assert.Equal(t, "not found", c["platform"]["state"])
	assert.Contains(t, c["platform"]["message"], "No subscription is defined for the app "+app)
	// The SDK's checkSubscription lets a not-found organization in (it
	// treats every error but a 402 as "not expired"): SDK 3.2.2's rule,
	// which the platform cannot change; docs/app-contract.md says so.
	assert.Equal(t, false, c["sdk"]["expired"])
}

// fileIDOf reads the file id of an upload's answer (data.fileId, or the
// platform File object's data.id).
func fileIDOf(t *testing.T, out map[string]any) int64 {
	t.Helper()
	d, _ := out["data"].(map[string]any)
	for _, k := range []string{"fileId", "id"} {
		if n, ok := d[k].(float64); ok {
			return int64(n)
		}
	}
	t.Fatalf("no file id in %v", out)
	return 0
}
