package postimport

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const descriptorJSON = `{
  "identifier": "splitter",
  "modules": {
    "file-post-import": [
      {"key": "xml-post", "url": "/post-import/xml", "signaturePatterns": {"fileName": "\\.xml$", "fileContent": "<resources>"}},
      {"key": "any-post", "url": "/post-import/any"}
    ],
    "other-module": [{"key": "x"}]
  }
}`

func TestDescriptorDecoding(t *testing.T) {
	var d struct {
		Modules Modules `json:"modules"`
	}
	require.NoError(t, json.Unmarshal([]byte(descriptorJSON), &d))
	require.Len(t, d.Modules.FilePostImport, 2)
	m := d.Modules.FilePostImport[0]
	assert.Equal(t, "xml-post", m.Key)
	assert.Equal(t, "/post-import/xml", m.URL)
	require.NotNil(t, m.SignaturePatterns)
	assert.Equal(t, `\.xml$`, m.SignaturePatterns.FileName)
	assert.Nil(t, d.Modules.FilePostImport[1].SignaturePatterns)
	for _, m := range d.Modules.FilePostImport {
		assert.NoError(t, m.Validate())
	}

	b, err := json.Marshal(d.Modules)
	require.NoError(t, err)
	assert.JSONEq(t, `{"file-post-import":[
	  {"key":"xml-post","url":"/post-import/xml","signaturePatterns":{"fileName":"\\.xml$","fileContent":"<resources>"}},
	  {"key":"any-post","url":"/post-import/any"}]}`, string(b))
}

func TestModuleValidate(t *testing.T) {
	good := Module{Key: "k", URL: "/p"}
	require.NoError(t, good.Validate())
	bad := []Module{
		{Key: "", URL: "/p"},
		{Key: "has space", URL: "/p"},
		{Key: "k", URL: ""},
		{Key: "k", URL: "p"},
		{Key: "k", URL: "https://evil.example/p"},
		{Key: "k", URL: "//evil.example/p"},
		{Key: "k", URL: "/a/../b"},
		{Key: "k", URL: "/p", SignaturePatterns: &SignaturePatterns{FileName: "(?=lookahead)"}},
		{Key: "k", URL: "/p", SignaturePatterns: &SignaturePatterns{FileContent: "[unclosed"}},
	}
	for _, m := range bad {
		assert.ErrorIs(t, m.Validate(), ErrInvalidModule, "%+v", m)
	}
}

func TestSignatureMatch(t *testing.T) {
	sig, err := SignaturePatterns{FileName: `\.xml$`, FileContent: `<resources>`}.Compile()
	require.NoError(t, err)
	assert.True(t, sig.Match("strings.xml", []byte(`<?xml?><resources></resources>`)))
	assert.False(t, sig.Match("strings.json", []byte(`<resources>`)), "name must match")
	assert.False(t, sig.Match("strings.xml", []byte(`{}`)), "content must match")

	nameOnly, err := SignaturePatterns{FileName: `^README`}.Compile()
	require.NoError(t, err)
	assert.True(t, nameOnly.Match("README.md", nil))
	assert.False(t, nameOnly.Match("docs/README.md", nil), "anchors are honoured")

	none, err := SignaturePatterns{}.Compile()
	require.NoError(t, err)
	assert.True(t, none.Match("anything", []byte("at all")))
	var nilSig *Signature
	assert.True(t, nilSig.Match("x", nil))
}

func TestSignatureContentSeesOnlyTheFirst64KiB(t *testing.T) {
	sig, err := SignaturePatterns{FileContent: `MARKER`}.Compile()
	require.NoError(t, err)
	pad := bytes.Repeat([]byte("x"), SignatureContentBytes-len("MARKER"))
	assert.True(t, sig.Match("f", append(append([]byte{}, pad...), "MARKER"...)), "ends exactly at 64 KiB")
	assert.False(t, sig.Match("f", append(append([]byte{}, pad...), "xMARKER"...)), "starts inside but ends after 64 KiB")
	assert.False(t, sig.Match("f", append(bytes.Repeat([]byte("x"), SignatureContentBytes), "MARKER"...)))
}

func TestSelect(t *testing.T) {
	var d struct {
		Modules Modules `json:"modules"`
	}
	require.NoError(t, json.Unmarshal([]byte(descriptorJSON), &d))
	m, ok, err := Select(d.Modules.FilePostImport, "values.xml", []byte("<resources/>"))
	require.NoError(t, err)
	require.True(t, ok)
	assert.Equal(t, "any-post", m.Key, "<resources/> does not contain <resources>")

	m, ok, err = Select(d.Modules.FilePostImport, "values.xml", []byte("<resources>"))
	require.NoError(t, err)
	require.True(t, ok)
	assert.Equal(t, "xml-post", m.Key)

	_, ok, err = Select(d.Modules.FilePostImport[:1], "a.json", nil)
	require.NoError(t, err)
	assert.False(t, ok)

	_, _, err = Select([]Module{{Key: "bad", URL: "/x", SignaturePatterns: &SignaturePatterns{FileName: "("}}}, "a", nil)
	assert.ErrorIs(t, err, ErrInvalidModule)
}
