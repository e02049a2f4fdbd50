package fuzz_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/croql/croql/schema"
	"github.com/croql/croql/store/fuzz"
)

// TestLowerFoldSafe: only the literals and the data of the fields under a
// folded contains count, and only when contains folds.
func TestLowerFoldSafe(t *testing.T) {
	p := &schema.Project{
		Users: []schema.UserRef{{ID: 1, Login: "ſam"}},
		Strings: []schema.SourceString{{ID: 1, Type: "plain", Text: "Hello", Identifier: "ſ",
			Translations: []schema.Translation{{ID: 2, Text: "Σ", Language: "de", User: 1}}}},
	}
	fold := target{context: "strings", edition: schema.Enterprise, fold: true}
	plain := target{context: "strings", edition: schema.Enterprise}
	for _, c := range []struct {
		tg   target
		src  string
		want bool
	}{
		{fold, `text contains "e"`, true},
		{fold, `text contains "ſ"`, false},                              // a literal
		{fold, `identifier contains "e"`, false},                        // data under contains
		{fold, `text contains "e" and identifier = "x"`, true},          // data elsewhere
		{fold, `translations with (text contains "a")`, false},          // data of an element
		{fold, `translations with (login of user contains "a")`, false}, // a login
		{fold, `translations with (language contains "d")`, true},
		{plain, `identifier contains "ſ"`, true}, // contains does not fold
	} {
		q, msg := checked(t, c.tg)(c.src)
		if !assert.NotNil(t, q, msg) {
			continue
		}
		assert.Equal(t, c.want, fuzz.LowerFoldSafe(q, p), c.src)
	}
}
