package server_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"slices"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/croql/croql/server"
)

// serveLimited runs srv.Serve (the connection limits apply there, not
// in httptest) on a loopback port of its own.
func serveLimited(t *testing.T, cfg server.Config) string {
	t.Helper()
	return serveLimitedOn(t, "sqlite", cfg)
}

// serveLimitedOn is serveLimited with the demo project on engine.
func serveLimitedOn(t *testing.T, engine string, cfg server.Config) string {
	t.Helper()
	var st *server.Storage
	var err error
	if engine == "sqlite" {
		st, err = server.LoadSQLite(context.Background(), t.TempDir(), demo(t))
	} else {
		st, err = server.LoadServer(context.Background(), engine, dsnOf(engine), demo(t))
	}
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, st.Close()) })
	cfg.Storage, cfg.Now = st, clock
	cfg.Tokens = &server.Tokens{}
	require.NoError(t, cfg.Tokens.Add(token))
	srv, err := server.New(cfg)
	require.NoError(t, err)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx, ln, time.Second) }()
	t.Cleanup(func() { cancel(); <-done })
	return ln.Addr().String()
}

// clientFrom is an HTTP client whose connections come from the loopback
// address ip (127.0.0.0/8 is all loopback on Linux).
func clientFrom(ip string) *http.Client {
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}, Timeout: 5 * time.Second}
	return &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{DialContext: d.DialContext, DisableKeepAlives: true}}
}

func cheapGet(t *testing.T, c *http.Client, addr string) (int, error) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, "http://"+addr+"/api/v2/projects/1/strings?limit=1", nil)
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := c.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, resp.Body)
	return resp.StatusCode, nil
}

// slowBody opens a connection that sends an authenticated POST's headers
// and one byte of a 100,000-byte body, then nothing.
func slowBody(addr string) (net.Conn, error) {
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		return nil, err
	}
	_, err = fmt.Fprintf(c, "POST /api/v2/projects/1/strings/query HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer %s\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{", token)
	if err != nil {
		c.Close()
		return nil, err
	}
	return c, nil
}

// TestSlowBodiesDoNotStopACheapRequest: 300 connections from one client
// that send a body's first byte and then nothing. The per-client cap
// closes all but MaxConnsPerClient of them at once; a cheap request from
// another client answers meanwhile; the held ones are cut once the body
// rate's grace has passed, and then the first client is served again.
func TestSlowBodiesDoNotStopACheapRequest(t *testing.T) {
	addr := serveLimited(t, server.Config{MaxConnsPerClient: 20, BodyGrace: 500 * time.Millisecond})
	var conns []net.Conn
	for range 300 {
		c, err := slowBody(addr)
		require.NoError(t, err)
		conns = append(conns, c)
	}
	t.Cleanup(func() {
		for _, c := range conns {
			c.Close()
		}
	})
	status, err := cheapGet(t, clientFrom("127.0.0.2"), addr)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, status)

	// Every slow connection ends within a bounded time: closed at accept
	// (beyond the cap), or answered and closed when its body is too slow.
	closedAtAccept, answered := 0, 0
	for _, c := range conns {
		require.NoError(t, c.SetReadDeadline(time.Now().Add(10*time.Second)))
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			var ne net.Error
			require.False(t, errors.As(err, &ne) && ne.Timeout(), "a slow connection was still open after 10 s")
			closedAtAccept++
			continue
		}
		resp.Body.Close()
		answered++
		assert.Equal(t, http.StatusBadRequest, resp.StatusCode)
	}
	assert.Equal(t, 20, answered, "MaxConnsPerClient connections were served")
	assert.Equal(t, 280, closedAtAccept)

	status, err = cheapGet(t, clientFrom("127.0.0.1"), addr)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, status, "the first client is served again once its slow connections are gone")
}

// TestMaxConnsInTotal: at MaxConns open connections a new one from the
// client holding them is closed at once; one from a client holding fewer
// takes the place of the busiest client's oldest connection; a closed
// connection frees its place.
func TestMaxConnsInTotal(t *testing.T) {
	addr := serveLimited(t, server.Config{MaxConns: 5, MaxConnsPerClient: -1})
	var idle []net.Conn
	for range 5 {
		c, err := net.Dial("tcp", addr) // from 127.0.0.1
		require.NoError(t, err)
		idle = append(idle, c)
	}
	t.Cleanup(func() {
		for _, c := range idle {
			c.Close()
		}
	})
	time.Sleep(100 * time.Millisecond) // the five are accepted
	_, err := cheapGet(t, clientFrom("127.0.0.1"), addr)
	require.Error(t, err, "a sixth connection from the same client is closed")

	status, err := cheapGet(t, clientFrom("127.0.0.2"), addr)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, status, "another client takes the place of the busiest client's oldest connection")
	require.NoError(t, idle[0].SetReadDeadline(time.Now().Add(5*time.Second)))
	_, err = idle[0].Read(make([]byte, 1))
	require.ErrorIs(t, err, io.EOF, "the oldest connection was closed by the server")

	// 127.0.0.2's connection is gone again (no keep-alive): four are
	// open, so 127.0.0.1 gets a fifth.
	require.Eventually(t, func() bool {
		status, err := cheapGet(t, clientFrom("127.0.0.1"), addr)
		return err == nil && status == http.StatusOK
	}, 5*time.Second, 50*time.Millisecond)
}

