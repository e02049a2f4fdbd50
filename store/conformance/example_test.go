package compile_test

import (
	"context"
	"fmt"

	"github.com/croql/croql"
	"github.com/croql/croql/mapping"
	"github.com/croql/croql/schema"
	"github.com/croql/croql/store"
)

// ExampleLoad loads a project into embedded SQLite with the reference
// tables and runs a compiled query there.
func ExampleLoad() {
	ctx := context.Background()
	db, err := store.Open(ctx, "sqlite", "") // a private in-memory database
	if err != nil {
		fmt.Println(err)
		return
	}
	defer db.Close()

	p := &schema.Project{
		Users: []schema.UserRef{{ID: 1, Login: "alice"}},
		Strings: []schema.SourceString{
			{ID: 1, Text: "Pay now", Identifier: "checkout.pay", Type: "plain"},
			{ID: 2, Text: "Cart", Identifier: "cart.title", Type: "plain", IsHidden: true},
			{ID: 3, Text: "Pay later", Identifier: "checkout.later", Type: "plain",
				Translations: []schema.Translation{{ID: 30, StringID: 3, Text: "Später zahlen", Language: "de", User: 1, PluralForm: "none"}}},
		},
	}
	m := mapping.Default(schema.New())
	if err := store.Load(ctx, db, m, p); err != nil {
		fmt.Println(err)
		return
	}
	env, _ := croql.NewEnv(croql.Strings, croql.WithUserIDs(p.UserIDs()))
	q, _ := env.Check(`text contains "Pay" and count of translations where (user = @user:"alice") = 0`)
	ids, err := store.Run(ctx, db.SQL, db.Dialect, m, q)
	fmt.Println(ids, err)
	// Output:
	// [1] <nil>
}
