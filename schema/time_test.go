package schema

import (
	"testing"
	"time"
)

// TestParseLayoutAgrees holds the fast path to time.Parse over every day
// of four centuries and a spread of clock times, and rejects what
// time.Parse rejects.
func TestParseLayoutAgrees(t *testing.T) {
	start := time.Date(1900, 1, 1, 0, 0, 0, 0, time.UTC)
	for d := 0; d < 400*366; d += 7 {
		tm := start.AddDate(0, 0, d).Add(time.Duration(d%86400) * time.Second)
		s := tm.Format(Layout)
		got, ok := parseLayout([]byte(s))
		if !ok || int64(got) != tm.Unix() {
			t.Fatalf("%s: got %d %v, want %d", s, got, ok, tm.Unix())
		}
	}
	for _, bad := range []string{"2023-02-29 00:00:00", "2023-13-01 00:00:00", "2023-00-10 00:00:00", "2023-01-32 00:00:00",
		"2023-01-01 24:00:00", "2023-01-01 00:60:00", "2023-01-01 00:00:60", "2023-01-01T00:00:00", "20a3-01-01 00:00:00"} {
		if _, ok := parseLayout([]byte(bad)); ok {
			t.Errorf("%s accepted", bad)
		}
		var tm Time
		if err := tm.UnmarshalJSON([]byte(`"` + bad + `"`)); err == nil && bad != "2023-01-01T00:00:00" {
			t.Errorf("UnmarshalJSON accepted %s", bad)
		}
	}
	if _, ok := parseLayout([]byte("2024-02-29 23:59:59")); !ok {
		t.Error("leap day rejected")
	}
}
