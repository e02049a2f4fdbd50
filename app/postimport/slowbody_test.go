package postimport

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// trickle opens a connection to addr that sends the headers of a large
// job and then one byte every period until stop is closed.
func trickle(t *testing.T, addr string, period time.Duration, stop <-chan struct{}) net.Conn {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	t.Cleanup(func() { conn.Close() })
	_, err = fmt.Fprintf(conn, "POST /post-import HTTP/1.1\r\nHost: app\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{")
	require.NoError(t, err)
	go func() {
		for {
			select {
			case <-stop:
				return
			case <-time.After(period):
				if _, err := conn.Write([]byte(" ")); err != nil {
					return
				}
			}
		}
	}()
	return conn
}

// Four connections trickling their bodies (as many as MaxConcurrentJobs)
// hold no job slot: a real job sent meanwhile is processed. Before, the
// slot was taken before the body was read, and the real job got 503.
func TestTricklingBodiesHoldNoSlot(t *testing.T) {
	cfg := testConfig()
	cfg.MaxConcurrentJobs = 4
	cfg.MinBodyRate = -1 // only the body timeout: the tricklers stay for the whole test
	cfg.BodyTimeout = 20 * time.Second
	srv := httptest.NewServer(newHandler(t, identity, cfg))
	t.Cleanup(srv.Close)
	stop := make(chan struct{})
	defer close(stop)
	for range 4 {
		trickle(t, srv.Listener.Addr().String(), 50*time.Millisecond, stop)
	}
	time.Sleep(200 * time.Millisecond) // the four requests are being read
	resp, err := http.Post(srv.URL+"/post-import", "application/json", bytes.NewReader(jobJSON(t, nil)))
	require.NoError(t, err)
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	require.Equal(t, http.StatusOK, resp.StatusCode, string(b))
	assert.Contains(t, string(b), `"strings"`)
}

// A body slower than MinBodyRate is cut once BodyGrace has passed, long
// before BodyTimeout, with 408 and the rate in the message.
func TestSlowBodyIsCutByRate(t *testing.T) {
	cfg := testConfig()
	cfg.MinBodyRate = 1000
	cfg.BodyGrace = 300 * time.Millisecond
	cfg.BodyTimeout = 30 * time.Second
	srv := httptest.NewServer(newHandler(t, identity, cfg))
	t.Cleanup(srv.Close)
	stop := make(chan struct{})
	defer close(stop)
	conn := trickle(t, srv.Listener.Addr().String(), 50*time.Millisecond, stop) // 20 B/s
	// The bound only keeps a broken build from hanging: the answer is
	// due after about BodyGrace.
	require.NoError(t, conn.SetReadDeadline(time.Now().Add(15*time.Second)))
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	require.NoError(t, err, "no answer while the client trickles")
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	assert.Equal(t, http.StatusRequestTimeout, resp.StatusCode)
	assert.Contains(t, string(b), "arrived slower than")

	// A body at a good rate is unaffected.
	resp2, err := http.Post(srv.URL+"/post-import", "application/json", bytes.NewReader(jobJSON(t, nil)))
	require.NoError(t, err)
	defer resp2.Body.Close()
	require.Equal(t, http.StatusOK, resp2.StatusCode)
}
