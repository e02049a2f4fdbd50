package pull

import (
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