// TestTenThousandSlowBodies: 10,000 connections from 100 loopback
// addresses, each sending an authenticated POST's headers and one byte of
// its body, then nothing (their body rate's grace is longer than the
// test). The per-client cap closes all but 64 of each address's; the
// total cap keeps at most MaxConns, each address's oldest giving way to a
// newer from a client holding fewer. A cheap request from a client that
// holds none answers meanwhile.
func TestTenThousandSlowBodies(t *testing.T) {
	if testing.Short() {
		t.Skip("opens 10,000 connections (about 11,500 file descriptors in this process)")
	}
	for _, engine := range engines(t) {
		t.Run(engine, func(t *testing.T) { testTenThousandSlowBodies(t, engine) })
	}
}

func testTenThousandSlowBodies(t *testing.T, engine string) {
	const n, clients = 10000, 100
	var lim syscall.Rlimit
	require.NoError(t, syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim))
	if lim.Cur < lim.Max {
		lim.Cur = lim.Max
		require.NoError(t, syscall.Setrlimit(syscall.RLIMIT_NOFILE, &lim))
	}
	// Each client socket, and at most MaxConns accepted ones; closed
	// server sides are given back at once.
	if need := uint64(n + server.DefaultMaxConns + 512); lim.Cur < need {
		msg := fmt.Sprintf("RLIMIT_NOFILE is %d; the test needs %d file descriptors (ulimit -Hn)", lim.Cur, need)
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	addr := serveLimitedOn(t, engine, server.Config{BodyGrace: time.Minute})

	conns := make([]net.Conn, n)
	var refused atomic.Int64
	var wg sync.WaitGroup
	start := time.Now()
	for w := range clients {
		ip := fmt.Sprintf("127.0.1.%d", w+1)
		wg.Go(func() {
			d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}, Timeout: 10 * time.Second}
			for i := w; i < n; i += clients {
				c, err := d.Dial("tcp", addr)
				if err != nil {
					refused.Add(1)
					continue
				}
				conns[i] = c
				if _, err := fmt.Fprintf(c, "POST /api/v2/projects/1/strings/query HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer %s\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{", token); err != nil {
					refused.Add(1)
				}
			}
		})
	}
	wg.Wait()
	t.Cleanup(func() {
		for _, c := range conns {
			if c != nil {
				c.Close()
			}
		}
	})
	t.Logf("10,000 slow bodies sent in %s (%d refused while dialling or writing)", time.Since(start).Round(time.Millisecond), refused.Load())

	begin := time.Now()
	status, err := cheapGet(t, clientFrom("127.0.0.1"), addr)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, status)
	t.Logf("the cheap request answered in %s", time.Since(begin).Round(time.Millisecond))
	// The server holds at most MaxConns of them: count those still open
	// by reading each with a short deadline (a closed one reads EOF or a
	// reset at once). Handshakes the kernel's accept queue overflowed on
	// complete later, on a retransmission, and are then refused or take
	// a place: until they have, the client sees them open, so the count
	// is repeated until it settles.
	live := slices.DeleteFunc(slices.Clone(conns), func(c net.Conn) bool { return c == nil })
	open := 0
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		live = slices.DeleteFunc(live, func(c net.Conn) bool {
			require.NoError(t, c.SetReadDeadline(time.Now().Add(time.Millisecond)))
			_, err := c.Read(make([]byte, 1))
			var ne net.Error
			return !(errors.As(err, &ne) && ne.Timeout())
		})
		if open = len(live); open <= server.DefaultMaxConns || time.Now().After(deadline) {
			break
		}
	}
	t.Logf("%d slow connections still open", open)
	assert.LessOrEqual(t, open, server.DefaultMaxConns)
	assert.Greater(t, open, server.DefaultMaxConns/2, "the total cap, not less, bounds them")
}
