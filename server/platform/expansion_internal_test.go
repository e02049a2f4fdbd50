package platform

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/croql/croql/locfile"
)

// TestParseWithinQuota: an upload's parse counts the bytes of the
// identifiers it reads (nested JSON keys joined with dots) and its
// strings, and stops once either is over the quota; at the quota it
// reads the whole file.
func TestParseWithinQuota(t *testing.T) {
	json := FileParser{P: locfile.JSON{}}
	for _, file := range []string{
		`{"ab":"x"}`,
		`{"menu":{"file":"File","edit":{"copy":"Copy","paste":"Paste"}},"top":"t"}`,
		`{"apples":{"one":"an apple","other":"{n} apples"},"x":{"one":{"y":"z"}}}`,
		`{"a":{"b":{"c":{"d":"deep"}},"e":"f"},"g":{"one":"1","other":"2","h":"3"}}`,
	} {
		parsed, err := json.Parse([]byte(file))
		require.NoError(t, err, file)
		var keyBytes int64
		for _, p := range parsed {
			keyBytes += int64(len(p.Identifier))
		}
		got, err := parseFile(json, []byte(file), uploadQuota{strings: len(parsed), keyBytes: keyBytes})
		require.NoError(t, err, file)
		assert.Equal(t, parsed, got, file)

		_, err = parseFile(json, []byte(file), uploadQuota{keyBytes: keyBytes - 1})
		var kb *keyBytesError
		require.True(t, errors.As(err, &kb), "%s: %v", file, err)
		assert.Equal(t, keyBytes, kb.n, file)
		if len(parsed) > 1 {
			_, err = parseFile(json, []byte(file), uploadQuota{strings: len(parsed) - 1})
			assert.ErrorIs(t, err, errTooManyStrings, file)
		}
	}
	// The parse stops at the quota: the rest of the file is not read.
	_, err := parseFile(json, []byte(`{"a":"1","b":"2","c":not JSON`), uploadQuota{strings: 1})
	assert.ErrorIs(t, err, errTooManyStrings)
	_, err = parseFile(json, []byte(`{"`+strings.Repeat("k", 100)+`":{"a":"1","b":"2","c":not JSON`), uploadQuota{keyBytes: 150})
	var kb *keyBytesError
	require.True(t, errors.As(err, &kb), "%v", err)
	assert.Equal(t, int64(204), kb.n)
	// Nesting deeper than locfile's limit is refused, with its line.
	deep := strings.Repeat(`{"a":`, 100) + `"x"` + strings.Repeat("}", 100)
	_, err = parseFile(json, []byte(deep), uploadQuota{keyBytes: 1 << 20})
	assert.ErrorIs(t, err, locfile.ErrLimit)
	assert.ErrorContains(t, err, "line 1")
}

// FuzzUploadQuota: on any input, a parse within a quota the file fits
// reads what the unbounded parse reads, and one string or one byte of
// identifiers fewer stops it at the quota.
func FuzzUploadQuota(f *testing.F) {
	for _, s := range []string{`{"a":"b","c":{"d":"e"},"p":{"one":"x","other":"y"}}`, `{"k":{"a":"1","b":{"c":"2"}}}`,
		`<resources><string name="a">x</string><plurals name="p"><item quantity="one">1</item></plurals><string name="b">y</string></resources>`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		for _, p := range []FileParser{{P: locfile.JSON{}}, {P: locfile.Android{}}} {
			all, err := p.Parse([]byte(in))
			if err != nil || len(all) == 0 {
				continue
			}
			var keyBytes int64
			for _, s := range all {
				keyBytes += int64(len(s.Identifier))
			}
			got, err := p.parseWithin([]byte(in), uploadQuota{strings: len(all), keyBytes: keyBytes})
			require.NoError(t, err)
			require.Equal(t, all, got)
			if len(all) > 1 {
				_, err = p.parseWithin([]byte(in), uploadQuota{strings: len(all) - 1})
				require.ErrorIs(t, err, errTooManyStrings)
			}
			if keyBytes > 1 {
				_, err = p.parseWithin([]byte(in), uploadQuota{keyBytes: keyBytes - 1})
				var kb *keyBytesError
				require.ErrorAs(t, err, &kb)
			}
		}
	})
}
