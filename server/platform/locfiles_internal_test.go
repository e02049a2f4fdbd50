package platform

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"testing"
	"unicode/utf16"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/croql/croql/locfile"
)

// utf16LE is s in UTF-16, little-endian, with a byte order mark.
func utf16LE(s string) []byte {
	out := []byte{0xFF, 0xFE}
	for _, u := range utf16.Encode([]rune(s)) {
		out = append(out, byte(u), byte(u>>8))
	}
	return out
}

var byteOffset = regexp.MustCompile(` \(byte offset \d+\)`)

// dataString is what croql query --data makes of a unit, as an upload's
// Parsed has it.
func dataString(u *locfile.Unit, bilingual bool) Parsed {
	p := Parsed{Identifier: u.Key, Text: u.Source.Text, Plural: u.Source.Plural, Context: u.JoinedContext(), Hidden: u.Hidden, bilingual: bilingual}
	if u.MaxLength != nil {
		n := int(*u.MaxLength)
		p.MaxLength = &n
	}
	if bilingual && !u.Target.IsZero() {
		p.Target = &Parsed{Identifier: u.Key, Text: u.Target.Text, Plural: u.Target.Plural}
	}
	return p
}

// TestUploadsReadAsData: an upload reads a file as croql query --data
// reads it, with the same parser: the same format, strings in file order,
// identifiers, texts, plural forms, contexts (with notes), hidden flags,
// max lengths and targets; and a file one refuses the other refuses with
// the same position. Over the test corpus and the files of the upload
// tests (escapes, markup, nested keys, byte order marks, bad files).
func TestUploadsReadAsData(t *testing.T) {
	files := map[string][]byte{}
	root := filepath.Join("..", "..", "testdata", "locfiles")
	require.NoError(t, filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || filepath.Ext(path) == ".md" {
			return err
		}
		b, err := os.ReadFile(path)
		files[filepath.ToSlash(path[len(root)+1:])] = b
		return err
	}))
	for name, s := range map[string]string{
		"app.json":    `{"a":"Apple","nested":{"b":"Banana"},"items":{"one":"%d item","other":"%d items"}}`,
		"bom.json":    "\ufeff{\"a\":\"b\"}",
		"dup.json":    `{"a":{"one":"x","one":"y"},"b":{"one":"x","z":"y"},"c":{"one":{"d":"e"}}}`,
		"deep.json":   `{"a":{"b":{"c":{"d":"deep"}},"e":"f"},"g":{"one":"1","other":"2","h":"3"}}`,
		"esc.json":    `{"a":"\u00e9\n\"q\"","b.c":"1","b":{"c":"2"}}`,
		"bad1.json":   "{\n\"a\":\n  \"x\",\n  \"b\": x}",
		"bad2.json":   `{"a":null}`,
		"bad3.json":   `{"a":"x"} {}`,
		"bad4.json":   `{"a":{" ":"x"}}`,
		"bad5.json":   `{"a":`,
		"strings.xml": `<?xml version="1.0" encoding="utf-8"?><resources><string name="hi">Hi \'you\'</string><string name="skip" translatable="false">x</string><plurals name="files"><item quantity="one">One file</item><item quantity="other">%d files</item></plurals></resources>`,
		"bom.xml":     "\ufeff<resources><string name=\"a\">x</string></resources>",
		"markup.xml":  `<resources><!-- note --><string name="a">a<br/>b <xliff:g id="x" a="&quot;">%s</xliff:g> <![CDATA[<b>c</b>]]> &lt;i&gt;</string><string name="q">"  q  "</string><string name="e">\'\"\n\t\\\@\? x\</string></resources>`,
		"order.xml":   `<resources><plurals name="p" translatable="false"><item quantity="one">1</item></plurals><string name="a">x</string><group><string name="n">nested</string></group></resources>`,
		"bad1.xml":    `<resources><string name="a"><b>x</string></resources>`,
		"bad2.xml":    `<resources><plurals name="p"><item quantity="lots">x</item></plurals></resources>`,
		"bad3.xml":    `<resources><string>x</string></resources>`,
		"bad4.xml":    `<resources></resources> trailing`,
		"latin1.xml":  "<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?>\n<resources><string name=\"a\">caf\xe9</string></resources>",
		"bad6.json":   "{\n  \"hi\": \"H\xffllo\"\n}",
		"bad5.po":     "msgid \"a\"\nmsgstr \"H\xffllo\"\n",
	} {
		files[name] = []byte(s)
	}
	read, refused := 0, 0
	files["utf16.xml"] = utf16LE("<?xml version=\"1.0\" encoding=\"utf-16\"?>\n<resources><string name=\"a\">Привіт</string></resources>")
	for name, data := range files {
		want, wantErr := locfile.ReadBytes(name, data, nil, locfile.Limits{})
		p, err := parserFor(DefaultParsers(), name, data)
		require.NoError(t, err, name)
		got, err := parseFile(p, data, uploadQuota{strings: DefaultMaxFileStrings, keyBytes: DefaultMaxFileBytes})
		if wantErr != nil {
			require.Error(t, err, name)
			// The upload's check of UTF-8 over the whole file adds the
			// byte offset that the streaming parsers do not know.
			assert.Equal(t, byteOffset.ReplaceAllString(wantErr.Error(), ""), name+": "+byteOffset.ReplaceAllString(err.Error(), ""))
			assert.Contains(t, err.Error(), "line ", name)
			refused++
			continue
		}
		require.NoError(t, err, name)
		assert.Equal(t, want.Type, p.Type(), name)
		var units []Parsed
		for i := range want.Units {
			units = append(units, dataString(&want.Units[i], want.Bilingual))
		}
		assert.Equal(t, units, got, name)
		read++
	}
	assert.Equal(t, 11, refused, "the bad files")
	assert.Equal(t, len(files)-11, read)
}
