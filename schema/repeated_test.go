package schema

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestRepeatedKey: a name given twice in one object (compared without
// regard to case, as the decoder matches names) is an error at any depth;
// values equal to names, the same name in sibling objects and text that
// is not JSON are told apart.
func TestRepeatedKey(t *testing.T) {
	for _, c := range []struct {
		in, err string
	}{
		{`{"a":"b","b":1}`, ""},
		{`{"a":[{"k":1},{"k":2}],"k":3}`, ""},
		{`{"a":{"x":1,"y":{"x":2}},"b":[[],{}]}`, ""},
		{`[1,"a","a",{"a":1}]`, ""},
		{`{"a":1,"A":2}`, `member "A" is given twice in one object`},
		{`{"a":{"x":1,"x":[2]}}`, `member "x" is given twice in one object`},
		{`{"a":[{"k":1,"k":2}]}`, `member "k" is given twice in one object`},
		{`{"a":[],"b":{},"a":null}`, `member "a" is given twice in one object`},
		{`{"a":1,}`, "invalid character"},
		{`{"a" 1}`, "invalid character"},
	} {
		err := repeatedKey([]byte(c.in))
		if c.err == "" {
			require.NoError(t, err, c.in)
			continue
		}
		require.ErrorContains(t, err, c.err, c.in)
	}
}

// TestLanguageCodes: the source language, the targets, then the language
// objects, each code once and none empty.
func TestLanguageCodes(t *testing.T) {
	p := &Project{SourceLanguage: "en", TargetLanguages: []string{"de", "en", "fr"},
		Languages: []LanguageInfo{{ID: "uk"}, {ID: "de"}, {ID: ""}}}
	require.Equal(t, []string{"en", "de", "fr", "uk"}, p.LanguageCodes())
	require.Empty(t, (&Project{}).LanguageCodes())
}
