package locfile

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// fuzzParser checks that p never panics, that every error it returns is
// an *Error (a position, possibly unknown) and that what it reads stays
// within the limits.
func fuzzParser(f *testing.F, p Parser, name string, seeds ...string) {
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	matches, _ := filepath.Glob(filepath.Join("..", "testdata", "locfiles", "*", "*"+filepath.Ext(name)))
	more, _ := filepath.Glob(filepath.Join("..", "testdata", "locfiles", "*", "*", "*"+filepath.Ext(name)))
	for _, m := range append(matches, more...) {
		if b, err := os.ReadFile(m); err == nil {
			f.Add(b)
		}
	}
	lim := Limits{MaxUnits: 50, MaxText: 256, MaxDepth: 8, MaxBytes: 1 << 16}
	f.Fuzz(func(t *testing.T, data []byte) {
		file := &File{Name: name}
		n := 0
		err := p.Parse(newBytesReader(data), lim, file, func(u *Unit) error {
			n++
			if len(u.Key) > lim.MaxText+1 {
				t.Fatalf("a key of %d bytes", len(u.Key))
			}
			return nil
		})
		if n > lim.MaxUnits {
			t.Fatalf("%d units over the limit of %d", n, lim.MaxUnits)
		}
		if err != nil {
			if _, ok := err.(*Error); !ok {
				t.Fatalf("error %T without a position: %v", err, err)
			}
		}
	})
}

func FuzzXLIFF12(f *testing.F) {
	fuzzParser(f, XLIFF12{}, "a.xlf", `<xliff version="1.2"><file><body><trans-unit id="a"><source>x</source></trans-unit></body></file></xliff>`)
}

func FuzzXLIFF2(f *testing.F) {
	fuzzParser(f, XLIFF2{}, "a.xliff", `<xliff version="2.0"><file><unit id="a"><segment><source>x</source></segment></unit></file></xliff>`)
}

func FuzzPO(f *testing.F) {
	fuzzParser(f, PO{}, "a.po", "msgid \"\"\nmsgstr \"Plural-Forms: nplurals=2; plural=n>1;\\n\"\n\nmsgid \"a\"\nmsgid_plural \"b\"\nmsgstr[0] \"c\"\n")
}

func FuzzStrings(f *testing.F) {
	fuzzParser(f, Strings{}, "a.strings", "/* c */ \"a\" = \"b\\U0041\";", "\xff\xfe\"\x00a\x00\"\x00;\x00")
}

func FuzzStringsDict(f *testing.F) {
	fuzzParser(f, StringsDict{}, "a.stringsdict", `<plist><dict><key>a</key><string>b</string></dict></plist>`)
}

func FuzzARB(f *testing.F) {
	fuzzParser(f, ARB{}, "a.arb", `{"@@locale":"de","a":"b","@a":{"description":"d"}}`)
}

func FuzzJSON(f *testing.F) {
	fuzzParser(f, JSON{}, "a.json", `{"a":{"one":"x","other":"y"},"b":{"c":"d"}}`)
}

func FuzzAndroid(f *testing.F) {
	fuzzParser(f, Android{}, "strings.xml", `<resources><string name="a">"b\'"</string><plurals name="p"><item quantity="one">x</item></plurals></resources>`)
}

func FuzzPluralForms(f *testing.F) {
	f.Add("nplurals=3; plural=(n%10==1 && n%100!=11 ? 0 : n%10>=2 && n%10<=4 && (n%100<10 || n%100>=20) ? 1 : 2);")
	f.Fuzz(func(t *testing.T, h string) {
		_, _ = poForms("ru", h)
	})
}

func FuzzPathLanguage(f *testing.F) {
	f.Add("res/values-b+sr+Latn/strings.xml")
	f.Fuzz(func(t *testing.T, p string) {
		_, _ = PathLanguage(p)
	})
}

func newBytesReader(b []byte) io.Reader { return bytes.NewReader(b) }

// FuzzBuild: whatever a parser reads, Build makes a valid project of it
// or says why not, with a file of another language beside it.
func FuzzBuild(f *testing.F) {
	f.Add(uint8(0), []byte(`{"a": "x", "b": {"one": "1", "other": "n"}}`))
	f.Add(uint8(1), []byte("msgid \"\"\nmsgstr \"Language: ru\\n\"\n\nmsgid \"a\"\nmsgid_plural \"b\"\nmsgstr[0] \"c\"\nmsgstr[2] \"d\"\n"))
	f.Add(uint8(2), []byte(`<xliff version="2.0" srcLang="en" trgLang="de"><file id="x"><unit id="a"><segment><source>s</source><target>t</target></segment></unit></file></xliff>`))
	f.Add(uint8(3), []byte(`<resources><plurals name="b"><item quantity="few">x</item></plurals></resources>`))
	names := []string{"l/en.json", "l/de.po", "l/de.xlf", "values/strings.xml"}
	others := []string{`{"b": "y"}`, "msgid \"a\"\nmsgstr \"z\"\n", `<xliff version="1.2"><file target-language="fr"><body><trans-unit id="a"><source>s</source><target>u</target></trans-unit></body></file></xliff>`, `<resources><string name="b">y</string></resources>`}
	otherNames := []string{"l/de.json", "l/fr.po", "l/fr.xlf", "values-de/strings.xml"}
	f.Fuzz(func(t *testing.T, which uint8, data []byte) {
		i := int(which) % len(names)
		a, err := ReadBytes(names[i], data, nil, Limits{MaxUnits: 50, MaxText: 256})
		if err != nil {
			return
		}
		b, err := ReadBytes(otherNames[i], []byte(others[i]), nil, Limits{})
		if err != nil {
			t.Fatal(err)
		}
		p, err := Build([]*File{a, b}, Options{})
		if err != nil {
			return
		}
		if err := p.Validate(); err != nil {
			t.Fatalf("Build made an invalid project: %v", err)
		}
	})
}
