package locfile

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/croql/croql/schema"
)

func TestBuildGroupsLanguages(t *testing.T) {
	pot := read(t, "po/app.pot", "msgid \"a\"\nmsgstr \"\"\n\nmsgid \"b\"\nmsgstr \"\"\n")
	de := read(t, "po/de.po", "msgid \"\"\nmsgstr \"Language: de_DE\\n\"\n\nmsgid \"a\"\nmsgstr \"A\"\n")
	fr := read(t, "po/fr.po", "msgid \"b\"\nmsgstr \"B\"\n")
	p, err := Build([]*File{de, fr, pot}, Options{SourceLanguage: "en", Added: 100})
	require.NoError(t, err)
	assert.Equal(t, "en", p.SourceLanguage)
	assert.Equal(t, []string{"de-DE", "fr"}, p.TargetLanguages)
	require.Len(t, p.Files, 1)
	assert.Equal(t, "po/app.pot", p.Files[0].Name)
	require.Len(t, p.Strings, 2)
	assert.Equal(t, "a", p.Strings[0].Identifier)
	assert.Equal(t, []schema.Translation{{ID: 1, StringID: 1, Text: "A", PluralForm: "none", Language: "de-DE", Added: 100, Updated: 100}}, p.Strings[0].Translations)
	assert.Equal(t, "fr", p.Strings[1].Translations[0].Language)
	assert.Equal(t, schema.Time(100), p.Strings[1].Added)
}

func TestBuildTargetFlag(t *testing.T) {
	f := read(t, "messages.po", "msgid \"a\"\nmsgstr \"b\"\n")
	p, err := Build([]*File{f}, Options{TargetLanguage: "uk"})
	require.NoError(t, err)
	assert.Equal(t, []string{"uk"}, p.TargetLanguages)
	assert.Equal(t, "uk", p.Strings[0].Translations[0].Language)

	// without a target language the translations have nowhere to go
	p, err = Build([]*File{f}, Options{})
	require.NoError(t, err)
	assert.Empty(t, p.Strings[0].Translations)
}

func TestBuildDuplicateKey(t *testing.T) {
	f := read(t, "en.json", `{"a": "x", "b": {"c": "y"}, "b.c": "z"}`)
	_, err := Build([]*File{f}, Options{})
	assert.ErrorContains(t, err, `key "b.c"`)
}

func TestBuildSourceLanguageConflict(t *testing.T) {
	a := read(t, "a.xlf", `<xliff version="1.2"><file source-language="en" target-language="de"><body/></file></xliff>`)
	b := read(t, "b.xlf", `<xliff version="1.2"><file source-language="fr" target-language="de"><body/></file></xliff>`)
	_, err := Build([]*File{a, b}, Options{})
	assert.ErrorContains(t, err, "--source-language")
	_, err = Build([]*File{a, b}, Options{SourceLanguage: "en"})
	assert.NoError(t, err)
}

func TestBuildTranslationWithoutSource(t *testing.T) {
	f := read(t, "values-de/strings.xml", `<resources><string name="a">A</string></resources>`)
	p, err := Build([]*File{f}, Options{})
	require.NoError(t, err)
	require.Len(t, p.Strings, 1)
	assert.Equal(t, "", p.Strings[0].Text)
	assert.Equal(t, "A", p.Strings[0].Translations[0].Text)
}

func TestBuildEnglishVariantIsTheSource(t *testing.T) {
	en := read(t, "l10n/app_en_US.arb", `{"a": "Hi"}`)
	de := read(t, "l10n/app_de.arb", `{"a": "Hallo"}`)
	p, err := Build([]*File{de, en}, Options{})
	require.NoError(t, err)
	assert.Equal(t, "en-US", p.SourceLanguage)
	assert.Equal(t, []string{"de"}, p.TargetLanguages)
	require.Len(t, p.Strings, 1)
	assert.Equal(t, "Hi", p.Strings[0].Text)
}

func TestBuildXLIFFParts(t *testing.T) {
	doc := `<xliff version="1.2">
<file original="en.lproj/Localizable.strings" source-language="en" target-language="de"><body>
<trans-unit id="title"><source>Title</source><target>Titel</target></trans-unit></body></file>
<file original="en.lproj/InfoPlist.strings" source-language="en" target-language="de"><body>
<trans-unit id="title"><source>App</source><target>App</target></trans-unit></body></file>
</xliff>`
	f := read(t, "de.xliff", doc)
	p, err := Build([]*File{f}, Options{})
	require.NoError(t, err)
	require.Len(t, p.Strings, 2, "one key in two parts is two strings")
	require.Len(t, p.Files, 2)
	assert.Equal(t, "en.lproj/Localizable.strings", p.Strings[0].File.Name)
	assert.Equal(t, "en.lproj/InfoPlist.strings", p.Strings[1].File.Name)

	// the same key twice in one part is an error
	dup := read(t, "de.xliff", `<xliff version="1.2"><file original="a"><body>
<trans-unit id="k"><source>1</source></trans-unit><trans-unit id="k"><source>2</source></trans-unit></body></file></xliff>`)
	_, err = Build([]*File{dup}, Options{})
	assert.ErrorContains(t, err, "given twice")
}
