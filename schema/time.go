package schema

import (
	"fmt"
	"strings"
	"time"
)

// Time is an instant with second precision, stored as Unix seconds. Every
// datetime field of every context uses it, so comparisons are integer
// comparisons in the evaluator and in SQL.
type Time int64

// Layout is the platform's datetime form in the string and translation
// contexts: YYYY-MM-DD HH:MM:SS, in UTC.
const Layout = "2006-01-02 15:04:05"

// TimeOf converts a time.Time, dropping sub-second precision.
func TimeOf(t time.Time) Time { return Time(t.Unix()) }

// Std returns the instant as a time.Time in UTC.
func (t Time) Std() time.Time { return time.Unix(int64(t), 0).UTC() }

// String formats the instant in the platform layout, UTC.
func (t Time) String() string { return t.Std().Format(Layout) }

// ParseTime reads the datetime forms the language and the data files
// accept: YYYY-MM-DD HH:MM:SS, YYYY-MM-DD, and RFC 3339 (ISO 8601 with
// offset or Z, fractions dropped). Forms without an offset are read in loc.
func ParseTime(s string, loc *time.Location) (Time, error) {
	s = strings.TrimSpace(s)
	for _, layout := range []string{Layout, "2006-01-02T15:04:05", "2006-01-02"} {
		if t, err := time.ParseInLocation(layout, s, loc); err == nil {
			return TimeOf(t), nil
		}
	}
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return TimeOf(t), nil
	}
	return 0, fmt.Errorf("%q is not a datetime: write 'YYYY-MM-DD HH:MM:SS', 'YYYY-MM-DD' or RFC 3339 such as '2024-01-01T00:00:00Z'", s)
}

// MarshalJSON writes the platform layout in UTC.
func (t Time) MarshalJSON() ([]byte, error) { return []byte(`"` + t.String() + `"`), nil }

// UnmarshalJSON accepts every form ParseTime does, read in UTC.
func (t *Time) UnmarshalJSON(b []byte) error {
	s := string(b)
	if len(s) < 2 || s[0] != '"' || s[len(s)-1] != '"' {
		return fmt.Errorf("datetime must be a JSON string, got %s", s)
	}
	v, err := ParseTime(s[1:len(s)-1], time.UTC)
	if err != nil {
		return err
	}
	*t = v
	return nil
}
