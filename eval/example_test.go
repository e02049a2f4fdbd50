package eval_test

import (
	"fmt"

	"github.com/croql/croql"
	"github.com/croql/croql/eval"
	"github.com/croql/croql/schema"
)

// ExampleFilter keeps the strings a query matches, in order, with no
// allocation per object beyond the result.
func ExampleFilter() {
	env, _ := croql.NewEnv(croql.Strings)
	q, diags := env.Compile(`not is hidden and count of translations where (is pre translated) > 0`)
	if diags.HasErrors() {
		fmt.Println(diags)
		return
	}
	strs := []schema.SourceString{
		{ID: 1, Translations: []schema.Translation{{ID: 10, IsPreTranslated: true}}},
		{ID: 2, IsHidden: true, Translations: []schema.Translation{{ID: 20, IsPreTranslated: true}}},
		{ID: 3, Translations: []schema.Translation{{ID: 30}}},
		{ID: 4, Translations: []schema.Translation{{ID: 40}, {ID: 41, IsPreTranslated: true}}},
	}
	for _, s := range eval.Filter(q.Program(), strs) {
		fmt.Println(s.ID)
	}
	// Output:
	// 1
	// 4
}
