package locfile_test

import (
	"fmt"

	"github.com/croql/croql"
	"github.com/croql/croql/locfile"
)

// Build a project of two Android resource files and query it.
func Example() {
	en, err := locfile.ReadBytes("res/values/strings.xml", []byte(`<resources>
  <string name="save">Save</string>
  <string name="cancel">Cancel</string>
</resources>`), nil, locfile.Limits{})
	if err != nil {
		panic(err)
	}
	de, err := locfile.ReadBytes("res/values-de/strings.xml", []byte(`<resources>
  <string name="save">Speichern</string>
</resources>`), nil, locfile.Limits{})
	if err != nil {
		panic(err)
	}
	p, err := locfile.Build([]*locfile.File{en, de}, locfile.Options{})
	if err != nil {
		panic(err)
	}
	env, err := croql.NewEnv(croql.Strings, croql.WithLanguages(p.LanguageCodes()...))
	if err != nil {
		panic(err)
	}
	q, diags := env.Compile(`count of languages summary where (language = @language:"de" and is translated) = 0`)
	if diags.HasErrors() {
		panic(diags)
	}
	for i := range p.Strings {
		s := &p.Strings[i]
		if ok, _ := q.Match(s); ok {
			fmt.Println("not in German:", s.Identifier, s.Text)
		}
	}
	// Output: not in German: cancel Cancel
}

func ExamplePathLanguage() {
	fmt.Println(locfile.PathLanguage("ios/de.lproj/Localizable.strings"))
	fmt.Println(locfile.PathLanguage("app/src/main/res/values-pt-rBR/strings.xml"))
	// Output:
	// de ios/{lang}.lproj/Localizable.strings
	// pt-BR app/src/main/res/values/strings.xml
}
