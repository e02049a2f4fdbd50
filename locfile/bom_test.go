package locfile

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestUTF8ByteOrderMark(t *testing.T) {
	for name, data := range map[string]string{
		"values/strings.xml": "\ufeff<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<resources><string name=\"a\">x</string></resources>",
		"a.xlf":              "\ufeff<xliff version=\"1.2\"><file><body><trans-unit id=\"a\"><source>x</source></trans-unit></body></file></xliff>",
		"en.json":            "\ufeff{\"a\": \"x\"}",
		"en.arb":             "\ufeff{\"a\": \"x\"}",
		"de.po":              "\ufeffmsgid \"a\"\nmsgstr \"x\"\n",
		"en.strings":         "\ufeff\"a\" = \"x\";",
		"en.stringsdict":     "\ufeff<plist><dict><key>a</key><string>x</string></dict></plist>",
	} {
		f, err := ReadBytes(name, []byte(data), nil, Limits{})
		require.NoError(t, err, name)
		require.Len(t, f.Units, 1, name)
		assert.Equal(t, "a", f.Units[0].Key, name)
	}
}
