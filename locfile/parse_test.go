package locfile

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func read(t *testing.T, name, data string) *File {
	t.Helper()
	f, err := ReadBytes(name, []byte(data), nil, Limits{})
	require.NoError(t, err)
	return f
}

func i64(n int64) *int64 { return &n }

func TestXLIFF12(t *testing.T) {
	f := read(t, "m.xlf", `<?xml version="1.0"?>
<xliff version="1.2"><file source-language="en" target-language="de"><body>
<trans-unit id="1" resname="k" maxwidth="12"><source>A &amp; <x id="1"/>B</source><target state="signed-off">C</target><note>n1</note></trans-unit>
<trans-unit id="2" translate="no"><source>S</source><target state="needs-review-translation">T</target>
<context-group><context context-type="x">ctx</context></context-group></trans-unit>
<trans-unit id="3" approved="yes"><source>S3</source><target state-qualifier="exact-match">T3</target></trans-unit>
<trans-unit id="4" maxwidth="5" size-unit="pixel"><source>S4</source></trans-unit>
</body></file></xliff>`)
	assert.Equal(t, "xliff", f.Type)
	assert.True(t, f.Bilingual)
	assert.Equal(t, "en", f.Language)
	assert.Equal(t, "de", f.TargetLanguage)
	require.Len(t, f.Units, 4)
	assert.Equal(t, Unit{Key: "k", Source: Text{Text: `A & <x id="1"></x>B`}, Target: Text{Text: "C"}, Notes: []string{"n1"},
		MaxLength: i64(12), State: StateApproved, Line: 3}, f.Units[0])
	assert.Equal(t, Unit{Key: "2", Source: Text{Text: "S"}, Target: Text{Text: "T"}, Context: "ctx", Hidden: true, State: StateNeedsReview, Line: 4}, f.Units[1])
	assert.Equal(t, StateApproved, f.Units[2].State)
	assert.Equal(t, "tm", f.Units[2].Origin)
	assert.Nil(t, f.Units[3].MaxLength, "maxwidth in pixels is no length")
	assert.Equal(t, StateNew, f.Units[3].State)
}

func TestXLIFF2(t *testing.T) {
	f := read(t, "m.xliff", `<xliff xmlns="urn:oasis:names:tc:xliff:document:2.0" xmlns:slr="urn:oasis:names:tc:xliff:sizerestriction:2.0" version="2.0" srcLang="en" trgLang="ja">
<file id="f"><unit id="u1" name="greet" slr:sizeRestriction="9"><notes><note>hi</note></notes>
<segment state="reviewed"><source>Hello</source><target>こんにちは</target></segment></unit>
<unit id="u2"><segment state="initial"><source>{n, select, a {A} other {B}}</source><target>x</target></segment></unit>
<unit id="u3"><segment><source>Only source</source></segment></unit>
</file></xliff>`)
	assert.Equal(t, "xliff_two", f.Type)
	assert.Equal(t, "en", f.Language)
	assert.Equal(t, "ja", f.TargetLanguage)
	require.Len(t, f.Units, 3)
	assert.Equal(t, Unit{Key: "greet", Source: Text{Text: "Hello"}, Target: Text{Text: "こんにちは"}, Notes: []string{"hi"}, MaxLength: i64(9), State: StateApproved, Original: "f", Line: 2}, f.Units[0])
	assert.True(t, f.Units[1].ICU)
	assert.Equal(t, "icu", f.Units[1].Type())
	assert.Equal(t, StateNeedsReview, f.Units[1].State, "initial with a target")
	assert.Equal(t, StateNew, f.Units[2].State)
}

func TestPO(t *testing.T) {
	f := read(t, "x/pl.po", `msgid ""
msgstr "Language: pl\n"
"Plural-Forms: nplurals=3; plural=(n==1 ? 0 : n%10>=2 && n%10<=4 && (n%100<10 || n%100>=20) ? 1 : 2);\n"

# translator says
#. extracted
#, fuzzy, c-format
msgctxt "c"
msgid "a\tb"
msgstr "A\"B"

msgid "file"
msgid_plural "files"
msgstr[0] "plik"
msgstr[1] "pliki"
msgstr[2] "plików"

msgid "untranslated"
msgstr ""
`)
	assert.Equal(t, "pl", f.TargetLanguage)
	require.Len(t, f.Units, 3)
	assert.Equal(t, Unit{Key: "a\tb", Source: Text{Text: "a\tb"}, Target: Text{Text: `A"B`}, Context: "c",
		Notes: []string{"translator says", "extracted"}, State: StateNeedsReview, Line: 5}, f.Units[0])
	assert.Equal(t, map[string]string{"one": "plik", "few": "pliki", "many": "plików"}, f.Units[1].Target.Plural)
	assert.Equal(t, map[string]string{"one": "file", "other": "files"}, f.Units[1].Source.Plural)
	assert.Equal(t, StateNew, f.Units[2].State)
}

