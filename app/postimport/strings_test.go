package postimport

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// wireStrings are string objects as a platform might send them: odd
// whitespace, nulls, escapes, HTML characters, unknown members (nested,
// numbers with exponents), plural and non-plural shapes.
var wireStrings = []string{
	`{"uniqId":"a1b2::1","identifier":"welcome","context":"Home page\nheader","maxLength":null,"isHidden":false,"hasPlurals":false,"labels":[],"text":"Welcome <b>home</b> & \u00e9t\u00e9","translations":{}}`,
	`{ "identifier" : "items", "uniqId": "a1b2::2",
	   "hasPlurals": true,
	   "text": {"other": "%d items", "one": "%d item"},
	   "translations": {
	     "uk": {"text": {"one": "%d елемент", "few": "%d елементи", "many": "%d елементів", "other": "%d елемента"}, "status": {"one": "approved", "few": "translated", "many": "translated", "other": "untranslated"}, "reviewer": 42},
	     "de": {"text": {"one": "%d Element", "other": "%d Elemente"}}
	   },
	   "customData": {"z": 1.0e3, "a": [true, null, "x"]}, "x-order": 7 }`,
	`{"uniqId":"a1b2::3","identifier":"bye","text":"","maxLength":40,"isHidden":null,"labels":["ui","footer"],"translations":{"de":{"text":"Tschüss","status":"approved"}},"hash":"\u2028"}`,
	`{"uniqId":"a1b2::4","identifier":"dup","text":"first","text":"second"}`,
}

func compactString(t *testing.T, s string) string {
	t.Helper()
	var buf bytes.Buffer
	require.NoError(t, json.Compact(&buf, []byte(s)))
	return buf.String()
}

func decodeString(t *testing.T, s string) String {
	t.Helper()
	var out String
	require.NoError(t, json.Unmarshal([]byte(s), &out), s)
	return out
}

func marshal(t *testing.T, v json.Marshaler) string {
	t.Helper()
	b, err := v.MarshalJSON()
	require.NoError(t, err)
	require.True(t, json.Valid(b), string(b))
	return string(b)
}

func TestUntouchedStringsAreByteIdentical(t *testing.T) {
	for _, w := range wireStrings {
		s := decodeString(t, w)
		assert.Equal(t, compactString(t, w), marshal(t, s))
		assert.Equal(t, compactString(t, w), marshal(t, s.Clone()), "a clone is untouched too")
	}
}

func TestDecodedFields(t *testing.T) {
	s := decodeString(t, wireStrings[1])
	assert.Equal(t, "a1b2::2", s.UniqID)
	assert.Equal(t, "items", s.Identifier)
	assert.True(t, s.HasPlurals)
	assert.Equal(t, map[string]string{"one": "%d item", "other": "%d items"}, s.Text.Plural)
	require.Contains(t, s.Translations, "uk")
	uk := s.Translations["uk"]
	assert.Equal(t, "%d елементи", uk.Text.Plural["few"])
	require.NotNil(t, uk.Status)
	assert.Equal(t, "untranslated", uk.Status.Plural["other"])
	assert.JSONEq(t, `42`, string(uk.Extra["reviewer"]))
	assert.JSONEq(t, `{"z": 1.0e3, "a": [true, null, "x"]}`, string(s.Extra["customData"]))

	s = decodeString(t, wireStrings[2])
	require.NotNil(t, s.MaxLength)
	assert.Equal(t, 40, *s.MaxLength)
	assert.Nil(t, s.IsHidden)
	assert.Equal(t, []string{"ui", "footer"}, s.Labels)
	assert.Equal(t, "approved", s.Translations["de"].Status.Plain)

	s = decodeString(t, wireStrings[3])
	assert.Equal(t, "second", s.Text.Plain, "a repeated member keeps its last value, like encoding/json")
}

func TestEditingOneMemberKeepsTheOthersRaw(t *testing.T) {
	s := decodeString(t, wireStrings[0])
	s.Text = PlainText("Hi")
	assert.Equal(t,
		`{"uniqId":"a1b2::1","identifier":"welcome","context":"Home page\nheader","maxLength":null,"isHidden":false,"hasPlurals":false,"labels":[],"text":"Hi","translations":{}}`,
		marshal(t, s))

	s = decodeString(t, wireStrings[2])
	s.Labels = append(s.Labels, "new")
	s.MaxLength = nil
	assert.Equal(t,
		`{"uniqId":"a1b2::3","identifier":"bye","text":"","isHidden":null,"labels":["ui","footer","new"],"translations":{"de":{"text":"Tschüss","status":"approved"}},"hash":"\u2028"}`,
		marshal(t, s))
}

