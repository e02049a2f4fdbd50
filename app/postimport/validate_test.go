package postimport

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func langs() (Language, []Language) {
	en := Language{ID: "en", PluralCategoryNames: []string{"one", "other"}}
	return en, []Language{
		{ID: "de", PluralCategoryNames: []string{"one", "other"}},
		{ID: "uk", PluralCategoryNames: []string{"one", "few", "many", "other"}},
	}
}

func testJob() *Job {
	en, targets := langs()
	return &Job{JobType: JobType, SourceLanguage: en, TargetLanguages: targets}
}

func plural(kv ...string) Text {
	m := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return PluralText(m)
}

func TestValidateAcceptsGoodStrings(t *testing.T) {
	ml := 0
	strs := []String{
		{UniqID: "h::1", Identifier: "a", Text: PlainText(""), MaxLength: &ml,
			Translations: map[string]Translation{"de": {Text: PlainText("x"), Status: PlainStatus(StatusApproved)}}},
		{UniqID: "h::2", Identifier: "b", HasPlurals: true, Text: plural("one", "1", "other", "n"),
			Translations: map[string]Translation{
				"uk": {Text: plural("one", "1", "few", "2", "many", "5", "other", "x"),
					Status: &Status{Plural: map[string]string{"few": StatusUntranslated, "other": StatusTranslated}}},
			}},
	}
	assert.NoError(t, Validate(testJob(), strs))
	assert.NoError(t, Validate(testJob(), nil))
}

func TestValidateFindsProblems(t *testing.T) {
	neg := -1
	tests := []struct {
		name string
		s    String
		want string
	}{
		{"empty uniqId", String{Identifier: "a"}, "uniqId is empty"},
		{"blank identifier", String{UniqID: "u", Identifier: "  "}, "identifier is empty"},
		{"negative maxLength", String{UniqID: "u", Identifier: "a", MaxLength: &neg}, "maxLength -1 is negative"},
		{"plural text for non-plural", String{UniqID: "u", Identifier: "a", Text: plural("one", "x")}, "text is an object but hasPlurals is false"},
		{"plain text for plural", String{UniqID: "u", Identifier: "a", HasPlurals: true, Text: PlainText("x")}, "text is a plain string but hasPlurals is true"},
		{"source plural keys extra", String{UniqID: "u", Identifier: "a", HasPlurals: true, Text: plural("one", "1", "few", "2", "other", "x")},
			`text has plural forms [few] that language "en" does not have (its categories: [one other])`},
		{"target plural keys", String{UniqID: "u", Identifier: "a", HasPlurals: true, Text: plural("one", "1", "other", "n"),
			Translations: map[string]Translation{"uk": {Text: plural("one", "1", "two", "n")}}},
			`translations["uk"].text has plural forms [two] that language "uk" does not have (its categories: [one few many other])`},
		{"empty plural", String{UniqID: "u", Identifier: "a", HasPlurals: true, Text: PluralText(nil)}, "text has no plural forms"},
		{"unknown language", String{UniqID: "u", Identifier: "a", Translations: map[string]Translation{"fr": {Text: PlainText("x")}}},
			`translation for "fr", which is not a target language of the job`},
		{"bad status", String{UniqID: "u", Identifier: "a", Translations: map[string]Translation{"de": {Text: PlainText("x"), Status: PlainStatus("done")}}},
			`translations["de"].status "done" is not one of untranslated, translated, approved`},
		{"plain status for plural", String{UniqID: "u", Identifier: "a", HasPlurals: true, Text: plural("one", "1", "other", "n"),
			Translations: map[string]Translation{"de": {Text: plural("one", "1", "other", "n"), Status: PlainStatus(StatusApproved)}}},
			`translations["de"].status is a plain string but hasPlurals is true`},
		{"plural status for plain", String{UniqID: "u", Identifier: "a",
			Translations: map[string]Translation{"de": {Text: PlainText("x"), Status: &Status{Plural: map[string]string{"one": "approved"}}}}},
			`translations["de"].status is an object but hasPlurals is false`},
		{"plural status bad key and value", String{UniqID: "u", Identifier: "a", HasPlurals: true, Text: plural("one", "1", "other", "n"),
			Translations: map[string]Translation{"de": {Text: plural("one", "1", "other", "n"), Status: &Status{Plural: map[string]string{"few": "approved", "one": "ok"}}}}},
			`translations["de"].status has plural form "few" but language "de" has categories [one other]`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := Validate(testJob(), []String{tc.s})
			require.Error(t, err)
			var ve *ValidationError
			require.ErrorAs(t, err, &ve)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}

func TestValidateDuplicatesAndLimits(t *testing.T) {
	strs := []String{
		{UniqID: "h::1", Identifier: "a"},
		{UniqID: "h::2", Identifier: "b"},
		{UniqID: "h::1", Identifier: "c"},
	}
	err := Validate(testJob(), strs)
	require.Error(t, err)
	assert.Contains(t, err.Error(), `string 3 (uniqId "h::1"): uniqId repeats string 1`)

	many := make([]String, 25)
	for i := range many {
		many[i] = String{UniqID: fmt.Sprintf("h::%d", i)}
	}
	err = Validate(testJob(), many)
	var ve *ValidationError
	require.ErrorAs(t, err, &ve)
	assert.Equal(t, 25, ve.Total)
	assert.Len(t, ve.Problems, 10)
	assert.Contains(t, err.Error(), "and 15 more")
}

func TestValidateWithoutCategoriesOrTargets(t *testing.T) {
	job := &Job{SourceLanguage: Language{ID: "en"}}
	ok := String{UniqID: "u", Identifier: "a", HasPlurals: true, Text: plural("any", "x"),
		Translations: map[string]Translation{"fr": {Text: plural("whatever", "y")}}}
	assert.NoError(t, Validate(job, []String{ok}), "no categories to compare with, no target list to restrict languages")

	empty := String{UniqID: "u", Identifier: "a", HasPlurals: true, Text: PluralText(nil)}
	assert.ErrorContains(t, Validate(job, []String{empty}), "text has no plural forms")
}
