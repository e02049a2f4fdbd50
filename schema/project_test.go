package schema_test

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/croql/croql/demo"
	"github.com/croql/croql/schema"
)

func TestWriteJSONIsIndentedEncoding(t *testing.T) {
	p := demo.Generate(demo.Options{Strings: 40, Seed: 3})
	var got, want bytes.Buffer
	require.NoError(t, p.WriteJSON(&got))
	enc := json.NewEncoder(&want)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	require.NoError(t, enc.Encode(p))
	assert.Equal(t, want.String(), got.String())
	assert.Contains(t, got.String(), `<a href=`, "HTML is not escaped")

	empty := &schema.Project{Name: "x"}
	got.Reset()
	want.Reset()
	require.NoError(t, empty.WriteJSON(&got))
	require.NoError(t, enc.Encode(empty))
	assert.Equal(t, want.String(), got.String())
}

func TestRoundTrip(t *testing.T) {
	p := demo.Generate(demo.Options{Strings: 200, Seed: 5})
	for name, write := range map[string]func(*bytes.Buffer) error{
		"json":   func(b *bytes.Buffer) error { return p.WriteJSON(b) },
		"ndjson": func(b *bytes.Buffer) error { return p.WriteNDJSON(b) },
	} {
		t.Run(name, func(t *testing.T) {
			var buf bytes.Buffer
			require.NoError(t, write(&buf))
			q, err := schema.ReadProject(&buf)
			require.NoError(t, err)
			assert.Equal(t, p, q)
			// Strings share their project's file objects after reading.
			for i := range q.Strings {
				if f := q.Strings[i].File; f != nil {
					idx := int(f.ID - q.Files[0].ID)
					if name == "json" {
						assert.Same(t, &q.Files[idx], f)
					} else {
						assert.Equal(t, q.Files[idx], *f)
					}
				}
			}
		})
	}
}

func TestNDJSONShape(t *testing.T) {
	p := demo.Generate(demo.Options{Strings: 10, Seed: 1})
	var buf bytes.Buffer
	require.NoError(t, p.WriteNDJSON(&buf))
	lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
	want := 1 + len(p.Users) + len(p.Languages) + len(p.Files) + len(p.Branches) + len(p.Strings) +
		len(p.TMSegments) + len(p.GlossaryConcepts) + len(p.GlossaryTerms)
	require.Len(t, lines, want)
	assert.True(t, strings.HasPrefix(lines[0], `{"kind":"project","name":`), lines[0])
	kinds := map[string]int{}
	for _, l := range lines {
		var k struct{ Kind string }
		require.NoError(t, json.Unmarshal([]byte(l), &k), l)
		kinds[k.Kind]++
	}
	assert.Equal(t, len(p.Strings), kinds["string"])
	assert.Equal(t, len(p.TMSegments), kinds["tm"])
	assert.Equal(t, len(p.GlossaryTerms), kinds["term"])
}

func TestReadProjectForms(t *testing.T) {
	const nd = `{"kind":"project","name":"p","sourceLanguageId":"en","targetLanguageIds":["de"]}
{"kind":"user","id":1,"login":"alice"}

{"kind":"file","id":3,"name":"a.json","title":null,"type":"json","context":""}
{"kind":"string","id":7,"type":"plain","text":"Hi","identifier":"hi","file":{"id":3},"added":"2024-01-02",
 "translations":[{"id":9,"text":"Hallo","language":"de","user":1,"updated":"2024-02-01T10:00:00+02:00"}]}
`
	// The string line above is split in two on purpose: fix it to one line.
	src := strings.Replace(nd, ",\n \"translations\"", `,"translations"`, 1)
	p, err := schema.ReadProject(strings.NewReader(src))
	require.NoError(t, err)
	assert.Equal(t, "p", p.Name)
	assert.Equal(t, map[string]int64{"alice": 1}, p.UserIDs())
	require.Len(t, p.Strings, 1)
	s := p.Strings[0]
	require.NotNil(t, s.File)
	assert.Equal(t, "a.json", s.File.Name, "a file given by id is resolved")
	tr := s.Translations[0]
	assert.Equal(t, int64(7), tr.StringID, "StringID defaults to the string's id")
	assert.Equal(t, "none", tr.PluralForm)
	assert.Equal(t, "2024-02-01 08:00:00", tr.Updated.String())

	// The same as one JSON document, compact on one line.
	doc := `{"name":"q","users":[{"id":2,"login":"bob"}],"strings":[{"id":1,"type":"icu","text":"x","identifier":"k","added":"2024-01-01 00:00:00"}]}`
	q, err := schema.ReadProject(strings.NewReader(doc))
	require.NoError(t, err)
	assert.Equal(t, "q", q.Name)
	assert.Equal(t, "icu", q.Strings[0].Type)

	// And an NDJSON file of a single line without a newline.
	one, err := schema.ReadProject(strings.NewReader(`{"kind":"user","id":5,"login":"zoë"}`))
	require.NoError(t, err)
	assert.Equal(t, []schema.UserRef{{ID: 5, Login: "zoë"}}, one.Users)
}