func TestEditingOneTranslationKeepsTheOthersRaw(t *testing.T) {
	s := decodeString(t, wireStrings[1])
	de := s.Translations["de"]
	de.Text.Plural["other"] = "%d Dinge"
	de.Status = &Status{Plural: map[string]string{"other": "approved"}}
	s.Translations["de"] = de

	var got map[string]json.RawMessage
	require.NoError(t, json.Unmarshal([]byte(marshal(t, s)), &got))
	var tr map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(got["translations"], &tr))
	assert.Equal(t, `{"text":{"one":"%d Element","other":"%d Dinge"},"status":{"other":"approved"}}`, string(tr["de"]))
	assert.Equal(t,
		`{"text":{"one":"%d елемент","few":"%d елементи","many":"%d елементів","other":"%d елемента"},"status":{"one":"approved","few":"translated","many":"translated","other":"untranslated"},"reviewer":42}`,
		string(tr["uk"]))
	assert.Equal(t, `{"z":1.0e3,"a":[true,null,"x"]}`, string(got["customData"]))

	out := marshal(t, s)
	assert.Less(t, strings.Index(out, `"uk"`), strings.Index(out, `"de"`), "languages keep their wire order")
	assert.Less(t, strings.Index(out, `"customData"`), strings.Index(out, `"x-order"`), "members keep their wire order")
}

func TestExtraMembersCanBeEditedAddedAndRemoved(t *testing.T) {
	s := decodeString(t, wireStrings[1])
	delete(s.Extra, "x-order")
	s.Extra["added"] = json.RawMessage(`{ "b" : 2 }`)
	s.Context = "ctx"
	out := marshal(t, s)
	assert.NotContains(t, out, "x-order")
	assert.True(t, strings.HasSuffix(out, `,"context":"ctx","added":{"b":2}}`), out)

	s.Extra["bad"] = json.RawMessage(`{`)
	_, err := s.MarshalJSON()
	assert.Error(t, err)
}

func TestNewStringsAreEncodedFromTheirFields(t *testing.T) {
	ml := 10
	s := String{UniqID: "n::1", Identifier: "k", Text: PlainText("<hello>"), MaxLength: &ml}
	assert.Equal(t, `{"uniqId":"n::1","identifier":"k","maxLength":10,"text":"<hello>"}`, marshal(t, s))

	s = String{UniqID: "n::2", Identifier: "p", HasPlurals: true,
		Text: PluralText(map[string]string{"other": "many", "few": "few", "one": "one", "zz": "?"}),
		Translations: map[string]Translation{
			"fr": {Text: PlainText("x")},
			"de": {Text: PlainText("y"), Status: PlainStatus(StatusApproved)},
		},
		Extra: map[string]json.RawMessage{"b": json.RawMessage(`1`), "a": json.RawMessage(`2`)},
	}
	assert.Equal(t,
		`{"uniqId":"n::2","identifier":"p","hasPlurals":true,"text":{"one":"one","few":"few","other":"many","zz":"?"},"translations":{"de":{"text":"y","status":"approved"},"fr":{"text":"x"}},"a":2,"b":1}`,
		marshal(t, s))

	assert.Equal(t, `{"uniqId":"","identifier":"","text":""}`, marshal(t, String{}))
}

func TestCloneIsDeep(t *testing.T) {
	s := decodeString(t, wireStrings[1])
	c := s.Clone()
	c.Text.Plural["one"] = "changed"
	c.Translations["de"].Text.Plural["one"] = "changed"
	c.Extra["customData"][2] = 'X'
	assert.Equal(t, compactString(t, wireStrings[1]), marshal(t, s), "the original is untouched")
	assert.NotEqual(t, marshal(t, s), marshal(t, c))

	orig, ok := c.Original()
	require.True(t, ok)
	assert.Equal(t, "%d item", orig.Text.Plural["one"])
	_, ok = String{}.Original()
	assert.False(t, ok)
}

func TestTextAndStatusJSON(t *testing.T) {
	var tx Text
	require.NoError(t, json.Unmarshal([]byte(`"a"`), &tx))
	assert.Equal(t, PlainText("a"), tx)
	assert.False(t, tx.IsPlural())
	require.NoError(t, json.Unmarshal([]byte(`{"one":"a","other":"b"}`), &tx))
	assert.True(t, tx.IsPlural())
	assert.Equal(t, "", tx.Plain)
	require.NoError(t, json.Unmarshal([]byte(`{}`), &tx))
	assert.True(t, tx.IsPlural(), "an empty object is still the plural shape")
	require.NoError(t, json.Unmarshal([]byte(`null`), &tx))

	for _, bad := range []string{`1`, `true`, `["a"]`, `{"one":1}`, `{"one":null}`} {
		assert.Error(t, json.Unmarshal([]byte(bad), &tx), bad)
		var st Status
		assert.Error(t, json.Unmarshal([]byte(bad), &st), bad)
	}
}

