package pull

import (
	"context"
	"io"
	"net"
	"strings"
	"testing"
	"time"
)

func TestRetryAfter(t *testing.T) {
	now := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		v       string
		attempt int
		want    time.Duration
	}{
		{"0", 0, 0},
		{"3", 5, 3 * time.Second},
		{"3600", 0, maxWait},
		{"Wed, 01 Jan 2025 00:00:10 GMT", 0, 10 * time.Second},
		{"Tue, 31 Dec 2024 23:00:00 GMT", 0, 0},
		{"", 0, time.Second},
		{"soon", 2, 4 * time.Second},
		{"", 30, maxWait},
	} {
		if got := retryAfter(c.v, c.attempt, now); got != c.want {
			t.Errorf("retryAfter(%q, %d) = %s, want %s", c.v, c.attempt, got, c.want)
		}
	}
}

// TestUnreachableNamesTheURL: a request that cannot be sent is told with
// the address it went to, not the client's own base address.
func TestUnreachableNamesTheURL(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // nothing listens there now
	_, err = Run(context.Background(), Options{URL: "http://" + addr, Token: "t", Project: 1, Retries: -1}, io.Discard)
	if err == nil {
		t.Fatal("no error")
	}
	if msg := err.Error(); !strings.Contains(msg, addr) || strings.Contains(msg, "api.crowdin.com") ||
		!strings.Contains(msg, "GET /api/v2/projects/1") {
		t.Errorf("error %q: want the request and %s, not the client's base address", msg, addr)
	}
}
