package bind_test

import (
	"errors"
	"fmt"
	"time"

	"github.com/croql/croql"
	"github.com/croql/croql/bind"
)

// Article is a service's own type: its fields carry the CroQL fields of
// a source string they hold.
type Article struct {
	Slug    string    `croql:"identifier"`
	Body    string    `croql:"text"`
	Limit   *int      `croql:"max length"` // nil: no limit (absent)
	Draft   bool      `croql:"is hidden"`
	Created time.Time `croql:"added"`
	Notes   []Note    `croql:"comments"`
	Owner   string    // not bound: no query can read it
}

// Note holds a comment of a source string.
type Note struct {
	Text   string // comments have no text field in CroQL
	Author int64  `croql:"user"`
	Issue  bool   `croql:"has issue"`
}

// Example evaluates a query over a struct the example defines itself, and
// shows the misuse that is reported: a query reading a field the binding
// lacks, and a value of the wrong type given to the untyped Match.
func Example() {
	b, err := bind.New[Article](croql.Strings)
	if err != nil {
		fmt.Println(err)
		return
	}
	env, _ := croql.NewEnv(croql.Strings)

	q, diags := bind.Compile(env, b, `not is hidden and text contains "pay" and count of comments where (has issue) = 0`)
	if diags.HasErrors() {
		fmt.Println(diags)
		return
	}
	limit := 40
	articles := []Article{
		{Slug: "checkout.pay", Body: "Please pay now", Limit: &limit, Created: time.Date(2024, 3, 1, 0, 0, 0, 0, time.UTC)},
		{Slug: "checkout.paid", Body: "You will pay later", Notes: []Note{{Text: "typo", Issue: true}}},
		{Slug: "draft.pay", Body: "Pay (draft)", Draft: true},
	}
	for _, a := range q.Filter(articles) {
		fmt.Println("match:", a.Slug)
	}

	// A query that reads a field Article does not bind is a diagnostic.
	_, diags = bind.Compile(env, b, `id of file = 7`)
	fmt.Println(diags[0].Rule+":", diags[0].Message)

	// The untyped Match of the schema types says why it cannot evaluate
	// an Article, instead of a silent false.
	plain, _ := env.Compile(`is hidden`)
	_, err = plain.Match(&articles[0])
	fmt.Println(errors.Is(err, croql.ErrMisuse))
	// Output:
	// match: checkout.pay
	// unbound-field: `file` of source string is not bound to a field of bind_test.Article
	// true
}

// ExampleQuery_Match evaluates a query on one value of the service's own
// type; a nil pointer is an error, not a false.
func ExampleQuery_Match() {
	b, err := bind.New[Article](croql.Strings)
	if err != nil {
		fmt.Println(err)
		return
	}
	env, _ := croql.NewEnv(croql.Strings)
	q, diags := bind.Compile(env, b, `not is hidden and max length < 50`)
	if diags.HasErrors() {
		fmt.Println(diags)
		return
	}
	limit := 40
	ok, err := q.Match(&Article{Slug: "checkout.pay", Limit: &limit})
	fmt.Println(ok, err)
	ok, err = q.Match(&Article{Slug: "checkout.paid"}) // no limit: max length is absent
	fmt.Println(ok, err)
	_, err = q.Match(nil)
	fmt.Println(errors.Is(err, croql.ErrMisuse))
	// Output:
	// true <nil>
	// false <nil>
	// true
}