func TestMalformedStringObjects(t *testing.T) {
	for _, bad := range []string{
		`[]`, `"x"`,
		`{"uniqId":1}`,
		`{"maxLength":"10"}`,
		`{"maxLength":1.5}`,
		`{"isHidden":"no"}`,
		`{"labels":"a"}`,
		`{"text":5}`,
		`{"translations":[]}`,
		`{"translations":{"de":"x"}}`,
		`{"translations":{"de":{"status":3}}}`,
	} {
		var s String
		assert.Error(t, json.Unmarshal([]byte(bad), &s), bad)
	}
}

// TestRandomRoundTrip generates strings, encodes them, decodes them and
// checks that (1) the decoded fields equal the generated ones, and (2) the
// decoded string re-encodes to the same bytes.
func TestRandomRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	words := []string{"", "a", "<b>", "é", "\n", `"q"`, "\\", "\u2028", "\x01", "日本"}
	word := func() string { return words[rng.IntN(len(words))] + words[rng.IntN(len(words))] }
	for i := range 300 {
		s := String{UniqID: fmt.Sprintf("h::%d", i), Identifier: word(), Context: word()}
		if rng.IntN(2) == 0 {
			v := rng.IntN(100)
			s.MaxLength = &v
		}
		if rng.IntN(3) == 0 {
			v := rng.IntN(2) == 0
			s.IsHidden = &v
		}
		if rng.IntN(2) == 0 {
			s.Labels = []string{word(), word()}
		}
		s.HasPlurals = rng.IntN(2) == 0
		text := func() Text {
			if s.HasPlurals {
				return PluralText(map[string]string{"one": word(), "other": word()})
			}
			return PlainText(word())
		}
		s.Text = text()
		if rng.IntN(2) == 0 {
			s.Translations = map[string]Translation{"de": {Text: text()}, "fr": {Text: text(), Status: PlainStatus(StatusApproved)}}
		}
		if rng.IntN(2) == 0 {
			s.Extra = map[string]json.RawMessage{"k" + word(): json.RawMessage(`[1,{"x":null}]`)}
		}

		first := marshal(t, s)
		back := decodeString(t, first)
		assert.Equal(t, s.UniqID, back.UniqID)
		assert.Equal(t, s.Identifier, back.Identifier)
		assert.Equal(t, s.Context, back.Context)
		assert.Equal(t, s.MaxLength, back.MaxLength)
		assert.Equal(t, s.IsHidden, back.IsHidden)
		assert.Equal(t, s.HasPlurals, back.HasPlurals)
		assert.Equal(t, s.Labels, back.Labels)
		assert.Equal(t, s.Text, back.Text)
		assert.Equal(t, len(s.Translations), len(back.Translations))
		for k, tr := range s.Translations {
			assert.Equal(t, tr.Text, back.Translations[k].Text)
			assert.Equal(t, tr.Status, back.Translations[k].Status)
		}
		assert.Equal(t, len(s.Extra), len(back.Extra))
		assert.Equal(t, first, marshal(t, back))
	}
}

// TestDetached: a decoded string detached from its wire form is no longer
// untouched, encodes from its fields, and keeps its values.
func TestDetached(t *testing.T) {
	var s String
	if err := json.Unmarshal([]byte(`{"uniqId":"a::1","identifier":"k","text":"Hi","translations":{"de":{"text":"Hallo","x":1}},"z":2}`), &s); err != nil {
		t.Fatal(err)
	}
	if !s.Untouched() {
		t.Fatal("a decoded string is untouched")
	}
	d := s.Detached()
	if d.Untouched() {
		t.Fatal("a detached string counts as untouched")
	}
	if d.Identifier != "k" || d.Text.Plain != "Hi" || d.Translations["de"].Text.Plain != "Hallo" || string(d.Extra["z"]) != "2" {
		t.Fatalf("detached values: %+v", d)
	}
	if _, ok := d.Original(); ok {
		t.Fatal("a detached string has no original")
	}
	if !s.Untouched() {
		t.Fatal("detaching changed the decoded string")
	}
}