func TestReadProjectErrors(t *testing.T) {
	for name, tc := range map[string]struct{ src, want string }{
		"empty":        {"", "empty"},
		"json syntax":  {"{\n  \"name\": \"x\",\n  \"strings\": [\n    {\"id\": 1,,}\n  ]\n}", "line 4"},
		"json type":    {"{\n\"name\": 5\n}", "line 2"},
		"bad type":     {`{"strings":[{"id":1,"type":"plian","added":"2024-01-01"}]}`, `type "plian" is not one of plain`},
		"unknown kind": {"{\"kind\":\"user\",\"id\":1,\"login\":\"a\"}\n{\"kind\":\"strng\"}\n", `line 2: unknown kind "strng"`},
		"no kind":      {"{\"kind\":\"user\",\"id\":1,\"login\":\"a\"}\n\n{\"id\":2}\n", `line 3: the line has no "kind"`},
		"bad line":     {"{\"kind\":\"user\",\"id\":1,\"login\":\"a\"}\n{\"kind\":\"user\",\"id\":\"x\"}\n", "line 2: user: json"},
		"not json":     {"{\"kind\":\"user\",\"id\":1,\"login\":\"a\"}\nhello\n", "line 2: not a JSON object"},
		"no language":  {"{\"kind\":\"string\",\"id\":4,\"type\":\"plain\",\"added\":\"2024-01-01\",\"translations\":[{\"id\":1}]}\n", "line 1: string 4: translation 1 has no language"},
		"vote mark": {`{"kind":"string","id":4,"type":"plain","added":"2024-01-01","translations":[{"id":1,"language":"de","votes":[{"mark":"sideways"}]}]}`,
			`vote mark "sideways"`},
		"bad time":    {`{"kind":"user","id":1,"login":"a"}` + "\n" + `{"kind":"concept","id":1,"createdAt":"yesterday"}`, `line 2: concept: "yesterday" is not a datetime`},
		"two headers": {"{\"kind\":\"project\"}\n{\"kind\":\"project\"}\n", "line 2: a second project line"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := schema.ReadProject(strings.NewReader(tc.src))
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}

func TestObjects(t *testing.T) {
	p := demo.Generate(demo.Options{Strings: 30, Seed: 2})
	cat := schema.New()
	for _, ctx := range cat.Contexts {
		objs := p.Objects(ctx)
		require.NotEmpty(t, objs, ctx.Name)
		for _, o := range objs {
			_, ok := schema.ObjectID(o)
			assert.True(t, ok, "%T", o)
		}
		assert.Equal(t, ctx.Root.GoType, reflectElem(objs[0]), ctx.Name)
	}
	assert.Nil(t, p.Objects(nil))
	assert.Nil(t, p.Objects(&schema.Context{Name: "nope"}))
	_, ok := schema.ObjectID(42)
	assert.False(t, ok)
}

func reflectElem(v any) reflect.Type { return reflect.TypeOf(v).Elem() }
