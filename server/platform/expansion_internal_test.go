package platform

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestJSONIdentifierBytes: the one-pass count of a JSON file's
// identifiers equals the bytes of the identifiers JSONParser reads.
func TestJSONIdentifierBytes(t *testing.T) {
	for _, file := range []string{
		`{}`,
		`{"a":"x"}`,
		`{"menu":{"file":"File","edit":{"copy":"Copy","paste":"Paste"}},"top":"t"}`,
		`{"apples":{"one":"an apple","other":"{n} apples"},"x":{"one":{"y":"z"}}}`,
		`{"a":{"b":{"c":{"d":"deep"}},"e":"f"},"g":{"one":"1","other":"2","h":"3"}}`,
	} {
		parsed, err := JSONParser{}.Parse([]byte(file))
		require.NoError(t, err, file)
		var want int64
		for _, p := range parsed {
			want += int64(len(p.Identifier))
		}
		assert.Equal(t, want, jsonIdentifierBytes([]byte(file)), file)
	}
	// Nesting deeper than encoding/json reads ends the count.
	deep := strings.Repeat(`{"a":`, maxJSONDepth+10) + `"x"` + strings.Repeat("}", maxJSONDepth+10)
	assert.NotPanics(t, func() { jsonIdentifierBytes([]byte(deep)) })
	for _, bad := range []string{``, `[`, `{"a":[1]}`, `{"a":`, `{"a":{"b"`} {
		assert.NotPanics(t, func() { jsonIdentifierBytes([]byte(bad)) })
	}
}
