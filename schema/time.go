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

// UnmarshalJSON accepts every form ParseTime does, read in UTC. The
// writers' layout, "YYYY-MM-DD HH:MM:SS", takes a fast path that does not
// allocate.
func (t *Time) UnmarshalJSON(b []byte) error {
	if len(b) == len(Layout)+2 && b[0] == '"' && b[len(b)-1] == '"' {
		if v, ok := parseLayout(b[1 : len(b)-1]); ok {
			*t = v
			return nil
		}
	}
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

// parseLayout reads "YYYY-MM-DD HH:MM:SS" in UTC without allocating. It
// reports false for anything else, including out-of-range fields, which
// the general parser then reports.
func parseLayout(b []byte) (Time, bool) {
	if len(b) != len(Layout) || b[4] != '-' || b[7] != '-' || b[10] != ' ' || b[13] != ':' || b[16] != ':' {
		return 0, false
	}
	num := func(i, n int) (int, bool) {
		v := 0
		for _, c := range b[i : i+n] {
			if c < '0' || c > '9' {
				return 0, false
			}
			v = v*10 + int(c-'0')
		}
		return v, true
	}
	y, ok1 := num(0, 4)
	mo, ok2 := num(5, 2)
	d, ok3 := num(8, 2)
	h, ok4 := num(11, 2)
	mi, ok5 := num(14, 2)
	s, ok6 := num(17, 2)
	if !(ok1 && ok2 && ok3 && ok4 && ok5 && ok6) || mo < 1 || mo > 12 || d < 1 || d > daysIn(y, mo) || h > 23 || mi > 59 || s > 59 {
		return 0, false
	}
	return Time(daysFromCivil(y, mo, d)*86400 + int64(h*3600+mi*60+s)), true
}

func daysIn(y, m int) int {
	switch m {
	case 2:
		if y%4 == 0 && (y%100 != 0 || y%400 == 0) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}

// daysFromCivil is the number of days from 1970-01-01 to y-m-d in the
// proleptic Gregorian calendar (H. Hinnant's algorithm).
func daysFromCivil(y, m, d int) int64 {
	if m <= 2 {
		y--
	}
	era := y / 400
	if y < 0 && y%400 != 0 {
		era--
	}
	yoe := y - era*400
	mp := (m + 9) % 12
	doy := (153*mp+2)/5 + d - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return int64(era)*146097 + int64(doe) - 719468
}
