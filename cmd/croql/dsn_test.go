package main

import (
	"bufio"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/croql/croql/internal/testdb"
)

// mysqlForms returns the MySQL DSN of the environment in its two forms,
// the URL mysql://user@host:port/db and go-sql-driver's native
// user@tcp(host:port)/db, both naming database db.
func mysqlForms(t *testing.T, db string) map[string]string {
	t.Helper()
	cfg, err := mysql.ParseDSN(testdb.Need(t, "mysql"))
	require.NoError(t, err)
	require.Equal(t, "tcp", cfg.Net, "the test builds a mysql:// URL from a TCP DSN")
	u := url.URL{Scheme: "mysql", Host: cfg.Addr, Path: "/" + db}
	if cfg.Passwd != "" {
		u.User = url.UserPassword(cfg.User, cfg.Passwd)
	} else {
		u.User = url.User(cfg.User)
	}
	native := cfg.Clone()
	native.DBName = db
	return map[string]string{"url": u.String(), "native": native.FormatDSN()}
}

// TestMySQLDSNForms: croql load, croql query --engine and croql serve
// take a MySQL DSN as a mysql:// URL and in the driver's native form
// alike (the one DSN parser, engine.EngineOfDSN).
func TestMySQLDSNForms(t *testing.T) {
	base := mysqlForms(t, "")
	if testing.Short() {
		t.Skip("builds the binary and starts croql serve")
	}
	bin := filepath.Join(t.TempDir(), "croql")
	out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput()
	require.NoError(t, err, "%s", out)
	data, _ := writeProject(t, 60)
	const q = `count of translations > 1 and not is hidden`
	code, want, stderr := runCLI("", "query", "--data", data, "--ids", q)
	require.Equal(t, 0, code, stderr)
	require.NotEmpty(t, strings.TrimSpace(want))

	admin, err := sql.Open("mysql", testdb.DSN("mysql"))
	require.NoError(t, err)
	t.Cleanup(func() { admin.Close() })
	for _, form := range []string{"url", "native"} {
		t.Run(form, func(t *testing.T) {
			dsn := base[form]
			// croql query --engine mysql: a scratch database of its own.
			code, got, stderr := runCLI("", "query", "--engine", "mysql", "--dsn", dsn, "--data", data, "--ids", q)
			require.Equal(t, 0, code, stderr)
			assert.Equal(t, want, got)

			// croql load into a database of this test's own.
			name := fmt.Sprintf("croqltest_dsn_%s_%d", form, time.Now().UnixNano())
			t.Cleanup(func() { _, _ = admin.Exec("DROP DATABASE IF EXISTS `" + name + "`") })
			code, stderr = runLoad(t, "--dsn", dsn, "--schema", name, data)
			require.Equal(t, 0, code, stderr)
			assert.Contains(t, stderr, "into mysql")

			// croql serve --dsn, in the same form, naming that database.
			served := mysqlForms(t, name)[form]
			assert.Equal(t, strings.TrimSpace(want), serveIDs(t, bin, served, q))
		})
	}
}

// serveIDs starts `croql serve --dsn dsn`, lists the strings matching q
// through its API, stops it with SIGTERM and returns the ids, one a line.
func serveIDs(t *testing.T, bin, dsn, q string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "serve", "--dsn", dsn, "--listen", "127.0.0.1:0", "--token", "tok")
	stderr, err := cmd.StderrPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	sc := bufio.NewScanner(stderr)
	addr := regexp.MustCompile(`http://([0-9.:]+)/api/v2/projects`)
	var base string
	var lines []string
	for sc.Scan() {
		lines = append(lines, sc.Text())
		if m := addr.FindStringSubmatch(sc.Text()); m != nil {
			base = "http://" + m[1]
			break
		}
	}
	require.NotEmpty(t, base, "croql serve did not start: %s", strings.Join(lines, "\n"))
	go func() { _, _ = io.Copy(io.Discard, stderr) }()
	var ids []string
	for offset := 0; ; offset += 25 {
		req, err := http.NewRequestWithContext(ctx, "GET", fmt.Sprintf("%s/api/v2/projects/1/strings?limit=25&offset=%d&croql=%s", base, offset, url.QueryEscape(q)), nil)
		require.NoError(t, err)
		req.Header.Set("Authorization", "Bearer tok")
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		var body struct {
			Data []struct {
				Data struct {
					ID int64 `json:"id"`
				} `json:"data"`
			} `json:"data"`
		}
		err = json.NewDecoder(resp.Body).Decode(&body)
		resp.Body.Close()
		require.NoError(t, err)
		require.Equal(t, http.StatusOK, resp.StatusCode)
		for _, d := range body.Data {
			ids = append(ids, fmt.Sprint(d.Data.ID))
		}
		if len(body.Data) < 25 {
			break
		}
	}
	require.NoError(t, cmd.Process.Signal(syscall.SIGTERM))
	return strings.Join(ids, "\n")
}