func TestPOLanguageFromPath(t *testing.T) {
	f := read(t, "locale/fr/LC_MESSAGES/app.po", "msgid \"a\"\nmsgstr \"b\"\n")
	assert.Equal(t, "fr", f.TargetLanguage)
	f = read(t, "app.pot", "msgid \"a\"\nmsgstr \"\"\n")
	assert.True(t, f.Template)
}

func TestStrings(t *testing.T) {
	f := read(t, "de.lproj/Localizable.strings", `/* c1 */
"a" = "x\"y\n";
// c2
b = "z"; "c";
/* No comment provided by engineer. */
"d" = "\U00e9";`)
	require.Len(t, f.Units, 4)
	assert.Equal(t, Unit{Key: "a", Source: Text{Text: "x\"y\n"}, Notes: []string{"c1"}, Line: 2}, f.Units[0])
	assert.Equal(t, Unit{Key: "b", Source: Text{Text: "z"}, Notes: []string{"c2"}, Line: 4}, f.Units[1])
	assert.Equal(t, Unit{Key: "c", Source: Text{Text: "c"}, Line: 4}, f.Units[2])
	assert.Equal(t, Unit{Key: "d", Source: Text{Text: "é"}, Line: 6}, f.Units[3])
}

func TestJSONAndARB(t *testing.T) {
	f := read(t, "en.json", `{"a": {"b": "x", "c": {"one": "1", "other": "n"}}, "d": "{n, plural, one {#} other {#}}"}`)
	require.Len(t, f.Units, 3)
	assert.Equal(t, "a.b", f.Units[0].Key)
	assert.Equal(t, Text{Text: "n", Plural: map[string]string{"one": "1", "other": "n"}}, f.Units[1].Source)
	assert.Equal(t, "icu", f.Units[2].Type())

	f = read(t, "app_de.arb", `{"@@locale": "de", "k": "v", "@k": {"description": "d", "context": "c"}, "@@last_modified": "x"}`)
	assert.Equal(t, "de", f.Language)
	require.Len(t, f.Units, 1)
	assert.Equal(t, Unit{Key: "k", Source: Text{Text: "v"}, Context: "c", Notes: []string{"d"}, Line: 1}, f.Units[0])
}

func TestAndroid(t *testing.T) {
	f := read(t, "values/strings.xml", `<resources>
<!-- note -->
<string name="a">"a \"b\" \n"</string>
<string name="b" translatable="false">x</string>
<plurals name="p"><item quantity="one">1</item><item quantity="other">n</item></plurals>
<string-array name="arr"><item>i</item></string-array>
</resources>`)
	require.Len(t, f.Units, 3)
	assert.Equal(t, Unit{Key: "a", Source: Text{Text: "a \"b\" \n"}, Notes: []string{"note"}, Line: 3}, f.Units[0])
	assert.True(t, f.Units[1].Hidden)
	assert.Equal(t, "plural", f.Units[2].Type())
}

func TestStringsDict(t *testing.T) {
	f := read(t, "en.lproj/x.stringsdict", `<plist version="1.0"><dict>
<key>k</key><dict><key>NSStringLocalizedFormatKey</key><string>Got %#@n@ and %#@m@</string>
<key>n</key><dict><key>NSStringFormatSpecTypeKey</key><string>NSStringPluralRuleType</string><key>one</key><string>one</string><key>other</key><string>many</string></dict>
<key>m</key><dict><key>NSStringFormatSpecTypeKey</key><string>NSStringPluralRuleType</string><key>other</key><string>x</string></dict>
</dict></dict></plist>`)
	require.Len(t, f.Units, 1)
	assert.Equal(t, map[string]string{"one": "Got one and %#@m@", "other": "Got many and %#@m@"}, f.Units[0].Source.Plural)
}

func TestErrorsHavePositions(t *testing.T) {
	for _, c := range []struct{ name, data, want string }{
		{"a.xlf", "<xliff version=\"1.2\">\n<file>\n<trans-unit id=\"1\"><source>x</target>", "line 3"},
		{"a.po", "msgid \"a\"\nmsgstr \"b\nmsgid", "line 2"},
		{"a.po", "msgid \"a\"\nmsgstr[0] \"b\"\n", "line 2"},
		{"a.strings", "\"a\" = \"b\";\n\"c\" = ;", "line 2"},
		{"a.json", "{\n\"a\": [1]}", "line 2"},
		{"a.json", "{\n\"a\": \"b\",\n}", "line 3"},
		{"a.arb", "{\"a\": 1}", "line 1"},
		{"strings.xml", "<resources>\n<plurals name=\"p\"><item quantity=\"lots\">x</item></plurals></resources>", "line 2"},
		{"a.stringsdict", "<plist><dict>\n<key>k</key><dict><key>x</key><string>y</string></dict></dict></plist>", "line 2"},
	} {
		_, err := ReadBytes(c.name, []byte(c.data), nil, Limits{})
		var le *Error
		if assert.ErrorAs(t, err, &le, c.name) {
			assert.Contains(t, err.Error(), c.want, c.name)
			assert.True(t, strings.HasPrefix(err.Error(), c.name+": "), err.Error())
		}
	}
}

