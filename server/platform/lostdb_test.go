package platform_test

import (
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/croql/croql/internal/testdb"
	"github.com/croql/croql/schema"
	"github.com/croql/croql/server"
	"github.com/croql/croql/server/platform"
)

// tcpProxy forwards connections to target until cut.
type tcpProxy struct {
	ln    net.Listener
	mu    sync.Mutex
	conns []net.Conn
}

func startProxy(t *testing.T, target string) *tcpProxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	p := &tcpProxy{ln: ln}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			d, err := net.Dial("tcp", target)
			if err != nil {
				c.Close()
				continue
			}
			p.mu.Lock()
			p.conns = append(p.conns, c, d)
			p.mu.Unlock()
			go func() { _, _ = io.Copy(d, c); d.Close() }()
			go func() { _, _ = io.Copy(c, d); c.Close() }()
		}
	}()
	t.Cleanup(p.cut)
	return p
}

// cut closes the listener and every forwarded connection: the database
// is lost.
func (p *tcpProxy) cut() {
	p.ln.Close()
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range p.conns {
		c.Close()
	}
	p.conns = nil
}

// TestLostDatabaseDuringUploadIs503: an upload whose database is lost
// is answered 503 with Retry-After (as a list is), not 500.
func TestLostDatabaseDuringUploadIs503(t *testing.T) {
	for _, engine := range testdb.Engines(t) {
		if engine == "sqlite" {
			continue
		}
		t.Run(engine, func(t *testing.T) {
			dsn := testdb.DSN(engine)
			host := "127.0.0.1:5432"
			if engine == "mysql" {
				host = "127.0.0.1:3306"
			}
			if !strings.Contains(dsn, host) {
				t.Skipf("the DSN does not name %s", host)
			}
			proxy := startProxy(t, host)
			ctx := context.Background()
			st, err := server.LoadServer(ctx, engine, strings.Replace(dsn, host, proxy.ln.Addr().String(), 1),
				&schema.Project{Name: "demo", SourceLanguage: "en", TargetLanguages: []string{"uk"}})
			require.NoError(t, err)
			t.Cleanup(func() { _ = st.Close() })
			tokens := &server.Tokens{}
			require.NoError(t, tokens.Add(token))
			srv, err := server.New(server.Config{Storage: st, Tokens: tokens})
			require.NoError(t, err)
			var logged strings.Builder
			p, err := platform.New(ctx, platform.Config{Logger: slog.New(slog.NewTextHandler(&logged, nil))})
			require.NoError(t, err)
			p.Register(srv)
			hs := httptest.NewServer(srv)
			t.Cleanup(hs.Close)

			status, body := uploadFile(t, hs.URL, "/api/v2/projects/1/files", "a.json", `{"a":"Apple"}`, nil)
			require.Equal(t, http.StatusCreated, status, string(body))
			proxy.cut()
			req, err := http.NewRequest(http.MethodPost, hs.URL+"/api/v2/projects/1/files", strings.NewReader(`{"b":"Banana"}`))
			require.NoError(t, err)
			req.Header.Set("Authorization", "Bearer "+token)
			req.Header.Set("Crowdin-API-FileName", "b.json")
			resp, err := http.DefaultClient.Do(req)
			require.NoError(t, err)
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			require.Equal(t, http.StatusServiceUnavailable, resp.StatusCode, "%s\nlog: %s", b, logged.String())
			require.NotEmpty(t, resp.Header.Get("Retry-After"))
			require.Contains(t, string(b), "unavailable")
		})
	}
}
