package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/croql/croql/locfile"
	"github.com/croql/croql/server/platform"
)

// TestLocfileReadsAsThePlatformParsers: on the files croql serve's upload
// reads today (key-value JSON, Android XML), package locfile reads the
// same strings as server/platform's parsers, so the platform can take it
// over. Known differences, left out here: locfile keeps
// translatable="false" strings (hidden) where the platform drops them,
// keeps the prefix of inline markup (<xliff:g>, the platform writes <g>),
// and gives Android units in document order (the platform: strings, then
// plurals).
func TestLocfileReadsAsThePlatformParsers(t *testing.T) {
	type str struct {
		text   string
		plural map[string]string
	}
	inputs := map[string][]byte{
		"a/en.json": []byte(`{"a": "x", "b": {"c": "y", "d": {"one": "1", "other": "n"}}, "e": {"zero": "0", "other": "n", "few": "f"}}`),
		"values-de/strings.xml": []byte(`<resources>
<string name="s1">"Quoted \'x\'"</string><string name="s2">a &amp; b\nc <b>bold</b></string>
<plurals name="p"><item quantity="one">%d Ding</item><item quantity="other">%d Dinge</item></plurals></resources>`),
	}
	for _, name := range []string{"json/en.json", "json/de.json", "android/values-de/strings.xml"} {
		b, err := os.ReadFile(filepath.Join("..", "..", "testdata", "locfiles", name))
		require.NoError(t, err)
		inputs[name] = b
	}
	for name, data := range inputs {
		var pp platform.Parser
		for _, p := range platform.DefaultParsers() {
			if p.Match(name, data) {
				pp = p
			}
		}
		require.NotNil(t, pp, name)
		parsed, err := pp.Parse(data)
		require.NoError(t, err, name)
		want := map[string]str{}
		for _, p := range parsed {
			want[p.Identifier] = str{p.Text, p.Plural}
		}

		f, err := locfile.ReadBytes(name, data, nil, locfile.Limits{})
		require.NoError(t, err, name)
		assert.Equal(t, pp.Type(), f.Type, name)
		got := map[string]str{}
		for _, u := range f.Units {
			if !u.Hidden {
				got[u.Key] = str{u.Source.Text, u.Source.Plural}
			}
		}
		if name == "android/values-de/strings.xml" {
			delete(want, "welcome") // <xliff:g>: see above
			delete(got, "welcome")
		}
		assert.Equal(t, want, got, name)
	}
}