func TestLimits(t *testing.T) {
	lim := Limits{MaxUnits: 2, MaxText: 8, MaxDepth: 3, MaxBytes: 1000}
	for _, c := range []struct{ name, data string }{
		{"a.json", `{"a":"1","b":"2","c":"3"}`},
		{"a.json", `{"a":"123456789"}`},
		{"a.json", `{"a":{"b":{"c":{"d":{"e":"x"}}}}}`},
		{"a.po", "msgid \"a\"\nmsgstr \"123456789\"\n"},
		{"a.strings", `"a"="1";"b"="2";"c"="3";`},
		{"a.xlf", `<xliff version="1.2"><file><body><group><group><trans-unit id="x"/></group></group></body></file></xliff>`},
		{"a.json", `{"a":"` + strings.Repeat("x", 2000) + `"}`},
	} {
		_, err := ReadBytes(c.name, []byte(c.data), nil, lim)
		assert.ErrorIs(t, err, ErrLimit, c.data)
	}
}

func TestNoParser(t *testing.T) {
	_, err := ReadBytes("a.txt", []byte("x"), nil, Limits{})
	assert.True(t, errors.Is(err, ErrNoParser))
	_, err = ReadBytes("a.xml", []byte("<manifest/>"), nil, Limits{})
	assert.True(t, errors.Is(err, ErrNoParser), "an .xml file that is neither XLIFF nor Android resources")
}

func TestPluralForms(t *testing.T) {
	for _, c := range []struct {
		lang, header string
		want         []string
	}{
		{"de", "nplurals=2; plural=(n != 1);", []string{"one", "other"}},
		{"fr", "nplurals=2; plural=(n > 1);", []string{"one", "other"}},
		{"ru", "nplurals=3; plural=(n%10==1 && n%100!=11 ? 0 : n%10>=2 && n%10<=4 && (n%100<10 || n%100>=20) ? 1 : 2);", []string{"one", "few", "many"}},
		{"cs", "nplurals=3; plural=(n==1) ? 0 : (n>=2 && n<=4) ? 1 : 2;", []string{"one", "few", "other"}},
		{"ar", "nplurals=6; plural=(n==0 ? 0 : n==1 ? 1 : n==2 ? 2 : n%100>=3 && n%100<=10 ? 3 : n%100>=11 ? 4 : 5);", []string{"zero", "one", "two", "few", "many", "other"}},
		{"ja", "nplurals=1; plural=0;", []string{"other"}},
		{"xx", "nplurals=2; plural=(n != 1);", []string{"one", "other"}},
	} {
		got, err := poForms(c.lang, c.header)
		require.NoError(t, err, c.lang)
		assert.Equal(t, c.want, got, c.lang)
	}
	_, err := poForms("de", "nplurals=2; plural=((((n;")
	assert.Error(t, err)
}

func TestPathLanguage(t *testing.T) {
	for _, c := range []struct{ path, code, res string }{
		{"de.json", "de", "{lang}.json"},
		{"locales/pt_BR.po", "pt-BR", "locales/{lang}.po"},
		{"lib/l10n/app_de.arb", "de", "lib/l10n/app_{lang}.arb"},
		{"messages.fr.xlf", "fr", "messages.{lang}.xlf"},
		{"ios/de.lproj/Localizable.strings", "de", "ios/{lang}.lproj/Localizable.strings"},
		{"ios/Base.lproj/Localizable.strings", "", "ios/{lang}.lproj/Localizable.strings"},
		{"res/values-pt-rBR/strings.xml", "pt-BR", "res/values/strings.xml"},
		{"res/values-b+sr+Latn/strings.xml", "sr-Latn", "res/values/strings.xml"},
		{"res/values/strings.xml", "", "res/values/strings.xml"},
		{"locales/zh-Hans/common.json", "zh-Hans", "locales/{lang}/common.json"},
		{"po/de/LC_MESSAGES/app.po", "de", "po/{lang}/LC_MESSAGES/app.po"},
		{"strings.json", "", "strings.json"},
	} {
		code, res := PathLanguage(c.path)
		assert.Equal(t, c.code, code, c.path)
		assert.Equal(t, c.res, res, c.path)
	}
}

func TestXMLEncodings(t *testing.T) {
	doc := `<?xml version="1.0" encoding="UTF-16"?>
<resources><string name="a">Grüße</string></resources>`
	var b []byte
	b = append(b, 0xFF, 0xFE)
	for _, r := range doc {
		b = append(b, byte(r), byte(r>>8))
	}
	f, err := ReadBytes("values-de/strings.xml", b, nil, Limits{})
	require.NoError(t, err)
	assert.Equal(t, "Grüße", f.Units[0].Source.Text)

	latin := []byte("<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?>\n<resources><string name=\"a\">Gr\xfc\xdfe</string></resources>")
	f, err = ReadBytes("values-de/strings.xml", latin, nil, Limits{})
	require.NoError(t, err)
	assert.Equal(t, "Grüße", f.Units[0].Source.Text)

	_, err = ReadBytes("values-de/strings.xml", []byte(`<?xml version="1.0" encoding="EBCDIC"?><resources/>`), nil, Limits{})
	assert.ErrorContains(t, err, "EBCDIC")
}
