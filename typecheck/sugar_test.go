package typecheck

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// TestRelativeDate: the relative dates read, each from the same clock,
// and the texts that are none.
func TestRelativeDate(t *testing.T) {
	now := time.Date(2024, 1, 31, 15, 4, 5, 999, time.UTC)
	for text, want := range map[string]string{
		"today - 7 days":     "'2024-01-24'",
		"TODAY-7DAYS":        "'2024-01-24'",
		"today + 1 month":    "'2024-03-02'", // Feb 31 is Mar 2 in a leap year
		"today - 1 year":     "'2023-01-31'",
		"today + 2 weeks":    "'2024-02-14'",
		"today - 3 h":        "'2024-01-30 21:00:00'",
		"yesterday":          "'2024-01-30'",
		"tomorrow":           "'2024-02-01'",
		"yesterday - 1 d":    "'2024-01-29'",
		"now":                "'2024-01-31 15:04:05'",
		"now - 90 minutes":   "'2024-01-31 13:34:05'",
		"now - 90 mins":      "'2024-01-31 13:34:05'",
		"3 days ago":         "'2024-01-28 15:04:05'",
		"1 hour ago":         "'2024-01-31 14:04:05'",
		"-7d":                "'2024-01-24 15:04:05'",
		"+2w":                "'2024-02-14 15:04:05'",
		"-15m":               "'2024-01-31 14:49:05'",
		"  today -\t7 days ": "'2024-01-24'",
	} {
		got, ok := relativeDate(text, now, time.UTC)
		if assert.True(t, ok, text) {
			assert.Equal(t, want, datetimeLiteral(got), text)
		}
	}
	for _, text := range []string{
		"", "today", "today 7 days", "today - 7", "today - days", "today * 7 days", "7 days", "days ago",
		"today - 7 fortnights", "-7", "-7x", "now - 1000001 days", "9000 years ago", "today + 8000 years",
		"last week", "today - -7 days", "today - 7.5 days", "héute", "today; drop",
	} {
		_, ok := relativeDate(text, now, time.UTC)
		assert.False(t, ok, text)
	}
	// today is midnight where the environment is.
	tokyo := time.FixedZone("JST", 9*3600)
	_, ok := relativeDate("today", time.Date(2024, 1, 31, 20, 0, 0, 0, time.UTC), tokyo)
	assert.False(t, ok, "'today' is CroQL")
	got, ok := relativeDate("yesterday", time.Date(2024, 1, 31, 20, 0, 0, 0, time.UTC), tokyo)
	assert.True(t, ok)
	assert.Equal(t, "'2024-01-31'", datetimeLiteral(got), "Feb 1 in Tokyo")
}
