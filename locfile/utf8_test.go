package locfile

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestNotUTF8: a byte that is not UTF-8 in a file read as UTF-8 is an
// error at its line and column in every format (no text is read with
// U+FFFD in its place), as CheckUTF8 says before a parse.
func TestNotUTF8(t *testing.T) {
	for name, data := range map[string]string{
		"en.json":            "{\n  \"hi\": \"H\xffllo\"\n}",
		"en.arb":             "{\n  \"hi\": \"H\xffllo\"\n}",
		"de.po":              "msgid \"a\"\nmsgstr \"H\xffllo\"\n",
		"en.strings":         "\"a\" = \"x\";\n\"hi\" = \"H\xffllo\";",
		"values/strings.xml": "<resources>\n<string name=\"hi\">H\xffllo</string></resources>",
	} {
		_, err := ReadBytes(name, []byte(data), nil, Limits{})
		var le *Error
		require.ErrorAs(t, err, &le, name)
		assert.Equal(t, 2, le.Line, name)
		require.Error(t, CheckUTF8([]byte(data)), name)
	}
	err := CheckUTF8([]byte("{\n  \"hi\": \"H\xffllo\"\n}"))
	assert.EqualError(t, err, "line 2, column 11: the file is not valid UTF-8: byte 0xFF (byte offset 12); save it as UTF-8")

	// Left to the parser: UTF-16, and XML that declares ISO-8859-1, which
	// it reads.
	latin1 := "<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?>\n<resources><string name=\"a\">caf\xe9</string></resources>"
	require.NoError(t, CheckUTF8([]byte(latin1)))
	require.NoError(t, CheckUTF8([]byte("\xff\xfe\"\x00")))
	f, err := ReadBytes("values/strings.xml", []byte(latin1), nil, Limits{})
	require.NoError(t, err)
	assert.Equal(t, "café", f.Units[0].Source.Text)
	require.Error(t, CheckUTF8([]byte("<?xml version=\"1.0\" encoding=\"UTF-8\"?><a>\xe9</a>")))
}
