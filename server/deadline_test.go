package server_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	gen "github.com/croql/croql/demo"
	"github.com/croql/croql/server"
)

// smallBuffers is a listener whose connections have a small send
// buffer, so that an answer larger than a few kilobytes blocks its
// writer until the client reads.
type smallBuffers struct{ net.Listener }

func (l smallBuffers) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if tc, ok := c.(*net.TCPConn); ok {
		_ = tc.SetWriteBuffer(4096)
	}
	return c, err
}

// serveTokens runs srv.Serve, on a listener of small send buffers, with
// the tokens given, each reading every project; it returns the address.
func serveTokens(t *testing.T, cfg server.Config, tokens ...string) string {
	t.Helper()
	p := gen.Generate(gen.Options{Strings: 200, Seed: 1})
	for i := range p.Strings {
		p.Strings[i].Text = strings.Repeat("x", 4000)
	}
	st, err := server.LoadSQLite(context.Background(), t.TempDir(), p)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, st.Close()) })
	cfg.Storage, cfg.Now = st, clock
	cfg.Tokens = &server.Tokens{}
	for _, tok := range tokens {
		require.NoError(t, cfg.Tokens.Add(tok))
	}
	srv, err := server.New(cfg)
	require.NoError(t, err)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx, smallBuffers{ln}, time.Second) }()
	t.Cleanup(func() { cancel(); <-done })
	return ln.Addr().String()
}

// notReading sends a GET of a large page (about 800 KB) with tok and
// reads only the answer's status line and headers: the rest waits in the
// server's writer. It returns the connection and the body's length.
func notReading(t *testing.T, addr, tok string) (net.Conn, *bufio.Reader, int) {
	t.Helper()
	d := net.Dialer{Timeout: 5 * time.Second, Control: func(_, _ string, rc syscall.RawConn) error {
		var serr error
		err := rc.Control(func(fd uintptr) { serr = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 4096) })
		if err != nil {
			return err
		}
		return serr
	}}
	c, err := d.Dial("tcp", addr)
	require.NoError(t, err)
	t.Cleanup(func() { c.Close() })
	_, err = fmt.Fprintf(c, "GET /api/v2/projects/1/strings?limit=200 HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer %s\r\n\r\n", tok)
	require.NoError(t, err)
	require.NoError(t, c.SetReadDeadline(time.Now().Add(30*time.Second)))
	br := bufio.NewReaderSize(c, 16)
	line, err := br.ReadString('\n')
	require.NoError(t, err)
	require.Contains(t, line, " 200 ")
	length := -1
	for {
		h, err := br.ReadString('\n')
		require.NoError(t, err)
		if h == "\r\n" {
			break
		}
		if v, ok := strings.CutPrefix(strings.ToLower(h), "content-length: "); ok {
			length, _ = strconv.Atoi(strings.TrimSpace(v))
		}
	}
	require.Greater(t, length, 500_000, "the page must be far larger than the sockets' buffers")
	return c, br, length
}

// TestNonReadingClientsLoseTheirLanePlace: more clients than the cheap
// lane has places ask for a large page and stop reading after its
// headers. Another token's cheap request answers at once (before, each
// such client held its place for as long as it did not read: the other
// token waited the whole timeout and got a 503), and each non-reading
// connection is closed once WriteTimeout has passed since its answer
// started (before, the whole body arrived whenever the client read).
func TestNonReadingClientsLoseTheirLanePlace(t *testing.T) {
	const writeTimeout = 300 * time.Millisecond
	addr := serveTokens(t, server.Config{CheapLane: 2, Timeout: 3 * time.Second, WriteTimeout: writeTimeout,
		MaxCost: -1, MaxRequestCost: -1}, "flood-token", token)
	type held struct {
		c      net.Conn
		br     *bufio.Reader
		length int
		since  time.Time
	}
	var hs []held
	for range 3 {
		c, br, n := notReading(t, addr, "flood-token")
		hs = append(hs, held{c, br, n, time.Now()})
	}
	status, err := cheapGet(t, &http.Client{Timeout: 30 * time.Second}, addr)
	require.NoError(t, err)
	assert.Equal(t, http.StatusOK, status, "a client that does not read must not hold a place in the lane")
	for _, h := range hs {
		// Wait well past the write deadline before reading: the server
		// has closed the connection by then, so less than the body
		// arrives.
		time.Sleep(time.Until(h.since.Add(5 * writeTimeout)))
		n, _ := io.Copy(io.Discard, io.LimitReader(h.br, int64(h.length)))
		assert.Less(t, int(n), h.length, "the answer of a client that stopped reading must be cut at the write deadline")
	}
}
