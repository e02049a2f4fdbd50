package platform_test

import (
	"testing"

	"github.com/croql/croql/server/platform"
)

// FuzzParsers: no input makes a parser panic or hang; what a parser
// accepts has a key for every string.
func FuzzParsers(f *testing.F) {
	for _, s := range []string{`{"a":"b","c":{"d":"e"},"p":{"one":"x","other":"y"}}`, `{"a":{}}`, `{"":""}`,
		`<resources><string name="a">x\'y &amp; <b>z</b></string><plurals name="p"><item quantity="one">1</item></plurals></resources>`,
		`<resources><string name="a">"q"</string></resources>`, `<resources><string name="a"><![CDATA[<b>]]></string></resources>`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		for _, p := range platform.DefaultParsers() {
			strs, err := p.Parse([]byte(in))
			if err != nil {
				continue
			}
			for _, s := range strs {
				if s.Plural != nil && len(s.Plural) == 0 {
					t.Fatalf("%s: an empty plural string from %q", p.Type(), in)
				}
			}
		}
	})
}
